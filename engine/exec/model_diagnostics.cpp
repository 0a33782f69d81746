// SPDX-License-Identifier: MIT
#include "engine/exec/model_diagnostics.h"

#include "engine/exec/program.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/model/op_schema.h"
#include "engine/model/torch_origin.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>

namespace onnxscope {

namespace {

/// The op a checker error names when onnx has no schema for it, or "" for any other diagnostic.
std::string opWithoutSchema(const Diagnostic& d)
{
    static const std::string kPrefix = "No Op registered for ";
    if (d.severity != Diagnostic::Severity::Error || d.source != "checker" || d.message.rfind(kPrefix, 0) != 0)
        return {};
    const size_t end = d.message.find(' ', kPrefix.size());
    return end == std::string::npos ? std::string() : d.message.substr(kPrefix.size(), end - kPrefix.size());
}

/// The tree-ensemble op a checker error names as deprecated at the model's opset ("Op registered for X is deprecated
/// in domain_version of N": TreeEnsembleClassifier and TreeEnsembleRegressor from ai.onnx.ml 5), or "" for any other
/// diagnostic.
std::string deprecatedTreeEnsemble(const Diagnostic& d)
{
    static const std::string kPrefix = "Op registered for ";
    static const std::string kDeprecated = " is deprecated in domain_version of ";
    if (d.severity != Diagnostic::Severity::Error || d.source != "checker" || d.message.rfind(kPrefix, 0) != 0)
        return {};
    const size_t end = d.message.find(kDeprecated, kPrefix.size());
    const std::string op
        = end == std::string::npos ? std::string() : d.message.substr(kPrefix.size(), end - kPrefix.size());
    return op == "TreeEnsembleClassifier" || op == "TreeEnsembleRegressor" ? op : std::string();
}

/// The domain a checker error names when the model does not import it, or "".
std::string domainWithoutImport(const Diagnostic& d)
{
    static const std::string kPrefix = "No opset import for domain '";
    if (d.severity != Diagnostic::Severity::Error || d.source != "checker" || d.message.rfind(kPrefix, 0) != 0)
        return {};
    const size_t end = d.message.find('\'', kPrefix.size());
    return end == std::string::npos ? std::string() : d.message.substr(kPrefix.size(), end - kPrefix.size());
}

void visitGraphs(const Graph& graph, const std::function<void(const Graph&)>& fn)
{
    fn(graph);
    for (const auto& node : graph.nodes()) {
        for (const auto& [attr, sub] : node.subgraphs)
            visitGraphs(*sub, fn);
        if (node.functionBody)
            visitGraphs(*node.functionBody, fn);
    }
}

/// A warning for each default-domain op that runs only by onnxruntime's leniency: LayerNormalization below opset 17
/// (onnxruntime registers it from version 1) and SimplifiedLayerNormalization (onnx does not define it), counted
/// over every graph, subgraph and function body. Only the nodes that this build runs are counted.
std::vector<Diagnostic> lenientDefaultDomainOps(const Model& model)
{
    std::map<std::pair<std::string, int64_t>, size_t> counts; // (op, opset) -> nodes
    visitGraphs(model.graph(), [&](const Graph& g) {
        for (const auto& node : g.nodes()) {
            if (!node.domain.empty()
                || (node.opType != "LayerNormalization" && node.opType != "SimplifiedLayerNormalization"))
                continue;
            if (lookupOpSchema(node.opType, node.domain, node.opset).known)
                continue;
            if (KernelRegistry::builtin().find(node.domain, node.opType, node.opset))
                ++counts[{ node.opType, node.opset }];
        }
    });
    std::vector<Diagnostic> out;
    for (const auto& [key, count] : counts) {
        const auto& [op, opset] = key;
        std::string text = std::to_string(count) + " " + op + (count == 1 ? " node" : " nodes") + " at default-domain "
            + "opset " + std::to_string(opset) + ": ";
        if (op == "LayerNormalization")
            text
                += "onnx defines LayerNormalization from opset 17; onnxruntime registers it in the default domain from "
                   "version 1, and this build runs "
                + std::string(count == 1 ? "it" : "them") + " as LayerNormalization-17";
        else
            text += "onnx does not define SimplifiedLayerNormalization; onnxruntime registers it in the default domain "
                    "(RMS normalization), and this build runs "
                + std::string(count == 1 ? "it" : "them") + " as onnxruntime does";
        out.push_back({ Diagnostic::Severity::Warning, "loader", std::move(text) });
    }
    return out;
}

} // namespace

std::vector<Diagnostic> diagnosticsForThisBuild(const Model& model)
{
    std::vector<Diagnostic> diagnostics = model.diagnostics();
    const std::vector<Diagnostic> lenient = lenientDefaultDomainOps(model);
    for (Diagnostic& d : diagnostics) {
        const std::string domain = domainWithoutImport(d);
        if (domain.empty() || model.opset(domain) != 0
            || (domain != "com.microsoft" && domain != "com.microsoft.nchwc"))
            continue;
        d.severity = Diagnostic::Severity::Warning;
        d.message += "\n(onnxruntime runs a " + domain
            + " node without the import as version 1 of its domain, and so does this build; the checker stopped at "
              "this node)";
    }
    std::vector<std::string> unsupported;
    bool unsupportedKnown = false;
    for (Diagnostic& d : diagnostics) {
        const std::string op = opWithoutSchema(d);
        const std::string deprecated = op.empty() ? deprecatedTreeEnsemble(d) : std::string();
        if (op.empty() && deprecated.empty())
            continue;
        if (!unsupportedKnown) {
            unsupported = Program::unsupportedNodes(model);
            unsupportedKnown = true;
        }
        // unsupportedNodes() names each as `node "x" (Op, domain "d", opset N)`.
        const std::string named = op.empty() ? deprecated : op;
        const bool runs = std::none_of(unsupported.begin(), unsupported.end(),
            [&](const std::string& u) { return u.find("(" + named + ", ") != std::string::npos; });
        if (!runs)
            continue;
        d.severity = Diagnostic::Severity::Warning;
        if (!op.empty())
            d.message += "\n(onnx has no schema for " + op
                + " in this domain, but onnxruntime registers one there and this build runs it, so the model opens "
                  "and runs; the checker stopped at this node)";
        else
            d.message += "\n(onnx deprecates " + deprecated
                + " from ai.onnx.ml 5 in favour of TreeEnsemble; onnxruntime's CPU provider registers its kernel "
                  "there, though onnxruntime 1.32's loader refuses the node as onnx's checker does. This build runs it "
                  "with version 3's meaning; the checker stopped at this node)";
    }
    // A lenient op that the checker stopped at is told once: its note joins the checker's warning.
    for (const Diagnostic& l : lenient) {
        auto checker = std::find_if(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) {
            const std::string op = opWithoutSchema(Diagnostic { Diagnostic::Severity::Error, d.source, d.message });
            return d.severity == Diagnostic::Severity::Warning && !op.empty()
                && l.message.find(" " + op + " node") != std::string::npos;
        });
        if (checker != diagnostics.end())
            checker->message += "\n" + l.message;
        else
            diagnostics.push_back(l);
    }
    for (Diagnostic& d : torchMetadataDiagnostics(model))
        diagnostics.push_back(std::move(d));
    return diagnostics;
}

} // namespace onnxscope
