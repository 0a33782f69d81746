// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/model.h"
#include "ui/nodeinspector/property_tree_model.h"

namespace onnxscope {

class ModelDocument;

/// What the inspector shows, as sections of rows, built from the engine's model. No widgets here.

/// Node, PyTorch (for a dynamo export), Attributes, Inputs, Outputs, Subgraphs.
std::vector<PropertySection> describeNode(const Graph& graph, NodeId node, const ModelDocument* document);
/// Where a node of a dynamo export came from: module path, class hierarchy, FX node, and each stack frame as
/// file:line (rows with sourceFile set); no rows for a node without pkg.torch.onnx metadata.
PropertySection describeTorchOrigin(const Node& node);
/// Tensor, Producer, Consumers (and Initializer values when it has one).
std::vector<PropertySection> describeValue(const Graph& graph, ValueId value, const ModelDocument* document);
/// Model, Opsets, Metadata, Inputs, Outputs, Initializers, Functions, Operators (count by op type).
std::vector<PropertySection> describeModel(const Model& model, const QString& path);
/// The operator's documentation from onnx's schema registry, as Markdown (a note when the registry does not know it).
QString operatorDocumentationMarkdown(const Node& node);

} // namespace onnxscope
