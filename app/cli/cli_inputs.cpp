// SPDX-License-Identifier: MIT
#include "app/cli/cli_inputs.h"

#include "app/cli/commands.h"

#include "engine/core/half.h"
#include "engine/io/input_reader.h"

#include <iostream>

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

std::map<std::string, int64_t> parseDims(const std::vector<std::string>& specs)
{
    std::map<std::string, int64_t> dims;
    for (const auto& d : specs) {
        auto eq = d.find('=');
        int64_t value = -1;
        try {
            if (eq != std::string::npos && eq > 0)
                value = std::stoll(d.substr(eq + 1));
        } catch (const std::exception&) {
        }
        if (value < 0)
            throw UsageError("--dim expects SYMBOL=VALUE with a non-negative VALUE, got \"" + d + "\"");
        dims[d.substr(0, eq)] = value;
    }
    return dims;
}

std::map<std::string, Value> readInputs(const Graph& graph, const std::vector<std::string>& specs, const char* option)
{
    std::map<std::string, Value> inputs;
    for (const auto& spec : specs) {
        auto eq = spec.find('=');
        if (eq == std::string::npos) {
            fs::path file(spec);
            if (file.extension() == ".npz") {
                for (auto& [key, value] : readInputArchive(file))
                    inputs[key] = std::move(value);
                continue;
            }
            throw UsageError(std::string(option)
                + " expects NAME=FILE (.npy, .npz or .pb) or an .npz whose arrays are named after the inputs, got \""
                + spec + "\"");
        }
        const std::string name = spec.substr(0, eq);
        ValueId id = graph.findValue(name);
        if (id == kNoValue || graph.value(id).source != ValueInfo::Source::Input)
            throw Error("the model has no input \"" + name + "\"; its inputs are:" + expectedInputsText(graph));
        if (inputs.count(name))
            throw UsageError("input \"" + name + "\" is given more than once");
        inputs[name] = readInputFile(name, spec.substr(eq + 1), &graph.value(id).type);
    }
    return inputs;
}

void completeInputs(const Graph& graph, std::map<std::string, Value>& inputs, const RandomInputs& random,
    const std::string& side, bool quiet, std::set<std::string>* defaultedDims)
{
    std::vector<std::string> missing;
    for (ValueId id : graph.requiredInputs())
        if (!inputs.count(graph.value(id).name) && graph.value(id).type.kind != Value::Kind::Optional)
            missing.push_back(graph.value(id).name);
    if (missing.empty())
        return;
    if (random.enabled) {
        std::mt19937_64 rng(random.seed);
        std::set<std::string> usedDims;
        for (ValueId id : graph.requiredInputs()) {
            const auto& v = graph.value(id);
            if (inputs.count(v.name) || v.type.kind == Value::Kind::Optional)
                continue;
            inputs[v.name] = randomValue(v.name, v.type, random.dims, usedDims, rng, defaultedDims);
            if (!quiet)
                std::cout << "random input \"" << v.name << "\"" << (side.empty() ? "" : " for " + side) << ": "
                          << inputs[v.name].typeString() << "\n";
        }
        if (side.empty())
            for (const auto& [symbol, value] : random.dims)
                if (!usedDims.count(symbol))
                    std::cerr << "warning: --dim " << symbol << " matches no symbolic dimension of the inputs\n";
        return;
    }
    std::string names;
    for (const auto& m : missing)
        names += (names.empty() ? "\"" : ", \"") + m + "\"";
    throw Error((side.empty() ? std::string() : side + ": ") + "missing input"
        + std::string(missing.size() > 1 ? "s " : " ") + names
        + " (give them with --input NAME=FILE.npy|FILE.npz|FILE.pb, or use --random-inputs); the model expects:"
        + expectedInputsText(graph));
}

} // namespace onnxscope::cli
