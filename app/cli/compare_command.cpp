// SPDX-License-Identifier: MIT
// onnxscope-cli compare: two executions (or one and reference values) value by value, the first divergent node,
// and the table as JSON (docs/compare-format.md) and as Model Explorer node data.
#include "app/cli/cli_inputs.h"
#include "app/cli/cli_util.h"
#include "app/cli/commands.h"

#include "engine/compare/comparison_json.h"
#include "engine/compare/divergence_extract.h"
#include "engine/compare/module_comparison.h"
#include "engine/compare/run_comparison.h"
#include "engine/core/cast.h"
#include "engine/core/half.h"
#include "engine/io/input_reader.h"
#include "engine/model/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <set>

namespace fs = std::filesystem;

namespace onnxscope::cli {

namespace {

struct CompareCliOptions {
    std::string modelA, modelB, reference;
    std::vector<std::string> inputs, inputsB, maps, dims;
    bool randomInputs = false;
    uint64_t seed = 0;
    double rtol = 1e-4, atol = 1e-5;
    std::string json, nodeData, nodeDataMetric = "abs";
    bool noInitializers = false;
    bool divergedOnly = false;
    std::string align = "auto";
    std::string by = "value";
    std::string extractDivergence;
    bool force = false;
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

bool hasStats(const CompareRow& r)
{
    return r.status == CompareStatus::Match || r.status == CompareStatus::Mismatch;
}

std::string statusText(CompareStatus s)
{
    return std::string(compareStatusName(s));
}

void printRow(const CompareRow& r)
{
    std::string where = r.framePath + " | ";
    if (r.origin != ValueOrigin::NodeOutput)
        where += "(" + std::string(valueOriginName(r.origin)) + ")";
    else if (r.node.empty())
        where += "-";
    else if (r.opType.empty())
        where += r.node;
    else
        where += r.node + " (" + r.opType + ")";
    std::string value = "\"" + r.name + "\"";
    if (r.status != CompareStatus::OnlyA && r.status != CompareStatus::OnlyB && r.nameB != r.name)
        value += " ~ \"" + r.nameB + "\"";
    if (r.pairedBy == PairedBy::Content && !r.nodeB.empty())
        value += " (B: " + r.nodeB + " " + r.opTypeB + ")";
    std::cout << where << " | " << value << " | " << (r.typeA.empty() ? "-" : r.typeA) << " | "
              << (r.typeB.empty() ? "-" : r.typeB) << " | ";
    if (hasStats(r) && r.stats.numeric)
        std::cout << num(r.stats.maxAbsError) << " | " << num(r.stats.maxRelError) << " | " << num(r.stats.cosine)
                  << " | " << r.stats.mismatches << "/" << r.stats.elements;
    else if (hasStats(r))
        std::cout << "- | - | - | " << r.stats.mismatches << "/" << r.stats.elements;
    else
        std::cout << "- | - | - | -";
    std::cout << " | " << statusText(r.status);
    if (r.stats.nonFiniteMismatches)
        std::cout << " (" << r.stats.nonFiniteMismatches << " NaN/Inf differ)";
    if (!r.note.empty())
        std::cout << " (" << r.note << ")";
    std::cout << "\n";
}

std::string nodeOutputs(const ComparisonResult& res, const NodeCompare& n)
{
    std::string s;
    for (size_t r : n.rows)
        s += (s.empty() ? "\"" : ", \"") + res.rows[r].name + "\"";
    return s;
}

/// Model Explorer's per-graph node data (GraphNodeData): {"results": {output tensor name: {"value": x}}, "gradient"}.
nlohmann::json nodeDataJson(const ComparisonResult& res, const std::string& metric)
{
    struct Item {
        std::string key;
        double value;
        bool flagged;
    };
    std::vector<Item> items;
    double maxValue = 0;
    for (const auto& [key, n] : res.worstByNode()) {
        if (n->status == CompareStatus::OnlyA || n->status == CompareStatus::Skipped || n->rows.empty())
            continue;
        // Model Explorer matches a result to a node by any of the node's output tensor names.
        std::string name;
        for (size_t r : n->rows)
            if (res.rows[r].status != CompareStatus::OnlyA) {
                name = res.rows[r].name;
                break;
            }
        if (name.empty())
            continue;
        double v = metric == "rel" ? n->maxRelError : metric == "ratio" ? n->toleranceRatio : n->maxAbsError;
        bool nonFinite = false;
        for (size_t r : n->rows)
            nonFinite = nonFinite || res.rows[r].stats.nonFiniteMismatches > 0;
        const bool flagged = nonFinite || n->status == CompareStatus::ShapeMismatch
            || n->status == CompareStatus::KindMismatch || !std::isfinite(v);
        if (std::isfinite(v))
            maxValue = std::max(maxValue, v);
        items.push_back({ name, std::isfinite(v) ? v : 0.0, flagged });
    }
    nlohmann::json results = nlohmann::json::object();
    for (const auto& it : items) {
        nlohmann::json r;
        // Values that cannot be measured (NaN/Inf differences, shape or kind mismatch) take the top of the scale
        // and a colour of their own.
        r["value"] = it.flagged ? maxValue : it.value;
        if (it.flagged)
            r["bgColor"] = "#8e24aa";
        results[it.key] = r;
    }
    nlohmann::json j;
    j["results"] = results;
    j["gradient"] = nlohmann::json::array({ { { "stop", 0 }, { "bgColor", "#2e7d32" } },
        { { "stop", 0.5 }, { "bgColor", "#f9a825" } }, { { "stop", 1 }, { "bgColor", "#c62828" } } });
    return j;
}

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream out(path);
    out << text << "\n";
    out.close();
    check(out.good(), "cannot write \"" + path + "\"");
}

std::string moduleName(const ModuleCompare& m)
{
    std::string s = "\"" + m.path + "\"";
    const size_t dot = m.className.rfind('.');
    if (!m.className.empty())
        s += " (" + (dot == std::string::npos ? m.className : m.className.substr(dot + 1)) + ")";
    if (m.calls > 1)
        s += " call " + std::to_string(m.call);
    return s;
}

/// compare --by module: each module's outputs captured in PyTorch against the values leaving its scope.
int runModuleCompare(const CompareCliOptions& o, const RunSide& a, const CompareOptions& options)
{
    const ReferenceValues reference = ReferenceValues::load(o.reference);
    const ModuleComparisonResult res = compareModulesWithReference(a, reference, options);
    std::cout << "compare by module: A = " << res.sideA << ", B = " << res.sideB << "; rtol " << num(o.rtol)
              << ", atol " << num(o.atol) << "\n";
    std::cout << "module (class) | output | value (node) | type A | type B | max abs | max rel | cosine | "
                 "mismatching | status\n";
    for (const ModuleCompare& m : res.modules) {
        if (o.divergedOnly && !isDivergent(m.status))
            continue;
        for (size_t r : m.rows) {
            const ModuleOutputRow& row = res.rows[r];
            std::cout << moduleName(m) << " | " << (row.output < 0 ? std::string("-") : std::to_string(row.output))
                      << " | ";
            if (row.value.empty())
                std::cout << "-";
            else
                std::cout << "\"" << row.value << "\" (" << row.node << " " << row.opType << ")";
            std::cout << " | " << (row.typeA.empty() ? "-" : row.typeA) << " | " << row.typeB << " | ";
            if ((row.status == CompareStatus::Match || row.status == CompareStatus::Mismatch) && row.stats.numeric)
                std::cout << num(row.stats.maxAbsError) << " | " << num(row.stats.maxRelError) << " | "
                          << num(row.stats.cosine) << " | " << row.stats.mismatches << "/" << row.stats.elements;
            else
                std::cout << "- | - | - | -";
            std::cout << " | " << statusText(row.status);
            if (row.status == CompareStatus::OnlyB)
                std::cout << " (not paired)";
            if (!row.note.empty())
                std::cout << " (" << row.note << ")";
            std::cout << "\n";
        }
    }
    for (const auto& u : res.unmatchedKeys) {
        std::cout << "key \"" << u.key
                  << "\" names no module of the graph (no node carries that module path: the exporter folded it into "
                     "constants, or the key is misspelt); nearest:";
        for (const auto& n : u.nearest)
            std::cout << " \"" << n << "\"";
        std::cout << "\n";
    }
    size_t unpaired = 0;
    for (const auto& m : res.modules)
        unpaired += m.status == CompareStatus::OnlyB || m.status == CompareStatus::Skipped;
    size_t unpairedOutputs = 0;
    for (const auto& row : res.rows)
        unpairedOutputs += row.status == CompareStatus::OnlyB || row.status == CompareStatus::Skipped;
    std::cout << "module calls: " << res.countModules(CompareStatus::Match) << " match, "
              << res.countModules(CompareStatus::Mismatch) << " mismatch, "
              << res.countModules(CompareStatus::ShapeMismatch) << " shape mismatch, "
              << res.countModules(CompareStatus::KindMismatch) << " kind mismatch, " << unpaired << " not paired ("
              << res.modules.size() << " module call(s) in the reference; the graph names " << res.graphModules
              << " modules)";
    if (unpairedOutputs)
        std::cout << "; " << unpairedOutputs << " output(s) not paired or not computed";
    std::cout << "\n";
    if (!res.errorA.empty())
        std::cout << "side A failed: " << res.errorA << "\n";
    if (res.firstDivergence) {
        const ModuleCompare& m = res.modules[*res.firstDivergence];
        std::cout << "first divergent module: " << moduleName(m) << " [" << m.className
                  << "]: " << statusText(m.status);
        if (m.status == CompareStatus::Mismatch)
            std::cout << ", max abs error " << num(m.maxAbsError) << ", max rel error " << num(m.maxRelError)
                      << ", cosine " << num(m.minCosine);
        std::cout << "\n";
        for (size_t r : m.rows)
            if (isDivergent(res.rows[r].status))
                std::cout << "  output " << (res.rows[r].output < 0 ? "" : std::to_string(res.rows[r].output) + " ")
                          << "\"" << res.rows[r].key << "\" ~ value \"" << res.rows[r].value << "\" made by node \""
                          << res.rows[r].node << "\" (" << res.rows[r].opType << ")"
                          << (res.rows[r].note.empty() ? "" : ": " + res.rows[r].note) << "\n";
    } else if (res.hasDivergence()) {
        std::cout << "no divergent module (the run did not finish)\n";
    } else {
        std::cout << "no divergence: every module output paired matches\n";
    }
    if (!o.json.empty())
        writeText(o.json, moduleComparisonJson(res));
    return res.hasDivergence() ? kModelError : kOk;
}

int runCompare(const CompareCliOptions& o)
{
    if (o.by != "value" && o.by != "module")
        throw UsageError("--by must be value or module, got \"" + o.by + "\"");
    if (o.by == "module" && (o.reference.empty() || !o.modelB.empty()))
        throw UsageError("--by module compares with values captured in PyTorch: give --reference FILE.npz (written "
                         "by onnxscope.torch.capture), not a second model");
    if (o.by == "module" && (!o.nodeData.empty() || !o.maps.empty()))
        throw UsageError("--node-data and --map apply to --by value only");
    if (!o.modelB.empty() && !o.reference.empty())
        throw UsageError("give either a second model or --reference, not both");
    if (o.modelB.empty() && o.reference.empty())
        throw UsageError("compare needs a second model (B.onnx) or --reference DIR|FILE.npz");
    if (!o.extractDivergence.empty() && o.modelB.empty())
        throw UsageError("--extract-divergence needs a second model: it extracts side A's and side B's nodes");
    if (!o.extractDivergence.empty() && fs::exists(o.extractDivergence) && !fs::is_empty(o.extractDivergence)
        && !o.force)
        throw UsageError(
            "\"" + o.extractDivergence + "\" exists and is not empty; choose another folder or add --force");

    if (!o.inputsB.empty() && o.modelB.empty())
        throw UsageError("--input-b needs a second model");
    if (!(o.rtol >= 0) || !(o.atol >= 0))
        throw UsageError("--rtol and --atol must be non-negative");
    if (o.nodeDataMetric != "abs" && o.nodeDataMetric != "rel" && o.nodeDataMetric != "ratio")
        throw UsageError("--node-data-metric must be abs, rel or ratio");
    const RandomInputs random { o.randomInputs, o.seed, parseDims(o.dims) };
    CompareOptions options;
    options.sessionOptions.limits = o.limits.apply();
    const std::unique_ptr<ThreadPool> pool = o.threads.makePool();
    options.sessionOptions.threadPool = pool.get();
    options.tolerance = { o.rtol, o.atol };
    options.compareInitializers = !o.noInitializers;
    try {
        options.align = parseAlignMode(o.align);
    } catch (const Error& e) {
        throw UsageError(std::string("--align: ") + e.what());
    }
    if (!o.reference.empty() && options.align == AlignMode::Content)
        throw UsageError("--align content needs a second model: reference values pair by name");
    for (const auto& m : o.maps) {
        auto eq = m.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == m.size())
            throw UsageError("--map expects NAME_A=NAME_B, got \"" + m + "\"");
        options.nameMap[m.substr(0, eq)] = m.substr(eq + 1);
    }

    RunSide a;
    auto modelA = Model::load(o.modelA);
    a.program = std::make_shared<Program>(modelA);
    a.description = o.modelA;
    a.inputs = readInputs(modelA->graph(), o.inputs, "--input");
    completeInputs(modelA->graph(), a.inputs, random, "A");

    if (o.by == "module")
        return runModuleCompare(o, a, options);

    ComparisonResult res;
    std::string kind;
    RunSide b;
    if (!o.modelB.empty()) {
        kind = "model";
        auto modelB = Model::load(o.modelB);
        const Graph& gb = modelB->graph();
        b.program = std::make_shared<Program>(modelB);
        b.description = o.modelB;
        if (!o.inputsB.empty()) {
            b.inputs = readInputs(gb, o.inputsB, "--input-b");
        } else {
            // B takes A's inputs by name, converted when B declares another floating-point type (fp32 vs fp16). When
            // no name is shared and both declare as many inputs (a re-exported model), by position.
            const Graph& ga = modelA->graph();
            bool anyShared = false;
            for (ValueId id : gb.inputs())
                anyShared = anyShared || a.inputs.count(gb.value(id).name) > 0;
            bool byPosition = !anyShared && ga.inputs().size() == gb.inputs().size();
            for (size_t k = 0; byPosition && k < gb.inputs().size(); ++k) {
                const auto& v = gb.value(gb.inputs()[k]);
                auto it = a.inputs.find(ga.value(ga.inputs()[k]).name);
                try {
                    byPosition = it != a.inputs.end();
                    if (byPosition) { // only when every input fits B's declared type
                        Value value = it->second;
                        if (value.isTensor() && v.type.kind == Value::Kind::Tensor
                            && v.type.elementType != DataType::Undefined && isFloatingPoint(value.tensor().dtype())
                            && isFloatingPoint(v.type.elementType))
                            value = Value(castTensor(value.tensor(), v.type.elementType));
                        v.type.checkValue(value, v.name);
                    }
                } catch (const Error&) {
                    byPosition = false;
                }
            }
            for (size_t k = 0; k < gb.inputs().size(); ++k) {
                const auto& v = gb.value(gb.inputs()[k]);
                auto it = a.inputs.find(byPosition ? ga.value(ga.inputs()[k]).name : v.name);
                if (it == a.inputs.end())
                    continue;
                if (byPosition)
                    std::cout << "input \"" << v.name << "\" of B takes A's \"" << it->first << "\" (same position)\n";
                Value value = it->second;
                if (value.isTensor() && v.type.kind == Value::Kind::Tensor && v.type.elementType != DataType::Undefined
                    && value.tensor().dtype() != v.type.elementType && isFloatingPoint(value.tensor().dtype())
                    && isFloatingPoint(v.type.elementType)) {
                    std::cout << "input \"" << v.name << "\" converted from " << dataTypeName(value.tensor().dtype())
                              << " to " << dataTypeName(v.type.elementType) << " for B\n";
                    value = Value(castTensor(value.tensor(), v.type.elementType));
                }
                b.inputs[v.name] = value;
            }
        }
        completeInputs(gb, b.inputs, random, "B");
        res = compareRuns(a, b, options);
    } else {
        kind = "reference";
        ReferenceValues reference = ReferenceValues::load(o.reference);
        res = compareWithReference(a, reference, options);
    }

    std::cout << "compare: A = " << res.sideA << ", B = " << res.sideB << "; rtol " << num(o.rtol) << ", atol "
              << num(o.atol) << "\n";
    std::cout << "frame | node (op) | value | type A | type B | max abs | max rel | cosine | mismatching | status\n";
    size_t hiddenSources = 0;
    for (const auto& r : res.rows) {
        if (o.divergedOnly && !isDivergent(r.status))
            continue;
        // Weights present on one side only are many and rarely interesting: counted, listed in --json.
        if (r.origin == ValueOrigin::Initializer
            && (r.status == CompareStatus::OnlyA || r.status == CompareStatus::OnlyB)) {
            ++hiddenSources;
            continue;
        }
        printRow(r);
    }
    if (hiddenSources)
        std::cout << "(" << hiddenSources << " initializer(s) present on one side only, not shown; see --json)\n";

    if (res.align != AlignMode::Names) {
        size_t content = 0, unpaired = 0;
        for (const auto& r : res.rows) {
            content += r.pairedBy == PairedBy::Content;
            unpaired += r.status == CompareStatus::OnlyA && r.origin != ValueOrigin::Initializer;
        }
        std::cout << "aligned by " << (res.align == AlignMode::Auto ? "name, then content" : "content") << ": "
                  << content << " value(s) paired by content, " << unpaired << " value(s) of A without a counterpart\n";
    }
    std::cout << "values: " << res.count(CompareStatus::Match) << " match, " << res.count(CompareStatus::Mismatch)
              << " mismatch, " << res.count(CompareStatus::ShapeMismatch) << " shape mismatch, "
              << res.count(CompareStatus::KindMismatch) << " kind mismatch, " << res.count(CompareStatus::OnlyA)
              << " only in A, " << res.count(CompareStatus::OnlyB) << " only in B, "
              << res.count(CompareStatus::Skipped) << " skipped\n";
    if (!res.errorA.empty())
        std::cout << "side A failed: " << res.errorA << "\n";
    if (!res.errorB.empty())
        std::cout << "side B failed: " << res.errorB << "\n";
    for (size_t r : res.differingSources) {
        const CompareRow& row = res.rows[r];
        std::cout << "differing " << valueOriginName(row.origin) << " \"" << row.name << "\": max abs error "
                  << num(row.stats.maxAbsError) << ", " << row.stats.mismatches << " of " << row.stats.elements
                  << " elements" << (row.note.empty() ? "" : " (" + row.note + ")") << "\n";
    }
    size_t roots = 0;
    for (const auto& n : res.nodes)
        roots += n.root;
    if (res.firstDivergence) {
        const NodeCompare& n = res.nodes[*res.firstDivergence];
        std::cout << "first divergence: node \"" << n.node << "\" (" << n.opType << ") at " << n.framePath
                  << ", output " << nodeOutputs(res, n) << ": " << statusText(n.status);
        if (n.status == CompareStatus::Mismatch)
            std::cout << ", max abs error " << num(n.maxAbsError) << ", max rel error " << num(n.maxRelError)
                      << ", cosine " << num(n.minCosine);
        std::cout << "; all its inputs computed by nodes match\n";
        for (size_t r : n.rows)
            if (isDivergent(res.rows[r].status) && !res.rows[r].nodeB.empty()
                && (res.rows[r].pairedBy == PairedBy::Content || res.rows[r].nodeB != n.node))
                std::cout << "  its output \"" << res.rows[r].name << "\" pairs with \"" << res.rows[r].nameB
                          << "\" of B, made by node \"" << res.rows[r].nodeB << "\" (" << res.rows[r].opTypeB << ") at "
                          << res.rows[r].frameB << "\n";
        if (roots > 1)
            std::cout << "(" << roots - 1 << " more independent divergence(s); see the \"root\" flag in --json)\n";
    } else if (res.hasDivergence()) {
        std::cout << "no divergent node";
        if (!res.differingSources.empty())
            std::cout << " (only graph inputs / initializers differ)";
        std::cout << "\n";
    } else {
        std::cout << "no divergence: every value present on both sides matches\n";
    }
    if (!o.json.empty())
        writeText(o.json, comparisonJson(res, kind));
    if (!o.nodeData.empty())
        writeText(o.nodeData,
            nodeDataJson(res, o.nodeDataMetric).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    if (!o.extractDivergence.empty()) {
        const DivergenceExtract x = extractFirstDivergence(res, a, b, o.extractDivergence, pool.get());
        if (!x.found)
            std::cout << "--extract-divergence: " << x.message << "\n";
        else {
            std::cout << "wrote " << o.extractDivergence << ": a/ = node \"" << x.nodeA << "\" (" << x.opTypeA
                      << ") of A, b/ = node \"" << x.nodeB << "\" (" << x.opTypeB << ") of B, fed the same inputs\n";
            for (const auto& in : x.inputs)
                if (!in.fromA)
                    std::cout << "  input \"" << in.nameB << "\" of B's node keeps B's own value: " << in.note << "\n";
            std::cout << "  max abs error between a/'s and b/'s outputs: " << num(x.maxAbsError) << " (see "
                      << x.readme.string() << ")\n";
        }
    }
    return res.hasDivergence() ? kModelError : kOk;
}

} // namespace

CommandRunner addCompareCommand(CLI::App& app)
{
    auto o = std::make_shared<CompareCliOptions>();
    auto* cmd = app.add_subcommand("compare",
        "Run a model against a second model or reference values, compare every value and name the first node "
        "where they diverge (exit 0: all match, 1: divergence or error)");
    cmd->add_option("model", o->modelA, "Model A (.onnx)")->required();
    cmd->add_option("model_b", o->modelB, "Model B (.onnx), run on the same inputs");
    cmd->add_option("--reference", o->reference,
        "Compare with reference values instead: a folder written by run --dump-all (manifest.json + .npy), or an "
        ".npz whose arrays are named after values (\"FRAME / NAME\" for values inside subgraphs)");
    cmd->add_option("-i,--input", o->inputs,
        "NAME=FILE (.npy, .npz, .pb) or FILE.npz: inputs of A, and of B unless --input-b is given");
    cmd->add_option("--input-b", o->inputsB,
        "NAME=FILE or FILE.npz: inputs of B (the same model with other "
        "inputs, or a model with other input names)");
    cmd->add_flag("--random-inputs", o->randomInputs,
        "Generate the inputs not given, as run --random-inputs does (the same values for the same --seed)");
    cmd->add_option("--seed", o->seed, "Seed for --random-inputs")->capture_default_str();
    cmd->add_option("--dim", o->dims, "SYMBOL=VALUE: a symbolic input dimension for --random-inputs");
    cmd->add_option("--rtol", o->rtol, "Relative tolerance: |a - b| <= atol + rtol * |b|")->capture_default_str();
    cmd->add_option("--atol", o->atol, "Absolute tolerance")->capture_default_str();
    cmd->add_option("--map", o->maps, "NAME_A=NAME_B: value NAME_A of A is NAME_B on side B (renamed tensors)");
    cmd->add_option("--align", o->align,
           "How values pair: names (frame path and name), content (shape and content, in execution order on both "
           "sides), auto (names, then content for the values whose names B lacks)")
        ->capture_default_str();
    cmd->add_option("--by", o->by,
           "value: pair values by name (or content); module: pair each PyTorch module's outputs in the --reference "
           ".npz written by onnxscope.torch.capture with the values leaving that module's scope in a dynamo export, "
           "and name the first module that diverges (docs/torch-compare.md)")
        ->capture_default_str();
    cmd->add_flag("--no-initializers", o->noInitializers, "Do not compare the initializers of the two models");
    cmd->add_option("--extract-divergence", o->extractDivergence,
        "DIR: after comparing two models, write the first divergent node as two test cases, DIR/a (A's node) and "
        "DIR/b (B's counterpart), both fed the input values A's run gave A's node, with DIR/README.txt");
    cmd->add_flag("--force", o->force, "Let --extract-divergence write into a folder that is not empty");
    cmd->add_flag("--diverged-only", o->divergedOnly, "Print only the rows that diverge");
    cmd->add_option("--json", o->json, "Write the comparison as JSON (docs/compare-format.md)");
    cmd->add_option("--node-data", o->nodeData,
        "Write Model Explorer node data JSON: per node, its worst error keyed by an output tensor name");
    cmd->add_option("--node-data-metric", o->nodeDataMetric, "abs (max abs error), rel or ratio (error / tolerance)")
        ->capture_default_str();
    o->limits.addTo(cmd);
    o->threads.addTo(cmd);
    return [cmd, o]() -> int { return cmd->parsed() ? runCompare(*o) : -1; };
}

} // namespace onnxscope::cli
