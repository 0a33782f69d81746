// SPDX-License-Identifier: MIT
#include "ui/debugger/debug_controller.h"

#include "engine/core/thread_pool.h"
#include "engine/exec/observers/output_watch.h"
#include "engine/exec/observers/profile_observer.h"
#include "engine/io/value_writer.h"

#include <QMetaObject>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <tuple>

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

QString debuggerStateName(DebuggerState state)
{
    switch (state) {
    case DebuggerState::NoModel:
        return QStringLiteral("No model");
    case DebuggerState::Ready:
        return QStringLiteral("Ready");
    case DebuggerState::Running:
        return QStringLiteral("Running");
    case DebuggerState::Paused:
        return QStringLiteral("Paused");
    case DebuggerState::Finished:
        return QStringLiteral("Finished");
    case DebuggerState::Failed:
        return QStringLiteral("Failed");
    }
    return {};
}

/// Lives on the controller's worker thread and owns the engine objects. Only touched through queued calls, except
/// requestPause(), which is thread-safe.
class DebugWorker : public QObject, private SessionObserver {
public:
    explicit DebugWorker(DebugController* controller)
        : m_controller(controller)
    {
    }

    struct Request {
        quint64 generation = 0;
        int command = 0; // DebugController::Command
        std::string argument;
        bool startNewRun = false;
        DebugController::InputFactory inputs;
        DebuggerOptions options;
        std::shared_ptr<ThreadPool> pool; // options.session.threadPool
        QList<BreakpointSpec> breakpoints;
        std::map<std::string, Value> yieldOutputs;
        bool recordProfile = false; // Debug › Record Profile: node by node, with the profile observer
    };

    void setModel(std::shared_ptr<const Model> model)
    {
        dropRun();
        m_model = std::move(model);
        m_program.reset();
    }

    void dropRun()
    {
        std::lock_guard lock(m_activeMutex);
        m_debugger.reset();
        m_pool.reset();
    }

    /// Pauses the command of `generation`: at the next node if it is running, or before its first one if the worker
    /// has not started it yet (its new debugger would not see a flag set on the one it replaces).
    void requestPause(quint64 generation)
    {
        m_pauseGeneration.store(generation);
        std::lock_guard lock(m_activeMutex);
        if (m_debugger)
            m_debugger->requestPause();
    }

    void execute(const Request& request);
    /// Main-graph nodes the current command has completed so far (DebugController's progress timer, any thread).
    int64_t liveMainNodesDone()
    {
        std::lock_guard lock(m_activeMutex);
        return m_debugger ? static_cast<int64_t>(m_debugger->liveMainNodesDone()) : -1;
    }
    /// DebugController::exportValues on this thread.
    void exportValues(const std::string& folder, const std::shared_ptr<std::atomic<bool>>& cancel);
    /// DebugController::rebuildValue on this thread.
    void rebuildValue(quint64 generation, quint64 ordinal);
    /// DebugController::snapshotWithData on this thread: fills in `snapshot`'s dropped values; the error, if any.
    std::string fillValues(DebugSnapshot& snapshot);

private:
    void beforeNode(const NodeEvent&) override { }
    void afterNode(const NodeEvent& event) override;
    void nodeFailed(const NodeEvent& event, const std::string&) override
    {
        m_failedGraph = &event.frame.graph();
        m_failedNode = event.node.id;
    }
    void installBreakpoints(const QList<BreakpointSpec>& specs);
    /// Attaches this worker and the profile observer to the debugger (Record Profile: node by node, timed) or takes
    /// them off (the debugger runs quiet stretches, and what ran is read from its log).
    void setObserving(bool on);
    /// After a forward command run without observers: the log completed (here, on the worker thread, so the UI
    /// thread never waits for it) and the last node and progress read from it.
    void readPositionFromLog();
    /// A reverse command: the debugger replays (the node events this worker sees are not new work, so the profile
    /// stops counting), and the position is read back from what it then holds.
    StopInfo reverse(DebugController::Command command, const std::string& argument);
    DebugSnapshotPtr snapshot(const StopInfo& stop, const std::string& errorOverride = {});

    DebugController* m_controller;
    std::shared_ptr<const Model> m_model;
    std::shared_ptr<const Program> m_program;
    std::mutex m_activeMutex; // guards m_debugger's lifetime against requestPause() from the UI thread
    std::atomic<quint64> m_pauseGeneration { 0 }; // the command the UI asked to pause (requestPause)
    std::unique_ptr<Debugger> m_debugger;
    std::shared_ptr<ThreadPool> m_pool; // the pool m_debugger's kernels use, alive as long as it
    quint64 m_generation = 0;
    std::map<int, int> m_engineToSpec;
    QList<BreakpointSpec> m_installed;
    bool m_installedValid = false;
    std::map<std::tuple<uint64_t, uint64_t, std::string>, std::optional<TensorStats>> m_stats;
    /// Calls and time of each node this run, over every command of the run.
    ProfileObserver m_profile;
    const Graph* m_lastGraph = nullptr;
    NodeId m_lastNode = -1;
    const Graph* m_failedGraph = nullptr;
    NodeId m_failedNode = -1;
    int64_t m_mainDone = 0;
    bool m_reversed = false; // the run went back: what ran is read from the recorded values, not the profile
    bool m_observing = false; // this worker and m_profile are observers of m_debugger (Record Profile)
    bool m_profiledAll = false; // the profile observer saw every node of this run
    int64_t m_preemptions = 0; // involuntary context switches of this thread while it ran this run's nodes
};

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

void DebugWorker::execute(const Request& request)
{
    using C = DebugController;
    m_generation = request.generation;
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
        switch (static_cast<C::Command>(request.command)) {
        case C::Command::Start:
            stop = m_debugger->skipConstantsAhead();
            break;
        case C::Command::Continue:
            stop = m_debugger->continueRun();
            break;
        case C::Command::Step:
            stop = m_debugger->step();
            break;
        case C::Command::StepInto:
            stop = m_debugger->stepInto();
            break;
        case C::Command::StepOut:
            stop = m_debugger->stepOut();
            break;
        case C::Command::RunTo:
            stop = m_debugger->runTo(request.argument);
            break;
        case C::Command::StepBack:
        case C::Command::StepBackInto:
        case C::Command::StepBackOut:
        case C::Command::ReverseContinue:
        case C::Command::RunBackTo:
            stop = reverse(static_cast<C::Command>(request.command), request.argument);
            break;
        }
        if (!m_observing && !C::isReverse(static_cast<C::Command>(request.command)))
            readPositionFromLog();
    } catch (const std::exception& e) {
        error = e.what();
        stop.reason = StopReason::Failed;
        stop.message = error;
    }
    if (switchesBefore >= 0)
        m_preemptions += involuntarySwitches() - switchesBefore;
    DebugSnapshotPtr snap = snapshot(stop, error);
    const quint64 generation = request.generation;
    QMetaObject::invokeMethod(
        m_controller, [c = m_controller, generation, snap] { c->onCommandDone(generation, snap); },
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

std::string DebugWorker::fillValues(DebugSnapshot& snapshot)
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

DebugSnapshotPtr DebugWorker::snapshot(const StopInfo& stop, const std::string& errorOverride)
{
    auto s = std::make_shared<DebugSnapshot>();
    s->model = m_model;
    s->reason = stop.reason;
    s->message = QString::fromStdString(stop.message);
    if (auto it = m_engineToSpec.find(stop.breakpointId); it != m_engineToSpec.end())
        s->breakpointId = it->second;
    s->lastGraph = m_lastGraph;
    s->lastNode = m_lastNode;
    s->mainNodeCount = m_model ? static_cast<int64_t>(m_model->graph().nodes().size()) : 0;
    s->mainNodesDone = m_mainDone;
    s->preemptions = m_preemptions;
    s->timings = m_profile.timings();
    for (const NodeTiming& timing : s->timings)
        s->executed[timing.graph].insert(timing.node);
    if (!m_debugger)
        return s;
    if (m_reversed || !m_profiledAll) {
        // Nodes after the position went back to were undone, or the profile did not watch the whole run: what ran is
        // what the debugger has recorded.
        s->executed.clear();
        for (const RecordedValue& v : m_debugger->values())
            if (v.producer >= 0 && v.graph)
                s->executed[v.graph].insert(v.producer);
    }
    const Session& session = m_debugger->session();
    if (session.state() == Session::State::Failed) {
        s->failedGraph = session.failure().graph ? session.failure().graph : m_failedGraph;
        s->failedNode = session.failure().node ? session.failure().node->id : m_failedNode;
    }
    if (session.state() == Session::State::Running || session.state() == Session::State::Failed) {
        std::string path;
        for (size_t i = 0; i < session.depth(); ++i) {
            const Frame& f = session.frame(i);
            path = i == 0 ? f.label : path + " / " + f.label;
            FrameSnapshot fs;
            fs.id = f.id;
            fs.label = f.label;
            fs.path = path;
            fs.graph = &f.graph();
            fs.ownerNode = f.ownerNode;
            fs.iteration = f.iteration;
            fs.position = f.pc < f.graph().nodes().size() ? static_cast<NodeId>(f.pc) : -1;
            s->frames.push_back(std::move(fs));
        }
    }
    if (session.state() == Session::State::Finished)
        s->outputs = session.outputs();
    s->recordedBytes = m_debugger->recordedBytes();
    {
        const MemoryStats memory = m_debugger->memoryStats();
        s->checkpointBytes = memory.checkpointBytes;
        s->checkpoints = memory.checkpoints;
    }
    s->forgottenValues = m_debugger->forgottenValues();
    s->quietStretches = m_debugger->quietStretches();
    const auto& values = m_debugger->values();
    s->values.reserve(values.size());
    // The frames of this position (or a finished run's outputs) still hold some values whose data the run did not
    // keep: the snapshot carries them (the views show them at once, without a rebuild).
    std::set<uint64_t> frameIds;
    for (size_t i = 0; i < session.depth(); ++i)
        frameIds.insert(session.frame(i).id);
    const bool finished = session.state() == Session::State::Finished;
    for (const RecordedValue& v : values) {
        ValueSnapshot vs { v, std::nullopt };
        if (v.dropped && (finished || frameIds.count(v.frameId)))
            if (const Value* held = m_debugger->heldValue(v)) {
                vs.record.value = *held;
                vs.record.dropped = false;
            }
        if (v.summary.valid) {
            vs.stats = v.summary.stats; // recorded as the value was made
        } else if (!vs.record.dropped) {
            auto key = std::make_tuple(v.frameId, v.sequence, v.name);
            auto it = m_stats.find(key);
            if (it == m_stats.end())
                it = m_stats.emplace(std::move(key), computeStats(vs.record.value)).first;
            vs.stats = it->second;
        }
        s->values.push_back(std::move(vs));
    }
    if (stop.reason == StopReason::YieldOp && session.topFrame()) {
        const Frame& f = *session.topFrame();
        if (const Node* node = session.nextNode()) {
            for (ValueId id : node->inputs) {
                if (id == kNoValue)
                    continue;
                const std::string& name = f.graph().value(id).name;
                Value v = static_cast<size_t>(id) < f.values.size() ? f.values[static_cast<size_t>(id)] : Value();
                if (v.isNone())
                    if (const RecordedValue* r = m_debugger->findValue(name))
                        v = r->value;
                s->yieldInputs.emplace_back(name, v);
            }
            for (ValueId id : node->outputs)
                if (id != kNoValue)
                    s->yieldOutputs.push_back(f.graph().value(id).name);
        }
    }
    if (!errorOverride.empty())
        s->message = QString::fromStdString(errorOverride);
    return s;
}

DebugController::DebugController(QObject* parent)
    : QObject(parent)
    , m_worker(new DebugWorker(this))
{
    qRegisterMetaType<DebuggerState>();
    qRegisterMetaType<DebugSnapshotPtr>();
    m_thread.setObjectName(QStringLiteral("onnxscope-debugger"));
    m_worker->moveToThread(&m_thread);
    // Progress is polled from the running debugger's position: no observer slows the run down to report it.
    m_progressTimer.setInterval(50);
    connect(&m_progressTimer, &QTimer::timeout, this, &DebugController::pollProgress);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
}

void DebugController::setThreads(int threads)
{
    threads = std::max(threads, 1);
    if (threads == m_threads)
        return;
    m_threads = threads;
    // A pool of one thread would start no worker: null means "run on the calling thread" to every kernel.
    m_pool = threads > 1 ? std::make_shared<ThreadPool>(threads) : nullptr;
    // The GUI has threads of its own, so the pool's workers cost it nothing while idle; started here, from the GUI
    // thread, rather than from the debugger's thread in the middle of the first run.
    if (m_pool)
        m_pool->startWorkers();
}

DebugController::~DebugController()
{
    ++m_generation;
    m_worker->requestPause(m_generation);
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker] { w->dropRun(); }, Qt::QueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

void DebugController::setState(DebuggerState state)
{
    if (m_state == state)
        return;
    m_state = state;
    if (state == DebuggerState::Running) {
        m_lastProgress = -1;
        m_progressTimer.start();
    } else {
        m_progressTimer.stop();
    }
    emit stateChanged(state);
}

void DebugController::pollProgress()
{
    if (m_state != DebuggerState::Running || !m_model)
        return;
    const int64_t done = m_worker->liveMainNodesDone();
    if (done < 0 || done == m_lastProgress)
        return;
    m_lastProgress = done;
    emit progress(done, static_cast<qint64>(m_model->graph().nodes().size()));
}

void DebugController::setModel(std::shared_ptr<const Model> model)
{
    ++m_generation;
    m_worker->requestPause(m_generation);
    m_model = model;
    m_snapshot.reset();
    m_pendingYield.clear();
    m_stopRequested = false;
    m_runActive = false;
    m_reversible = false;
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, model] { w->setModel(model); }, Qt::QueuedConnection);
    emit runCleared();
    setState(model ? DebuggerState::Ready : DebuggerState::NoModel);
}

bool DebugController::stoppedRunIdle() const
{
    // A finished or failed run's debugger stays on the worker too (m_runActive is about resuming).
    const bool stopped
        = m_state == DebuggerState::Paused || m_state == DebuggerState::Finished || m_state == DebuggerState::Failed;
    return stopped && m_snapshot && !m_exporting;
}

bool DebugController::exportValues(const QString& folder)
{
    if (!stoppedRunIdle())
        return false;
    m_exporting = true;
    m_exportCancel = std::make_shared<std::atomic<bool>>(false);
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, folder = folder.toStdString(), cancel = m_exportCancel] { w->exportValues(folder, cancel); },
        Qt::QueuedConnection);
    return true;
}

bool DebugController::rebuildValue(quint64 ordinal)
{
    if (!stoppedRunIdle())
        return false;
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, generation = m_generation, ordinal] { w->rebuildValue(generation, ordinal); },
        Qt::QueuedConnection);
    return true;
}

DebugSnapshotPtr DebugController::snapshotWithData()
{
    if (!stoppedRunIdle())
        return nullptr;
    bool anyDropped = false;
    for (const auto& v : m_snapshot->values)
        anyDropped = anyDropped || v.record.dropped;
    if (!anyDropped)
        return m_snapshot;
    auto filled = std::make_shared<DebugSnapshot>(*m_snapshot);
    std::string error;
    // The worker is idle while stopped: it runs this at once, and this thread waits (as a modal export would).
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, &filled, &error] { error = w->fillValues(*filled); }, Qt::BlockingQueuedConnection);
    if (!error.empty())
        throw Error("rebuilding the values to export: " + error);
    return filled;
}

void DebugController::cancelExport()
{
    if (m_exportCancel)
        m_exportCancel->store(true);
}

bool DebugController::issue(Command command, const QString& argument)
{
    if (m_state == DebuggerState::NoModel || m_state == DebuggerState::Running || m_exporting)
        return false;
    const bool resumable = m_state == DebuggerState::Paused && m_runActive;
    if (command == Command::StepOut && !resumable)
        return false;
    if (isReverse(command) && !canReverse())
        return false;
    DebugWorker::Request request;
    request.generation = ++m_generation;
    request.command = static_cast<int>(command);
    request.argument = argument.toStdString();
    request.recordProfile = m_recordProfile;
    request.startNewRun = !isReverse(command) && (!resumable || command == Command::Start);
    if (request.startNewRun) {
        // Step over / into from a fresh start stop before the first node, like a debugger's first F10.
        if (command == Command::Step || command == Command::StepInto)
            request.command = static_cast<int>(Command::Start);
        request.inputs = m_inputSource ? m_inputSource() : InputFactory();
        request.options = m_options;
        request.options.session.threadPool = m_pool.get();
        request.pool = m_pool;
        request.yieldOutputs = m_rememberedYield;
    }
    for (const auto& [name, value] : m_pendingYield)
        request.yieldOutputs[name] = value;
    m_pendingYield.clear();
    if (m_breakpoints)
        request.breakpoints = m_breakpoints->breakpoints();
    m_stopRequested = false;
    m_runActive = true;
    if (request.startNewRun) {
        if (m_breakpoints)
            m_breakpoints->resetHits();
        // The views let go of the last run's values too (runCleared), so that the worker frees them when it replaces
        // its debugger, and the new run reuses their memory (the engine's storage cache) instead of faulting in fresh
        // pages for every output: a second run of ocr_rec took 460 ms in the GUI with them held.
        m_snapshot.reset();
        emit runCleared();
    }
    setState(DebuggerState::Running);
    // Handed to the worker once this thread has repainted for the new state, so that the repaint (and the X server's
    // share of it) does not take the CPU from the first nodes and show up in their times: a first run of
    // embedding_model under Xvfb on 2 cores went from 13.7-15.0 ms to 3.9-8.5 ms. A request overtaken by another
    // (a new model, Stop, Restart) is dropped here rather than run on what replaced it.
    QTimer::singleShot(0, this, [this, request] {
        if (request.generation == m_generation)
            QMetaObject::invokeMethod(
                m_worker, [w = m_worker, request] { w->execute(request); }, Qt::QueuedConnection);
    });
    return true;
}

bool DebugController::start()
{
    return issue(Command::Start);
}
bool DebugController::continueRun()
{
    return issue(Command::Continue);
}
bool DebugController::stepOver()
{
    return issue(Command::Step);
}
bool DebugController::stepInto()
{
    return issue(Command::StepInto);
}
bool DebugController::stepOut()
{
    return issue(Command::StepOut);
}
bool DebugController::runTo(const QString& nodeName)
{
    return issue(Command::RunTo, nodeName);
}

bool DebugController::stepBack()
{
    return issue(Command::StepBack);
}
bool DebugController::stepBackInto()
{
    return issue(Command::StepBackInto);
}
bool DebugController::stepBackOut()
{
    return issue(Command::StepBackOut);
}
bool DebugController::reverseContinue()
{
    return issue(Command::ReverseContinue);
}
bool DebugController::runBackTo(const QString& nodeName)
{
    return issue(Command::RunBackTo, nodeName);
}

bool DebugController::canReverse() const
{
    return m_reversible
        && (m_state == DebuggerState::Paused || m_state == DebuggerState::Finished || m_state == DebuggerState::Failed);
}

bool DebugController::pause()
{
    if (m_state != DebuggerState::Running)
        return false;
    m_worker->requestPause(m_generation);
    return true;
}

bool DebugController::stop()
{
    if (m_state == DebuggerState::NoModel || m_state == DebuggerState::Ready)
        return false;
    if (m_state == DebuggerState::Running) {
        m_stopRequested = true;
        m_worker->requestPause(m_generation);
        return true;
    }
    abandonRun();
    return true;
}

void DebugController::abandonRun()
{
    cancelExport();
    ++m_generation;
    m_runActive = false;
    m_reversible = false;
    m_stopRequested = false;
    m_snapshot.reset();
    m_pendingYield.clear();
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker] { w->dropRun(); }, Qt::QueuedConnection);
    emit runCleared();
    setState(DebuggerState::Ready);
}

bool DebugController::restart()
{
    if (m_state == DebuggerState::NoModel)
        return false;
    if (m_state == DebuggerState::Running) {
        // Abandon the running command; its result is discarded by the generation check.
        m_worker->requestPause(m_generation);
        ++m_generation;
        setState(DebuggerState::Ready);
    }
    m_runActive = false;
    return issue(Command::Continue);
}

void DebugController::setYieldOutputs(const std::map<std::string, Value>& outputs, bool remember)
{
    for (const auto& [name, value] : outputs) {
        m_pendingYield[name] = value;
        if (remember)
            m_rememberedYield[name] = value;
    }
}

void DebugController::forgetYieldOutputs(const std::string& name)
{
    m_rememberedYield.erase(name);
}

void DebugController::onCommandDone(quint64 generation, const DebugSnapshotPtr& snapshot)
{
    if (generation != m_generation)
        return;
    if (m_stopRequested) {
        abandonRun();
        return;
    }
    m_snapshot = snapshot;
    m_reversible = !snapshot->frames.empty() || snapshot->reason == StopReason::Finished;
    if (m_breakpoints && snapshot->breakpointId > 0)
        m_breakpoints->recordHit(snapshot->breakpointId);
    DebuggerState next = DebuggerState::Paused;
    if (snapshot->reason == StopReason::Finished)
        next = DebuggerState::Finished;
    else if (snapshot->reason == StopReason::Failed)
        next = DebuggerState::Failed;
    if (next != DebuggerState::Paused)
        m_runActive = next == DebuggerState::Failed && !snapshot->frames.empty();
    // Stopped before a YieldOp: the remembered outputs apply unless the user chooses otherwise.
    if (snapshot->reason == StopReason::YieldOp)
        for (const std::string& name : snapshot->yieldOutputs)
            if (auto it = m_rememberedYield.find(name); it != m_rememberedYield.end())
                m_pendingYield[name] = it->second;
    emit progress(snapshot->mainNodesDone, snapshot->mainNodeCount);
    setState(next);
    emit stopped(snapshot);
}

} // namespace onnxscope
