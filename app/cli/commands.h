// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>

namespace onnxscope::cli {

/// Exit codes of onnxscope-cli.
enum ExitCode : int { kOk = 0, kModelError = 1, kUsageError = 2 };

/// Each command adds its subcommand to the app and returns the function that runs it after parsing.
using CommandRunner = std::function<int()>;

CommandRunner addTestCommand(CLI::App& app);

} // namespace onnxscope::cli
