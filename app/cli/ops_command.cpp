// SPDX-License-Identifier: MIT
#include "app/cli/commands.h"

#include "engine/exec/operator_support.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>

namespace onnxscope::cli {

namespace {

struct OpsOptions {
    bool json = false;
    std::string domain;
};

/// "1, 6, 13, 14" (the schema versions a kernel implements), or "1-" / "2-5" for a custom domain's opset range.
std::string versionText(const SupportedOperator& e)
{
    if (!e.versions.empty()) {
        std::string text;
        for (int v : e.versions)
            text += (text.empty() ? "" : ", ") + std::to_string(v);
        return text;
    }
    return std::to_string(e.sinceVersion) + "-"
        + (e.lastVersion == SupportedOperator::kLatest ? std::string() : std::to_string(e.lastVersion));
}

int runOps(const OpsOptions& o)
{
    auto entries = supportedOperators();
    auto unsupported = unsupportedOperators();
    auto domainName = [](const std::string& d) { return d.empty() ? std::string("ai.onnx") : d; };
    if (!o.domain.empty()) {
        std::erase_if(entries, [&](const SupportedOperator& e) { return domainName(e.domain) != o.domain; });
        std::erase_if(unsupported, [&](const UnsupportedOperator& e) { return domainName(e.domain) != o.domain; });
    }
    if (o.json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& e : entries) {
            nlohmann::json j { { "domain", domainName(e.domain) }, { "op", e.opType }, { "since", e.sinceVersion } };
            j["until"]
                = e.lastVersion == SupportedOperator::kLatest ? nlohmann::json(nullptr) : nlohmann::json(e.lastVersion);
            if (!e.versions.empty())
                j["versions"] = e.versions;
            list.push_back(std::move(j));
        }
        nlohmann::json missing = nlohmann::json::array();
        for (const auto& u : unsupported)
            missing.push_back({ { "domain", domainName(u.domain) }, { "op", u.opType }, { "version", u.sinceVersion },
                { "reason", u.reason } });
        std::cout << nlohmann::json { { "ops", list }, { "unsupported", missing } }.dump(2) << "\n";
        return kOk;
    }
    size_t opWidth = 2, domainWidth = 6;
    for (const auto& e : entries) {
        opWidth = std::max(opWidth, e.opType.size());
        domainWidth = std::max(domainWidth, domainName(e.domain).size());
    }
    for (const auto& u : unsupported) {
        opWidth = std::max(opWidth, u.opType.size() + 4);
        domainWidth = std::max(domainWidth, domainName(u.domain).size());
    }
    std::cout << std::left << std::setw(int(domainWidth)) << "domain"
              << "  " << std::setw(int(opWidth)) << "op"
              << "  versions (opsets in custom domains)\n";
    for (const auto& e : entries)
        std::cout << std::setw(int(domainWidth)) << domainName(e.domain) << "  " << std::setw(int(opWidth)) << e.opType
                  << "  " << versionText(e) << "\n";
    std::cout << entries.size() << " kernels\n";
    if (!unsupported.empty()) {
        std::cout << "\nnot supported (" << unsupported.size() << " operator versions):\n";
        for (const auto& u : unsupported)
            std::cout << std::setw(int(domainWidth)) << domainName(u.domain) << "  " << std::setw(int(opWidth))
                      << (u.opType + "-" + std::to_string(u.sinceVersion)) << "  " << u.reason << "\n";
    }
    return kOk;
}

} // namespace

CommandRunner addOpsCommand(CLI::App& app)
{
    auto o = std::make_shared<OpsOptions>();
    auto* cmd = app.add_subcommand("ops",
        "List the operators: the versions each kernel implements, and the versions that are not supported, with why");
    cmd->add_flag("--json", o->json, "Machine-readable output");
    cmd->add_option("--domain", o->domain, "Only this domain (\"ai.onnx\" for the default one)");
    return [cmd, o]() -> int { return cmd->parsed() ? runOps(*o) : -1; };
}

} // namespace onnxscope::cli
