// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel.h"

#include "engine/kernels/kernel_registry.h"
#include "engine/model/op_schema.h"

#include <algorithm>

namespace onnxscope {

namespace {
const Value& noneValue()
{
    static const Value none;
    return none;
}
} // namespace

KernelContext::KernelContext(const Node& node, std::span<const Value> inputs, std::span<Value> outputs,
    ThreadPool* pool, const std::vector<std::optional<Value>>* outputOverrides, const ExecutionLimits* limits)
    : m_node(node)
    , m_inputs(inputs)
    , m_outputs(outputs)
    , m_pool(pool)
    , m_overrides(outputOverrides)
    , m_limits(limits)
{
}

KernelContext::KernelContext(const Node& node, std::span<const Value* const> inputs, std::span<Value> outputs,
    ThreadPool* pool, const std::vector<std::optional<Value>>* outputOverrides, const ExecutionLimits* limits)
    : m_node(node)
    , m_byAddress(true)
    , m_inputRefs(inputs)
    , m_outputs(outputs)
    , m_pool(pool)
    , m_overrides(outputOverrides)
    , m_limits(limits)
{
}

const ExecutionLimits& KernelContext::limits() const
{
    static const ExecutionLimits none;
    return m_limits ? *m_limits : none;
}

bool KernelContext::hasInput(size_t i) const
{
    if (i >= inputCount())
        return false;
    const Value& v = inputAt(i);
    return !v.isNone() && !(v.isOptional() && !v.optionalValue());
}

const Value& KernelContext::inputValue(size_t i) const
{
    return i < inputCount() ? inputAt(i) : noneValue();
}

const Tensor& KernelContext::input(size_t i) const
{
    if (!hasInput(i))
        throw error("input " + std::to_string(i) + " is missing");
    const Value& v = inputAt(i);
    const Value& inner = v.isOptional() ? *v.optionalValue() : v;
    if (inner.isTensor())
        return inner.tensor(); // no message built on the hot path
    return inner.tensor(m_node.label() + ": input " + std::to_string(i));
}

bool KernelContext::hasOutput(size_t i) const
{
    return i < m_node.outputs.size() && m_node.outputs[i] != kNoValue;
}

void KernelContext::setOutput(size_t i, Value value)
{
    if (i >= m_outputs.size())
        return; // the graph does not use this output
    m_outputs[i] = std::move(value);
}

Tensor& KernelContext::allocateOutput(size_t i, DataType type, Shape shape)
{
    if (i >= m_outputs.size())
        throw error("output " + std::to_string(i) + " does not exist");
    try {
        m_outputs[i] = Value(Tensor(type, std::move(shape)));
    } catch (const Error& e) {
        throw error(std::string("output ") + std::to_string(i) + ": " + e.what());
    }
    return const_cast<Tensor&>(m_outputs[i].tensor());
}

Tensor& KernelContext::allocateOutputUninitialized(size_t i, DataType type, Shape shape)
{
    if (i >= m_outputs.size())
        throw error("output " + std::to_string(i) + " does not exist");
    try {
        m_outputs[i] = Value(Tensor::uninitialized(type, std::move(shape)));
    } catch (const Error& e) {
        throw error(std::string("output ") + std::to_string(i) + ": " + e.what());
    }
    return const_cast<Tensor&>(m_outputs[i].tensor());
}

Tensor& KernelContext::reuseInputOrAllocate(size_t out, size_t in, DataType type, Shape shape)
{
    const bool givenAway = !m_byAddress
        || std::find(m_givenAway.begin(), m_givenAway.end(), static_cast<uint32_t>(in)) != m_givenAway.end();
    if (givenAway && out < m_outputs.size() && in < inputCount() && inputAt(in).isTensor()) {
        const Tensor& t = inputAt(in).tensor();
        if (t.dtype() == type && t.uniquelyOwned() && t.size() == elementCount(shape)) {
            m_outputs[out] = Value(t.reshaped(std::move(shape)));
            return const_cast<Tensor&>(m_outputs[out].tensor());
        }
    }
    return allocateOutputUninitialized(out, type, std::move(shape));
}

const std::optional<Value>* KernelContext::outputOverride(size_t i) const
{
    if (!m_overrides || i >= m_overrides->size() || !(*m_overrides)[i])
        return nullptr;
    return &(*m_overrides)[i];
}

Error KernelContext::error(const std::string& message) const
{
    return Error(m_node.label() + ": " + message);
}

void SubgraphKernel::compute(KernelContext& ctx) const
{
    throw ctx.error("control-flow node run outside the executor");
}

void KernelRegistry::add(const std::string& domain, const std::string& opType, int64_t sinceVersion,
    int64_t lastVersion, KernelFactory factory)
{
    m_entries[{ domain, opType }].push_back({ domain, opType, sinceVersion, lastVersion, std::move(factory) });
}

int64_t KernelRegistry::implementedVersion(const std::string& domain, const std::string& opType, int64_t opset)
{
    if (!isSchemaDomain(domain))
        return opset;
    const OpSchemaInfo& schema = lookupOpSchema(opType, domain, opset);
    // An op that onnx does not define at this opset (a model that is not valid) keeps the opset as its version.
    return schema.known ? schema.sinceVersion : opset;
}

const KernelEntry* KernelRegistry::find(const std::string& domain, const std::string& opType, int64_t opset) const
{
    auto it = m_entries.find({ domain, opType });
    if (it == m_entries.end())
        return nullptr;
    const int64_t version = implementedVersion(domain, opType, opset);
    for (const auto& e : it->second)
        if (version >= e.sinceVersion && version <= e.lastVersion)
            return &e;
    return nullptr;
}

std::string KernelRegistry::describeVersions(const std::string& domain, const std::string& opType) const
{
    auto it = m_entries.find({ domain, opType });
    if (it == m_entries.end())
        return "no version of " + opType + " has a kernel";
    std::string text;
    for (const auto& e : it->second) {
        text += text.empty() ? "" : ", ";
        text += std::to_string(e.sinceVersion);
        if (e.lastVersion == kLatest)
            text += " and later";
        else if (e.lastVersion != e.sinceVersion)
            text += "-" + std::to_string(e.lastVersion);
    }
    return "the versions of " + opType + " with a kernel: " + text;
}

std::unique_ptr<Kernel> KernelRegistry::create(const Node& node, const Graph* graph) const
{
    const KernelEntry* entry = find(node.domain, node.opType, node.opset);
    if (!entry) {
        const int64_t version = implementedVersion(node.domain, node.opType, node.opset);
        throw Error(node.label() + ": operator " + node.opType + " (domain \""
            + (node.domain.empty() ? "ai.onnx" : node.domain) + "\", opset " + std::to_string(node.opset)
            + (version != node.opset ? ", version " + std::to_string(version) : std::string()) + ") is not supported; "
            + describeVersions(node.domain, node.opType));
    }
    return entry->factory(KernelInit { node, graph });
}

std::vector<KernelEntry> KernelRegistry::entries() const
{
    std::vector<KernelEntry> out;
    for (const auto& [key, list] : m_entries)
        for (const auto& e : list)
            out.push_back(e);
    return out;
}

const KernelRegistry& KernelRegistry::builtin()
{
    static const KernelRegistry registry = [] {
        KernelRegistry r;
        registerAllKernels(r);
        return r;
    }();
    return registry;
}

} // namespace onnxscope
