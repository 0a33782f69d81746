// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

#include <cstdint>
#include <string>

namespace onnxscope {

struct Node;

/// What onnx's schema registry knows about an operator, for documentation and port names only (never for loading
/// or running: models of opsets newer than the installed onnx must still open).
struct OpSchemaInfo {
    bool known = false;
    int sinceVersion = 0; // the version of the op that `opset` resolves to
    QString domain;
    QString doc;
    QStringList inputs;
    QStringList outputs;
    bool variadicInput = false; // last input repeats
    bool variadicOutput = false;
    QString support; // "deprecated", "experimental" or empty
};

/// Looks up (opType, domain, opset) in onnx::OpSchemaRegistry; results are cached. Thread-safe.
OpSchemaInfo lookupOpSchema(const std::string& opType, const std::string& domain, int64_t opset);

/// The schema's name for input/output `index` of `node` ("X", "W", "inputs_2"), or empty when unknown.
QString inputPortName(const Node& node, size_t index);
QString outputPortName(const Node& node, size_t index);

} // namespace onnxscope
