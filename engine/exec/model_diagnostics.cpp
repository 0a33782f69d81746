// SPDX-License-Identifier: MIT
#include "engine/exec/model_diagnostics.h"

#include "engine/exec/program.h"
#include "engine/model/torch_origin.h"

#include <algorithm>
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

} // namespace

std::vector<Diagnostic> diagnosticsForThisBuild(const Model& model)
{
    std::vector<Diagnostic> diagnostics = model.diagnostics();
    std::vector<std::string> unsupported;
    bool unsupportedKnown = false;
    for (Diagnostic& d : diagnostics) {
        const std::string op = opWithoutSchema(d);
        if (op.empty())
            continue;
        if (!unsupportedKnown) {
            unsupported = Program::unsupportedNodes(model);
            unsupportedKnown = true;
        }
        // unsupportedNodes() names each as `node "x" (Op, domain "d", opset N)`.
        const bool runs = std::none_of(unsupported.begin(), unsupported.end(),
            [&](const std::string& u) { return u.find("(" + op + ", ") != std::string::npos; });
        if (!runs)
            continue;
        d.severity = Diagnostic::Severity::Warning;
        d.message += "\n(onnx has no schema for " + op
            + " in this domain, but onnxruntime registers one there and this build runs it, so the model opens and "
              "runs; the checker stopped at this node)";
    }
    for (Diagnostic& d : torchMetadataDiagnostics(model))
        diagnostics.push_back(std::move(d));
    return diagnostics;
}

} // namespace onnxscope
