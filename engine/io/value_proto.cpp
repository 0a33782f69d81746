// SPDX-License-Identifier: MIT
#include "engine/io/value_proto.h"

#include "engine/io/tensor_proto.h"

#include <onnx/onnx-data.pb.h> // the generated header: onnx installs no onnx-data_pb.h wrapper

#include <cstring>

namespace onnxscope {

Value valueFromSequenceProto(const onnx::SequenceProto& proto)
{
    Sequence seq;
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
    case onnx::SequenceProto::UNDEFINED:
        break;
    default:
        throw Error(
            "sequence \"" + proto.name() + "\" has unsupported element kind " + std::to_string(proto.elem_type()));
    }
    return Value(std::move(seq));
}

Value valueFromMapProto(const onnx::MapProto& proto)
{
    Map map;
    DataType keyType = dataTypeFromOnnx(proto.key_type());
    if (keyType == DataType::String) {
        std::vector<std::string> keys(proto.string_keys().begin(), proto.string_keys().end());
        map.keys = Tensor::vector1D(keys);
    } else {
        std::vector<int64_t> keys(proto.keys().begin(), proto.keys().end());
        map.keys = Tensor::vector1D(keys);
    }
    Value values = valueFromSequenceProto(proto.values());
    const auto& items = values.sequence().items;
    check(items.size() == static_cast<size_t>(map.keys.size()),
        "map \"" + proto.name() + "\" has " + std::to_string(map.keys.size()) + " keys but "
            + std::to_string(items.size()) + " values");
    if (!items.empty()) {
        DataType vt = items[0].tensor("map value").dtype();
        map.values = Tensor(vt, { static_cast<int64_t>(items.size()) });
        for (size_t i = 0; i < items.size(); ++i) {
            const Tensor& t = items[i].tensor("map value");
            check(t.size() == 1 && t.dtype() == vt, "map \"" + proto.name() + "\": values must be scalars of one type");
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
