// SPDX-License-Identifier: MIT
#include "engine/model/input_roles.h"

#include "engine/core/cast.h"
#include "engine/core/error.h"
#include "engine/core/half.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace onnxscope {

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool contains(const std::string& s, const char* part)
{
    return s.find(part) != std::string::npos;
}

bool endsWith(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool isPassThrough(const Node& node)
{
    static const std::set<std::string> ops { "Cast", "Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity" };
    return node.domain.empty() && ops.count(node.opType) > 0;
}

// The initializer a Gather's table comes from, through casts and dequantization; null if it is computed otherwise.
const ValueInfo* tableInitializer(const Graph& graph, ValueId v)
{
    for (int hops = 0; hops < 4 && v != kNoValue; ++hops) {
        const ValueInfo& info = graph.value(v);
        if (info.hasInitializer())
            return &info;
        if (info.producer < 0)
            return nullptr;
        const Node& p = graph.node(info.producer);
        if (!p.domain.empty() || p.inputs.empty()
            || (p.opType != "Cast" && p.opType != "DequantizeLinear" && p.opType != "Identity"))
            return nullptr;
        v = p.inputs[0];
    }
    return nullptr;
}

// The embedding table that `input`'s values index: a Gather reached through pass-through ops, its data a 2-D
// initializer. Sets vocabulary and table; false if none.
bool findEmbedding(const Graph& graph, ValueId input, InputRole& role)
{
    std::vector<ValueId> frontier { input };
    std::set<ValueId> seen { input };
    for (int depth = 0; depth < 4 && !frontier.empty(); ++depth) {
        std::vector<ValueId> next;
        for (ValueId v : frontier)
            for (NodeId c : graph.value(v).consumers) {
                const Node& node = graph.node(c);
                if (node.domain.empty() && node.opType == "Gather" && node.inputs.size() >= 2 && node.inputs[1] == v) {
                    const ValueInfo* table = tableInitializer(graph, node.inputs[0]);
                    if (!table)
                        continue;
                    const InitializerInfo info = table->initializerInfo();
                    if (info.shape.size() != 2 || info.shape[0] <= 0)
                        continue;
                    role.vocabulary = info.shape[0];
                    role.table = table->name;
                    return true;
                }
                if (isPassThrough(node) && !node.inputs.empty() && node.inputs[0] == v)
                    for (ValueId out : node.outputs)
                        if (out != kNoValue && seen.insert(out).second)
                            next.push_back(out);
            }
        frontier = std::move(next);
    }
    return false;
}

} // namespace

InputRole inputRole(const Graph& graph, ValueId input)
{
    InputRole role;
    const ValueInfo& info = graph.value(input);
    const DataType dt = info.type.elementType;
    if (info.type.kind != Value::Kind::Tensor)
        return role;
    const bool integer = isInteger(dt);
    const bool maskType = integer || dt == DataType::Bool || isFloatingPoint(dt);
    const std::string name = lower(info.name);
    const std::string quoted = "(\"" + info.name + "\")";
    if (maskType
        && (contains(name, "attention_mask") || contains(name, "attn_mask") || name == "mask"
            || endsWith(name, "_mask"))) {
        role.kind = InputRole::Kind::AttentionMask;
        role.rule = "attention mask " + quoted + ": ones (attend to every position)";
        return role;
    }
    if (integer && (contains(name, "position_ids") || contains(name, "cache_position") || name == "positions")) {
        role.kind = InputRole::Kind::PositionIds;
        role.rule = "position ids " + quoted + ": 0, 1, \u2026, n-1 along the last axis";
        return role;
    }
    if (integer && (contains(name, "token_type_ids") || contains(name, "segment_ids"))) {
        role.kind = InputRole::Kind::TokenTypeIds;
        role.rule = "token type ids " + quoted + ": zeros (one segment)";
        return role;
    }
    if (!integer)
        return role;
    const bool named = contains(name, "input_ids") || contains(name, "token_ids") || name == "ids" || name == "tokens";
    const bool embedded = findEmbedding(graph, input, role);
    if (!named && !embedded)
        return role;
    role.kind = InputRole::Kind::TokenIds;
    const std::string why = named ? "token ids " + quoted : "token ids " + quoted + " (they index an embedding table)";
    if (embedded)
        role.rule = why + ": seeded random integers in [0, " + std::to_string(role.vocabulary)
            + "), the row count of the embedding table \"" + role.table + "\"";
    else
        role.rule = why + ": seeded random integers in [0, 9] (no embedding table found to read the vocabulary from)";
    return role;
}

Tensor roleTensor(const InputRole& role, DataType dtype, const Shape& shape, std::mt19937_64& rng)
{
    if (role.kind == InputRole::Kind::Generic)
        return {};
    Tensor values(DataType::Int64, shape);
    const auto v = values.data<int64_t>();
    const int64_t count = values.size();
    switch (role.kind) {
    case InputRole::Kind::AttentionMask:
        std::fill(v.begin(), v.end(), 1);
        break;
    case InputRole::Kind::TokenTypeIds:
        std::fill(v.begin(), v.end(), 0);
        break;
    case InputRole::Kind::PositionIds: {
        const int64_t n = shape.empty() ? 1 : shape.back();
        for (int64_t i = 0; i < count; ++i)
            v[i] = n > 0 ? i % n : 0;
        break;
    }
    case InputRole::Kind::TokenIds: {
        std::uniform_int_distribution<int64_t> dist(0, role.vocabulary > 0 ? role.vocabulary - 1 : 9);
        for (int64_t i = 0; i < count; ++i)
            v[i] = dist(rng);
        break;
    }
    case InputRole::Kind::Generic:
        break;
    }
    return dtype == DataType::Int64 ? values : castTensor(values, dtype);
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

Value defaultInputValue(const Graph& graph, ValueId id, const std::map<std::string, int64_t>& dims,
    std::set<std::string>& usedDims, std::mt19937_64& rng, std::set<std::string>* defaultedDims, std::string& rule)
{
    const ValueInfo& v = graph.value(id);
    const InputRole role = inputRole(graph, id);
    if (role.kind == InputRole::Kind::Generic) {
        rule = "random";
        return randomValue(v.name, v.type, dims, usedDims, rng, defaultedDims);
    }
    // The shape as randomValue() resolves it (and records the dimensions it used); the values from the role.
    std::mt19937_64 shapeRng(0);
    const Value shaped = randomValue(v.name, v.type, dims, usedDims, shapeRng, defaultedDims);
    rule = role.rule;
    return Value(roleTensor(role, v.type.elementType, shaped.tensor().shape(), rng));
}

} // namespace onnxscope
