// SPDX-License-Identifier: MIT
#include "app/cli/cli_util.h"
#include "app/cli/commands.h"

#include "engine/compare/backend_case.h"

#include <fstream>
#include <iostream>
#include <set>

namespace onnxscope::cli {

namespace {

struct TestOptions {
    std::vector<std::string> paths;
    double rtol = 1e-3;
    double atol = 1e-7;
    std::string expectedFailures;
    bool verbose = false;
    LimitOptions limits;
    ThreadOptions threads;
};

/// Reads an expected-failures list: one case name per line, optionally followed by `# reason`.
std::set<std::string> readExpectedFailures(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw Error("cannot read expected-failures list \"" + path + "\"");
    std::set<std::string> names;
    std::string line;
    while (std::getline(in, line)) {
        auto hash = line.find('#');
        if (hash != std::string::npos)
            line.resize(hash);
        auto b = line.find_first_not_of(" \t\r");
        auto e = line.find_last_not_of(" \t\r");
        if (b != std::string::npos)
            names.insert(line.substr(b, e - b + 1));
    }
    return names;
}

int runTests(const TestOptions& o)
{
    o.limits.apply();
    const std::unique_ptr<ThreadPool> pool = o.threads.makePool();
    std::set<std::string> expected;
    if (!o.expectedFailures.empty())
        expected = readExpectedFailures(o.expectedFailures);
    std::vector<std::filesystem::path> cases;
    for (const auto& p : o.paths) {
        auto found = findBackendCases(p);
        if (found.empty())
            throw Error("\"" + p + "\" is not a backend test case folder and contains none");
        cases.insert(cases.end(), found.begin(), found.end());
    }
    int passed = 0, failed = 0, skipped = 0, unexpectedFailures = 0, unexpectedPasses = 0;
    for (const auto& dir : cases) {
        auto r = runBackendCase(dir, { o.rtol, o.atol }, pool.get());
        const bool listed = expected.count(r.name) > 0;
        switch (r.status) {
        case BackendCaseResult::Status::Passed:
            ++passed;
            if (listed) {
                ++unexpectedPasses;
                std::cout << "UNEXPECTED PASS " << r.name << " (remove it from the expected-failures list)\n";
            } else if (o.verbose) {
                std::cout << "ok " << r.name << "\n";
            }
            break;
        case BackendCaseResult::Status::Failed:
            ++failed;
            if (listed) {
                if (o.verbose)
                    std::cout << "expected failure " << r.name << ": " << r.message << "\n";
            } else {
                ++unexpectedFailures;
                std::cout << "FAIL " << r.name << ": " << r.message << "\n";
            }
            break;
        case BackendCaseResult::Status::Skipped:
            ++skipped;
            if (o.verbose)
                std::cout << "skip " << r.name << ": " << r.message << "\n";
            break;
        }
    }
    std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped";
    if (!o.expectedFailures.empty())
        std::cout << " (" << failed - unexpectedFailures << " expected failures, " << unexpectedFailures
                  << " unexpected failures, " << unexpectedPasses << " unexpected passes)";
    std::cout << "\n";
    if (o.expectedFailures.empty())
        return failed > 0 ? kModelError : kOk;
    return unexpectedFailures + unexpectedPasses > 0 ? kModelError : kOk;
}

} // namespace

CommandRunner addTestCommand(CLI::App& app)
{
    auto o = std::make_shared<TestOptions>();
    auto* cmd = app.add_subcommand("test", "Run ONNX backend test-case folders (model.onnx + test_data_set_*)");
    cmd->add_option("cases", o->paths, "Case folders, or folders containing case folders")->required();
    cmd->add_option("--rtol", o->rtol, "Relative tolerance")->capture_default_str();
    cmd->add_option("--atol", o->atol, "Absolute tolerance")->capture_default_str();
    cmd->add_option("--expected-failures", o->expectedFailures,
        "File listing cases expected to fail; exit 1 on an unlisted failure or a listed case that passes");
    cmd->add_flag("-v,--verbose", o->verbose, "Print every case");
    o->limits.addTo(cmd, false);
    o->threads.addTo(cmd);
    return [cmd, o]() -> int { return cmd->parsed() ? runTests(*o) : -1; };
}

} // namespace onnxscope::cli
