// SPDX-License-Identifier: MIT
#include "engine/compare/module_comparison.h"

#include "engine/model/torch_origin.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

namespace onnxscope {

namespace {

bool parseCount(const std::string& text, int& out)
{
    if (text.empty() || text.size() > 6 || !std::all_of(text.begin(), text.end(), ::isdigit))
        return false;
    out = std::stoi(text);
    return true;
}

// Hand-written: a dozen lines, and no library of the project's dependencies offers an edit distance.
size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    std::iota(prev.begin(), prev.end(), size_t { 0 });
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({ prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1) });
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

/// The module chain of every node of the main graph (root module left out). A node without parsable metadata (an
/// optimizer's Split or Constant) takes the longest common prefix of its neighbours' chains, repeated until nothing
/// changes, so that it does not cut a module's scope in two.
std::vector<std::vector<TorchModule>> moduleChains(const Graph& graph)
{
    const size_t n = graph.nodes().size();
    std::vector<std::vector<TorchModule>> chains(n);
    std::vector<bool> known(n, false);
    for (size_t i = 0; i < n; ++i) {
        const TorchOrigin origin = torchOrigin(graph.nodes()[i]);
        if (!origin.hasModules)
            continue;
        known[i] = true;
        for (const TorchModule& m : origin.modules)
            if (!m.path.empty())
                chains[i].push_back(m);
    }
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < n; ++i) {
            if (known[i])
                continue;
            const Node& node = graph.nodes()[i];
            std::vector<NodeId> neighbours;
            for (ValueId v : node.inputs)
                if (v != kNoValue && graph.value(v).producer >= 0)
                    neighbours.push_back(graph.value(v).producer);
            for (ValueId v : node.outputs)
                if (v != kNoValue)
                    for (NodeId c : graph.value(v).consumers)
                        neighbours.push_back(c);
            bool first = true;
            std::vector<TorchModule> common;
            for (NodeId nb : neighbours) {
                if (!known[static_cast<size_t>(nb)])
                    continue;
                const auto& chain = chains[static_cast<size_t>(nb)];
                if (first) {
                    common = chain;
                    first = false;
                    continue;
                }
                size_t k = 0;
                while (k < common.size() && k < chain.size() && common[k].path == chain[k].path)
                    ++k;
                common.resize(k);
            }
            if (first)
                continue; // no neighbour known yet
            chains[i] = std::move(common);
            known[i] = true;
            changed = true;
        }
    }
    return chains;
}

/// One connected part of a module's scope: a call of the module as the graph shows it.
struct ScopePart {
    NodeId firstNode = -1;
    std::vector<ValueId> exits; // in execution order (node order, then output order)
};

/// The module's scope split into its connected parts (nodes linked by values both produced and read inside it), in
/// execution order, each with the values leaving it.
std::vector<ScopePart> scopeParts(const Graph& graph, const std::vector<bool>& inScope)
{
    const size_t n = graph.nodes().size();
    std::vector<size_t> parent(n);
    std::iota(parent.begin(), parent.end(), size_t { 0 });
    std::function<size_t(size_t)> root = [&](size_t x) { return parent[x] == x ? x : parent[x] = root(parent[x]); };
    std::set<ValueId> graphOutputs(graph.outputs().begin(), graph.outputs().end());
    for (size_t i = 0; i < n; ++i) {
        if (!inScope[i])
            continue;
        for (ValueId v : graph.nodes()[i].outputs)
            if (v != kNoValue)
                for (NodeId c : graph.value(v).consumers)
                    if (inScope[static_cast<size_t>(c)])
                        parent[root(static_cast<size_t>(c))] = root(i);
    }
    std::map<size_t, size_t> partOfRoot;
    std::vector<ScopePart> parts;
    for (size_t i = 0; i < n; ++i) {
        if (!inScope[i])
            continue;
        auto [it, added] = partOfRoot.emplace(root(i), parts.size());
        if (added)
            parts.push_back({ static_cast<NodeId>(i), {} });
        ScopePart& part = parts[it->second];
        for (ValueId v : graph.nodes()[i].outputs) {
            if (v == kNoValue)
                continue;
            const auto& consumers = graph.value(v).consumers;
            const bool leaves = graphOutputs.count(v) > 0
                || std::any_of(
                    consumers.begin(), consumers.end(), [&](NodeId c) { return !inScope[static_cast<size_t>(c)]; });
            if (leaves)
                part.exits.push_back(v);
        }
    }
    return parts;
}

class ValueCatcher : public SessionObserver {
public:
    explicit ValueCatcher(const std::set<ValueId>& wanted)
        : m_wanted(wanted)
    {
    }
    void afterNode(const NodeEvent& e) override
    {
        if (e.depth != 1)
            return;
        for (size_t k = 0; k < e.node.outputs.size() && k < e.outputs.size(); ++k)
            if (m_wanted.count(e.node.outputs[k]))
                values[e.node.outputs[k]] = e.outputs[k];
        ++nodesDone;
    }
    bool wantsTiming() const override { return false; }
    std::map<ValueId, Value> values;
    uint64_t nodesDone = 0;

private:
    const std::set<ValueId>& m_wanted;
};

bool sameShape(const Value& a, const Value& b)
{
    return a.isTensor() && b.isTensor() && a.tensor().shape() == b.tensor().shape();
}

int severity(CompareStatus s)
{
    switch (s) {
    case CompareStatus::Match:
        return 0;
    case CompareStatus::OnlyA:
    case CompareStatus::OnlyB:
    case CompareStatus::Skipped:
        return 1;
    case CompareStatus::Mismatch:
        return 2;
    case CompareStatus::ShapeMismatch:
        return 3;
    case CompareStatus::KindMismatch:
        return 4;
    }
    return 0;
}

nlohmann::json jnum(double v)
{
    if (!std::isfinite(v))
        return nullptr;
    return v;
}

bool hasStats(CompareStatus s)
{
    return s == CompareStatus::Match || s == CompareStatus::Mismatch;
}

} // namespace

std::optional<ModuleOutputKey> parseModuleOutputKey(const std::string& key)
{
    ModuleOutputKey k;
    std::string rest = key;
    if (const size_t hash = rest.rfind('#'); hash != std::string::npos) {
        if (!parseCount(rest.substr(hash + 1), k.output))
            return std::nullopt;
        rest.resize(hash);
    }
    if (const size_t at = rest.rfind('@'); at != std::string::npos) {
        if (!parseCount(rest.substr(at + 1), k.call))
            return std::nullopt;
        rest.resize(at);
    }
    if (rest.empty())
        return std::nullopt;
    k.module = rest;
    return k;
}

std::vector<std::string> nearestModulePaths(
    const std::string& key, const std::vector<std::string>& candidates, size_t count)
{
    std::vector<std::pair<size_t, std::string>> scored;
    for (const auto& c : candidates)
        scored.push_back({ editDistance(key, c), c });
    std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (size_t i = 0; i < scored.size() && i < count; ++i)
        out.push_back(scored[i].second);
    return out;
}

size_t ModuleComparisonResult::countModules(CompareStatus status) const
{
    return static_cast<size_t>(
        std::count_if(modules.begin(), modules.end(), [&](const ModuleCompare& m) { return m.status == status; }));
}

bool ModuleComparisonResult::hasDivergence() const
{
    return firstDivergence.has_value() || !errorA.empty() || cancelled;
}

ModuleComparisonResult compareModulesWithReference(
    const RunSide& a, const ReferenceValues& reference, const CompareOptions& options)
{
    check(a.program != nullptr, "compare by module: no model to run");
    ModuleComparisonResult res;
    res.tolerance = options.tolerance;
    res.programA = a.program;
    res.sideA = a.description.empty() ? a.program->model().displayName() : a.description;
    res.sideB = reference.description();
    const Graph& graph = a.program->model().graph();

    const std::vector<TorchModuleSummary> summaries = torchModules(graph);
    check(!summaries.empty(),
        "compare by module: " + res.sideA
            + " has no PyTorch module metadata (pkg.torch.onnx.name_scopes on its nodes); export the model with "
              "torch.onnx.export(..., dynamo=True)");
    res.graphModules = summaries.size();
    std::map<std::string, std::string> classOf;
    std::vector<std::string> paths;
    for (const auto& s : summaries) {
        classOf[s.path] = s.className;
        paths.push_back(s.path);
    }

    // The reference's keys by module and call.
    struct KeyedOutput {
        size_t entry;
        ModuleOutputKey key;
    };
    std::map<std::string, std::map<int, std::vector<KeyedOutput>>> byModule;
    std::vector<std::string> unmatched;
    for (size_t i = 0; i < reference.entries().size(); ++i) {
        const auto& e = reference.entries()[i];
        const std::string key = e.framePath == "main" ? e.name : e.framePath + " / " + e.name;
        const auto parsed = parseModuleOutputKey(key);
        if (!parsed || !classOf.count(parsed->module)) {
            unmatched.push_back(key);
            continue;
        }
        byModule[parsed->module][parsed->call].push_back({ i, *parsed });
    }
    for (const auto& key : unmatched) {
        const auto parsed = parseModuleOutputKey(key);
        res.unmatchedKeys.push_back({ key, nearestModulePaths(parsed ? parsed->module : key, paths) });
    }
    if (byModule.empty()) {
        std::string message = "compare by module: none of the " + std::to_string(reference.entries().size())
            + " keys of " + res.sideB + " names a module of " + res.sideA
            + " (keys are module paths as onnxscope.torch.capture writes them: PATH, PATH#OUTPUT, PATH@CALL; "
              "docs/torch-compare.md)";
        for (size_t i = 0; i < res.unmatchedKeys.size() && i < 5; ++i) {
            message += "\n  \"" + res.unmatchedKeys[i].key + "\": nearest module paths ";
            for (size_t k = 0; k < res.unmatchedKeys[i].nearest.size(); ++k)
                message += (k ? ", \"" : "\"") + res.unmatchedKeys[i].nearest[k] + "\"";
        }
        if (res.unmatchedKeys.size() > 5)
            message += "\n  \u2026 and " + std::to_string(res.unmatchedKeys.size() - 5) + " more key(s)";
        throw Error(message);
    }

    // Each referenced module's scope, split into calls.
    const auto chains = moduleChains(graph);
    struct PlannedCall {
        std::string path;
        int call;
        int calls;
        const std::vector<KeyedOutput>* outputs;
        std::vector<ValueId> exits; // empty: no part of the graph for this call
        std::string note;
    };
    std::vector<PlannedCall> planned;
    std::set<ValueId> wanted;
    for (const auto& [modulePath, calls] : byModule) {
        const std::string& path = modulePath; // a structured binding cannot be captured before C++20's clang 16
        std::vector<bool> inScope(graph.nodes().size(), false);
        for (size_t i = 0; i < chains.size(); ++i)
            inScope[i]
                = std::any_of(chains[i].begin(), chains[i].end(), [&](const TorchModule& m) { return m.path == path; });
        std::vector<ScopePart> parts = scopeParts(graph, inScope);
        const int callCount = calls.rbegin()->first + 1;
        if (callCount == 1 && parts.size() > 1) { // one call whose scope has independent branches
            for (size_t p = 1; p < parts.size(); ++p)
                parts[0].exits.insert(parts[0].exits.end(), parts[p].exits.begin(), parts[p].exits.end());
            std::sort(parts[0].exits.begin(), parts[0].exits.end(),
                [&](ValueId x, ValueId y) { return graph.value(x).producer < graph.value(y).producer; });
            parts.resize(1);
        }
        const bool callsPair = static_cast<int>(parts.size()) == callCount;
        for (const auto& [call, outputs] : calls) {
            PlannedCall pc { path, call, callCount, &outputs, {}, {} };
            if (callsPair) {
                pc.exits = parts[static_cast<size_t>(call)].exits;
                for (ValueId v : pc.exits)
                    wanted.insert(v);
            } else if (parts.empty()) {
                pc.note = "no node of this module is in the graph";
            } else {
                pc.note = "the reference has " + std::to_string(callCount) + " calls of this module, the graph "
                    + std::to_string(parts.size())
                    + " separate part(s) of its scope: the calls cannot be told apart (calls feeding each other "
                      "directly)";
            }
            planned.push_back(std::move(pc));
        }
    }

    // One run of side A, keeping only the values that leave a compared scope.
    ValueCatcher catcher(wanted);
    {
        Session session(a.program, options.sessionOptions);
        session.addObserver(&catcher);
        try {
            session.start(a.inputs);
            uint64_t reported = 0;
            while (session.state() == Session::State::Running) {
                if (options.cancel && options.cancel->load()) {
                    res.cancelled = true;
                    break;
                }
                session.advance();
                if (options.progress && catcher.nodesDone >= reported + 64) {
                    reported = catcher.nodesDone;
                    options.progress(reported);
                }
            }
            if (session.state() == Session::State::Failed && res.errorA.empty())
                res.errorA = session.failure().message;
        } catch (const std::exception& e) {
            res.errorA = e.what();
        }
    }

    // Pair and compare.
    for (const PlannedCall& pc : planned) {
        ModuleCompare m;
        m.path = pc.path;
        m.className = classOf[pc.path];
        m.call = pc.call;
        m.calls = pc.calls;
        m.depth = static_cast<size_t>(std::count(pc.path.begin(), pc.path.end(), '.')) + 1;
        m.note = pc.note;
        std::vector<KeyedOutput> outputs = *pc.outputs;
        std::sort(outputs.begin(), outputs.end(),
            [](const KeyedOutput& x, const KeyedOutput& y) { return x.key.output < y.key.output; });
        std::vector<Value> refs;
        for (const auto& o : outputs)
            refs.push_back(reference.read(o.entry));
        std::vector<ValueId> paired(outputs.size(), kNoValue);
        std::vector<std::string> how(outputs.size());
        std::vector<bool> used(pc.exits.size(), false);
        const bool single = outputs.size() == 1;
        auto computed = [&](size_t e) { return catcher.values.count(pc.exits[e]) > 0; };
        // First by shape: a single output takes the last value of its shape leaving the scope (what the module
        // returns is computed last), several outputs the values of their shapes in execution order.
        for (size_t o = 0; o < outputs.size(); ++o) {
            std::vector<size_t> fits;
            for (size_t e = 0; e < pc.exits.size(); ++e)
                if (!used[e] && computed(e) && sameShape(catcher.values[pc.exits[e]], refs[o]))
                    fits.push_back(e);
            if (fits.empty())
                continue;
            const size_t e = single ? fits.back() : fits.front();
            used[e] = true;
            paired[o] = pc.exits[e];
            size_t sameShaped = 0;
            for (size_t x = 0; x < pc.exits.size(); ++x)
                sameShaped += computed(x) && sameShape(catcher.values[pc.exits[x]], refs[o]);
            how[o] = pc.exits.size() == 1 ? "only value" : sameShaped == 1 ? "shape" : "order";
        }
        // Then the rest in order, so that a wrong shape is reported as such rather than as missing.
        for (size_t o = 0; o < outputs.size(); ++o) {
            if (paired[o] != kNoValue)
                continue;
            std::optional<size_t> pick;
            for (size_t e = 0; e < pc.exits.size(); ++e)
                if (!used[e] && (!pick || single))
                    pick = e;
            if (!pick)
                continue;
            used[*pick] = true;
            paired[o] = pc.exits[*pick];
            how[o] = pc.exits.size() == 1 ? "only value" : "order";
        }
        for (size_t o = 0; o < outputs.size(); ++o) {
            ModuleOutputRow row;
            row.key = reference.entries()[outputs[o].entry].name;
            row.output = outputs[o].key.output;
            row.typeB = refs[o].typeString();
            if (paired[o] == kNoValue) {
                row.status = CompareStatus::OnlyB;
                row.note = !pc.note.empty() ? pc.note
                    : pc.exits.empty()      ? "no value leaves this module's scope in the graph"
                                            : "more outputs than values leaving this module's scope in the graph";
            } else {
                const ValueInfo& info = graph.value(paired[o]);
                row.value = info.name;
                row.nodeId = info.producer;
                if (info.producer >= 0) {
                    row.node = graph.node(info.producer).displayName();
                    row.opType = graph.node(info.producer).opType;
                }
                row.pairedBy = how[o];
                auto it = catcher.values.find(paired[o]);
                if (it == catcher.values.end()) {
                    row.status = CompareStatus::Skipped;
                    row.note = "not computed: the run stopped before it";
                } else {
                    row.typeA = it->second.typeString();
                    const PairComparison pcmp = compareValuePair(it->second, refs[o], options.tolerance);
                    row.status = pcmp.status;
                    row.stats = pcmp.stats;
                    row.note = pcmp.note;
                }
                m.lastNode = std::max(m.lastNode, row.nodeId);
            }
            m.rows.push_back(res.rows.size());
            res.rows.push_back(std::move(row));
        }
        bool anyCompared = false;
        for (size_t r : m.rows) {
            const ModuleOutputRow& row = res.rows[r];
            if (row.status == CompareStatus::OnlyB || row.status == CompareStatus::Skipped) {
                if (!anyCompared && (m.status != CompareStatus::Skipped))
                    m.status = row.status;
                continue;
            }
            if (!anyCompared || severity(row.status) > severity(m.status))
                m.status = row.status;
            anyCompared = true;
            if (hasStats(row.status) && row.stats.numeric) {
                m.maxAbsError = std::max(m.maxAbsError, row.stats.maxAbsError);
                m.maxRelError = std::max(m.maxRelError, row.stats.maxRelError);
                m.minCosine = std::min(m.minCosine, row.stats.cosine);
            }
        }
        res.modules.push_back(std::move(m));
    }
    // Execution order: by the last node producing an output; a child before its parent on a tie (hooks fire in that
    // order); modules with nothing paired last, in the reference's order.
    std::stable_sort(res.modules.begin(), res.modules.end(), [](const ModuleCompare& x, const ModuleCompare& y) {
        const bool px = x.lastNode >= 0, py = y.lastNode >= 0;
        if (px != py)
            return px;
        if (x.lastNode != y.lastNode)
            return x.lastNode < y.lastNode;
        if (x.depth != y.depth)
            return x.depth > y.depth;
        return x.call < y.call;
    });
    for (size_t i = 0; i < res.modules.size(); ++i)
        if (isDivergent(res.modules[i].status)) {
            res.firstDivergence = i;
            break;
        }
    return res;
}

ComparisonResult moduleComparisonAsValues(const ModuleComparisonResult& res)
{
    ComparisonResult out;
    out.tolerance = res.tolerance;
    out.sideA = res.sideA;
    out.sideB = res.sideB;
    out.programA = res.programA;
    out.errorA = res.errorA;
    out.cancelled = res.cancelled;
    const Graph* graph = res.programA ? &res.programA->model().graph() : nullptr;
    for (size_t mi = 0; mi < res.modules.size(); ++mi) {
        const ModuleCompare& m = res.modules[mi];
        std::string where = "module " + m.path;
        if (const size_t dot = m.className.rfind('.'); !m.className.empty())
            where += " (" + (dot == std::string::npos ? m.className : m.className.substr(dot + 1)) + ")";
        if (m.calls > 1)
            where += ", call " + std::to_string(m.call);
        for (size_t r : m.rows) {
            const ModuleOutputRow& row = res.rows[r];
            CompareRow c;
            c.status = row.status;
            c.origin = ValueOrigin::NodeOutput;
            c.name = row.value.empty() ? row.key : row.value;
            c.nameB = row.key;
            c.framePath = "main";
            c.node = row.node;
            c.opType = row.opType;
            c.nodeId = row.nodeId;
            c.graph = row.nodeId >= 0 ? graph : nullptr;
            c.sequence = row.nodeId >= 0 ? static_cast<uint64_t>(row.nodeId) + 1 : 0;
            c.typeA = row.typeA;
            c.typeB = row.typeB;
            c.stats = row.stats;
            c.note = where + (row.output >= 0 ? ", output " + std::to_string(row.output) : std::string())
                + (row.note.empty() ? std::string() : ": " + row.note);
            const size_t index = out.rows.size();
            out.rows.push_back(std::move(c));
            if (row.nodeId < 0)
                continue;
            NodeCompare n;
            n.framePath = "main";
            n.node = row.node;
            n.opType = row.opType;
            n.graph = graph;
            n.nodeId = row.nodeId;
            n.sequence = static_cast<uint64_t>(row.nodeId) + 1;
            n.status = row.status;
            if (hasStats(row.status) && row.stats.numeric) {
                n.maxAbsError = row.stats.maxAbsError;
                n.maxRelError = row.stats.maxRelError;
                n.minCosine = row.stats.cosine;
                n.toleranceRatio = row.stats.toleranceRatio;
            }
            n.rows.push_back(index);
            n.root = isDivergent(row.status);
            if (n.root && !out.firstDivergence && res.firstDivergence && *res.firstDivergence == mi)
                out.firstDivergence = out.nodes.size();
            out.nodes.push_back(std::move(n));
        }
    }
    return out;
}

std::string moduleComparisonJson(const ModuleComparisonResult& res, int indent)
{
    using nlohmann::json;
    json doc;
    doc["format"] = "onnxscope-module-compare";
    doc["version"] = 1;
    doc["side_a"] = res.sideA;
    doc["side_b"] = res.sideB;
    doc["tolerance"] = { { "rtol", res.tolerance.rtol }, { "atol", res.tolerance.atol } };
    auto moduleJson = [&](const ModuleCompare& m) {
        json j;
        j["module"] = m.path;
        j["class"] = m.className;
        j["call"] = m.call;
        j["calls"] = m.calls;
        j["status"] = std::string(compareStatusName(m.status));
        const bool stats = std::any_of(m.rows.begin(), m.rows.end(),
            [&](size_t r) { return hasStats(res.rows[r].status) && res.rows[r].stats.numeric; });
        j["max_abs_error"] = stats ? jnum(m.maxAbsError) : nullptr;
        j["max_rel_error"] = stats ? jnum(m.maxRelError) : nullptr;
        j["cosine"] = stats ? jnum(m.minCosine) : nullptr;
        j["note"] = m.note;
        json outs = json::array();
        for (size_t r : m.rows) {
            const ModuleOutputRow& row = res.rows[r];
            json o;
            o["key"] = row.key;
            o["output"] = row.output;
            o["value"] = row.value.empty() ? json(nullptr) : json(row.value);
            o["node"] = row.node.empty() ? json(nullptr) : json(row.node);
            o["op_type"] = row.opType.empty() ? json(nullptr) : json(row.opType);
            o["paired_by"] = row.pairedBy.empty() ? json(nullptr) : json(row.pairedBy);
            o["status"] = std::string(compareStatusName(row.status));
            o["type_a"] = row.typeA.empty() ? json(nullptr) : json(row.typeA);
            o["type_b"] = row.typeB;
            const bool s = hasStats(row.status);
            const bool numeric = s && row.stats.numeric;
            o["elements"] = s ? json(row.stats.elements) : json(nullptr);
            o["mismatches"] = s ? json(row.stats.mismatches) : json(nullptr);
            o["max_abs_error"] = numeric ? jnum(row.stats.maxAbsError) : nullptr;
            o["max_rel_error"] = numeric ? jnum(row.stats.maxRelError) : nullptr;
            o["cosine"] = numeric ? jnum(row.stats.cosine) : nullptr;
            o["note"] = row.note;
            outs.push_back(o);
        }
        j["outputs"] = outs;
        return j;
    };
    json modules = json::array();
    for (const auto& m : res.modules)
        modules.push_back(moduleJson(m));
    doc["modules"] = modules;
    doc["first_divergence"] = res.firstDivergence ? moduleJson(res.modules[*res.firstDivergence]) : json(nullptr);
    json unmatched = json::array();
    for (const auto& u : res.unmatchedKeys)
        unmatched.push_back({ { "key", u.key }, { "nearest", u.nearest } });
    doc["unmatched_keys"] = unmatched;
    size_t unpaired = 0;
    for (const auto& m : res.modules)
        unpaired += m.status == CompareStatus::OnlyB || m.status == CompareStatus::Skipped;
    doc["summary"] = {
        { "modules_in_graph", res.graphModules },
        { "module_calls", res.modules.size() },
        { "match", res.countModules(CompareStatus::Match) },
        { "diverged",
            res.countModules(CompareStatus::Mismatch) + res.countModules(CompareStatus::ShapeMismatch)
                + res.countModules(CompareStatus::KindMismatch) },
        { "not_paired", unpaired },
        { "unmatched_keys", res.unmatchedKeys.size() },
        { "outputs_not_paired",
            std::count_if(res.rows.begin(), res.rows.end(),
                [](const ModuleOutputRow& r) {
                    return r.status == CompareStatus::OnlyB || r.status == CompareStatus::Skipped;
                }) },
        { "error_a", res.errorA },
        { "cancelled", res.cancelled },
        { "has_divergence", res.hasDivergence() },
    };
    return doc.dump(indent, ' ', false, json::error_handler_t::replace);
}

} // namespace onnxscope
