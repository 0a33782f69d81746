// SPDX-License-Identifier: MIT
// onnxscope-cli check-quantization: for a float model and its quantized copy (QDQ or QOperator), a ranked table of
// each quantized layer's own error (fed the float run's inputs) beside the error it has in the quantized run.
#include "app/cli/cli_inputs.h"
#include "app/cli/cli_util.h"
#include "app/cli/commands.h"

#include "engine/analysis/quant_error.h"
#include "engine/model/model.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace onnxscope::cli {

namespace {

struct QuantCliOptions {
    std::string floatModel, quantModel;
    std::vector<std::string> inputs, dims;
    uint64_t seed = 0;
    std::string json;
    int top = 20;
    LimitOptions limits;
    ThreadOptions threads;
};

std::string num(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return "inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string stats(const QuantErrorStats& s)
{
    if (!s.computed)
        return "- | - | -";
    char cosine[32];
    std::snprintf(cosine, sizeof cosine, "%.5f", s.cosine);
    return num(s.relativeL2) + " | " + num(s.maxAbsError) + " | " + cosine;
}

int runCheckQuantization(const QuantCliOptions& o)
{
    if (o.top < 0)
        throw UsageError("--top must be 0 (every layer) or more");
    QuantErrorOptions options;
    options.session.limits = o.limits.apply();
    const std::unique_ptr<ThreadPool> pool = o.threads.makePool();
    options.session.threadPool = pool.get();

    auto floatModel = Model::load(o.floatModel);
    auto quantModel = Model::load(o.quantModel);
    // The inputs as `run` reads them, for the float model; the quantized copy is fed the same values by name.
    std::map<std::string, Value> inputs = readInputOptions(floatModel->graph(), o.inputs);
    completeInputs(floatModel->graph(), inputs, RandomInputs { true, o.seed, parseDims(o.dims) });
    const QuantErrorReport report = checkQuantization(
        std::make_shared<Program>(floatModel), std::make_shared<Program>(quantModel), inputs, options);

    size_t computed = 0;
    for (const auto& l : report.layers)
        computed += l.own.computed;
    std::cout << "check-quantization: " << o.quantModel << " (" << report.format << ") against " << o.floatModel << "\n"
              << report.layers.size() << " quantized layer(s) paired with the float model, " << computed
              << " run alone on the float run's inputs; " << report.unpaired.size() << " not paired\n"
              << "own: the layer fed the float values, quantized with its own input scales; accumulated: the quantized "
                 "model's own run; both against the float output (relative L2 | max abs | cosine)\n";
    std::cout << "rank | layer | op | float value | own rel L2 | own max abs | own cosine | accumulated rel L2 | "
                 "accumulated max abs | accumulated cosine | accumulated rank\n";
    size_t shown = 0;
    for (const auto& l : report.layers) {
        if (o.top > 0 && shown == static_cast<size_t>(o.top))
            break;
        ++shown;
        std::cout << (l.ownRank > 0 ? std::to_string(l.ownRank) : std::string("-")) << " | " << l.node << " | "
                  << l.opType << " | " << l.floatValue << (l.pairedBy == "name" ? "" : " (" + l.pairedBy + ")") << " | "
                  << stats(l.own) << " | " << stats(l.accumulated) << " | "
                  << (l.accumulatedRank > 0 ? std::to_string(l.accumulatedRank) : std::string("-")) << "\n";
        if (!l.error.empty())
            std::cout << "  not run alone: " << l.error << "\n";
    }
    if (shown < report.layers.size())
        std::cout << "(" << report.layers.size() - shown << " more; --top 0 lists every layer)\n";
    for (const auto& u : report.unpaired)
        std::cout << "not paired: " << u << "\n";
    if (!o.json.empty()) {
        std::ofstream out(o.json);
        out << quantErrorJson(report) << "\n";
        out.close();
        check(out.good(), "cannot write \"" + o.json + "\"");
    }
    return kOk;
}

} // namespace

CommandRunner addQuantizationCommand(CLI::App& app)
{
    auto o = std::make_shared<QuantCliOptions>();
    auto* cmd = app.add_subcommand("check-quantization",
        "Rank the layers of a quantized copy (QDQ or QOperator) of a float model by the error each adds on its own, "
        "fed the float run's inputs, beside the error it has in the quantized run (docs/features.md, \"Int8 per-layer "
        "error\")");
    cmd->add_option("float_model", o->floatModel, "The float .onnx file")->required();
    cmd->add_option("quant_model", o->quantModel, "Its quantized copy (e.g. from onnxruntime.quantization)")
        ->required();
    cmd->add_option("-i,--input", o->inputs,
        "NAME=FILE (.npy, .npz, .pb), or an .npz named after the inputs; the inputs not given are made up as run "
        "--random-inputs makes them. Both models get the same values");
    cmd->add_option("--seed", o->seed, "Seed for the made-up inputs")->capture_default_str();
    cmd->add_option("--dim", o->dims, "SYMBOL=VALUE: a symbolic dimension of the made-up inputs");
    cmd->add_option("--json", o->json, "Write the report as JSON (every layer with its own and accumulated error)");
    cmd->add_option("--top", o->top, "Show this many layers (0: all)")->capture_default_str();
    o->limits.addTo(cmd);
    o->threads.addTo(cmd);
    return [cmd, o]() -> int { return cmd->parsed() ? runCheckQuantization(*o) : -1; };
}

} // namespace onnxscope::cli
