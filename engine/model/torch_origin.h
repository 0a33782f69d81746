// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/model.h"
#include "engine/model/node_metadata.h"

#include <string>
#include <vector>

namespace onnxscope {

/// One frame of a Python stack trace: `File "f.py", line 12, in forward` and the code line below it.
struct SourceFrame {
    std::string file;
    int line = 0;
    std::string function;
    std::string code; // the source line as the trace quotes it, trimmed; "" if it quotes none
};

/// One module on the way from the exported model to a node: its path in the model (`model.layers.0.self_attn`, ""
/// for the root module) and its class (`transformers.models.gemma3.modeling_gemma3.Gemma3Attention`).
struct TorchModule {
    std::string path;
    std::string className;
    /// The class's own name, without its Python module: "Gemma3Attention".
    std::string shortClassName() const;
};

/// Where a node of a `torch.onnx.export(..., dynamo=True)` file came from, read from its metadata_props:
/// `pkg.torch.onnx.name_scopes` and `pkg.torch.onnx.class_hierarchy` (Python list literals of the module paths and
/// classes from the root module down, the last entry being the FX node itself), `pkg.torch.onnx.fx_node` and
/// `pkg.torch.onnx.stack_trace`.
struct TorchOrigin {
    /// The node has at least one pkg.torch.onnx.* entry.
    bool present = false;
    /// name_scopes and class_hierarchy parsed: the modules from the root down, without the FX node's own entry.
    bool hasModules = false;
    std::vector<TorchModule> modules;
    std::string fxName; // the FX node's own entry of name_scopes ("linear_3")
    std::string fxTarget; // its entry of class_hierarchy ("aten.linear.default")
    std::string fxNode; // pkg.torch.onnx.fx_node as written
    std::string stackTrace; // pkg.torch.onnx.stack_trace as written
    std::vector<SourceFrame> frames; // the stack trace parsed, outermost first
    /// What did not parse, "" if everything did: `pkg.torch.onnx.name_scopes: expected a Python list of strings`.
    std::string error;

    /// The innermost module's path ("model.layers.0.self_attn.q_proj"), "" for the root or without modules.
    std::string modulePath() const;
    /// The innermost module's class, "" without modules.
    std::string moduleClass() const;
    /// The frame that made the node: the innermost one of the trace, null if the trace has none.
    const SourceFrame* sourceFrame() const;
};

/// Reads a node's pkg.torch.onnx.* metadata. Never throws: what does not parse is said in TorchOrigin::error.
TorchOrigin torchOrigin(const Node& node);

/// Whether any node of the graph (not its subgraphs) has a parsable module hierarchy, i.e. the graph is a dynamo
/// export whose views group by module.
bool hasTorchModules(const Graph& graph);

/// A module of a dynamo export, as the graph's nodes name it.
struct TorchModuleSummary {
    std::string path; // "model.layers.0.self_attn"
    std::string className; // full class name
    size_t nodes = 0; // nodes made inside it, its submodules' included
};

/// Every module the graph's nodes (not their subgraphs) name, in order of first appearance (a parent before its
/// children), the root module ("") left out. Empty for a graph without PyTorch module metadata.
std::vector<TorchModuleSummary> torchModules(const Graph& graph);

/// Nodes of the graph whose module is `path` or inside it (`model.layers.0` holds `model.layers.0.mlp.up_proj`).
std::vector<NodeId> nodesOfTorchModule(const Graph& graph, const std::string& path);

/// Warnings for nodes whose pkg.torch.onnx.* metadata does not parse (at most a few listed, then a count), source
/// "torch metadata". Empty when every node's metadata parses or none has any.
std::vector<Diagnostic> torchMetadataDiagnostics(const Model& model);

/// A Python list literal of strings (`['', 'model', "it's"]`, as repr() writes it) as its items; false if `text` is
/// not one. Also accepts a tuple.
bool parsePythonStringList(const std::string& text, std::vector<std::string>& items);

/// The `File "...", line N, in f` frames of a Python traceback text, outermost first.
std::vector<SourceFrame> parsePythonStackTrace(const std::string& text);

} // namespace onnxscope
