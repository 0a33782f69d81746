// SPDX-License-Identifier: MIT
#include "engine/core/value.h"

namespace onnxscope {

Value::Value(Tensor tensor)
    : m_data(std::move(tensor))
{
}

Value::Value(Sequence sequence)
    : m_data(std::make_shared<const Sequence>(std::move(sequence)))
{
}

Value::Value(Map map)
    : m_data(std::make_shared<const Map>(std::move(map)))
{
}

Value Value::optional(std::optional<Value> inner)
{
    Value v;
    OptionalBox box;
    if (inner)
        box.inner = std::make_shared<const Value>(std::move(*inner));
    v.m_data = std::move(box);
    return v;
}

Value::Kind Value::kind() const
{
    switch (m_data.index()) {
    case 1:
        return std::get<Tensor>(m_data).defined() ? Kind::Tensor : Kind::None;
    case 2:
        return Kind::Sequence;
    case 3:
        return Kind::Map;
    case 4:
        return Kind::Optional;
    default:
        return Kind::None;
    }
}

namespace {
const char* kindName(Value::Kind kind)
{
    switch (kind) {
    case Value::Kind::Tensor:
        return "a tensor";
    case Value::Kind::Sequence:
        return "a sequence";
    case Value::Kind::Map:
        return "a map";
    case Value::Kind::Optional:
        return "an optional";
    default:
        return "missing";
    }
}
} // namespace

const Tensor& Value::tensor(const std::string& what) const
{
    if (kind() != Kind::Tensor)
        throw Error(what + " must be a tensor but is " + kindName(kind()));
    return std::get<Tensor>(m_data);
}

const Sequence& Value::sequence(const std::string& what) const
{
    if (kind() != Kind::Sequence)
        throw Error(what + " must be a sequence but is " + kindName(kind()));
    return *std::get<2>(m_data);
}

const Map& Value::map(const std::string& what) const
{
    if (kind() != Kind::Map)
        throw Error(what + " must be a map but is " + kindName(kind()));
    return *std::get<3>(m_data);
}

const Value* Value::optionalValue() const
{
    if (kind() != Kind::Optional)
        return nullptr;
    const auto& box = std::get<OptionalBox>(m_data);
    return box.inner ? box.inner->get() : nullptr;
}

const Tensor* Value::heldTensor() const
{
    if (isTensor())
        return &tensor();
    if (const Value* inner = optionalValue(); inner && inner->isTensor())
        return &inner->tensor();
    return nullptr;
}

size_t Value::byteSize() const
{
    // Every tensor, first (the debugger asks after every node); an undefined one has no elements.
    if (const Tensor* t = std::get_if<Tensor>(&m_data))
        return t->byteSize();
    switch (kind()) {
    case Kind::Sequence: {
        size_t n = 0;
        for (const auto& item : sequence().items)
            n += item.byteSize();
        return n;
    }
    case Kind::Map:
        return map().keys.byteSize() + map().values.byteSize();
    case Kind::Optional:
        return optionalValue() ? optionalValue()->byteSize() : 0;
    default:
        return 0;
    }
}

std::string Value::typeString() const
{
    switch (kind()) {
    case Kind::Tensor:
        return tensor().typeString();
    case Kind::Sequence: {
        const auto& s = sequence();
        std::string element(dataTypeName(s.elementType));
        if (!s.items.empty() && !s.items.front().isTensor()) {
            // A sequence of maps (ZipMap) or of sequences: the first item's type, without its own size.
            element = s.items.front().typeString();
            if (!element.empty() && element.back() == ']')
                element.erase(element.rfind('['));
        }
        return "seq(" + element + ")[" + std::to_string(s.items.size()) + " items]";
    }
    case Kind::Map: {
        const auto& m = map();
        return "map(" + std::string(dataTypeName(m.keys.dtype())) + ", " + std::string(dataTypeName(m.values.dtype()))
            + ")[" + std::to_string(m.keys.size()) + "]";
    }
    case Kind::Optional:
        return optionalValue() ? "optional(" + optionalValue()->typeString() + ")" : "optional(empty)";
    default:
        return "none";
    }
}

std::string ValueType::toString() const
{
    switch (kind) {
    case Value::Kind::Tensor: {
        std::string s(dataTypeName(elementType));
        if (sparse)
            return "sparse " + ValueType { kind, elementType, hasShape, shape }.toString() + " (fed dense)";
        if (!hasShape)
            return s;
        s += "[";
        for (size_t i = 0; i < shape.size(); ++i) {
            if (i)
                s += ", ";
            s += shape[i].known() ? std::to_string(shape[i].value) : (shape[i].symbol.empty() ? "?" : shape[i].symbol);
        }
        return s + "]";
    }
    case Value::Kind::Sequence:
        return "seq(" + (element ? element->toString() : std::string("?")) + ")";
    case Value::Kind::Map:
        return "map(" + std::string(dataTypeName(keyType)) + ", " + (element ? element->toString() : std::string("?"))
            + ")";
    case Value::Kind::Optional:
        return "optional(" + (element ? element->toString() : std::string("?")) + ")";
    default:
        return "?";
    }
}

void ValueType::checkValue(const Value& value, const std::string& name, bool checkShape) const
{
    if (kind == Value::Kind::None)
        return;
    if (kind == Value::Kind::Optional) {
        check(value.isOptional() || value.isNone() || (element && element->kind == value.kind()),
            name + ": expected " + toString() + ", got " + value.typeString());
        if (element && value.isOptional() && value.optionalValue())
            element->checkValue(*value.optionalValue(), name, checkShape);
        else if (element && !value.isOptional() && !value.isNone())
            element->checkValue(value, name, checkShape);
        return;
    }
    if (value.kind() != kind)
        throw Error(name + ": expected " + toString() + ", got " + value.typeString());
    if (kind == Value::Kind::Sequence) {
        if (element)
            for (const auto& item : value.sequence().items)
                element->checkValue(item, name + " (sequence item)", checkShape);
        return;
    }
    if (kind != Value::Kind::Tensor)
        return;
    const Tensor& t = value.tensor();
    if (elementType != DataType::Undefined && t.dtype() != elementType)
        throw Error(name + ": expected element type " + std::string(dataTypeName(elementType)) + ", got "
            + std::string(dataTypeName(t.dtype())) + " (declared " + toString() + ")");
    if (!hasShape || !checkShape)
        return;
    if (static_cast<size_t>(t.rank()) != shape.size())
        throw Error(name + ": expected rank " + std::to_string(shape.size()) + " (" + toString() + "), got shape "
            + shapeToString(t.shape()));
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i].known() && shape[i].value != t.shape()[i])
            throw Error(name + ": dimension " + std::to_string(i) + " must be " + std::to_string(shape[i].value) + " ("
                + toString() + "), got shape " + shapeToString(t.shape()));
}

} // namespace onnxscope
