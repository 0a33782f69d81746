// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace onnxscope {

class Value;

/// A sequence value (ONNX seq(T)): an ordered list of values, usually tensors of one element type.
struct Sequence {
    DataType elementType = DataType::Undefined; // tensor element type, kept for empty sequences
    std::vector<Value> items;
};

/// A map value (ONNX map(K, V)), as ZipMap and DictVectorizer use it: keys and values are 1-D tensors of equal
/// length, keys int64 or string.
struct Map {
    Tensor keys;
    Tensor values;
};

/// What flows on an edge of the graph: nothing (an absent optional input), a tensor, a sequence, a map, or an
/// optional that may hold one of these. Copies are cheap (shared storage).
class Value {
public:
    enum class Kind { None, Tensor, Sequence, Map, Optional };

    Value() = default;
    Value(Tensor tensor);
    Value(Sequence sequence);
    Value(Map map);
    /// An optional value; std::nullopt is an empty optional.
    static Value optional(std::optional<Value> inner);

    Kind kind() const;
    bool isNone() const { return kind() == Kind::None; }
    bool isTensor() const { return kind() == Kind::Tensor; }
    bool isSequence() const { return kind() == Kind::Sequence; }
    bool isMap() const { return kind() == Kind::Map; }
    bool isOptional() const { return kind() == Kind::Optional; }

    /// Throws Error (naming `what`) if the value is not of the requested kind.
    const Tensor& tensor(const std::string& what = "value") const;
    const Sequence& sequence(const std::string& what = "value") const;
    const Map& map(const std::string& what = "value") const;
    /// For an Optional: the held value, or nullptr if empty.
    const Value* optionalValue() const;
    /// The tensor this value is, or holds as a present optional; nullptr otherwise.
    const Tensor* heldTensor() const;

    /// Bytes held by tensors in this value (for memory budgets).
    size_t byteSize() const;
    /// "float[1, 3]", "seq(float)[4 items]", "map(string, float)[3]", "optional(float[2])", "none".
    std::string typeString() const;

private:
    struct OptionalBox {
        std::optional<std::shared_ptr<const Value>> inner;
    };
    std::variant<std::monostate, Tensor, std::shared_ptr<const Sequence>, std::shared_ptr<const Map>, OptionalBox>
        m_data;
};

/// A dimension of a declared shape: a fixed value, a symbol ("batch"), or unknown.
struct Dim {
    int64_t value = -1; // -1 when symbolic or unknown
    std::string symbol;
    bool known() const { return value >= 0; }
};

/// A declared type from the model (graph inputs, outputs, value_info): kind, element type and shape.
struct ValueType {
    Value::Kind kind = Value::Kind::None; // None means unknown / not declared
    DataType elementType = DataType::Undefined; // tensor element type (of the innermost tensor)
    bool hasShape = false;
    std::vector<Dim> shape;
    DataType keyType = DataType::Undefined; // maps
    std::shared_ptr<const ValueType> element; // sequences, optionals, map values
    bool sparse = false; // declared sparse_tensor: kind is Tensor, fed and held dense

    /// "float[batch, 3, 224, 224]", "sparse float[4, 5] (fed dense)", "seq(float)", "map(int64, float)",
    /// "optional(int64[N])", "?" if unknown.
    std::string toString() const;
    /// Throws Error naming `name` if `value` does not match this declared type: kind and element type, and with
    /// `checkShape` also rank and fixed dims.
    void checkValue(const Value& value, const std::string& name, bool checkShape = true) const;
};

} // namespace onnxscope
