// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/debug/debugger.h"
#include "engine/exec/observers/profile_observer.h"
#include "ui/common/debug_snapshot.h"
#include "ui/debugger/debug_controller.h"

#include <QObject>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace onnxscope {

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
        m_known.reset();
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

    /// Gives up summarising the last stop (the value log's fill after a quiet stretch), if it is under way: the
    /// command the UI issues next needs none of it (a new run, or Continue/Run to, which go on from the stop with the
    /// log pending). Thread-safe; the next command clears it.
    void cancelSummaries() { m_cancelFill.store(true); }

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
    std::string fillData(DebugSnapshot& snapshot);

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
    /// After a quiet stretch, before its log is completed: the last node and progress from the stop and the debugger's
    /// live counters, which need no log.
    void readPositionFromStop(const StopInfo& stop);
    /// A reverse command: the debugger replays (the node events this worker sees are not new work, so the profile
    /// stops counting), and the position is read back from what it then holds.
    StopInfo reverse(DebugController::Command command, const std::string& argument);
    /// The stop with every value of the log, summarised (the log is completed first if a quiet stretch left it).
    DebugSnapshotPtr snapshot(const StopInfo& stop, const std::string& errorOverride = {});
    /// The stop's position only (DebugSnapshot::summarising), made without completing the log: the frames, the last
    /// node, progress, and the values and nodes known at the previous stop of this run.
    DebugSnapshotPtr positionSnapshot(const StopInfo& stop);
    /// The parts of a snapshot that need no value log: why and where it stopped, the frames, progress, timings.
    void fillPosition(DebugSnapshot& s, const StopInfo& stop) const;
    /// The values of the log with their summaries, and the nodes that ran (from the log unless the profile saw all).
    void fillValues(DebugSnapshot& s);
    /// Runs the command of `request` on m_debugger.
    StopInfo runCommand(const Request& request);
    void post(quint64 generation, const DebugSnapshotPtr& snapshot, bool complete);

    DebugController* m_controller;
    std::shared_ptr<const Model> m_model;
    std::shared_ptr<const Program> m_program;
    std::mutex m_activeMutex; // guards m_debugger's lifetime against requestPause() from the UI thread
    std::atomic<quint64> m_pauseGeneration { 0 }; // the command the UI asked to pause (requestPause)
    std::atomic<bool> m_cancelFill { false }; // cancelSummaries()
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
    /// The last complete snapshot of this run: the rows, nodes and sizes a position snapshot shows meanwhile.
    DebugSnapshotPtr m_known;
};

} // namespace onnxscope
