// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"
#include "ui/debugger/debugger_state.h"

#include <QList>
#include <QObject>

#include <functional>

class QAction;
class QMenu;
class QWidget;

namespace onnxscope {

class BreakpointModel;
class DebugController;

/// The debugger's commands as actions, and the Debug menu that holds them: Run / Continue (F5), Pause, Stop (Shift+F5),
/// Restart (Ctrl+Shift+F5), Step Over (F10), Step Into (F11), Step Out (Shift+F11), Run to Selected Node (Ctrl+F10),
/// Step Back (Alt+[, Visual Studio's Step Backward; gdb's reverse-next), Step Back Into (Ctrl+Alt+[, reverse-step),
/// Step Back Out (Alt+Shift+[, reverse-finish), Reverse Continue (Alt+Shift+F5, reverse-continue), Run Back to Selected
/// Node (Ctrl+Alt+F10), Toggle Breakpoint (F9), Break on First NaN/Inf, Break on Every <op type>, Add Conditional
/// Breakpoint… and Debug › Threads. They are enabled by the controller's DebuggerState and the selected node.
///
/// The actions know the controller and the breakpoints only. What they need from elsewhere comes through hooks: the
/// selected node (setSelectedNode()), whether a run may start (the run guard: the inputs must be valid), and what they
/// have to say (statusChanged(), messageShown()).
class DebuggerActions : public QObject {
    Q_OBJECT
public:
    /// Asked before a command that starts a run; true lets it go on. With `explain`, a refusal tells the user why.
    using RunGuard = std::function<bool(bool explain)>;

    /// The actions are shortcuts in all of `window`, and the Debug menu is its child.
    DebuggerActions(DebugController* controller, BreakpointModel* breakpoints, QWidget* window);
    ~DebuggerActions() override;

    void setRunGuard(RunGuard guard) { m_runGuard = std::move(guard); }
    /// The node Run to Selected Node, Toggle Breakpoint and Break on Every … act on (the graph's selection); a null
    /// graph for none.
    void setSelectedNode(const Graph* graph, NodeId node);
    /// The selected node's display name, empty if none.
    QString selectedNodeName() const;
    /// Threads for the kernels of the next run (as Debug › Threads); remembered in the Settings.
    void setThreads(int threads);

    QAction* continueAction() const { return m_continue; }
    QAction* stepOverAction() const { return m_stepOver; }
    QAction* stepIntoAction() const { return m_stepInto; }
    QAction* stepOutAction() const { return m_stepOut; }
    QAction* runToAction() const { return m_runTo; }
    QAction* stepBackAction() const { return m_stepBack; }
    QAction* stepBackIntoAction() const { return m_stepBackInto; }
    QAction* stepBackOutAction() const { return m_stepBackOut; }
    QAction* reverseContinueAction() const { return m_reverseContinue; }
    QAction* runBackToAction() const { return m_runBackTo; }
    QAction* pauseAction() const { return m_pause; }
    QAction* stopAction() const { return m_stop; }
    QAction* restartAction() const { return m_restart; }
    QAction* toggleBreakpointAction() const { return m_toggleBreakpoint; }
    QAction* breakOnNonFiniteAction() const { return m_breakOnNonFinite; }
    QAction* breakOnOpTypeAction() const { return m_breakOnOpType; }
    /// Debug › Record Profile (checkable, remembered in the Settings, default off).
    QAction* recordProfileAction() const { return m_recordProfile; }
    /// The Debug menu: run commands, steps, breakpoints and Threads; others may append to it.
    QMenu* menu() const { return m_menu; }
    /// Debug › Threads: one checkable action per offered count (data() is the count).
    QMenu* threadsMenu() const { return m_threadsMenu; }
    /// The actions for the main toolbar, in order.
    QList<QAction*> toolBarActions() const;
    /// The actions for an operator node's context menu.
    QList<QAction*> nodeActions() const;

signals:
    /// A line for the debugger's status ("Select the node to run to.").
    void statusChanged(const QString& text);
    /// A passing message for the status bar.
    void messageShown(const QString& text, int milliseconds);
    /// Add Conditional Breakpoint… was chosen, for `nodeName` (the selected node; empty for any node).
    void conditionRequested(const QString& nodeName);

private:
    void createActions(QWidget* window);
    void createMenu(QWidget* window);
    void createThreadsMenu();
    void updateEnabled();
    void updateOpTypeAction();
    /// The run guard's answer; a paused run needs no new inputs.
    bool mayRun() const;
    void toggleBreakpoint();
    void runToSelected();

    DebugController* m_controller;
    BreakpointModel* m_breakpoints;
    RunGuard m_runGuard;
    const Graph* m_selectedGraph = nullptr;
    NodeId m_selectedNode = -1;

    QAction* m_continue = nullptr;
    QAction* m_stepOver = nullptr;
    QAction* m_stepInto = nullptr;
    QAction* m_stepOut = nullptr;
    QAction* m_runTo = nullptr;
    QAction* m_stepBack = nullptr;
    QAction* m_stepBackInto = nullptr;
    QAction* m_stepBackOut = nullptr;
    QAction* m_reverseContinue = nullptr;
    QAction* m_runBackTo = nullptr;
    QAction* m_pause = nullptr;
    QAction* m_stop = nullptr;
    QAction* m_restart = nullptr;
    QAction* m_toggleBreakpoint = nullptr;
    QAction* m_breakOnNonFinite = nullptr;
    QAction* m_breakOnOpType = nullptr;
    QAction* m_recordProfile = nullptr;
    QMenu* m_menu = nullptr;
    QMenu* m_threadsMenu = nullptr;
};

} // namespace onnxscope
