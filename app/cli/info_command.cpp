// SPDX-License-Identifier: MIT
#include "app/cli/cli_util.h"
#include "app/cli/commands.h"
#include "engine/core/byte_size.h"

#include "engine/exec/model_diagnostics.h"
#include "engine/exec/program.h"
#include "engine/model/model.h"
#include "engine/model/torch_origin.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>

namespace onnxscope::cli {

namespace {

struct InfoOptions {
    std::string model;
    bool json = false;
    bool noDiagnostics = false;
    std::string node;
};

nlohmann::json torchOriginJson(const TorchOrigin& origin)
{
    nlohmann::json j = nlohmann::json::object();
    if (origin.hasModules) {
        j["module"] = origin.modulePath();
        j["module_class"] = origin.moduleClass();
        nlohmann::json modules = nlohmann::json::array();
        for (const TorchModule& m : origin.modules)
            modules.push_back({ { "path", m.path }, { "class", m.className } });
        j["modules"] = modules;
        j["fx_name"] = origin.fxName;
        j["fx_target"] = origin.fxTarget;
    }
    if (!origin.fxNode.empty())
        j["fx_node"] = origin.fxNode;
    if (!origin.stackTrace.empty()) {
        nlohmann::json frames = nlohmann::json::array();
        for (const SourceFrame& f : origin.frames)
            frames.push_back(
                { { "file", f.file }, { "line", f.line }, { "function", f.function }, { "code", f.code } });
        j["stack"] = frames;
        if (const SourceFrame* f = origin.sourceFrame())
            j["source"] = f->file + ":" + std::to_string(f->line);
    }
    if (!origin.error.empty())
        j["error"] = origin.error;
    return j;
}

nlohmann::json nodeJson(const Graph& graph, const Node& node)
{
    nlohmann::json j;
    j["name"] = node.displayName();
    j["op_type"] = node.opType;
    j["domain"] = node.domain;
    j["opset"] = node.opset;
    nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array();
    for (ValueId v : node.inputs)
        inputs.push_back(v == kNoValue ? std::string() : graph.value(v).name);
    for (ValueId v : node.outputs)
        outputs.push_back(v == kNoValue ? std::string() : graph.value(v).name);
    j["inputs"] = inputs;
    j["outputs"] = outputs;
    nlohmann::json metadata = nlohmann::json::object();
    for (const auto& [key, value] : nodeMetadataProps(node))
        metadata[key] = value;
    j["metadata_props"] = metadata;
    if (const TorchOrigin origin = torchOrigin(node); origin.present)
        j["pytorch"] = torchOriginJson(origin);
    return j;
}

void countOps(const Graph& graph, std::map<std::string, size_t>& histogram)
{
    for (const auto& node : graph.nodes()) {
        std::string key = node.domain.empty() ? node.opType : node.domain + "." + node.opType;
        ++histogram[key];
        for (const auto& [attr, g] : node.subgraphs)
            countOps(*g, histogram);
        if (node.functionBody)
            countOps(*node.functionBody, histogram);
    }
}

nlohmann::json valuesJson(const Graph& graph, const std::vector<ValueId>& ids)
{
    nlohmann::json list = nlohmann::json::array();
    for (ValueId id : ids) {
        const auto& v = graph.value(id);
        nlohmann::json j = valueTypeJson(v.type);
        j["name"] = v.name;
        if (v.hasInitializer())
            j["has_default"] = true;
        list.push_back(std::move(j));
    }
    return list;
}

nlohmann::json collectInfo(const Model& model, bool withDiagnostics)
{
    const ModelMetadata metadata = model.metadata();
    const Graph& graph = model.graph();
    nlohmann::json j;
    j["file"] = model.displayName();
    j["ir_version"] = metadata.irVersion;
    j["producer"] = { { "name", metadata.producerName }, { "version", metadata.producerVersion } };
    j["domain"] = metadata.domain;
    j["model_version"] = metadata.modelVersion;
    j["graph_name"] = graph.name();
    nlohmann::json opsets = nlohmann::json::object();
    for (const auto& [domain, version] : model.opsets())
        opsets[domain.empty() ? "ai.onnx" : domain] = version;
    j["opsets"] = opsets;

    std::vector<ValueId> inputs;
    for (ValueId id : graph.inputs())
        if (!graph.value(id).hasInitializer())
            inputs.push_back(id);
    j["inputs"] = valuesJson(graph, inputs);
    j["outputs"] = valuesJson(graph, graph.outputs());
    std::vector<ValueId> withDefaults;
    for (ValueId id : graph.inputs())
        if (graph.value(id).hasInitializer())
            withDefaults.push_back(id);
    if (!withDefaults.empty())
        j["inputs_with_defaults"] = valuesJson(graph, withDefaults);

    j["node_count"] = graph.totalNodeCount();
    j["main_graph_node_count"] = graph.nodes().size();
    std::map<std::string, size_t> histogram;
    countOps(graph, histogram);
    j["op_histogram"] = histogram;
    j["initializers"] = { { "count", graph.initializers().size() }, { "bytes", model.initializerBytes() } };

    nlohmann::json functions = nlohmann::json::array();
    for (const auto& f : model.functions()) {
        nlohmann::json fj;
        fj["domain"] = f.domain;
        fj["name"] = f.name;
        if (!f.overload.empty())
            fj["overload"] = f.overload;
        fj["inputs"] = f.inputs;
        fj["outputs"] = f.outputs;
        fj["attributes"] = f.attributes;
        fj["node_count"] = f.nodeCount;
        if (!f.doc.empty())
            fj["doc_string"] = f.doc;
        if (!f.metadata.empty()) {
            nlohmann::json metadata = nlohmann::json::object();
            for (const auto& [key, value] : f.metadata)
                metadata[key] = value;
            fj["metadata_props"] = metadata;
        }
        functions.push_back(std::move(fj));
    }
    j["functions"] = functions;

    const std::vector<TorchModuleSummary> modules = torchModules(graph);
    if (!modules.empty()) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& m : modules)
            list.push_back({ { "path", m.path }, { "class", m.className }, { "nodes", m.nodes } });
        j["pytorch_modules"] = list;
    }

    const std::vector<std::string> unsupported = Program::unsupportedNodes(model);
    j["unsupported"] = unsupported;
    if (withDiagnostics) {
        nlohmann::json diags = nlohmann::json::array();
        for (const auto& d : diagnosticsForThisBuild(model))
            diags.push_back({ { "severity", d.severity == Diagnostic::Severity::Error ? "error" : "warning" },
                { "source", d.source }, { "message", d.message } });
        j["diagnostics"] = diags;
    }
    return j;
}

void printValues(const Graph& graph, const std::vector<ValueId>& ids)
{
    for (ValueId id : ids) {
        const auto& v = graph.value(id);
        std::cout << "  " << v.name << ": " << v.type.toString() << (v.hasInitializer() ? "  (has a default)" : "")
                  << "\n";
    }
}

void printInfo(const Model& model, const nlohmann::json& j)
{
    const Graph& graph = model.graph();
    std::cout << "model: " << model.displayName() << "\n";
    std::cout << "ir version: " << j["ir_version"].get<int64_t>() << "\n";
    std::cout << "opsets:";
    for (const auto& [domain, version] : j["opsets"].items())
        std::cout << " " << domain << "=" << version.get<int64_t>();
    std::cout << "\n";
    const auto& producer = j["producer"];
    std::cout << "producer: " << producer["name"].get<std::string>();
    if (!producer["version"].get<std::string>().empty())
        std::cout << " " << producer["version"].get<std::string>();
    std::cout << "\n";
    if (!j["graph_name"].get<std::string>().empty())
        std::cout << "graph: " << j["graph_name"].get<std::string>() << "\n";

    std::vector<ValueId> inputs, defaults;
    for (ValueId id : graph.inputs())
        (graph.value(id).hasInitializer() ? defaults : inputs).push_back(id);
    std::cout << "inputs (" << inputs.size() << "):\n";
    printValues(graph, inputs);
    if (!defaults.empty()) {
        std::cout << "inputs with defaults (" << defaults.size() << "):\n";
        printValues(graph, defaults);
    }
    std::cout << "outputs (" << graph.outputs().size() << "):\n";
    printValues(graph, graph.outputs());

    std::cout << "nodes: " << j["node_count"].get<size_t>() << " (" << j["main_graph_node_count"].get<size_t>()
              << " in the main graph)\n";
    std::cout << "initializers: " << j["initializers"]["count"].get<size_t>() << ", "
              << formatByteCount(j["initializers"]["bytes"].get<uint64_t>()) << "\n";
    std::cout << "op histogram:\n";
    std::vector<std::pair<std::string, size_t>> ops;
    for (const auto& [op, n] : j["op_histogram"].items())
        ops.emplace_back(op, n.get<size_t>());
    std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [op, n] : ops)
        std::cout << "  " << std::setw(6) << n << "  " << op << "\n";
    const auto& functions = j["functions"];
    std::cout << "model-local functions: " << functions.size() << "\n";
    for (const auto& f : functions)
        std::cout << "  " << (f["domain"].get<std::string>().empty() ? "" : f["domain"].get<std::string>() + ".")
                  << f["name"].get<std::string>()
                  << (f.contains("overload") ? ":" + f["overload"].get<std::string>() : std::string()) << " ("
                  << f["node_count"].get<int>() << " nodes)\n";
    if (j.contains("pytorch_modules")) {
        // Indented by nesting; the outer levels only, --json lists every module.
        constexpr size_t kDepth = 3;
        const auto& modules = j["pytorch_modules"];
        std::cout << "pytorch modules (" << modules.size() << ", from the dynamo export's metadata):\n";
        std::vector<std::string> stack;
        size_t hidden = 0;
        for (const auto& m : modules) {
            const std::string path = m["path"].get<std::string>();
            while (!stack.empty() && path.rfind(stack.back() + ".", 0) != 0)
                stack.pop_back();
            const std::string name = stack.empty() ? path : path.substr(stack.back().size() + 1);
            const size_t depth = stack.size();
            stack.push_back(path);
            if (depth >= kDepth) {
                ++hidden;
                continue;
            }
            const std::string cls = m["class"].get<std::string>();
            std::cout << "  " << std::string(2 * depth, ' ') << name << " \u00b7 " << cls.substr(cls.rfind('.') + 1)
                      << "  (" << m["nodes"].get<size_t>() << " nodes)\n";
        }
        if (hidden)
            std::cout << "  (" << hidden << " deeper modules: see --json, or --node NAME for one node)\n";
    }
    const auto& unsupported = j["unsupported"];
    if (unsupported.empty()) {
        std::cout << "unsupported ops: none, this build can run every node\n";
    } else {
        std::cout << "unsupported ops (" << unsupported.size() << "):\n";
        for (const auto& u : unsupported)
            std::cout << "  " << u.get<std::string>() << "\n";
    }
    if (j.contains("diagnostics")) {
        const auto& diags = j["diagnostics"];
        std::cout << "diagnostics (" << diags.size() << "):" << (diags.empty() ? " none" : "") << "\n";
        for (const auto& d : diags)
            std::cout << "  " << d["severity"].get<std::string>() << " (" << d["source"].get<std::string>()
                      << "): " << d["message"].get<std::string>() << "\n";
    }
}

void printNode(const nlohmann::json& j)
{
    std::cout << "node \"" << j["name"].get<std::string>() << "\" (" << j["op_type"].get<std::string>() << ", opset "
              << j["opset"].get<int64_t>() << ")\n";
    auto names = [](const nlohmann::json& list) {
        std::string s;
        for (const auto& n : list)
            s += (s.empty() ? "" : ", ")
                + (n.get<std::string>().empty() ? std::string("(omitted)") : n.get<std::string>());
        return s;
    };
    std::cout << "inputs: " << names(j["inputs"]) << "\n";
    std::cout << "outputs: " << names(j["outputs"]) << "\n";
    if (j.contains("pytorch")) {
        const auto& t = j["pytorch"];
        std::cout << "pytorch:\n";
        if (t.contains("module")) {
            std::cout << "  module: "
                      << (t["module"].get<std::string>().empty() ? "(root)" : t["module"].get<std::string>()) << " ("
                      << t["module_class"].get<std::string>() << ")\n";
            std::cout << "  class hierarchy:";
            for (const auto& m : t["modules"])
                std::cout << " " << m["class"].get<std::string>() << " >";
            std::cout << " " << t["fx_target"].get<std::string>() << "\n";
        }
        if (t.contains("fx_node"))
            std::cout << "  fx node: " << t["fx_node"].get<std::string>() << "\n";
        if (t.contains("stack")) {
            std::cout << "  stack trace (innermost first):\n";
            const auto& stack = t["stack"];
            for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
                std::cout << "    " << (*it)["file"].get<std::string>() << ":" << (*it)["line"].get<int>() << " in "
                          << (*it)["function"].get<std::string>() << "\n";
                if (!(*it)["code"].get<std::string>().empty())
                    std::cout << "      " << (*it)["code"].get<std::string>() << "\n";
            }
        }
        if (t.contains("error"))
            std::cout << "  metadata does not parse: " << t["error"].get<std::string>() << "\n";
    }
    if (!j["metadata_props"].empty()) {
        std::cout << "metadata_props:\n";
        for (const auto& [key, value] : j["metadata_props"].items()) {
            std::string v = value.get<std::string>();
            if (const size_t nl = v.find('\n'); nl != std::string::npos)
                v = v.substr(0, nl) + " \u2026";
            std::cout << "  " << key << ": " << v << "\n";
        }
    }
}

int runInfo(const InfoOptions& o)
{
    auto model = Model::load(o.model);
    if (!o.node.empty()) {
        const Graph& graph = model->graph();
        const NodeId id = graph.findNode(o.node);
        if (id < 0)
            throw Error("\"" + model->displayName() + "\" has no node named \"" + o.node + "\" in its main graph");
        const nlohmann::json j = nodeJson(graph, graph.node(id));
        if (o.json)
            std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        else
            printNode(j);
        return kOk;
    }
    nlohmann::json j = collectInfo(*model, !o.noDiagnostics);
    if (o.json)
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
        printInfo(*model, j);
    return kOk;
}

} // namespace

CommandRunner addInfoCommand(CLI::App& app)
{
    auto o = std::make_shared<InfoOptions>();
    auto* cmd = app.add_subcommand("info",
        "Describe a model: inputs, outputs, opsets, producer, node count, op histogram, initializers, functions, "
        "unsupported ops and checker/shape-inference diagnostics");
    cmd->add_option("model", o->model, "The .onnx file")->required();
    cmd->add_flag("--json", o->json, "Machine-readable output");
    cmd->add_flag("--no-diagnostics", o->noDiagnostics, "Skip onnx's checker and shape inference (slow on big models)");
    cmd->add_option("--node", o->node,
        "Describe one node of the main graph instead: inputs, outputs, metadata_props and, for a dynamo export, its "
        "PyTorch module, class hierarchy, FX node and stack trace");
    return [cmd, o]() -> int { return cmd->parsed() ? runInfo(*o) : -1; };
}

} // namespace onnxscope::cli
