// SPDX-License-Identifier: MIT
#include "ui/debugger/debug_worker.h"

#include "engine/io/value_writer.h"

#include <QMetaObject>

#include <chrono>
#include <filesystem>
#include <span>

#include <sys/resource.h>

namespace onnxscope {

namespace {
/// Times the calling thread was descheduled while it could have run (involuntary context switches), or 0 where
/// the system does not count them per thread.
int64_t involuntarySwitches()
{
#ifdef RUSAGE_THREAD
    rusage usage {};
    if (getrusage(RUSAGE_THREAD, &usage) == 0)
        return usage.ru_nivcsw;
#endif
    return 0;
}
} // namespace

void DebugWorker::afterNode(const NodeEvent& event)
{
    m_lastGraph = &event.frame.graph();
    m_lastNode = event.node.id;
    if (event.depth == 1)
        ++m_mainDone;
}

void DebugWorker::setObserving(bool on)
{
    if (on == m_observing)
        return;
    if (on) {
        m_debugger->addObserver(this);
        m_debugger->addObserver(&m_profile);
    } else {
        m_debugger->removeObserver(this);
        m_debugger->removeObserver(&m_profile);
        m_profiledAll = false;
    }
    m_observing = on;
}

namespace {
/// The graph (the main graph or any subgraph or function body under it) whose node list holds `node`.
const Graph* graphHolding(const Graph& graph, const Node* node)
{
    const auto& nodes = graph.nodes();
    if (!nodes.empty() && node >= &nodes.front() && node <= &nodes.back())
        return &graph;
    for (const Node& n : nodes) {
        for (const auto& entry : n.subgraphs)
            if (entry.second)
                if (const Graph* g = graphHolding(*entry.second, node))
                    return g;
        if (n.functionBody)
            if (const Graph* g = graphHolding(*n.functionBody, node))
                return g;
    }
    return nullptr;
}
} // namespace

void DebugWorker::readPositionFromLog()
{
    m_debugger->completeLog();
    m_mainDone = static_cast<int64_t>(m_debugger->liveMainNodesDone());
    // The last node that completed is the producer of the last value recorded.
    const auto& values = m_debugger->values();
    for (auto it = values.rbegin(); it != values.rend(); ++it)
        if (it->producer >= 0 && it->graph) {
            m_lastGraph = it->graph;
            m_lastNode = it->producer;
            return;
        }
}

void DebugWorker::readPositionFromStop(const StopInfo& stop)
{
    m_mainDone = static_cast<int64_t>(m_debugger->liveMainNodesDone());
    if (stop.lastNode && m_model)
        if (const Graph* graph = graphHolding(m_model->graph(), stop.lastNode)) {
            m_lastGraph = graph;
            m_lastNode = stop.lastNode->id;
        }
}

void DebugWorker::installBreakpoints(const QList<BreakpointSpec>& specs)
{
    if (m_installedValid && specs.size() == m_installed.size()) {
        bool same = true;
        for (int i = 0; i < specs.size() && same; ++i) {
            const auto& a = specs[i];
            const auto& b = m_installed[i];
            same = a.id == b.id && a.kind == b.kind && a.pattern == b.pattern && a.enabled == b.enabled
                && a.iteration == b.iteration && a.condition == b.condition && a.outputIndex == b.outputIndex;
        }
        if (same)
            return;
    }
    for (const auto& [engineId, specId] : m_engineToSpec)
        m_debugger->removeBreakpoint(engineId);
    m_engineToSpec.clear();
    for (const BreakpointSpec& spec : specs) {
        Breakpoint::Kind kind = Breakpoint::Kind::Node;
        switch (spec.kind) {
        case BreakpointSpec::Kind::Node:
            kind = Breakpoint::Kind::Node;
            break;
        case BreakpointSpec::Kind::OpType:
            kind = Breakpoint::Kind::OpType;
            break;
        case BreakpointSpec::Kind::NonFinite:
            kind = Breakpoint::Kind::NonFinite;
            break;
        case BreakpointSpec::Kind::DebugNodes:
            kind = Breakpoint::Kind::DebugNodes;
            break;
        case BreakpointSpec::Kind::Condition:
            kind = Breakpoint::Kind::Condition;
            break;
        }
        const bool condition = kind == Breakpoint::Kind::Condition;
        Breakpoint b
            = makeBreakpoint(kind, spec.pattern.toStdString(), condition ? spec.condition.toStdString() : std::string(),
                condition ? spec.outputIndex : -1, spec.iteration);
        b.enabled = spec.enabled;
        b.description = spec.description().toStdString();
        m_engineToSpec[m_debugger->addBreakpoint(std::move(b))] = spec.id;
    }
    m_installed = specs;
    m_installedValid = true;
}

StopInfo DebugWorker::runCommand(const Request& request)
{
    using C = DebugController;
    switch (static_cast<C::Command>(request.command)) {
    case C::Command::Start:
        return m_debugger->skipConstantsAhead();
    case C::Command::Continue:
        return m_debugger->continueRun();
    case C::Command::Step:
        return m_debugger->step();
    case C::Command::StepInto:
        return m_debugger->stepInto();
    case C::Command::StepOut:
        return m_debugger->stepOut();
    case C::Command::RunTo:
        return m_debugger->runTo(request.argument);
    case C::Command::StepBack:
    case C::Command::StepBackInto:
    case C::Command::StepBackOut:
    case C::Command::ReverseContinue:
    case C::Command::RunBackTo:
        return reverse(static_cast<C::Command>(request.command), request.argument);
    }
    return {};
}

void DebugWorker::execute(const Request& request)
{
    using C = DebugController;
    m_generation = request.generation;
    m_cancelFill.store(false);
    StopInfo stop;
    std::string error;
    int64_t switchesBefore = -1; // while the command runs nodes
    try {
        if (!m_model)
            throw Error("no model is open");
        if (!m_program)
            m_program = std::make_shared<Program>(m_model);
        if (request.startNewRun || !m_debugger) {
            auto debugger = std::make_unique<Debugger>(m_program, request.options);
            {
                std::lock_guard lock(m_activeMutex);
                m_debugger = std::move(debugger);
                m_pool = request.pool;
            }
            m_installedValid = false;
            m_engineToSpec.clear();
            m_stats.clear();
            m_profile.clear();
            m_known.reset();
            m_lastGraph = m_failedGraph = nullptr;
            m_lastNode = m_failedNode = -1;
            m_mainDone = 0;
            m_preemptions = 0;
            m_reversed = false;
            m_observing = false;
            setObserving(request.recordProfile);
            m_profiledAll = request.recordProfile;
            m_debugger->start(request.inputs ? request.inputs() : std::map<std::string, Value> {});
        }
        if (m_pauseGeneration.load() == request.generation)
            m_debugger->requestPause();
        setObserving(request.recordProfile);
        installBreakpoints(request.breakpoints);
        if (!request.yieldOutputs.empty())
            m_debugger->setYieldOutputs(request.yieldOutputs);
        switchesBefore = involuntarySwitches();
        stop = runCommand(request);
        if (!m_observing && !C::isReverse(static_cast<C::Command>(request.command))) {
            // Quiet stretches ran: the stop is shown at once, then the log is filled (which costs about what a
            // node-by-node run of the stretch costs) and the stop shown again with every value summarised.
            if (!m_debugger->logComplete()) {
                readPositionFromStop(stop);
                post(request.generation, positionSnapshot(stop), false);
                // A newer command gave the summaries up (cancelSummaries): it is queued behind this one, and its
                // own stop shows the values; this one's complete stop would be stale.
                if (!m_debugger->completeLog(&m_cancelFill)) {
                    m_preemptions += involuntarySwitches() - switchesBefore;
                    return;
                }
            }
            readPositionFromLog();
        }
    } catch (const std::exception& e) {
        error = e.what();
        stop.reason = StopReason::Failed;
        stop.message = error;
    }
    if (switchesBefore >= 0)
        m_preemptions += involuntarySwitches() - switchesBefore;
    DebugSnapshotPtr snap = snapshot(stop, error);
    m_known = snap;
    post(request.generation, snap, true);
}

void DebugWorker::post(quint64 generation, const DebugSnapshotPtr& snapshot, bool complete)
{
    QMetaObject::invokeMethod(
        m_controller,
        [c = m_controller, generation, snapshot, complete] {
            if (complete)
                c->onCommandDone(generation, snapshot);
            else
                c->onStopShown(generation, snapshot);
        },
        Qt::QueuedConnection);
}

namespace {
struct ExportCancelled { };
} // namespace

void DebugWorker::exportValues(const std::string& folder, const std::shared_ptr<std::atomic<bool>>& cancel)
{
    namespace fs = std::filesystem;
    bool ok = false;
    bool cancelled = false;
    std::string message;
    qint64 written = 0;
    const auto report = [this](qint64 done, qint64 total) {
        QMetaObject::invokeMethod(
            m_controller, [c = m_controller, done, total] { emit c->exportProgress(done, total); },
            Qt::QueuedConnection);
    };
    std::unique_ptr<ValueWriter> writer;
    try {
        if (!m_debugger || !m_model)
            throw Error("there is no run to export: run the model first");
        std::error_code ec;
        fs::create_directories(folder, ec);
        if (!fs::is_directory(folder))
            throw Error("cannot create the folder \"" + folder + "\"" + (ec ? ": " + ec.message() : std::string()));
        // Every node output, in execution order (the frames' inputs are not intermediates, as run --dump-all).
        std::vector<const RecordedValue*> wanted;
        for (const RecordedValue& v : m_debugger->values())
            if (v.producer >= 0 && v.graph && (v.dropped || !v.value.isNone()))
                wanted.push_back(&v);
        const auto total = static_cast<qint64>(wanted.size());
        report(0, total);
        writer = std::make_unique<ValueWriter>(folder);
        const Graph& main = m_model->graph();
        qint64 done = 0;
        auto lastReport = std::chrono::steady_clock::now();
        const auto write = [&](const RecordedValue& v, const Value& value) {
            if (cancel->load())
                throw ExportCancelled();
            if (!value.isNone()) {
                bool isOutput = false;
                if (v.graph == &main)
                    for (ValueId id : main.outputs())
                        isOutput = isOutput || main.value(id).name == v.name.str();
                writer->write(v.name, value, v.graph->node(v.producer).displayName(), v.framePath,
                    isOutput ? "output" : "intermediate");
                ++written;
            }
            ++done;
            if (const auto now = std::chrono::steady_clock::now(); now - lastReport > std::chrono::milliseconds(50)) {
                lastReport = now;
                report(done, total);
            }
        };
        // Kept values are written as they are; each stretch of dropped ones is rebuilt by one replay, which hands them
        // over in execution order and frees what it no longer needs, as a plain run does.
        for (size_t i = 0; i < wanted.size();) {
            if (!wanted[i]->dropped) {
                write(*wanted[i], wanted[i]->value);
                ++i;
                continue;
            }
            size_t j = i;
            while (j < wanted.size() && wanted[j]->dropped)
                ++j;
            m_debugger->materialize(std::span<const RecordedValue* const>(wanted.data() + i, j - i), write);
            i = j;
        }
        writer->writeManifest();
        report(total, total);
        ok = true;
        message = std::to_string(written) + " values written to \"" + folder + "\"";
        if (const size_t forgotten = m_debugger->forgottenValues())
            message += " (" + std::to_string(forgotten)
                + " values dropped long before were forgotten by the run and are not among them)";
    } catch (const ExportCancelled&) {
        cancelled = true;
        message = "export cancelled";
    } catch (const std::exception& e) {
        message = e.what();
    }
    if (!ok && writer)
        message += "; \"" + folder + "\" holds only part of the values (" + std::to_string(written)
            + ") and no manifest.json";
    QMetaObject::invokeMethod(
        m_controller,
        [c = m_controller, ok, cancelled, text = QString::fromStdString(message), written] {
            c->m_exporting = false;
            emit c->exportFinished(ok, cancelled, text, written);
        },
        Qt::QueuedConnection);
}

void DebugWorker::rebuildValue(quint64 generation, quint64 ordinal)
{
    Value value;
    std::string error;
    const auto started = std::chrono::steady_clock::now();
    try {
        if (!m_debugger)
            throw Error("there is no run whose values could be rebuilt");
        const RecordedValue* record = m_debugger->findRecord(ordinal);
        if (!record)
            throw Error("the run no longer records that value");
        value = m_debugger->materialize(*record);
        if (value.isNone())
            throw Error("value \"" + record->name.str() + "\" was not produced again");
    } catch (const std::exception& e) {
        error = e.what();
        value = Value();
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    QMetaObject::invokeMethod(
        m_controller,
        [c = m_controller, generation, ordinal, value, text = QString::fromStdString(error), ms] {
            if (generation == c->m_generation)
                emit c->valueRebuilt(ordinal, value, text, ms);
        },
        Qt::QueuedConnection);
}

std::string DebugWorker::fillData(DebugSnapshot& snapshot)
{
    try {
        if (!m_debugger)
            throw Error("there is no run whose values could be rebuilt");
        std::vector<const RecordedValue*> wanted;
        std::map<uint64_t, size_t> rows; // by ordinal
        for (size_t i = 0; i < snapshot.values.size(); ++i) {
            const RecordedValue& r = snapshot.values[i].record;
            if (!r.dropped)
                continue;
            if (const RecordedValue* record = m_debugger->findRecord(r.ordinal)) {
                wanted.push_back(record);
                rows[r.ordinal] = i;
            }
        }
        m_debugger->materialize(wanted, [&](const RecordedValue& r, const Value& value) {
            RecordedValue& row = snapshot.values[rows.at(r.ordinal)].record;
            row.value = value;
            row.dropped = false;
        });
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

StopInfo DebugWorker::reverse(DebugController::Command command, const std::string& argument)
{
    using C = DebugController;
    const bool observing = m_observing;
    if (observing)
        m_debugger->removeObserver(&m_profile);
    m_reversed = true;
    StopInfo stop;
    try {
        switch (command) {
        case C::Command::StepBack:
            stop = m_debugger->stepBack();
            break;
        case C::Command::StepBackInto:
            stop = m_debugger->stepBackInto();
            break;
        case C::Command::StepBackOut:
            stop = m_debugger->stepBackOut();
            break;
        case C::Command::ReverseContinue:
            stop = m_debugger->reverseContinue();
            break;
        default:
            stop = m_debugger->runBackTo(argument);
            break;
        }
    } catch (...) {
        if (observing)
            m_debugger->addObserver(&m_profile);
        throw;
    }
    if (observing)
        m_debugger->addObserver(&m_profile);
    const Session& session = m_debugger->session();
    m_mainDone = session.depth() > 0 ? static_cast<int64_t>(session.frame(0).pc) : m_mainDone;
    m_lastGraph = nullptr;
    m_lastNode = -1;
    if (stop.lastNode && session.topFrame()) {
        const Graph& graph = session.topFrame()->graph();
        const auto& nodes = graph.nodes();
        if (!nodes.empty() && stop.lastNode >= &nodes.front() && stop.lastNode <= &nodes.back()) {
            m_lastGraph = &graph;
            m_lastNode = stop.lastNode->id;
        }
    }
    return stop;
}

} // namespace onnxscope
