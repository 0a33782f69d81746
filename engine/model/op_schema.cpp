// SPDX-License-Identifier: MIT
#include "engine/model/op_schema.h"

#include "engine/model/graph.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

namespace onnxscope {

namespace {

std::string trimmed(const char* text)
{
    const std::string s(text);
    const char* space = " \t\n\v\f\r";
    const size_t first = s.find_first_not_of(space);
    if (first == std::string::npos)
        return {};
    return s.substr(first, s.find_last_not_of(space) - first + 1);
}

std::string portName(const std::vector<std::string>& names, bool variadic, size_t index)
{
    if (names.empty())
        return {};
    if (index < names.size() && !(variadic && index + 1 >= names.size()))
        return names[index];
    if (!variadic)
        return {};
    const size_t first = names.size() - 1;
    if (index == first)
        return names.back();
    return names.back() + "_" + std::to_string(index - first);
}

} // namespace

const OpSchemaInfo& lookupOpSchema(const std::string& opType, const std::string& domain, int64_t opset)
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
        info.domain = schema->domain();
        if (const char* doc = schema->doc())
            info.doc = trimmed(doc);
        for (const auto& p : schema->inputs())
            info.inputs.push_back(p.GetName());
        for (const auto& p : schema->outputs())
            info.outputs.push_back(p.GetName());
        info.variadicInput = !schema->inputs().empty()
            && schema->inputs().back().GetOption() == onnx::OpSchema::FormalParameterOption::Variadic;
        info.variadicOutput = !schema->outputs().empty()
            && schema->outputs().back().GetOption() == onnx::OpSchema::FormalParameterOption::Variadic;
        if (schema->Deprecated())
            info.support = "deprecated";
        else if (schema->support_level() == onnx::OpSchema::SupportType::EXPERIMENTAL)
            info.support = "experimental";
    }
    return cache.emplace(key, std::move(info)).first->second;
}

std::vector<SchemaVersion> allSchemaVersions()
{
    std::vector<SchemaVersion> out;
    for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
        SchemaVersion v;
        v.domain = schema.domain();
        v.opType = schema.Name();
        v.sinceVersion = schema.since_version();
        v.deprecated = schema.Deprecated();
        v.functionBody = schema.HasFunction() && schema.GetFunction(schema.since_version()) != nullptr;
        out.push_back(std::move(v));
    }
    std::sort(out.begin(), out.end(), [](const SchemaVersion& a, const SchemaVersion& b) {
        return std::tie(a.domain, a.opType, a.sinceVersion) < std::tie(b.domain, b.opType, b.sinceVersion);
    });
    return out;
}

std::vector<int> schemaVersions(const std::string& opType, const std::string& domain)
{
    static const std::map<std::pair<std::string, std::string>, std::vector<int>> versions = [] {
        std::map<std::pair<std::string, std::string>, std::vector<int>> map;
        for (const SchemaVersion& v : allSchemaVersions())
            map[{ v.domain, v.opType }].push_back(v.sinceVersion);
        return map;
    }();
    auto it = versions.find({ domain, opType });
    return it == versions.end() ? std::vector<int>() : it->second;
}

bool isSchemaDomain(const std::string& domain)
{
    const auto& known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    return known.count(domain) > 0;
}

std::string inputPortName(const Node& node, size_t index)
{
    const OpSchemaInfo& info = lookupOpSchema(node.opType, node.domain, node.opset);
    return portName(info.inputs, info.variadicInput, index);
}

std::string outputPortName(const Node& node, size_t index)
{
    const OpSchemaInfo& info = lookupOpSchema(node.opType, node.domain, node.opset);
    return portName(info.outputs, info.variadicOutput, index);
}

} // namespace onnxscope
