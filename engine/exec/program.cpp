// SPDX-License-Identifier: MIT
#include "engine/exec/program.h"

#include "engine/exec/fusion.h"
#include "engine/kernels/control/function_call.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string_view>

namespace onnxscope {

namespace {

void visitGraphs(const Graph& graph, const std::function<void(const Graph&)>& fn)
{
    fn(graph);
    for (const auto& node : graph.nodes()) {
        for (const auto& [attr, sub] : node.subgraphs)
            visitGraphs(*sub, fn);
        if (node.functionBody)
            visitGraphs(*node.functionBody, fn);
    }
}

/// `node "Gelu_0" (Gelu, domain "ai.onnx", opset 20)`, with the op's version when the opset resolves to an older one.
std::string describeNode(const Node& node)
{
    const int64_t version = KernelRegistry::implementedVersion(node.domain, node.opType, node.opset);
    return "node \"" + node.displayName() + "\" (" + node.opType + ", domain \""
        + (node.domain.empty() ? "ai.onnx" : node.domain) + "\", opset " + std::to_string(node.opset)
        + (version != node.opset ? ", version " + std::to_string(version) : std::string()) + ")";
}

/// Each distinct text once, in order of first appearance, with " (N times)" when it repeats: a function body
/// instantiated at many call sites repeats the same problem at each.
std::vector<std::string> distinctWithCounts(const std::vector<std::string>& texts)
{
    std::vector<std::pair<std::string, size_t>> distinct;
    std::map<std::string, size_t> index;
    for (const auto& t : texts) {
        auto [it, inserted] = index.emplace(t, distinct.size());
        if (inserted)
            distinct.emplace_back(t, 0);
        ++distinct[it->second].second;
    }
    std::vector<std::string> out;
    out.reserve(distinct.size());
    for (auto& [text, count] : distinct)
        out.push_back(count > 1 ? text + " (" + std::to_string(count) + " times)" : std::move(text));
    return out;
}

/// Values a run makes if each graph runs once: its inputs and its nodes' outputs.
size_t countValuesOfOneRun(const Graph& graph)
{
    size_t n = graph.inputs().size();
    for (const Node& node : graph.nodes()) {
        n += node.outputs.size();
        for (const auto& [name, subgraph] : node.subgraphs)
            n += subgraph ? countValuesOfOneRun(*subgraph) : 0;
        if (node.functionBody)
            n += countValuesOfOneRun(*node.functionBody);
    }
    return n;
}

} // namespace

Program::Program(std::shared_ptr<const Model> model, const KernelRegistry& registry)
    : m_model(std::move(model))
{
    std::vector<std::string> problems;
    visitGraphs(m_model->graph(), [&](const Graph& g) {
        build(g, registry, problems);
        for (const Node& node : g.nodes())
            if (std::string_view(node.opType) == "YieldOp")
                m_yieldNodes.insert(&node);
    });
    m_valuesOfOneRun = countValuesOfOneRun(m_model->graph());
    // The fused kernels reproduce the builtin ones; a registry that replaces any of them gets no fusion. Enclosing
    // graphs first, so that subgraphs fold on their known values; then the plans not reached that way (the bodies of
    // ops that onnx defines as functions).
    if (problems.empty() && &registry == &KernelRegistry::builtin()) {
        fuse(m_model->graph(), nullptr);
        for (auto& [graph, plan] : m_plans)
            if (plan->fused.empty())
                planFusions(*plan, nullptr);
    }
    if (!problems.empty()) {
        const std::vector<std::string> distinct = distinctWithCounts(problems);
        std::string message = "\"" + m_model->displayName() + "\" cannot run: ";
        const size_t shown = std::min<size_t>(distinct.size(), 20);
        for (size_t i = 0; i < shown; ++i)
            message += (i ? "; " : "") + distinct[i];
        if (distinct.size() > shown)
            message += "; and " + std::to_string(distinct.size() - shown) + " more";
        throw Error(message);
    }
}

std::vector<std::string> Program::unsupportedNodes(const Model& model, const KernelRegistry& registry)
{
    std::vector<std::string> out;
    visitGraphs(model.graph(), [&](const Graph& g) {
        for (const auto& node : g.nodes())
            if (!node.functionBody && !registry.find(node.domain, node.opType, node.opset)
                && !model.schemaFunctionBody(node))
                out.push_back(describeNode(node) + "; " + registry.describeVersions(node.domain, node.opType));
    });
    return distinctWithCounts(out);
}

void Program::build(const Graph& graph, const KernelRegistry& registry, std::vector<std::string>& problems)
{
    auto plan = std::make_unique<Plan>();
    plan->graph = &graph;
    const size_t nodeCount = graph.nodes().size();
    const size_t valueCount = graph.values().size();
    plan->kernels.resize(nodeCount);
    for (const auto& node : graph.nodes()) {
        try {
            if (node.functionBody) {
                plan->kernels[static_cast<size_t>(node.id)] = makeFunctionCallKernel(*node.functionBody);
            } else if (registry.find(node.domain, node.opType, node.opset)) {
                plan->kernels[static_cast<size_t>(node.id)] = registry.create(node, &graph);
            } else if (auto body = m_model->schemaFunctionBody(node)) {
                // No kernel, but onnx defines the op as a function: run its body as a nested frame.
                plan->kernels[static_cast<size_t>(node.id)] = makeFunctionCallKernel(*body);
                visitGraphs(*body, [&](const Graph& g) { build(g, registry, problems); });
            } else {
                problems.push_back(
                    describeNode(node) + " is not supported; " + registry.describeVersions(node.domain, node.opType));
            }
        } catch (const Error& e) {
            problems.push_back(e.what());
        }
    }
    plan->constants.resize(valueCount);
    for (size_t id = 0; id < valueCount; ++id) {
        const auto& v = graph.values()[id];
        if (v.initializer) {
            try {
                plan->constants[id] = Value(m_model->initializer(v));
            } catch (const Error& e) {
                problems.push_back(e.what());
            }
        }
    }
    plan->isGraphOutput.assign(valueCount, false);
    for (ValueId id : graph.outputs())
        plan->isGraphOutput[static_cast<size_t>(id)] = true;
    plan->lastUse.assign(valueCount, -1);
    for (const auto& node : graph.nodes()) {
        for (ValueId id : node.inputs)
            if (id != kNoValue)
                plan->lastUse[static_cast<size_t>(id)] = node.id;
        for (ValueId id : node.implicitInputs)
            plan->lastUse[static_cast<size_t>(id)] = node.id;
    }
    plan->freeAfter.resize(nodeCount);
    for (size_t id = 0; id < valueCount; ++id) {
        NodeId last = plan->lastUse[id];
        if (last >= 0 && !plan->isGraphOutput[id])
            plan->freeAfter[static_cast<size_t>(last)].push_back(static_cast<ValueId>(id));
    }
    plan->donatedInputs.resize(nodeCount);
    for (const auto& node : graph.nodes()) {
        if (!node.implicitInputs.empty() || node.functionBody)
            continue;
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const ValueId id = node.inputs[i];
            if (id == kNoValue || plan->lastUse[static_cast<size_t>(id)] != node.id
                || plan->isGraphOutput[static_cast<size_t>(id)] || !plan->constants[static_cast<size_t>(id)].isNone()
                || std::count(node.inputs.begin(), node.inputs.end(), id) != 1)
                continue;
            plan->donatedInputs[static_cast<size_t>(node.id)].push_back(static_cast<uint32_t>(i));
        }
    }
    m_plans[&graph] = std::move(plan);
}

size_t Plan::fusedNodeCount() const
{
    size_t n = 0;
    for (size_t at = 0; at < fused.size(); ++at)
        for (size_t i = at; i < at + fused[at].nodes; ++i)
            n += folded[i] ? 0 : 1;
    return n;
}

size_t Plan::foldedNodeCount() const
{
    size_t n = 0;
    for (size_t i = 0; i < folded.size(); ++i)
        n += folded[i] && graph->nodes()[i].opType != "Constant" ? 1 : 0;
    return n;
}

void Program::fuse(const Graph& graph, const Plan* enclosing)
{
    Plan& plan = *m_plans.at(&graph);
    if (!plan.fused.empty())
        return;
    planFusions(plan, enclosing);
    for (const auto& node : graph.nodes()) {
        for (const auto& [attr, sub] : node.subgraphs)
            fuse(*sub, &plan);
        if (node.functionBody)
            fuse(*node.functionBody, nullptr); // a function body reads only its own inputs
    }
}

const Plan& Program::plan(const Graph& graph) const
{
    auto it = m_plans.find(&graph);
    if (it == m_plans.end())
        throw Error("internal: no plan for graph \"" + graph.name() + "\"");
    return *it->second;
}

} // namespace onnxscope
