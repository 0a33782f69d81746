// SPDX-License-Identifier: MIT
#include "ui/nodeinspector/op_schema.h"

#include "engine/model/graph.h"

#include <onnx/defs/schema.h>

#include <map>
#include <mutex>
#include <tuple>

namespace onnxscope {

OpSchemaInfo lookupOpSchema(const std::string& opType, const std::string& domain, int64_t opset)
{
    static std::mutex mutex;
    static std::map<std::tuple<std::string, std::string, int64_t>, OpSchemaInfo> cache;
    std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_tuple(opType, domain, opset);
    if (auto it = cache.find(key); it != cache.end())
        return it->second;
    OpSchemaInfo info;
    const int version = static_cast<int>(std::clamp<int64_t>(opset <= 0 ? 1 : opset, 1, 1 << 20));
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(opType, version, domain);
    if (schema) {
        info.known = true;
        info.sinceVersion = schema->since_version();
        info.domain = QString::fromStdString(schema->domain());
        if (const char* doc = schema->doc())
            info.doc = QString::fromUtf8(doc).trimmed();
        for (const auto& p : schema->inputs())
            info.inputs << QString::fromStdString(p.GetName());
        for (const auto& p : schema->outputs())
            info.outputs << QString::fromStdString(p.GetName());
        info.variadicInput = !schema->inputs().empty()
            && schema->inputs().back().GetOption() == onnx::OpSchema::FormalParameterOption::Variadic;
        info.variadicOutput = !schema->outputs().empty()
            && schema->outputs().back().GetOption() == onnx::OpSchema::FormalParameterOption::Variadic;
        if (schema->Deprecated())
            info.support = QStringLiteral("deprecated");
        else if (schema->support_level() == onnx::OpSchema::SupportType::EXPERIMENTAL)
            info.support = QStringLiteral("experimental");
    }
    cache.emplace(key, info);
    return info;
}

namespace {

QString portName(const QStringList& names, bool variadic, size_t index)
{
    if (names.isEmpty())
        return {};
    if (index < static_cast<size_t>(names.size()) && !(variadic && index + 1 >= static_cast<size_t>(names.size())))
        return names.at(static_cast<qsizetype>(index));
    if (!variadic)
        return {};
    const size_t first = static_cast<size_t>(names.size()) - 1;
    if (index == first)
        return names.last();
    return QStringLiteral("%1_%2").arg(names.last()).arg(index - first);
}

} // namespace

QString inputPortName(const Node& node, size_t index)
{
    const OpSchemaInfo info = lookupOpSchema(node.opType, node.domain, node.opset);
    return portName(info.inputs, info.variadicInput, index);
}

QString outputPortName(const Node& node, size_t index)
{
    const OpSchemaInfo info = lookupOpSchema(node.opType, node.domain, node.opset);
    return portName(info.outputs, info.variadicOutput, index);
}

} // namespace onnxscope
