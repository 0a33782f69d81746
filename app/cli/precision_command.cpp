// SPDX-License-Identifier: MIT
// onnxscope-cli check-precision: which values of a float32 model overflow or flush to zero in float16/bfloat16, the
// nodes to keep in float32 (as the float16 converters' node_block_list), and optionally the mixed-precision model.
#include "app/cli/cli_inputs.h"
#include "app/cli/cli_util.h"
#include "app/cli/commands.h"

#include "engine/analysis/precision_check.h"
#include "engine/model/model.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace onnxscope::cli {

namespace {

struct PrecisionCliOptions {
    std::string model;
    std::string to;
    std::vector<std::string> inputs, dims;
    uint64_t seed = 0;
    double underflowShare = 0.5;
    std::string json, blockList, blockListFormat = "auto", write;
    LimitOptions limits;
    ThreadOptions threads;
};

std::string num(double v)
{
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

void writeFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path);
    out << text;
    out.close();
    check(out.good(), "cannot write \"" + path + "\"");
}

int runCheckPrecision(const PrecisionCliOptions& o)
{
    PrecisionCheckOptions options;
    try {
        options.target = parsePrecisionTarget(o.to);
    } catch (const Error& e) {
        throw UsageError(std::string("--to: ") + e.what());
    }
    if (!(o.underflowShare >= 0 && o.underflowShare < 1))
        throw UsageError("--underflow-share must be at least 0 and below 1");
    if (o.blockListFormat != "auto" && o.blockListFormat != "json" && o.blockListFormat != "lines")
        throw UsageError("--block-list-format must be auto, json or lines");
    options.underflowShare = o.underflowShare;
    options.session.limits = o.limits.apply();
    const std::unique_ptr<ThreadPool> pool = o.threads.makePool();
    options.session.threadPool = pool.get();

    auto model = Model::load(o.model);
    const Graph& graph = model->graph();
    // The inputs as `run` reads them; the others made up as run --random-inputs makes them.
    std::map<std::string, Value> inputs = readInputOptions(graph, o.inputs);
    completeInputs(graph, inputs, RandomInputs { true, o.seed, parseDims(o.dims) });
    auto program = std::make_shared<Program>(model);
    const PrecisionReport report = checkPrecision(program, inputs, options);

    const std::string typeName(dataTypeName(options.target.type));
    std::cout << "check-precision: " << o.model << " to " << typeName << " (largest finite "
              << num(options.target.maxFinite()) << ", smallest subnormal " << num(options.target.smallestSubnormal())
              << "; a value mostly flushes to zero when more than " << num(100 * options.underflowShare)
              << "% of its non-zero elements are below that)\n";
    std::cout << report.valuesChecked << " float32 value(s) checked, " << report.flagged.size() << " flagged\n";
    if (!report.flagged.empty()) {
        std::cout << "value | made by | elements | min | max | smallest |x|>0 | overflow | underflowed share | flag\n";
        for (const auto& p : report.flagged) {
            std::string by = p.producer.empty()
                ? (p.origin == PrecisionValue::Origin::GraphInput ? "(graph input)" : "(initializer)")
                : p.producer + " (" + p.producerOp + ")";
            if (p.framePath != "main")
                by = p.framePath + " / " + by;
            std::cout << "\"" << p.name << "\" | " << by << " | " << p.elements << " | " << num(p.min) << " | "
                      << num(p.max) << " | " << num(p.minAbsNonZero) << " | " << p.overflow << " | "
                      << num(100 * p.underflowShare()) << "% (" << p.underflow << "/" << p.nonZero << ") | "
                      << (p.overflows ? "overflow" : "underflow") << "\n";
        }
        std::cout << "keep in float32 (" << report.keep.size() << " node(s)):\n";
        for (const auto& k : report.keep) {
            std::cout << "  " << (k.name.empty() ? k.displayName + " (unnamed in the file)" : k.name) << " ("
                      << k.opType << ")" << (k.framePath == "main" ? "" : " at " + k.framePath) << ":";
            for (size_t i = 0; i < k.reasons.size(); ++i)
                std::cout << (i ? "; " : " ") << k.reasons[i];
            std::cout << "\n";
        }
        for (const auto& note : report.notes)
            std::cout << "note: " << note << "\n";
        if (size_t unnamed = report.unnamedKeep())
            std::cout << "warning: " << unnamed
                      << " node(s) to keep have no name in the file; node_block_list cannot name them\n";
    } else {
        std::cout << "no value overflows or mostly flushes to zero in " << typeName << " on these inputs\n";
    }
    if (!o.json.empty())
        writeFile(o.json, precisionReportJson(report) + "\n");
    if (!o.blockList.empty()) {
        const bool json = o.blockListFormat == "json"
            || (o.blockListFormat == "auto" && fs::path(o.blockList).extension() == ".json");
        writeFile(o.blockList, blockListText(report, json));
        std::cout << "wrote " << o.blockList << " (" << report.blockList().size() << " node name(s), "
                  << (json ? "JSON {\"node_block_list\": [...]}" : "one name a line") << ")\n";
    }
    if (!o.write.empty()) {
        const MixedPrecisionResult mixed = writeMixedPrecisionModel(*model, report, inputs, o.write, options.session);
        std::cout << "wrote " << o.write << ": " << mixed.lowered.size() << " node(s) in " << typeName << ", "
                  << mixed.keptFloat32.size() << " kept in float32, " << mixed.casts << " Cast(s) added\n";
        for (const auto& [node, why] : mixed.keptFloat32)
            std::cout << "  float32: " << node << ": " << why << "\n";
        std::cout << "mixed model vs float32, on the same inputs (run here):\n";
        for (const auto& e : mixed.outputs) {
            std::cout << "  output \"" << e.name << "\": ";
            if (!e.compared)
                std::cout << "not a float tensor on both sides\n";
            else
                std::cout << "max abs error " << num(e.maxAbsError) << " ("
                          << num(e.maxAbsValue > 0 ? 100 * e.maxAbsError / e.maxAbsValue : 0.0)
                          << "% of its largest |x| in float32, " << num(e.maxAbsValue) << ")"
                          << (e.nonFinite ? ", " + std::to_string(e.nonFinite) + " element(s) not finite" : "") << "\n";
        }
    }
    return kOk;
}

} // namespace

CommandRunner addPrecisionCommand(CLI::App& app)
{
    auto o = std::make_shared<PrecisionCliOptions>();
    auto* cmd = app.add_subcommand("check-precision",
        "Run a float32 model once and name the values that would overflow or mostly flush to zero in float16 or "
        "bfloat16, and the nodes to keep in float32 (docs/features.md, \"Precision advice\")");
    cmd->add_option("model", o->model, "The .onnx file (float32)")->required();
    cmd->add_option("--to", o->to, "The target type: fp16 or bf16")->required();
    cmd->add_option("-i,--input", o->inputs,
        "NAME=FILE (.npy, .npz, .pb), or an .npz named after the inputs; the inputs not given are made up as run "
        "--random-inputs makes them");
    cmd->add_option("--seed", o->seed, "Seed for the made-up inputs")->capture_default_str();
    cmd->add_option("--dim", o->dims, "SYMBOL=VALUE: a symbolic dimension of the made-up inputs");
    cmd->add_option("--underflow-share", o->underflowShare,
           "Flag a value when more than this share of its non-zero elements is below the target's smallest "
           "subnormal")
        ->capture_default_str();
    cmd->add_option("--json", o->json, "Write the report as JSON (flagged values with their evidence, the nodes)");
    cmd->add_option("--block-list", o->blockList,
        "Write the keep-in-fp32 node names: {\"node_block_list\": [...]} (keyword arguments of the float16 "
        "converters) for a .json file, else one name a line");
    cmd->add_option("--block-list-format", o->blockListFormat, "auto (by the file's suffix), json or lines")
        ->capture_default_str();
    cmd->add_option("--write", o->write,
        "Write the mixed-precision model (every other node in the target type, Casts at the boundaries, float32 "
        "inputs and outputs), run it and report each output's error against float32");
    o->limits.addTo(cmd);
    o->threads.addTo(cmd);
    return [cmd, o]() -> int { return cmd->parsed() ? runCheckPrecision(*o) : -1; };
}

} // namespace onnxscope::cli
