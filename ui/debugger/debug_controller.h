// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/debug/debugger.h"
#include "ui/common/debug_snapshot.h"
#include "ui/debugger/breakpoint_model.h"
#include "ui/debugger/debugger_state.h"

#include <QObject>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace onnxscope {

class DebugWorker;

/// Drives the engine's Debugger on a worker thread. Commands return at once; results arrive as signals.
///
/// Each run gets a fresh Debugger: inputs come from the input factory (called on the worker thread, so building a
/// big random tensor never blocks the UI), breakpoints are installed before every command, so edits made while
/// paused apply to the next step. The one DebuggerState decides which commands are accepted: a command that does
/// not fit the state is ignored and returns false.
class DebugController : public QObject {
    Q_OBJECT
public:
    /// Builds the inputs of a run; runs on the worker thread, so it must own everything it reads.
    using InputFactory = std::function<std::map<std::string, Value>()>;
    /// Called on the UI thread when a run starts, to get that run's InputFactory.
    using InputSource = std::function<InputFactory()>;

    explicit DebugController(QObject* parent = nullptr);
    ~DebugController() override;

    /// Switches to another model (or none); any run in progress is abandoned.
    void setModel(std::shared_ptr<const Model> model);
    std::shared_ptr<const Model> model() const { return m_model; }
    void setInputSource(InputSource source) { m_inputSource = std::move(source); }
    /// Breakpoints to install before each command; the model is read on the UI thread at each command.
    void setBreakpointModel(BreakpointModel* model) { m_breakpoints = model; }
    void setOptions(DebuggerOptions options) { m_options = std::move(options); }
    const DebuggerOptions& options() const { return m_options; }
    /// Threads the kernels of a run may use (clamped to at least 1); takes effect when the next run starts, a paused
    /// run keeps the pool it started with.
    void setThreads(int threads);
    int threads() const { return m_threads; }
    /// The pool of setThreads(), or null for one thread; shared with Debug › Compare.
    std::shared_ptr<ThreadPool> threadPool() const { return m_pool; }

    /// Debug › Record Profile. Off (the default), Continue and Run to run as a plain run between the places where they
    /// can stop (the debugger's quiet stretches) and the value log is completed on the worker thread after the stop;
    /// on, every command runs node by node with the profile observer timing each node (the Profile dock). Takes effect
    /// at the next command; turned on while paused, the profile counts from there.
    void setRecordProfile(bool on) { m_recordProfile = on; }
    bool recordProfile() const { return m_recordProfile; }

    DebuggerState state() const { return m_state; }
    /// The last stop (null before the first one and after stop()); while summarising(), its position only.
    DebugSnapshotPtr snapshot() const { return m_snapshot; }
    /// Stopped after a quiet stretch, with the worker filling in the value log: the position is shown (stopShown), the
    /// values are not summarised yet (stopped follows). Commands issued meanwhile are queued behind the fill on the
    /// worker; Stop abandons the run at once (the fill cannot be cut short: the worker finishes it, then drops it).
    bool summarising() const { return m_summarising; }

    /// Starts a run and stops before its first node.
    bool start();
    /// Continues (starting a run first if none is paused) until a breakpoint, a YieldOp, the end or an error.
    bool continueRun();
    /// Step over / into / out. Step over and into start a run (stopped before the first node) if none is paused.
    bool stepOver();
    bool stepInto();
    bool stepOut();
    /// Runs (starting if needed) until just before a node of this display name in any frame.
    bool runTo(const QString& nodeName);
    /// Reverse execution of a paused, finished or failed run: the engine restores its nearest checkpoint and replays
    /// forward to the earlier position. Step Back steps back over a node (gdb's reverse-next), Step Back Into enters
    /// subgraphs from their end (reverse-step), Step Back Out goes to just before the node that runs the current
    /// subgraph (reverse-finish), Reverse Continue to the previous breakpoint hit (reverse-continue), Run Back to a
    /// node to just before its latest earlier run.
    bool stepBack();
    bool stepBackInto();
    bool stepBackOut();
    bool reverseContinue();
    bool runBackTo(const QString& nodeName);
    /// Whether the reverse commands apply now (a run whose debugger is kept: paused, finished or failed after its
    /// first node).
    bool canReverse() const;
    /// Asks a running command to stop at the next node boundary.
    bool pause();
    /// Abandons the run: back to Ready. Works while running (at the next node boundary) and while stopped.
    bool stop();
    /// Stops and starts again, then continues.
    bool restart();

    /// Debug › Export All: writes every node output of the stopped, finished or failed run to `folder`, as
    /// `onnxscope-cli run --dump-all DIR` does (`<k>_<name>.npy` per value, in execution order, and manifest.json), on
    /// the worker thread. Values the memory budget dropped are rebuilt from the nearest checkpoint as the writing
    /// reaches them, so the export keeps within the budget. exportProgress() reports it; exportFinished() ends it. A
    /// cancelled or failed export leaves no manifest.json (the folder does not look complete). False (and nothing
    /// starts) without such a run or while an export or a command is under way.
    bool exportValues(const QString& folder);
    /// Asks the export under way to stop at its next value.
    void cancelExport();
    /// The data of the value recorded with this ordinal (RecordedValue::ordinal) in the stopped, finished or failed
    /// run, rebuilt on the worker thread when the run kept only its summary (from the frames of the position when they
    /// still hold it, else by a replay from the nearest checkpoint). valueRebuilt() answers. False (and nothing
    /// starts) while a command or an export runs or without such a run.
    bool rebuildValue(quint64 ordinal);
    /// The last stop's snapshot with the data of every value, those the run kept only as summaries rebuilt (with as
    /// few replays as possible) on the worker thread while this one waits: for the exports that write every value at
    /// once. Throws Error if a value cannot be rebuilt; null when there is no stopped run or a command is running.
    DebugSnapshotPtr snapshotWithData();
    bool exporting() const { return m_exporting; }

    /// Outputs for the YieldOp the run is stopped at (by output name). With `remember`, they are applied to every
    /// later YieldOp output of the same name, in this run and the next ones, until forgetYieldOutputs().
    void setYieldOutputs(const std::map<std::string, Value>& outputs, bool remember);
    void forgetYieldOutputs(const std::string& name);
    const std::map<std::string, Value>& rememberedYieldOutputs() const { return m_rememberedYield; }

signals:
    void stateChanged(onnxscope::DebuggerState state);
    /// The run stopped (step done, breakpoint, YieldOp, pause, finished or failed); the snapshot says why.
    void stopped(const onnxscope::DebugSnapshotPtr& snapshot);
    /// A quiet stretch stopped: where, and why (DebugSnapshot::summarising), before the values are summarised;
    /// stopped() follows with the complete snapshot of the same stop unless a command or Stop overtakes it.
    void stopShown(const onnxscope::DebugSnapshotPtr& snapshot);
    /// Nodes of the main graph completed so far, of `total`, while running (throttled).
    void progress(qint64 done, qint64 total);
    /// A run was abandoned (stop() or a new model); views should forget its values.
    void runCleared();
    /// Values written by the export under way, of `total`; emitted once before the first.
    void exportProgress(qint64 done, qint64 total);
    /// The export ended: `ok`, or cancelled or failed with `message` (which names the folder); `written` values.
    void exportFinished(bool ok, bool cancelled, const QString& message, qint64 written);
    /// rebuildValue() is done: `value` is the data (None, with `error` saying why, if it could not be rebuilt), `ms`
    /// the time it took. Not emitted when the run was replaced meanwhile.
    void valueRebuilt(quint64 ordinal, const onnxscope::Value& value, const QString& error, double ms);

private:
    enum class Command {
        Start,
        Continue,
        Step,
        StepInto,
        StepOut,
        RunTo,
        StepBack,
        StepBackInto,
        StepBackOut,
        ReverseContinue,
        RunBackTo,
    };
    static bool isReverse(Command command) { return command >= Command::StepBack; }
    bool issue(Command command, const QString& argument = {});
    void onCommandDone(quint64 generation, const onnxscope::DebugSnapshotPtr& snapshot);
    void onStopShown(quint64 generation, const onnxscope::DebugSnapshotPtr& snapshot);
    /// Takes a stop's snapshot (position or complete): the state, hits, pending YieldOp outputs, progress.
    void applyStop(const DebugSnapshotPtr& snapshot, bool countHit);
    void setState(DebuggerState state);
    /// The progress timer: emits progress() when the running debugger's main-graph position moved.
    void pollProgress();
    void abandonRun();
    /// Stopped (paused, finished or failed) with a run whose debugger the worker holds, and no export under way.
    bool stoppedRunIdle() const;

    QThread m_thread;
    DebugWorker* m_worker;
    std::shared_ptr<const Model> m_model;
    InputSource m_inputSource;
    BreakpointModel* m_breakpoints = nullptr;
    DebuggerOptions m_options;
    int m_threads = 1;
    std::shared_ptr<ThreadPool> m_pool;
    DebuggerState m_state = DebuggerState::NoModel;
    DebugSnapshotPtr m_snapshot;
    std::map<std::string, Value> m_rememberedYield;
    std::map<std::string, Value> m_pendingYield; // for the YieldOp we are stopped at
    quint64 m_generation = 0;
    bool m_stopRequested = false;
    bool m_runActive = false; // a Debugger exists on the worker (paused, finished or failed run)
    bool m_reversible = false; // the worker's debugger has a position to go back from (a stop after start())
    bool m_exporting = false;
    bool m_recordProfile = false;
    bool m_summarising = false; // summarising()
    QTimer m_progressTimer;
    int64_t m_lastProgress = -1;
    std::shared_ptr<std::atomic<bool>> m_exportCancel; // of the export under way
    friend class DebugWorker;
};

} // namespace onnxscope
