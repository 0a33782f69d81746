// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace onnx {
class AttributeProto;
class NodeProto;
}

namespace onnxscope {

class Graph;

/// Typed, checked read access to a node's attributes. Every error names the node and the attribute:
/// `node "conv_3" (Conv), attribute 'pads': expected ints, got float`.
class NodeAttributes {
public:
    NodeAttributes() = default;
    NodeAttributes(const onnx::NodeProto* proto, std::string nodeLabel);

    bool has(const std::string& name) const;
    const onnx::AttributeProto* find(const std::string& name) const;
    std::vector<std::string> names() const;

    int64_t getInt(const std::string& name, int64_t fallback) const;
    int64_t requireInt(const std::string& name) const;
    float getFloat(const std::string& name, float fallback) const;
    float requireFloat(const std::string& name) const;
    std::string getString(const std::string& name, const std::string& fallback) const;
    std::string requireString(const std::string& name) const;
    std::vector<int64_t> getInts(const std::string& name, std::vector<int64_t> fallback = {}) const;
    std::vector<float> getFloats(const std::string& name, std::vector<float> fallback = {}) const;
    std::vector<std::string> getStrings(const std::string& name, std::vector<std::string> fallback = {}) const;
    /// A TENSOR attribute converted to a Tensor; an undefined Tensor if absent.
    Tensor getTensor(const std::string& name) const;
    Tensor requireTensor(const std::string& name) const;

    /// An Error whose message starts with `node "x" (Op), attribute 'name': `.
    Error error(const std::string& name, const std::string& message) const;
    const std::string& nodeLabel() const { return m_label; }

private:
    const onnx::AttributeProto* expect(const std::string& name, int type, const char* typeName) const;

    const onnx::NodeProto* m_proto = nullptr;
    std::string m_label;
};

} // namespace onnxscope
