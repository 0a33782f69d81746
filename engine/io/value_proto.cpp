// SPDX-License-Identifier: MIT
#include "engine/io/value_proto.h"

#include "engine/core/allocation_limit.h"
#include "engine/io/tensor_proto.h"

#include <onnx/onnx-data.pb.h> // the generated header: onnx installs no onnx-data_pb.h wrapper

#include <algorithm>
#include <cstring>

namespace onnxscope {

namespace {

/// How many items a SequenceProto holds: the length of the repeated field its elem_type names.
int64_t sequenceLength(const onnx::SequenceProto& proto)
{
    switch (proto.elem_type()) {
    case onnx::SequenceProto::TENSOR:
        return proto.tensor_values_size();
    case onnx::SequenceProto::SEQUENCE:
        return proto.sequence_values_size();
    case onnx::SequenceProto::MAP:
        return proto.map_values_size();
    case onnx::SequenceProto::OPTIONAL:
        return proto.optional_values_size();
    case onnx::SequenceProto::UNDEFINED:
        return 0;
    default:
        throw Error(
            "sequence \"" + proto.name() + "\" has unsupported element kind " + std::to_string(proto.elem_type()));
    }
}

} // namespace

Value valueFromSequenceProto(const onnx::SequenceProto& proto)
{
    const int64_t length = sequenceLength(proto);
    // The item count comes from the file: checked before the items are decoded or their list allocated.
    checkAllocation(static_cast<uint64_t>(length), sizeof(Value),
        "sequence \"" + proto.name() + "\" of " + std::to_string(length) + " items");
    Sequence seq;
    seq.items.reserve(static_cast<size_t>(length));
    switch (proto.elem_type()) {
    case onnx::SequenceProto::TENSOR:
        for (const auto& t : proto.tensor_values()) {
            seq.items.emplace_back(tensorFromProto(t));
            seq.elementType = seq.items.back().tensor().dtype();
        }
        break;
    case onnx::SequenceProto::SEQUENCE:
        for (const auto& s : proto.sequence_values())
            seq.items.push_back(valueFromSequenceProto(s));
        break;
    case onnx::SequenceProto::MAP:
        for (const auto& m : proto.map_values())
            seq.items.push_back(valueFromMapProto(m));
        break;
    case onnx::SequenceProto::OPTIONAL:
        for (const auto& o : proto.optional_values())
            seq.items.push_back(valueFromOptionalProto(o));
        break;
    default:
        break;
    }
    return Value(std::move(seq));
}

Value valueFromMapProto(const onnx::MapProto& proto)
{
    const std::string what = "map \"" + proto.name() + "\"";
    const DataType keyType = dataTypeFromOnnx(proto.key_type());
    check(keyType == DataType::String || isInteger(keyType),
        what + ": key type " + std::to_string(proto.key_type()) + " is not an integer type or string");
    const bool stringKeys = keyType == DataType::String;
    // Both counts come from the file: compared, and the keys checked against the allocation limit, before anything
    // is decoded.
    const int64_t keyCount = stringKeys ? proto.string_keys_size() : proto.keys_size();
    const int64_t valueCount = sequenceLength(proto.values());
    check(keyCount == valueCount,
        what + " has " + std::to_string(keyCount) + " keys but " + std::to_string(valueCount) + " values");
    Map map;
    try {
        map.keys = Tensor::uninitialized(stringKeys ? DataType::String : DataType::Int64, { keyCount });
    } catch (const Error& e) {
        throw Error(what + ": " + e.what());
    }
    if (stringKeys)
        std::copy(proto.string_keys().begin(), proto.string_keys().end(), map.keys.data<std::string>().begin());
    else
        std::copy(proto.keys().begin(), proto.keys().end(), map.keys.data<int64_t>().begin());
    Value values = valueFromSequenceProto(proto.values());
    const auto& items = values.sequence().items;
    if (!items.empty()) {
        DataType vt = items[0].tensor("map value").dtype();
        map.values = Tensor(vt, { static_cast<int64_t>(items.size()) });
        for (size_t i = 0; i < items.size(); ++i) {
            const Tensor& t = items[i].tensor("map value");
            check(t.size() == 1 && t.dtype() == vt, what + ": values must be scalars of one type");
            if (vt == DataType::String) // not trivially copyable
                map.values.data<std::string>()[i] = t.data<std::string>()[0];
            else
                std::memcpy(
                    static_cast<char*>(map.values.mutableRaw()) + i * elementSize(vt), t.raw(), elementSize(vt));
        }
    } else {
        map.values = Tensor(DataType::Float, { 0 });
    }
    return Value(std::move(map));
}

Value valueFromOptionalProto(const onnx::OptionalProto& proto)
{
    switch (proto.elem_type()) {
    case onnx::OptionalProto::TENSOR:
        return proto.has_tensor_value() ? Value::optional(Value(tensorFromProto(proto.tensor_value())))
                                        : Value::optional(std::nullopt);
    case onnx::OptionalProto::SEQUENCE:
        return proto.has_sequence_value() ? Value::optional(valueFromSequenceProto(proto.sequence_value()))
                                          : Value::optional(std::nullopt);
    case onnx::OptionalProto::MAP:
        return proto.has_map_value() ? Value::optional(valueFromMapProto(proto.map_value()))
                                     : Value::optional(std::nullopt);
    case onnx::OptionalProto::OPTIONAL:
        return proto.has_optional_value() ? Value::optional(valueFromOptionalProto(proto.optional_value()))
                                          : Value::optional(std::nullopt);
    default:
        return Value::optional(std::nullopt);
    }
}

Value readValueFile(const std::filesystem::path& path, const ValueType* expected)
{
    std::string bytes = readFileBytes(path);
    const auto kind = expected ? expected->kind : Value::Kind::Tensor;
    try {
        switch (kind) {
        case Value::Kind::Sequence: {
            onnx::SequenceProto p;
            check(p.ParseFromString(bytes), "not a valid serialized SequenceProto");
            return valueFromSequenceProto(p);
        }
        case Value::Kind::Map: {
            onnx::MapProto p;
            check(p.ParseFromString(bytes), "not a valid serialized MapProto");
            return valueFromMapProto(p);
        }
        case Value::Kind::Optional: {
            onnx::OptionalProto p;
            check(p.ParseFromString(bytes), "not a valid serialized OptionalProto");
            return valueFromOptionalProto(p);
        }
        default: {
            onnx::TensorProto p;
            check(p.ParseFromString(bytes), "not a valid serialized TensorProto");
            ExternalDataStore store(path.parent_path());
            return Value(tensorFromProto(p, &store));
        }
        }
    } catch (const Error& e) {
        throw Error("\"" + path.string() + "\": " + e.what());
    }
}

} // namespace onnxscope
