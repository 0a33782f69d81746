// SPDX-License-Identifier: MIT
#include "engine/compare/run_comparison.h"

#include "engine/exec/session.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace onnxscope {

std::string_view valueOriginName(ValueOrigin origin)
{
    switch (origin) {
    case ValueOrigin::GraphInput:
        return "input";
    case ValueOrigin::Initializer:
        return "initializer";
    case ValueOrigin::NodeOutput:
        return "node_output";
    }
    return "?";
}

size_t ComparisonResult::count(CompareStatus status) const
{
    size_t n = 0;
    for (const auto& r : rows)
        n += r.status == status;
    return n;
}

bool ComparisonResult::allMatch() const
{
    if (!errorA.empty() || !errorB.empty() || cancelled)
        return false;
    for (const auto& r : rows)
        if (r.status != CompareStatus::Match)
            return false;
    return true;
}

bool ComparisonResult::hasDivergence() const
{
    if (!errorA.empty() || !errorB.empty() || cancelled)
        return true;
    for (const auto& r : rows)
        if (isDivergent(r.status))
            return true;
    return false;
}

std::map<std::pair<const Graph*, NodeId>, const NodeCompare*> ComparisonResult::worstByNode() const
{
    auto rank
        = [](const NodeCompare& n) { return std::make_tuple(isDivergent(n.status), n.toleranceRatio, n.maxAbsError); };
    std::map<std::pair<const Graph*, NodeId>, const NodeCompare*> out;
    for (const auto& n : nodes) {
        auto [it, inserted] = out.try_emplace({ n.graph, n.nodeId }, &n);
        if (!inserted && rank(n) > rank(*it->second))
            it->second = &n;
    }
    return out;
}

std::map<std::pair<const Graph*, NodeId>, NodeCompare> ComparisonResult::nodesOfB() const
{
    std::map<std::pair<const Graph*, NodeId>, NodeCompare> out;
    std::set<size_t> rootRows;
    for (const auto& n : nodes)
        if (n.root)
            rootRows.insert(n.rows.begin(), n.rows.end());
    for (size_t i = 0; i < rows.size(); ++i) {
        const CompareRow& r = rows[i];
        const bool onlyB = r.status == CompareStatus::OnlyB;
        const Graph* graph = onlyB ? r.graph : r.graphB;
        const NodeId node = onlyB ? r.nodeId : r.nodeIdB;
        if (!graph || node < 0 || r.status == CompareStatus::OnlyA)
            continue;
        auto [it, inserted] = out.try_emplace({ graph, node });
        NodeCompare& n = it->second;
        if (inserted) {
            n.framePath = onlyB ? r.framePath : r.frameB;
            n.node = onlyB ? r.node : r.nodeB;
            n.opType = onlyB ? r.opType : r.opTypeB;
            n.graph = graph;
            n.nodeId = node;
            n.sequence = onlyB ? r.sequence : r.sequenceB;
            n.status = CompareStatus::OnlyB;
        }
        n.rows.push_back(i);
        n.root = n.root || rootRows.count(i) > 0;
        if (onlyB)
            continue;
        const bool better = n.status == CompareStatus::OnlyB
            || std::make_tuple(isDivergent(r.status), r.stats.toleranceRatio, r.stats.maxAbsError)
                > std::make_tuple(isDivergent(n.status), n.toleranceRatio, n.maxAbsError);
        if (better)
            n.status = r.status;
        if (r.status == CompareStatus::Match || r.status == CompareStatus::Mismatch) {
            n.maxAbsError = std::max(n.maxAbsError, r.stats.maxAbsError);
            n.maxRelError = std::max(n.maxRelError, r.stats.maxRelError);
            n.minCosine = std::min(n.minCosine, r.stats.cosine);
            n.toleranceRatio = std::max(n.toleranceRatio, r.stats.toleranceRatio);
        }
    }
    return out;
}

namespace {

/// Every value name of a graph and of its subgraphs and function bodies.
void collectNames(const Graph& graph, std::unordered_set<std::string>& names)
{
    for (const auto& v : graph.values())
        if (v.source != ValueInfo::Source::OuterScope)
            names.insert(v.name);
    for (const auto& node : graph.nodes()) {
        for (const auto& [attr, sub] : node.subgraphs)
            if (sub)
                collectNames(*sub, names);
        if (node.functionBody)
            collectNames(*node.functionBody, names);
    }
}

/// The names of every node output of a graph and of its subgraphs and function bodies.
void collectOutputNames(const Graph& graph, std::unordered_set<std::string>& names)
{
    for (const auto& node : graph.nodes()) {
        for (ValueId id : node.outputs)
            if (id != kNoValue)
                names.insert(graph.value(id).name);
        for (const auto& [attr, sub] : node.subgraphs)
            if (sub)
                collectOutputNames(*sub, names);
        if (node.functionBody)
            collectOutputNames(*node.functionBody, names);
    }
}

enum class Side { A, B };

/// A value produced on one side, as the comparison sees it.
struct Produced {
    ValueOrigin origin = ValueOrigin::NodeOutput;
    std::string framePath;
    std::string name;
    int64_t iteration = -1;
    const Node* node = nullptr;
    const Graph* graph = nullptr;
    uint64_t frameId = 0;
    ValueId valueId = kNoValue;
    size_t depth = 1;
};

/// Where a node input came from, for telling roots of a divergence from what follows it.
struct InputRef {
    int64_t row = -1; // a row of a value produced by a node (A side), -1 if none
    uint64_t frameInput = 0; // nonzero: an input of this subgraph frame (its taint is the frame's)
};

struct FrameInfo {
    uint64_t parent = 0;
    NodeId owner = -1;
    const Graph* graph = nullptr;
    int64_t iteration = -1; // effective: the innermost enclosing loop's
};

struct NodeRecord {
    std::vector<InputRef> inputs;
    uint64_t frameId = 0;
};

/// Receives execution events of one side and hands the produced values to the comparison.
class SideObserver : public SessionObserver {
public:
    std::function<void(const Produced&, const Value&)> produced;
    std::function<void(const NodeEvent&)> before, after;
    std::unordered_map<uint64_t, FrameInfo> frames;
    uint64_t nodesDone = 0;

    void beforeNode(const NodeEvent& e) override
    {
        if (before)
            before(e);
    }
    void afterNode(const NodeEvent& e) override
    {
        ++nodesDone;
        if (after)
            after(e);
        const Graph& g = e.frame.graph();
        for (size_t i = 0; i < e.outputs.size() && i < e.node.outputs.size(); ++i) {
            if (e.node.outputs[i] == kNoValue || e.outputs[i].isNone())
                continue;
            Produced p;
            p.framePath = e.framePath;
            p.name = g.value(e.node.outputs[i]).name;
            p.iteration = iterationOf(e.frame.id);
            p.node = &e.node;
            p.graph = &g;
            p.frameId = e.frame.id;
            p.valueId = e.node.outputs[i];
            p.depth = e.depth;
            produced(p, e.outputs[i]);
        }
    }
    void frameEntered(const Frame& f, const std::string&) override
    {
        FrameInfo info;
        info.parent = f.parentFrameId;
        info.owner = f.ownerNode;
        info.graph = f.plan->graph;
        info.iteration = f.iteration >= 0 ? f.iteration : iterationOf(f.parentFrameId);
        frames[f.id] = info;
    }
    int64_t iterationOf(uint64_t frameId) const
    {
        auto it = frames.find(frameId);
        return it == frames.end() ? -1 : it->second.iteration;
    }
};

class Comparison {
public:
    Comparison(const CompareOptions& options)
        : m_options(options)
    {
        m_result.tolerance = options.tolerance;
    }

    ComparisonResult run(const RunSide& a, const RunSide* b, const ReferenceValues* reference)
    {
        check(a.program != nullptr, "compare: side A has no program");
        check(b == nullptr || b->program != nullptr, "compare: side B has no program");
        m_reference = reference;
        m_result.programA = a.program;
        m_result.sideA = a.description.empty() ? a.program->model().displayName() : a.description;
        if (b) {
            m_result.programB = b->program;
            m_result.sideB = b->description.empty() ? b->program->model().displayName() : b->description;
        } else {
            m_result.sideB = reference->description();
        }

        std::unordered_set<std::string> namesA;
        collectNames(a.program->model().graph(), namesA);
        for (const auto& n : namesA)
            m_namesAInB.insert(mapName(n));
        if (b)
            collectNames(b->program->model().graph(), m_namesB);
        if (b && m_options.align != AlignMode::Names) {
            bool namesCover = m_options.align == AlignMode::Auto;
            if (namesCover) {
                std::unordered_set<std::string> outputsA;
                collectOutputNames(a.program->model().graph(), outputsA);
                for (ValueId id : a.program->model().graph().inputs())
                    outputsA.insert(a.program->model().graph().value(id).name);
                for (const auto& n : outputsA)
                    namesCover = namesCover && m_namesB.count(mapName(n)) > 0;
            }
            if (!namesCover) {
                m_result.align = m_options.align;
                if (!align(a, *b))
                    return std::move(m_result); // cancelled
            }
        }

        Session sa(a.program, m_options.sessionOptions);
        std::unique_ptr<Session> sb;
        SideObserver oa, ob;
        oa.produced = [&](const Produced& p, const Value& v) { producedA(p, v); };
        oa.before = [&](const NodeEvent& e) { beforeA(e, oa); };
        oa.after = [&](const NodeEvent& e) { afterA(e, oa); };
        sa.addObserver(&oa);
        if (b) {
            sb = std::make_unique<Session>(b->program, m_options.sessionOptions);
            ob.produced = [&](const Produced& p, const Value& v) { producedB(p, v); };
            ob.after = [&](const NodeEvent&) { ++m_sequenceB; };
            sb->addObserver(&ob);
        }

        bool doneA = !startSide(sa, a, m_result.errorA);
        bool doneB = true;
        if (b) {
            doneB = !startSide(*sb, *b, m_result.errorB);
            if (doneA) // nothing of A will come: B need not run
                doneB = true;
        }
        if (!doneA)
            emitSources(Side::A, sa, a);
        if (!doneB)
            emitSources(Side::B, *sb, *b);
        if (doneA)
            finishA();
        if (doneB)
            finishB();

        uint64_t reported = 0;
        while (!doneA || !doneB) {
            if (m_options.cancel && m_options.cancel->load()) {
                m_result.cancelled = true;
                break;
            }
            // Advance the side that is behind: the one holding fewer values that wait for the other side.
            const bool stepA = !doneA && (doneB || m_waitingA <= m_waitingB);
            Session& s = stepA ? sa : *sb;
            std::string& error = stepA ? m_result.errorA : m_result.errorB;
            try {
                s.advance();
            } catch (const Error& e) {
                error = e.what();
            } catch (const std::exception& e) {
                error = e.what();
            }
            if (s.state() != Session::State::Running) {
                if (stepA) {
                    doneA = true;
                    finishA();
                } else {
                    doneB = true;
                    finishB();
                }
            }
            if (m_options.progress && oa.nodesDone >= reported + 64) {
                reported = oa.nodesDone;
                m_options.progress(reported);
            }
        }
        if (m_result.cancelled) {
            finishA();
            finishB();
        }
        if (m_options.progress)
            m_options.progress(oa.nodesDone);
        m_frames = std::move(oa.frames);
        finalize();
        return std::move(m_result);
    }

private:
    struct WaitingA {
        size_t row;
        Value value;
    };
    struct WaitingB {
        Produced info;
        Value value;
        uint64_t sequence;
    };

    static size_t weight(const Value& v) { return v.byteSize() + 64; }

    std::string mapName(const std::string& nameA) const
    {
        auto it = m_options.nameMap.find(nameA);
        return it == m_options.nameMap.end() ? nameA : it->second;
    }
    static std::string key(const std::string& framePath, const std::string& name) { return framePath + '\n' + name; }

    bool startSide(Session& s, const RunSide& side, std::string& error)
    {
        try {
            s.start(side.inputs);
            return true;
        } catch (const std::exception& e) {
            error = e.what();
            return false;
        }
    }

    void emitSources(Side side, const Session& s, const RunSide& run)
    {
        forEachSource(s, run, [&](const Produced& p, const Value& v) {
            if (side == Side::A) {
                // A reference holds node values; a source it lacks is expected, not worth a row.
                if (m_reference && m_reference->find(p.framePath, mapName(p.name)) < 0)
                    return;
                producedA(p, v);
            } else {
                producedB(p, v);
            }
        });
    }

    /// The main graph's inputs given and (with compareInitializers) its initializers, in the order both passes use.
    void forEachSource(
        const Session& s, const RunSide& run, const std::function<void(const Produced&, const Value&)>& emit) const
    {
        const Graph& g = run.program->model().graph();
        const Frame& main = s.frame(0);
        std::set<ValueId> done;
        auto one = [&](ValueId id, ValueOrigin origin) {
            if (!done.insert(id).second || main.values[static_cast<size_t>(id)].isNone())
                return;
            Produced p;
            p.origin = origin;
            p.framePath = main.label;
            p.name = g.value(id).name;
            p.graph = &g;
            p.frameId = main.id;
            p.valueId = id;
            emit(p, main.values[static_cast<size_t>(id)]);
        };
        for (ValueId id : g.inputs())
            if (run.inputs.count(g.value(id).name))
                one(id, ValueOrigin::GraphInput);
        if (m_options.compareInitializers)
            for (ValueId id : g.initializers())
                one(id, ValueOrigin::Initializer);
    }

    /// Runs one side to its end (or its first error), sketching every value it produces in stream order.
    std::vector<ValueSignature> sketchSide(const RunSide& side, bool sideA, size_t& bytes)
    {
        std::vector<ValueSignature> out;
        const Graph& g = side.program->model().graph();
        std::unordered_map<std::string, int> outputs;
        for (size_t k = 0; k < g.outputs().size(); ++k)
            outputs.try_emplace(g.value(g.outputs()[k]).name, static_cast<int>(k));
        auto add = [&](const Produced& p, const Value& v) {
            ValueSignature s;
            s.source = p.origin != ValueOrigin::NodeOutput;
            s.input = p.origin == ValueOrigin::GraphInput;
            s.framePath = p.framePath;
            s.name = p.name;
            s.depth = p.depth;
            s.iteration = p.iteration;
            s.opType = p.node ? p.node->opType : std::string();
            s.constant = p.node && p.node->implicitInputs.empty() && p.node->subgraphs.empty()
                && std::all_of(p.node->inputs.begin(), p.node->inputs.end(), [](ValueId id) { return id == kNoValue; });
            if (p.depth == 1) {
                auto it = outputs.find(p.name);
                if (it != outputs.end())
                    s.output = it->second;
            }
            if (!s.source || s.input)
                sketchValue(v, s);
            bytes += sizeof(ValueSignature) + s.samples.size() * sizeof(float) + s.name.size() + s.framePath.size();
            out.push_back(std::move(s));
        };
        Session session(side.program, m_options.sessionOptions);
        SideObserver o;
        o.produced = add;
        session.addObserver(&o);
        try {
            session.start(side.inputs);
        } catch (const std::exception&) {
            return out; // the comparison pass reports it
        }
        forEachSource(session, side, add);
        uint64_t reported = 0;
        while (session.state() == Session::State::Running) {
            if (m_options.cancel && m_options.cancel->load()) {
                m_result.cancelled = true;
                break;
            }
            try {
                session.advance();
            } catch (const std::exception&) {
                break; // the comparison pass reports it
            }
            if (sideA && m_options.progress && o.nodesDone >= reported + 64) {
                reported = o.nodesDone;
                m_options.progress(reported);
            }
        }
        return out;
    }

    /// The alignment pass: sketches both sides and pairs their values; false when cancelled.
    bool align(const RunSide& a, const RunSide& b)
    {
        size_t bytes = 0;
        std::vector<ValueSignature> sa = sketchSide(a, true, bytes);
        if (m_result.cancelled)
            return false;
        std::vector<ValueSignature> sb = sketchSide(b, false, bytes);
        if (m_result.cancelled)
            return false;
        m_result.alignmentBytes = bytes;
        std::vector<std::string> names;
        names.reserve(sa.size());
        for (const auto& s : sa)
            names.push_back(mapName(s.name));
        AlignmentOptions options;
        options.pairNames = m_options.align == AlignMode::Auto;
        options.pairContent = true;
        m_alignment = alignValues(sa, sb, names, options);
        m_aligned = true;
        return true;
    }

    size_t newRow(const Produced& p, const Value& v, uint64_t sequence)
    {
        CompareRow row;
        row.origin = p.origin;
        row.name = p.name;
        row.nameB = mapName(p.name);
        row.framePath = p.framePath;
        row.iteration = p.iteration;
        if (p.node) {
            row.node = p.node->displayName();
            row.opType = p.node->opType;
            row.nodeId = p.node->id;
        }
        row.graph = p.graph;
        row.sequence = sequence;
        row.typeA = v.typeString();
        row.status = CompareStatus::OnlyA;
        m_result.rows.push_back(std::move(row));
        const size_t index = m_result.rows.size() - 1;
        if (p.frameId)
            m_rowOf[{ p.frameId, p.valueId }] = index;
        return index;
    }

    void fill(size_t rowIndex, const Value& a, const Value& b)
    {
        CompareRow& row = m_result.rows[rowIndex];
        row.typeB = b.typeString();
        PairComparison c;
        if (m_aligned && a.isTensor() && b.isTensor() && a.tensor().shape() != b.tensor().shape()
            && a.tensor().size() == b.tensor().size()) {
            // Aligned across a reshape: compared element by element in row-major order.
            c = compareValuePair(a, Value(b.tensor().reshaped(a.tensor().shape())), m_options.tolerance);
            if (c.note.empty())
                c.note = "B's " + b.typeString() + " compared in A's shape";
        } else {
            c = compareValuePair(a, b, m_options.tolerance);
        }
        row.status = c.status;
        row.stats = c.stats;
        row.note = c.note;
    }

    void fillB(size_t rowIndex, const Produced& p, uint64_t sequence)
    {
        CompareRow& row = m_result.rows[rowIndex];
        row.nameB = p.name;
        row.frameB = p.framePath;
        if (p.node) {
            row.nodeB = p.node->displayName();
            row.opTypeB = p.node->opType;
            row.nodeIdB = p.node->id;
        }
        row.graphB = p.graph;
        row.sequenceB = sequence;
        if (m_aligned) {
            row.pairedBy = m_alignment.byA[m_rowStream[rowIndex]];
            row.alignDistance = m_alignment.distance[m_rowStream[rowIndex]];
        } else {
            row.pairedBy = PairedBy::Name;
        }
    }

    void producedA(const Produced& p, const Value& v)
    {
        const uint64_t sequence = p.node ? m_sequenceA : 0;
        const size_t row = newRow(p, v, sequence);
        if (p.node)
            m_pendingNodeRows.push_back(row);
        const size_t stream = m_streamA++;
        m_rowStream.resize(row + 1, 0);
        m_rowStream[row] = stream;
        if (m_aligned) {
            const int64_t counterpart = stream < m_alignment.bOfA.size() ? m_alignment.bOfA[stream] : -1;
            m_result.rows[row].nameB.clear();
            if (counterpart < 0)
                return; // stays OnlyA
            matchA(row, v, "#" + std::to_string(counterpart));
            return;
        }
        const std::string nameB = mapName(p.name);
        if (m_reference) {
            int64_t index = m_reference->find(p.framePath, nameB);
            if (index < 0)
                return;
            m_referenceUsed.insert(static_cast<size_t>(index));
            try {
                fill(row, v, m_reference->read(static_cast<size_t>(index)));
            } catch (const std::exception& e) {
                m_result.rows[row].status = CompareStatus::Skipped;
                m_result.rows[row].note = e.what();
            }
            return;
        }
        if (!m_namesB.count(nameB))
            return; // stays OnlyA
        matchA(row, v, key(p.framePath, nameB));
    }

    /// Pairs side A's row with side B's value under `k` if B produced it already, else holds it until B does.
    void matchA(size_t row, const Value& v, const std::string& k)
    {
        auto it = m_waitingForA.find(k);
        if (it != m_waitingForA.end() && !it->second.empty()) {
            WaitingB w = std::move(it->second.front());
            it->second.pop_front();
            if (it->second.empty())
                m_waitingForA.erase(it);
            m_waitingB -= weight(w.value);
            m_held -= w.value.byteSize();
            fill(row, v, w.value);
            fillB(row, w.info, w.sequence);
            return;
        }
        if (m_finishedB)
            return; // stays OnlyA
        m_waitingForB[k].push_back({ row, v });
        m_waitingA += weight(v);
        m_held += v.byteSize();
        m_result.peakHeldBytes = std::max(m_result.peakHeldBytes, m_held);
    }

    void producedB(const Produced& p, const Value& v)
    {
        const uint64_t sequence = p.node ? m_sequenceB : 0;
        const size_t stream = m_streamB++;
        if (m_aligned && (stream >= m_alignment.aOfB.size() || m_alignment.aOfB[stream] < 0)) {
            onlyB(p, v, sequence);
            return;
        }
        const std::string k = m_aligned ? "#" + std::to_string(stream) : key(p.framePath, p.name);
        auto it = m_waitingForB.find(k);
        if (it != m_waitingForB.end() && !it->second.empty()) {
            WaitingA w = std::move(it->second.front());
            it->second.pop_front();
            if (it->second.empty())
                m_waitingForB.erase(it);
            m_waitingA -= weight(w.value);
            m_held -= w.value.byteSize();
            fill(w.row, w.value, v);
            fillB(w.row, p, sequence);
            return;
        }
        // A name side A maps elsewhere, or never has, cannot be matched.
        if (m_finishedA || (!m_aligned && !m_namesAInB.count(p.name))) {
            onlyB(p, v, sequence);
            return;
        }
        m_waitingForA[k].push_back({ p, v, sequence });
        m_waitingB += weight(v);
        m_held += v.byteSize();
        m_result.peakHeldBytes = std::max(m_result.peakHeldBytes, m_held);
    }

    void onlyB(const Produced& p, const Value& v, uint64_t sequence)
    {
        CompareRow row;
        row.status = CompareStatus::OnlyB;
        row.origin = p.origin;
        row.name = p.name;
        row.nameB = p.name;
        row.framePath = p.framePath;
        row.iteration = p.iteration;
        if (p.node) {
            row.node = p.node->displayName();
            row.opType = p.node->opType;
            row.nodeId = p.node->id;
        }
        row.graph = p.graph;
        row.sequence = sequence;
        row.typeB = v.typeString();
        m_onlyB.push_back(std::move(row));
    }

    void finishA()
    {
        m_finishedA = true;
        for (auto& [k, list] : m_waitingForA)
            for (auto& w : list)
                onlyB(w.info, w.value, w.sequence);
        m_waitingForA.clear();
        m_waitingB = 0;
        m_held = recountHeld();
    }

    void finishB()
    {
        m_finishedB = true;
        m_waitingForB.clear(); // their rows stay OnlyA
        m_waitingA = 0;
        m_held = recountHeld();
    }

    size_t recountHeld() const
    {
        size_t bytes = 0;
        for (const auto& [k, list] : m_waitingForA)
            for (const auto& w : list)
                bytes += w.value.byteSize();
        for (const auto& [k, list] : m_waitingForB)
            for (const auto& w : list)
                bytes += w.value.byteSize();
        return bytes;
    }

    InputRef resolve(uint64_t frameId, const Graph& graph, ValueId id, const SideObserver& o) const
    {
        const ValueInfo& v = graph.value(id);
        switch (v.source) {
        case ValueInfo::Source::NodeOutput: {
            auto it = m_rowOf.find({ frameId, id });
            return { it == m_rowOf.end() ? -1 : static_cast<int64_t>(it->second), 0 };
        }
        case ValueInfo::Source::Input: {
            auto f = o.frames.find(frameId);
            if (f == o.frames.end())
                return {}; // the main graph's inputs are sources
            return { -1, frameId };
        }
        case ValueInfo::Source::Initializer:
            return {};
        case ValueInfo::Source::OuterScope: {
            auto f = o.frames.find(frameId);
            if (f == o.frames.end() || !graph.parent())
                return {};
            const Graph& parent = *graph.parent();
            ValueId outer = parent.findValue(v.name);
            if (outer == kNoValue)
                return { -1, frameId };
            return resolve(f->second.parent, parent, outer, o);
        }
        }
        return {};
    }

    void beforeA(const NodeEvent& e, const SideObserver& o)
    {
        NodeRecord rec;
        rec.frameId = e.frame.id;
        const Graph& g = e.frame.graph();
        for (ValueId id : e.node.inputs)
            if (id != kNoValue)
                rec.inputs.push_back(resolve(e.frame.id, g, id, o));
        for (ValueId id : e.node.implicitInputs)
            rec.inputs.push_back(resolve(e.frame.id, g, id, o));
        m_before[{ e.frame.id, e.node.id }] = std::move(rec);
    }

    void afterA(const NodeEvent& e, const SideObserver& o)
    {
        ++m_sequenceA;
        // The outputs' rows are made right after this (SideObserver::afterNode); close the previous node first.
        closeNode();
        NodeCompare n;
        n.framePath = e.framePath;
        n.node = e.node.displayName();
        n.opType = e.node.opType;
        n.graph = &e.frame.graph();
        n.nodeId = e.node.id;
        n.iteration = o.iterationOf(e.frame.id);
        n.sequence = m_sequenceA;
        m_result.nodes.push_back(std::move(n));
        auto it = m_before.find({ e.frame.id, e.node.id });
        if (it != m_before.end()) {
            m_records.push_back(std::move(it->second));
            m_before.erase(it);
        } else {
            m_records.push_back({ {}, e.frame.id });
        }
        m_nodeOpen = true;
    }

    void closeNode()
    {
        if (!m_nodeOpen)
            return;
        m_result.nodes.back().rows = std::move(m_pendingNodeRows);
        m_pendingNodeRows.clear();
        m_nodeOpen = false;
    }

    static int severity(CompareStatus s)
    {
        switch (s) {
        case CompareStatus::KindMismatch:
            return 6;
        case CompareStatus::ShapeMismatch:
            return 5;
        case CompareStatus::Mismatch:
            return 4;
        case CompareStatus::Skipped:
            return 3;
        case CompareStatus::Match:
            return 2;
        case CompareStatus::OnlyA:
            return 1;
        case CompareStatus::OnlyB:
            return 0;
        }
        return 0;
    }

    void finalize()
    {
        closeNode();
        // Per-node worst output.
        for (auto& n : m_result.nodes) {
            n.status = CompareStatus::OnlyA;
            for (size_t r : n.rows) {
                const CompareRow& row = m_result.rows[r];
                if (severity(row.status) > severity(n.status))
                    n.status = row.status;
                if (row.status == CompareStatus::Match || row.status == CompareStatus::Mismatch) {
                    n.maxAbsError = std::max(n.maxAbsError, row.stats.maxAbsError);
                    n.maxRelError = std::max(n.maxRelError, row.stats.maxRelError);
                    n.minCosine = std::min(n.minCosine, row.stats.cosine);
                    n.toleranceRatio = std::max(n.toleranceRatio, row.stats.toleranceRatio);
                }
            }
        }
        // Roots: in execution order, a node whose outputs diverge while no input is downstream of a divergence.
        // Unmatched values carry the taint of their producer's inputs; a subgraph frame's inputs carry the taint of
        // the node that owns the frame (its inputs, and anything that diverged in its earlier iterations).
        std::vector<char> taintedRow(m_result.rows.size(), 0);
        std::set<std::pair<uint64_t, NodeId>> taintedOwners;
        std::unordered_map<uint64_t, bool> frameTaint;
        std::function<bool(const InputRef&)> tainted;
        auto frameTainted = [&](uint64_t frameId) -> bool {
            auto cached = frameTaint.find(frameId);
            if (cached != frameTaint.end())
                return cached->second;
            bool t = false;
            auto f = m_frames.find(frameId);
            if (f != m_frames.end()) {
                auto owner = m_ownerInputs.find({ f->second.parent, f->second.owner });
                if (owner != m_ownerInputs.end())
                    for (const auto& in : owner->second)
                        t = t || tainted(in);
                t = t || taintedOwners.count({ f->second.parent, f->second.owner }) > 0;
            }
            frameTaint[frameId] = t;
            return t;
        };
        tainted = [&](const InputRef& in) -> bool {
            if (in.row >= 0)
                return isDivergent(m_result.rows[static_cast<size_t>(in.row)].status)
                    || taintedRow[static_cast<size_t>(in.row)];
            return in.frameInput && frameTainted(in.frameInput);
        };
        for (size_t i = 0; i < m_result.nodes.size(); ++i)
            m_ownerInputs[{ m_records[i].frameId, m_result.nodes[i].nodeId }] = m_records[i].inputs;
        // Owner inputs must be the ones seen before the owner ran; nodes are visited in completion order, and a
        // control-flow node completes after its frames, so index the owner by its beforeNode record.
        for (size_t i = 0; i < m_result.nodes.size(); ++i) {
            NodeCompare& n = m_result.nodes[i];
            bool anyTainted = false;
            for (const auto& in : m_records[i].inputs)
                anyTainted = anyTainted || tainted(in);
            anyTainted = anyTainted || taintedOwners.count({ m_records[i].frameId, n.nodeId }) > 0;
            const bool diverged = isDivergent(n.status);
            n.root = diverged && !anyTainted;
            if (anyTainted || diverged) {
                for (size_t r : n.rows)
                    taintedRow[r] = 1;
                // Every node owning an enclosing frame is downstream of this from now on.
                uint64_t frame = m_records[i].frameId;
                for (auto f = m_frames.find(frame); f != m_frames.end(); f = m_frames.find(f->second.parent)) {
                    taintedOwners.insert({ f->second.parent, f->second.owner });
                    frameTaint.clear(); // cached answers may change
                }
            }
            if (n.root && !m_result.firstDivergence)
                m_result.firstDivergence = i;
        }
        for (size_t r = 0; r < m_result.rows.size(); ++r) {
            const CompareRow& row = m_result.rows[r];
            if (row.origin != ValueOrigin::NodeOutput && isDivergent(row.status))
                m_result.differingSources.push_back(r);
        }
        // Reference values side A never produced.
        if (m_reference)
            for (size_t i = 0; i < m_reference->entries().size(); ++i)
                if (!m_referenceUsed.count(i)) {
                    const auto& e = m_reference->entries()[i];
                    CompareRow row;
                    row.status = CompareStatus::OnlyB;
                    row.name = row.nameB = e.name;
                    row.framePath = e.framePath;
                    row.node = e.node;
                    row.typeB = e.type;
                    row.note = e.note;
                    m_onlyB.push_back(std::move(row));
                }
        for (auto& row : m_onlyB)
            m_result.rows.push_back(std::move(row));
        m_onlyB.clear();
    }

    const CompareOptions& m_options;
    ComparisonResult m_result;
    const ReferenceValues* m_reference = nullptr;
    std::set<size_t> m_referenceUsed;
    std::unordered_set<std::string> m_namesB, m_namesAInB;
    std::unordered_map<std::string, std::deque<WaitingA>> m_waitingForB;
    std::unordered_map<std::string, std::deque<WaitingB>> m_waitingForA;
    size_t m_waitingA = 0, m_waitingB = 0; // weights of the values held for the other side
    size_t m_held = 0; // bytes of all held values
    bool m_finishedA = false, m_finishedB = false;
    std::vector<CompareRow> m_onlyB;
    uint64_t m_sequenceA = 0, m_sequenceB = 0;
    std::map<std::pair<uint64_t, ValueId>, size_t> m_rowOf; // (frame id, value) -> row, side A
    std::map<std::pair<uint64_t, NodeId>, NodeRecord> m_before;
    std::map<std::pair<uint64_t, NodeId>, std::vector<InputRef>> m_ownerInputs;
    std::vector<NodeRecord> m_records; // parallel to m_result.nodes
    std::vector<size_t> m_pendingNodeRows;
    bool m_nodeOpen = false;
    std::unordered_map<uint64_t, FrameInfo> m_frames;
    bool m_aligned = false; // pairs come from m_alignment, by stream position
    Alignment m_alignment;
    size_t m_streamA = 0, m_streamB = 0; // values produced so far per side, in the alignment pass's order
    std::vector<size_t> m_rowStream; // side A row -> its stream position
};

} // namespace

ComparisonResult compareRuns(const RunSide& a, const RunSide& b, const CompareOptions& options)
{
    return Comparison(options).run(a, &b, nullptr);
}

ComparisonResult compareWithReference(const RunSide& a, const ReferenceValues& reference, const CompareOptions& options)
{
    return Comparison(options).run(a, nullptr, &reference);
}

} // namespace onnxscope
