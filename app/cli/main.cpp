// SPDX-License-Identifier: MIT
#include "app/cli/commands.h"

#include "engine/core/error.h"
#include "engine/core/version.h"

#include <iostream>

int main(int argc, char** argv)
{
    using namespace onnxscope::cli;
    CLI::App app { "onnxscope-cli: inspect, run and debug ONNX models from scripts", "onnxscope-cli" };
    app.set_version_flag("--version", onnxscope::engineVersionLine("onnxscope-cli"));
    app.require_subcommand(1);
    std::vector<CommandRunner> commands { addInfoCommand(app), addRunCommand(app), addTestCommand(app),
        addOpsCommand(app), addCompareCommand(app), addExtractCommand(app), addPrecisionCommand(app),
        addQuantizationCommand(app) };
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? kOk : kUsageError;
    }
    try {
        for (const auto& run : commands)
            if (int code = run(); code >= 0)
                return code;
    } catch (const UsageError& e) {
        std::cerr << "error: " << e.what() << "\nRun with --help for more information.\n";
        return kUsageError;
    } catch (const onnxscope::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return kModelError;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return kModelError;
    }
    return kUsageError;
}
