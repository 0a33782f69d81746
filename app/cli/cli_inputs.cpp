// SPDX-License-Identifier: MIT
#include "app/cli/cli_inputs.h"

#include "app/cli/commands.h"

#include "engine/core/half.h"
#include "engine/io/input_reader.h"

namespace fs = std::filesystem;

namespace onnxscope::cli {

std::string expectedInputsText(const Graph& graph)
{
    std::string s;
    for (ValueId id : graph.requiredInputs())
        s += "\n  " + graph.value(id).name + ": " + graph.value(id).type.toString();
    return s.empty() ? "\n  (none)" : s;
}

Value readInputFile(const std::string& name, const fs::path& file, const ValueType* declared)
{
    if (inputFileFormat(file) == InputFileFormat::Unknown)
        throw UsageError("input \"" + name + "\": \"" + file.string() + "\" is neither .npy, .npz nor .pb");
    return readInputValue(name, file, declared);
}

Tensor randomTensor(DataType type, const Shape& shape, std::mt19937_64& rng)
{
    Tensor t(type, shape);
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::uniform_int_distribution<int> small(0, 9);
    for (int64_t i = 0; i < t.size(); ++i) {
        switch (type) {
        case DataType::Float:
            t.data<float>()[i] = static_cast<float>(real(rng));
            break;
        case DataType::Double:
            t.data<double>()[i] = real(rng);
            break;
        case DataType::Float16:
            t.data<Float16>()[i] = Float16(static_cast<float>(real(rng)));
            break;
        case DataType::BFloat16:
            t.data<BFloat16>()[i] = BFloat16(static_cast<float>(real(rng)));
            break;
        case DataType::Int8:
            t.data<int8_t>()[i] = static_cast<int8_t>(small(rng));
            break;
        case DataType::Int16:
            t.data<int16_t>()[i] = static_cast<int16_t>(small(rng));
            break;
        case DataType::Int32:
            t.data<int32_t>()[i] = small(rng);
            break;
        case DataType::Int64:
            t.data<int64_t>()[i] = small(rng);
            break;
        case DataType::UInt8:
            t.data<uint8_t>()[i] = static_cast<uint8_t>(small(rng));
            break;
        case DataType::UInt16:
            t.data<uint16_t>()[i] = static_cast<uint16_t>(small(rng));
            break;
        case DataType::UInt32:
            t.data<uint32_t>()[i] = static_cast<uint32_t>(small(rng));
            break;
        case DataType::UInt64:
            t.data<uint64_t>()[i] = static_cast<uint64_t>(small(rng));
            break;
        case DataType::Bool:
            t.data<bool>()[i] = (rng() & 1) != 0;
            break;
        case DataType::Complex64:
            t.data<Complex64>()[i] = Complex64(static_cast<float>(real(rng)), static_cast<float>(real(rng)));
            break;
        case DataType::Complex128:
            t.data<Complex128>()[i] = Complex128(real(rng), real(rng));
            break;
        case DataType::String: {
            std::string s(1 + rng() % 8, 'a');
            for (char& c : s)
                c = static_cast<char>('a' + rng() % 26);
            t.data<std::string>()[i] = s;
            break;
        }
        default:
            throw Error("cannot generate random values of element type " + std::string(dataTypeName(type)));
        }
    }
    return t;
}

Value randomValue(const std::string& name, const ValueType& type, const std::map<std::string, int64_t>& dims,
    std::set<std::string>& usedDims, std::mt19937_64& rng, std::set<std::string>* defaultedDims)
{
    switch (type.kind) {
    case Value::Kind::Tensor: {
        check(type.elementType != DataType::Undefined,
            "input \"" + name + "\" has no declared element type; give it with --input");
        check(type.hasShape,
            "input \"" + name + "\" (" + type.toString()
                + ") has no declared shape, so --random-inputs cannot make one; give it with --input");
        Shape shape;
        for (const auto& d : type.shape) {
            if (d.known()) {
                shape.push_back(d.value);
            } else if (auto it = dims.find(d.symbol); !d.symbol.empty() && it != dims.end()) {
                shape.push_back(it->second);
                usedDims.insert(d.symbol);
            } else {
                shape.push_back(1);
                if (defaultedDims)
                    defaultedDims->insert(d.symbol.empty() ? "(unnamed, of \"" + name + "\")" : d.symbol);
            }
        }
        return Value(randomTensor(type.elementType, shape, rng));
    }
    case Value::Kind::Optional:
        check(type.element != nullptr, "input \"" + name + "\" is an optional of unknown type; give it with --input");
        return Value::optional(randomValue(name, *type.element, dims, usedDims, rng, defaultedDims));
    case Value::Kind::Sequence: {
        check(type.element != nullptr, "input \"" + name + "\" is a sequence of unknown type; give it with --input");
        Sequence seq;
        seq.elementType = type.elementType;
        seq.items.push_back(randomValue(name, *type.element, dims, usedDims, rng, defaultedDims));
        return Value(std::move(seq));
    }
    default:
        throw Error("input \"" + name + "\" (" + type.toString()
            + "): --random-inputs cannot generate this type; give it with --input");
    }
}

} // namespace onnxscope::cli
