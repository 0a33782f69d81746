// SPDX-License-Identifier: MIT
#include "ui/debugger/debug_controller.h"

#include "engine/core/thread_pool.h"
#include "ui/debugger/debug_worker.h"

#include <QMetaObject>
#include <QTimer>

#include <algorithm>

namespace onnxscope {

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
    m_summarising = false;
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
    // While the worker fills the log it would not answer at once, and this thread must not wait for it.
    if (!stoppedRunIdle() || m_summarising)
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
        m_worker, [w = m_worker, &filled, &error] { error = w->fillData(*filled); }, Qt::BlockingQueuedConnection);
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
    // A command that goes on from the stop quietly, or a new run, needs none of the last stop's summaries: the worker
    // gives them up. Any other (a step, a reverse move, Record Profile's observed run) needs the log: it waits.
    const bool quietMove = !m_recordProfile && (command == Command::Continue || command == Command::RunTo);
    if (m_summarising && (request.startNewRun || quietMove))
        m_worker->cancelSummaries();
    m_summarising = false; // else the worker fills the log first, and this command's stop shows every value
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
    if (m_summarising)
        m_worker->cancelSummaries();
    ++m_generation;
    m_runActive = false;
    m_reversible = false;
    m_stopRequested = false;
    m_summarising = false;
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

void DebugController::onStopShown(quint64 generation, const DebugSnapshotPtr& snapshot)
{
    if (generation != m_generation)
        return;
    if (m_stopRequested) {
        abandonRun(); // what the worker sends next for this command is dropped
        return;
    }
    m_summarising = true;
    applyStop(snapshot, true);
    emit stopShown(snapshot);
}

void DebugController::onCommandDone(quint64 generation, const DebugSnapshotPtr& snapshot)
{
    if (generation != m_generation)
        return;
    if (m_stopRequested) {
        abandonRun();
        return;
    }
    const bool shown = m_summarising; // the position of this stop was shown already: its hit counted
    m_summarising = false;
    applyStop(snapshot, !shown);
    emit stopped(snapshot);
}

void DebugController::applyStop(const DebugSnapshotPtr& snapshot, bool countHit)
{
    m_snapshot = snapshot;
    m_reversible = !snapshot->frames.empty() || snapshot->reason == StopReason::Finished;
    if (countHit && m_breakpoints && snapshot->breakpointId > 0)
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
}

} // namespace onnxscope
