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

int runOps(const OpsOptions& o)
{
    auto entries = supportedOperators();
    auto domainName = [](const std::string& d) { return d.empty() ? std::string("ai.onnx") : d; };
    if (!o.domain.empty()) {
        std::erase_if(entries, [&](const SupportedOperator& e) { return domainName(e.domain) != o.domain; });
    }
    if (o.json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& e : entries) {
            nlohmann::json j { { "domain", domainName(e.domain) }, { "op", e.opType }, { "since", e.sinceVersion } };
            j["until"]
                = e.lastVersion == SupportedOperator::kLatest ? nlohmann::json(nullptr) : nlohmann::json(e.lastVersion);
            list.push_back(std::move(j));
        }
        std::cout << nlohmann::json { { "ops", list } }.dump(2) << "\n";
        return kOk;
    }
    size_t opWidth = 2, domainWidth = 6;
    for (const auto& e : entries) {
        opWidth = std::max(opWidth, e.opType.size());
        domainWidth = std::max(domainWidth, domainName(e.domain).size());
    }
    std::cout << std::left << std::setw(int(domainWidth)) << "domain"
              << "  " << std::setw(int(opWidth)) << "op"
              << "  opsets\n";
    for (const auto& e : entries) {
        std::string range = std::to_string(e.sinceVersion) + "-"
            + (e.lastVersion == SupportedOperator::kLatest ? std::string() : std::to_string(e.lastVersion));
        std::cout << std::setw(int(domainWidth)) << domainName(e.domain) << "  " << std::setw(int(opWidth)) << e.opType
                  << "  " << range << "\n";
    }
    std::cout << entries.size() << " kernels\n";
    return kOk;
}

} // namespace

CommandRunner addOpsCommand(CLI::App& app)
{
    auto o = std::make_shared<OpsOptions>();
    auto* cmd = app.add_subcommand("ops", "List the supported operators: domain, op type and opset range");
    cmd->add_flag("--json", o->json, "Machine-readable output");
    cmd->add_option("--domain", o->domain, "Only this domain (\"ai.onnx\" for the default one)");
    return [cmd, o]() -> int { return cmd->parsed() ? runOps(*o) : -1; };
}

} // namespace onnxscope::cli
