// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <stdexcept>

namespace onnxscope::cli {

/// Exit codes of onnxscope-cli.
enum ExitCode : int { kOk = 0, kModelError = 1, kUsageError = 2 };

/// A mistake in the command line that CLI11 cannot see (a malformed NAME=FILE, an option needing another); exits 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Each command adds its subcommand to the app and returns the function that runs it after parsing
/// (returning -1 when its subcommand was not the one given).
using CommandRunner = std::function<int()>;

CommandRunner addInfoCommand(CLI::App& app);
CommandRunner addRunCommand(CLI::App& app);
CommandRunner addTestCommand(CLI::App& app);
CommandRunner addOpsCommand(CLI::App& app);
CommandRunner addCompareCommand(CLI::App& app);
CommandRunner addExtractCommand(CLI::App& app);
CommandRunner addPrecisionCommand(CLI::App& app);
CommandRunner addQuantizationCommand(CLI::App& app);

} // namespace onnxscope::cli
