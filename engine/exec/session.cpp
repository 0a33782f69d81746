// SPDX-License-Identifier: MIT
#include "engine/exec/session.h"

#include "engine/core/spare_vectors.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace onnxscope {

namespace {

/// ONNXSCOPE_NO_FUSION=1: plain runs run every node on its own, as a debug run does (for measurements: the cost of a
/// debug run beyond a plain one, without the fused steps only plain runs have).
bool fusionDisabled()
{
    static const bool disabled = [] {
        const char* v = std::getenv("ONNXSCOPE_NO_FUSION");
        return v && *v && std::string_view(v) != "0";
    }();
    return disabled;
}

std::string expectedInputs(const Graph& graph)
{
    std::string s;
    for (ValueId id : graph.requiredInputs()) {
        const auto& v = graph.value(id);
        s += "\n  " + v.name + ": " + v.type.toString();
    }
    return s;
}

/// The error of a node: the exception's message, prefixed with the node's label unless it already starts with it.
std::string nodeFailureMessage(const Node& node, const std::exception& e)
{
    std::string what = e.what();
    if (dynamic_cast<const std::bad_alloc*>(&e))
        what = "out of memory";
    return what.rfind(node.label(), 0) == 0 ? what : node.label() + ": " + what;
}

} // namespace

Frame::~Frame()
{
    SpareVectors<Value>::give(values);
}

std::string describeValue(const Graph& graph, ValueId id)
{
    const auto& v = graph.value(id);
    return "\"" + v.name + "\"";
}

Session::Session(std::shared_ptr<const Program> program, SessionOptions options)
    : m_program(std::move(program))
    , m_options(std::move(options))
{
}

Session::~Session() = default;

void Session::addObserver(SessionObserver* observer)
{
    if (std::find(m_observers.begin(), m_observers.end(), observer) == m_observers.end())
        m_observers.push_back(observer);
    m_timed = m_timed || observer->wantsTiming();
}

void Session::removeObserver(SessionObserver* observer)
{
    m_observers.erase(std::remove(m_observers.begin(), m_observers.end(), observer), m_observers.end());
    m_timed = std::any_of(m_observers.begin(), m_observers.end(), [](const auto* o) { return o->wantsTiming(); });
}

void Session::replaceObserver(SessionObserver* observer, SessionObserver* replacement)
{
    auto it = std::find(m_observers.begin(), m_observers.end(), observer);
    if (it == m_observers.end()) {
        addObserver(replacement);
        return;
    }
    *it = replacement;
    m_timed = std::any_of(m_observers.begin(), m_observers.end(), [](const auto* o) { return o->wantsTiming(); });
}

void Session::start(const std::map<std::string, Value>& inputs)
{
    m_frames.clear();
    m_pathLengths.clear();
    m_path.clear();
    m_outputs.clear();
    m_failure = {};
    m_state = State::Idle;
    m_fusedSteps = 0;
    const Graph& graph = m_program->model().graph();
    for (const auto& [name, value] : inputs) {
        ValueId id = graph.findValue(name);
        if (id == kNoValue || graph.value(id).source != ValueInfo::Source::Input)
            throw Error("the model has no input \"" + name + "\"; its inputs are:" + expectedInputs(graph));
    }
    std::vector<Value> bound;
    for (ValueId id : graph.inputs()) {
        const auto& v = graph.value(id);
        auto it = inputs.find(v.name);
        if (it == inputs.end()) {
            if (v.initializer) {
                bound.push_back(m_program->mainPlan().constants[static_cast<size_t>(id)]);
                continue;
            }
            if (v.type.kind == Value::Kind::Optional) {
                bound.push_back(Value::optional(std::nullopt));
                continue;
            }
            throw Error("input \"" + v.name + "\" (" + v.type.toString()
                + ") is missing; the model expects:" + expectedInputs(graph));
        }
        v.type.checkValue(it->second, "input \"" + v.name + "\"", m_options.checkInputShapes);
        bound.push_back(it->second);
    }
    pushFrame(m_program->mainPlan(), std::move(bound), "main");
    m_state = State::Running;
}

void Session::resume(uint64_t frameId, size_t pc, const std::vector<std::pair<ValueId, Value>>& values)
{
    m_frames.clear();
    m_pathLengths.clear();
    m_path.clear();
    m_outputs.clear();
    m_failure = {};
    m_state = State::Idle;
    m_fusedSteps = 0;
    const Plan& plan = m_program->mainPlan();
    check(pc <= plan.graph->nodes().size(), "cannot resume at node " + std::to_string(pc) + " of the main graph");
    pushFrame(plan, {}, "main");
    Frame& frame = *m_frames.back();
    frame.id = frameId;
    m_nextFrameId = std::max(m_nextFrameId, frameId + 1);
    frame.pc = pc;
    for (const auto& [id, value] : values)
        frame.values.at(static_cast<size_t>(id)) = value;
    m_state = State::Running;
}

void Session::adoptPosition(Session& other)
{
    check(other.m_program == m_program && other.m_frames.size() == m_frames.size(),
        "a session can only take over the position of a session of the same program at the same frame depth");
    for (size_t f = 0; f < m_frames.size(); ++f) {
        other.m_frames[f]->id = m_frames[f]->id;
        other.m_frames[f]->parentFrameId = m_frames[f]->parentFrameId;
    }
    std::swap(m_frames, other.m_frames);
    std::swap(m_pathLengths, other.m_pathLengths);
    std::swap(m_path, other.m_path);
    std::swap(m_state, other.m_state);
    std::swap(m_failure, other.m_failure);
    std::swap(m_outputs, other.m_outputs);
}

void Session::pushFrame(const Plan& plan, std::vector<Value> inputs, std::string label, int64_t iteration)
{
    const Graph& graph = *plan.graph;
    auto frame = std::make_unique<Frame>();
    frame->id = m_nextFrameId++;
    frame->plan = &plan;
    frame->label = std::move(label);
    frame->iteration = iteration;
    if (!m_frames.empty()) {
        frame->parentFrameId = m_frames.back()->id;
        frame->ownerNode = static_cast<NodeId>(m_frames.back()->pc);
    }
    frame->values = SpareVectors<Value>::take(plan.constants.size());
    frame->values.assign(plan.constants.begin(), plan.constants.end());
    const auto& graphInputs = graph.inputs();
    for (size_t i = 0; i < graphInputs.size(); ++i) {
        ValueId id = graphInputs[i];
        if (i < inputs.size() && !inputs[i].isNone())
            frame->values[static_cast<size_t>(id)] = std::move(inputs[i]);
    }
    if (!m_frames.empty()) {
        const Frame& parent = *m_frames.back();
        for (ValueId id : graph.outerScopeValues()) {
            const std::string& name = graph.value(id).name;
            ValueId outer = parent.graph().findValue(name);
            if (outer != kNoValue)
                frame->values[static_cast<size_t>(id)] = parent.values[static_cast<size_t>(outer)];
        }
    }
    // "main / If 'If_0' then_branch": appended here and cut back when the frame is left, in the string's own buffer.
    m_pathLengths.push_back(m_path.size());
    if (!m_frames.empty())
        m_path += " / ";
    m_path += frame->label;
    m_frames.push_back(std::move(frame));
    if (m_frames.size() > 1)
        for (auto* o : m_observers)
            o->frameEntered(*m_frames.back(), m_path);
}

const Node* Session::nextNode() const
{
    if (m_state != State::Running || m_frames.empty())
        return nullptr;
    const Frame& f = *m_frames.back();
    if (f.atEnd() || f.pending)
        return nullptr;
    return &f.graph().nodes()[f.pc];
}

const Node* Session::nodeInProgress() const
{
    if (m_frames.empty())
        return nullptr;
    const Frame& f = *m_frames.back();
    return f.pending && !f.atEnd() ? &f.graph().nodes()[f.pc] : nullptr;
}

std::string Session::framePath() const
{
    return m_path;
}

std::vector<std::string> Session::outputNames() const
{
    std::vector<std::string> names;
    const Graph& g = m_program->model().graph();
    for (ValueId id : g.outputs())
        names.push_back(g.value(id).name);
    return names;
}

void Session::gatherInputs(const Frame& frame, const Node& node)
{
    static const Value none;
    m_inputRefs.resize(node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
        const ValueId id = node.inputs[i];
        m_inputRefs[i] = id == kNoValue ? &none : &frame.values[static_cast<size_t>(id)];
    }
}

std::span<const Value* const> Session::refsTo(const std::vector<Value>& values)
{
    m_inputRefs.resize(values.size());
    for (size_t i = 0; i < values.size(); ++i)
        m_inputRefs[i] = &values[i];
    return m_inputRefs;
}

void Session::fail(const Node* node, const std::string& message)
{
    m_state = State::Failed;
    m_failure.message = message;
    m_failure.framePath = framePath();
    m_failure.node = node;
    m_failure.graph = m_frames.empty() ? nullptr : m_frames.back()->plan->graph;
    throw Error(message);
}

Session::StepResult Session::advance()
{
    // Between two advance() calls the caller may have paused for any time: the control-flow nodes in progress move
    // their start by that much, so that their elapsed time is the time spent running.
    const bool inProgress = m_timed && m_state == State::Running
        && (m_frames.size() > 1 || (!m_frames.empty() && m_frames.back()->pending));
    if (inProgress && m_returnedAt != std::chrono::steady_clock::time_point()) {
        const auto gap = std::chrono::steady_clock::now() - m_returnedAt;
        for (auto& frame : m_frames)
            if (frame->pending)
                frame->pendingStart += gap;
    }
    StepResult r = advanceOnce();
    const bool stillInProgress = m_timed && m_state == State::Running
        && (m_frames.size() > 1 || (!m_frames.empty() && m_frames.back()->pending));
    m_returnedAt = stillInProgress ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    return r;
}

Session::StepResult Session::advanceOnce()
{
    if (m_state != State::Running)
        return { StepKind::Finished, 0, nullptr };
    Frame& frame = *m_frames.back();
    if (frame.atEnd()) {
        const Graph& graph = frame.graph();
        std::vector<Value> outputs;
        outputs.reserve(graph.outputs().size());
        for (ValueId id : graph.outputs()) {
            const Value& v = frame.values[static_cast<size_t>(id)];
            if (v.isNone() && graph.value(id).type.kind != Value::Kind::Optional)
                fail(nullptr, framePath() + ": output \"" + graph.value(id).name + "\" was not produced");
            outputs.push_back(v);
        }
        const std::string leftPath = m_observers.empty() ? std::string() : m_path; // frameLeft's
        std::unique_ptr<Frame> done = std::move(m_frames.back());
        m_frames.pop_back();
        m_path.resize(m_pathLengths.back());
        m_pathLengths.pop_back();
        for (auto* o : m_observers)
            o->frameLeft(*done, leftPath);
        if (m_frames.empty()) {
            for (size_t i = 0; i < graph.outputs().size(); ++i)
                m_outputs[graph.value(graph.outputs()[i]).name] = outputs[i];
            m_state = State::Finished;
            return { StepKind::Finished, 0, nullptr };
        }
        Frame& parent = *m_frames.back();
        try {
            parent.pending->finished(std::move(outputs));
        } catch (const Error& e) {
            fail(&parent.graph().nodes()[parent.pc], e.what());
        }
        return { StepKind::FrameLeft, m_frames.size(), nullptr };
    }
    if (frame.pending)
        return continuePending(frame);
    return runNode(frame);
}

Session::StepResult Session::runNode(Frame& frame)
{
    const Node& node = frame.graph().nodes()[frame.pc];
    const Kernel* kernel = frame.plan->kernels[frame.pc].get();
    const bool observed = !m_observers.empty();
    const std::string& path = m_path;
    gatherInputs(frame, node);
    if (observed) {
        NodeEvent ev { node, frame, m_frames.size(), m_inputRefs, {}, {}, path };
        for (auto* o : m_observers)
            o->beforeNode(ev);
    }
    // A plain run (values freed, no observer to see every node) may run several nodes as one fused step.
    const bool plain = m_options.freeDeadValues && !observed;
    if (plain && !m_afterNodeCheck && !frame.plan->fused.empty() && frame.plan->fused[frame.pc].nodes
        && !fusionDisabled() && !barrierWithin(frame, frame.plan->fused[frame.pc].nodes))
        return runFused(frame, node, frame.plan->fused[frame.pc]);
    const auto started = m_timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    if (!frame.plan->folded.empty() && frame.plan->folded[frame.pc]) {
        // Computed at plan time by this node's kernel from the same (constant) inputs: the same values.
        for (ValueId id : node.outputs)
            if (id != kNoValue)
                frame.values[static_cast<size_t>(id)] = frame.plan->known[static_cast<size_t>(id)];
        return finishNode(frame, node, started);
    }
    if (const auto* sub = dynamic_cast<const SubgraphKernel*>(kernel)) {
        frame.pendingInputs.resize(m_inputRefs.size());
        for (size_t i = 0; i < m_inputRefs.size(); ++i)
            frame.pendingInputs[i] = *m_inputRefs[i];
        frame.pendingOutputs.assign(node.outputs.size(), Value());
        frame.pendingStart = started;
        try {
            KernelContext ctx(
                node, frame.pendingInputs, frame.pendingOutputs, m_options.threadPool, nullptr, &m_options.limits);
            frame.pending = sub->start(ctx);
        } catch (const Error& e) {
            std::string message
                = std::string(e.what()).rfind(node.label(), 0) == 0 ? e.what() : node.label() + ": " + e.what();
            NodeEvent ev { node, frame, m_frames.size(), refsTo(frame.pendingInputs), {}, {}, framePath() };
            for (auto* o : m_observers)
                o->nodeFailed(ev, message);
            fail(&node, message);
        }
        return continuePending(frame);
    }

    m_results.assign(node.outputs.size(), Value());
    // A plain run gives the kernel the inputs that die here, so that it may write its output over them: moved out
    // of the frame, each is then held only here (a donated input appears once among the node's inputs).
    if (plain && !frame.plan->donatedInputs[frame.pc].empty()) {
        m_inputs.resize(node.inputs.size());
        for (uint32_t i : frame.plan->donatedInputs[frame.pc]) {
            m_inputs[i] = std::move(frame.values[static_cast<size_t>(node.inputs[i])]);
            m_inputRefs[i] = &m_inputs[i];
        }
    }
    std::vector<std::optional<Value>> overrides;
    if (std::string_view(node.opType) == "YieldOp") {
        overrides.resize(node.outputs.size());
        for (size_t i = 0; i < node.outputs.size(); ++i) {
            if (node.outputs[i] == kNoValue)
                continue;
            const std::string& name = frame.graph().value(node.outputs[i]).name;
            auto it = m_options.yieldOutputs.find(name);
            if (it != m_options.yieldOutputs.end())
                overrides[i] = it->second;
            else if (m_options.requireYieldOutputs)
                fail(&node, node.label() + ": output \"" + name + "\" must be supplied by the caller (yield outputs)");
        }
    }
    try {
        if (!kernel)
            throw Error("no kernel");
        KernelContext ctx(node, m_inputRefs, m_results, m_options.threadPool, overrides.empty() ? nullptr : &overrides,
            &m_options.limits);
        if (plain)
            ctx.giveAway(frame.plan->donatedInputs[frame.pc]);
        kernel->compute(ctx);
        for (size_t i = 0; i < node.outputs.size(); ++i)
            if (node.outputs[i] != kNoValue && m_results[i].isNone())
                throw ctx.error("output " + std::to_string(i) + " (\"" + frame.graph().value(node.outputs[i]).name
                    + "\") was not produced");
    } catch (const std::exception& e) {
        const std::string message = nodeFailureMessage(node, e);
        NodeEvent ev { node, frame, m_frames.size(), m_inputRefs, {}, {}, path };
        for (auto* o : m_observers)
            o->nodeFailed(ev, message);
        fail(&node, message);
    }
    for (size_t i = 0; i < node.outputs.size(); ++i)
        if (node.outputs[i] != kNoValue)
            frame.values[static_cast<size_t>(node.outputs[i])] = std::move(m_results[i]);
    return finishNode(frame, node, started);
}

bool Session::barrierWithin(const Frame& frame, uint32_t nodes) const
{
    if (!m_fusionBarriers || m_fusionBarriers->empty())
        return false;
    const auto& graphNodes = frame.graph().nodes();
    for (size_t i = frame.pc + 1; i < frame.pc + nodes && i < graphNodes.size(); ++i)
        if (m_fusionBarriers->count(&graphNodes[i]))
            return true;
    return false;
}

Session::StepResult Session::runFused(Frame& frame, const Node& node, const FusedStep& step)
{
    if (step.kernel) {
        m_results.assign(node.outputs.size(), Value());
        try {
            KernelContext ctx(node, m_inputRefs, m_results, m_options.threadPool, nullptr, &m_options.limits);
            step.kernel->compute(ctx);
            if (m_results[0].isNone())
                throw ctx.error("the fused step produced no output");
        } catch (const std::exception& e) {
            fail(&node, nodeFailureMessage(node, e));
        }
        frame.values[static_cast<size_t>(step.output)] = std::move(m_results[0]);
        ++m_fusedSteps;
    }
    for (const auto& [id, value] : step.constants)
        frame.values[static_cast<size_t>(id)] = value;
    for (size_t i = 0; i < step.nodes; ++i)
        for (ValueId id : frame.plan->freeAfter[frame.pc + i])
            frame.values[static_cast<size_t>(id)] = Value();
    frame.pc += step.nodes;
    return { StepKind::NodeDone, m_frames.size(), &frame.graph().nodes()[frame.pc - 1], step.nodes };
}

Session::StepResult Session::continuePending(Frame& frame)
{
    const Node& node = frame.graph().nodes()[frame.pc];
    std::optional<SubgraphCall> call;
    try {
        call = frame.pending->next();
        if (!call) {
            KernelContext ctx(
                node, frame.pendingInputs, frame.pendingOutputs, m_options.threadPool, nullptr, &m_options.limits);
            frame.pending->complete(ctx);
        }
    } catch (const std::exception& e) {
        std::string what = e.what();
        std::string message = what.rfind(node.label(), 0) == 0 ? what : node.label() + ": " + what;
        NodeEvent ev { node, frame, m_frames.size(), refsTo(frame.pendingInputs), {}, {}, framePath() };
        for (auto* o : m_observers)
            o->nodeFailed(ev, message);
        frame.pending.reset();
        fail(&node, message);
    }
    if (call) {
        if (!call->graph)
            throw Error(node.label() + ": subgraph missing");
        if (m_callSkipper) {
            if (std::optional<std::vector<Value>> outputs = m_callSkipper(frame)) {
                try {
                    frame.pending->finished(std::move(*outputs));
                } catch (const Error& e) {
                    fail(&node, e.what());
                }
                return { StepKind::FrameLeft, m_frames.size(), nullptr };
            }
        }
        pushFrame(m_program->plan(*call->graph), std::move(call->inputs), std::move(call->label), call->iteration);
        return { StepKind::FrameEntered, m_frames.size(), nullptr };
    }
    frame.pending.reset();
    for (size_t i = 0; i < node.outputs.size(); ++i)
        if (node.outputs[i] != kNoValue)
            frame.values[static_cast<size_t>(node.outputs[i])] = std::move(frame.pendingOutputs[i]);
    frame.pendingInputs.swap(m_inputs);
    frame.pendingInputs.clear();
    frame.pendingOutputs.clear();
    refsTo(m_inputs);
    return finishNode(frame, node, frame.pendingStart);
}

std::span<const Value> Session::eventOutputs(const Frame& frame, const Node& node)
{
    // Most nodes' outputs are consecutive values of the frame (one output, or several made in order): the event views
    // them where they are, without copying each Value (a reference count up and down per output).
    const auto& outputs = node.outputs;
    bool consecutive = !outputs.empty() && outputs[0] != kNoValue;
    for (size_t i = 1; consecutive && i < outputs.size(); ++i)
        consecutive = outputs[i] == outputs[0] + static_cast<ValueId>(i);
    if (consecutive)
        return { frame.values.data() + outputs[0], outputs.size() };
    m_eventOutputs.assign(outputs.size(), Value()); // a reused buffer: no allocation per node
    for (size_t i = 0; i < outputs.size(); ++i)
        if (outputs[i] != kNoValue)
            m_eventOutputs[i] = frame.values[static_cast<size_t>(outputs[i])];
    return m_eventOutputs;
}

Session::StepResult Session::finishNode(Frame& frame, const Node& node, std::chrono::steady_clock::time_point started)
{
    if (!m_observers.empty()) {
        // Zero when untimed, also for a node that started before a timing observer was added.
        const auto elapsed = m_timed && started != std::chrono::steady_clock::time_point()
            ? std::chrono::steady_clock::now() - started
            : std::chrono::nanoseconds(0);
        NodeEvent ev { node, frame, m_frames.size(), m_inputRefs, eventOutputs(frame, node),
            std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed), m_path };
        for (auto* o : m_observers)
            o->afterNode(ev);
        m_eventOutputs.clear();
    } else if (m_afterNodeCheck) {
        NodeEvent ev { node, frame, m_frames.size(), {}, eventOutputs(frame, node), {}, m_path };
        m_afterNodeCheck->afterNode(ev);
        m_eventOutputs.clear();
    }
    m_inputs.clear(); // donated inputs the kernel did not write over, or a control-flow node's inputs
    if (m_options.freeDeadValues)
        for (ValueId id : frame.plan->freeAfter[frame.pc])
            frame.values[static_cast<size_t>(id)] = Value();
    frame.pc++;
    return { StepKind::NodeDone, m_frames.size(), &node };
}

std::map<std::string, Value> Session::run(const std::map<std::string, Value>& inputs)
{
    start(inputs);
    while (m_state == State::Running)
        advance();
    return m_outputs;
}

} // namespace onnxscope
