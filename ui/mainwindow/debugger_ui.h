// SPDX-License-Identifier: MIT
#pragma once

#include "ui/debugger/debug_controller.h"
#include "ui/debugger/debugger_actions.h"
#include "ui/debugger/export_commands.h"
#include "ui/debugger/memory_budget.h"
#include "ui/debugger/yield_dialog.h"
#include "ui/mainwindow/value_inspection.h"

#include <QObject>
#include <QPointer>
#include <QProgressDialog>

#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QMessageBox;

namespace onnxscope {

class BreakpointModel;
class BreakpointsPanel;
class CallStackPanel;
class CompareUi;
class InputsPanel;
class MainWindow;
class ProfilePanel;
class TensorInspector;
class ValuesPanel;
class YieldDialog;

/// The debugger in the main window: its docks (Inputs, Breakpoints, Call Stack, Values, Profile), its actions
/// (DebuggerActions: the Debug menu and toolbar), and the wiring between the debugger and the other features: the
/// graph's run state and decorations (through the graph view's GraphDecorations), the window's Tensor Inspector, the
/// node inspector, the inputs, progress in the status bar, the YieldOp dialog, the export commands, and Debug ›
/// Compare… (CompareUi). Built on MainWindow's public API.
class DebuggerUi : public QObject {
    Q_OBJECT
public:
    explicit DebuggerUi(MainWindow* window);
    ~DebuggerUi() override;

    DebugController* controller() const { return m_controller; }
    BreakpointModel* breakpoints() const { return m_breakpoints; }
    DebuggerActions* actions() const { return m_actions; }
    InputsPanel* inputs() const { return m_inputs; }
    ValuesPanel* values() const { return m_values; }
    CallStackPanel* callStack() const { return m_callStack; }
    ProfilePanel* profile() const { return m_profile; }
    BreakpointsPanel* breakpointsPanel() const { return m_breakpointsPanel; }
    /// The window's Tensor Inspector, where the debugger shows the values of a run.
    TensorInspector* inspector() const { return m_inspector; }
    QDockWidget* inputsDock() const { return m_inputsDock; }
    QDockWidget* breakpointsDock() const { return m_breakpointsDock; }
    QDockWidget* callStackDock() const { return m_callStackDock; }
    QDockWidget* valuesDock() const { return m_valuesDock; }
    QDockWidget* profileDock() const { return m_profileDock; }
    /// The YieldOp dialog while it is open.
    YieldDialog* yieldDialog() const { return m_yieldDialog; }
    QLabel* statusLabel() const { return m_status; }
    /// "title: message" of the last failed run or invalid inputs reported (shown in a dialog unless
    /// ONNXSCOPE_NO_DIALOGS).
    const QString& lastProblem() const { return m_lastProblem; }
    /// Problems shown in a dialog so far (counted also when dialogs are off), for tests.
    int problemCount() const { return m_problemCount; }
    /// The next run failure shows no dialog: the comparison that started the run has reported it already.
    void quietNextFailure() { ++m_quietFailures; }
    /// Shows the debugger's own status again (why the run stopped, or its state), replacing another feature's text.
    void restoreStatus();
    /// " — sizes guessed for the generated inputs: …", or empty when every size was set by the user.
    QString guessedSizesNote() const;

    QAction* continueAction() const { return m_actions->continueAction(); }
    QAction* stepOverAction() const { return m_actions->stepOverAction(); }
    QAction* stepIntoAction() const { return m_actions->stepIntoAction(); }
    QAction* stepOutAction() const { return m_actions->stepOutAction(); }
    QAction* runToAction() const { return m_actions->runToAction(); }
    QAction* stepBackAction() const { return m_actions->stepBackAction(); }
    QAction* stepBackIntoAction() const { return m_actions->stepBackIntoAction(); }
    QAction* stepBackOutAction() const { return m_actions->stepBackOutAction(); }
    QAction* reverseContinueAction() const { return m_actions->reverseContinueAction(); }
    QAction* runBackToAction() const { return m_actions->runBackToAction(); }
    QAction* pauseAction() const { return m_actions->pauseAction(); }
    QAction* stopAction() const { return m_actions->stopAction(); }
    QAction* restartAction() const { return m_actions->restartAction(); }
    QAction* toggleBreakpointAction() const { return m_actions->toggleBreakpointAction(); }
    QAction* breakOnNonFiniteAction() const { return m_actions->breakOnNonFiniteAction(); }
    QAction* breakOnOpTypeAction() const { return m_actions->breakOnOpTypeAction(); }
    QAction* recordProfileAction() const { return m_actions->recordProfileAction(); }
    /// Debug › Step Into Constant Nodes: off by default, Step runs Constants without stopping before them.
    QAction* stepConstantsAction() const { return m_stepConstants; }
    QMenu* debugMenu() const { return m_actions->menu(); }
    /// Debug › Threads: one checkable action per offered count (data() is the count).
    QMenu* threadsMenu() const { return m_actions->threadsMenu(); }
    /// Threads for the kernels of the next run (as Debug › Threads); remembered in the Settings.
    void setThreads(int threads) { m_actions->setThreads(threads); }
    /// The memory budget of the next debug runs in bytes, 0 for the default (a quarter of the RAM); remembered in
    /// the Settings and shown in the status bar. Debug › Memory Budget… asks for it.
    void setMemoryBudget(uint64_t bytes) { m_budget->set(bytes); }
    /// The budget the next run gets, in bytes (the default resolved).
    uint64_t memoryBudget() const { return m_budget->budget(); }
    QAction* memoryBudgetAction() const { return m_budget->action(); }
    /// Debug › Keep Every Value's Data (checkable, remembered): ValueRetention::Values instead of Summaries.
    QAction* keepValueDataAction() const { return m_budget->keepValueDataAction(); }
    /// The status bar's memory text: the budget, and what the shown run keeps of it.
    QLabel* memoryLabel() const { return m_budget->label(); }
    void showMemoryBudgetDialog() { m_budget->showDialog(); }
    /// Debug › Compare… and its views.
    CompareUi* compare() const { return m_compare; }

    /// The node F9 and Ctrl+F10 act on: the graph selection.
    QString selectedNodeName() const { return m_actions->selectedNodeName(); }
    /// Shows a recorded value (index into the snapshot's values) in the tensor inspector.
    void inspectValue(int valueIndex) { m_valueView->inspect(valueIndex); }

    /// Debug › Export All…: every intermediate of the stopped run to `folder` (.npy per value and manifest.json, as
    /// run --dump-all), dropped values rebuilt, with a progress dialog that cancels. Returns whether it started;
    /// exportFinished() ends it, and a failure shows a dialog naming the folder.
    bool exportAllValues(const QString& folder) { return m_exports->exportAllValues(folder); }
    QAction* exportAllAction() const { return m_exports->exportAllAction(); }
    /// What the last export said when it ended (its count and folder, or why it failed).
    const QString& lastExportMessage() const { return m_exports->lastMessage(); }
    QProgressDialog* exportProgressDialog() const { return m_exports->progressDialog(); }

    /// Export commands (also in the Debug menu); false with the error reported on failure.
    bool exportSelectedTensor(const QString& path);
    bool exportAll(const QString& path, const QString& format) // "npz", "npy", "pb", "json", "debug-model"
    {
        return m_exports->exportAll(path, format);
    }

    /// Once the next model is open: sets inputs ("name=file.npy"), runs to `node` (continues if empty), then shows
    /// `inspect` ("value" or "value:heatmap" / ":histogram") in the tensor inspector. For demos and screenshots.
    void scheduleRun(const QStringList& inputs, const QString& node, const QString& inspect);

    /// Tests answer dialogs themselves: when set, the YieldOp dialog is not opened automatically.
    void setShowYieldDialog(bool show) { m_autoYieldDialog = show; }
    /// Opens the YieldOp dialog for the current stop (non-modal; the run stays paused until it is answered).
    YieldDialog* openYieldDialog();

signals:
    /// After the views were updated for a stop.
    void viewsUpdated();
    /// An export of every value ended (exportAllValues()).
    void exportFinished(bool ok);

private:
    void createDocks();
    void createActions();
    void onModelOpened();
    void onStateChanged(DebuggerState state);
    void onStopped(const DebugSnapshotPtr& snapshot);
    void onRunCleared();
    /// Marks the run on the graph and shows where it stopped.
    void applyGraphState();
    void applyDecorations();
    /// The run guard of the actions: whether the inputs are valid; with `explain`, says why not.
    bool inputsReady(bool explain);
    void onFrameSelected(const FrameSnapshot& frame, bool innermost);
    void onGraphNodeSelected(const Graph* graph, NodeId node);
    void onGraphValueSelected(const Graph* graph, ValueId value);
    void updateRetention();
    void showExportDialog(const QString& format);
    void reportError(const QString& title, const QString& message);
    /// A failed run or invalid inputs: a dialog that does not block the window (none under ONNXSCOPE_NO_DIALOGS).
    void showProblem(const QString& title, const QString& message, const QString& hint);

    MainWindow* m_window;
    DebugController* m_controller;
    BreakpointModel* m_breakpoints;
    DebuggerActions* m_actions = nullptr;
    InputsPanel* m_inputs = nullptr;
    ValuesPanel* m_values = nullptr;
    CallStackPanel* m_callStack = nullptr;
    ProfilePanel* m_profile = nullptr;
    BreakpointsPanel* m_breakpointsPanel = nullptr;
    TensorInspector* m_inspector = nullptr;
    QDockWidget* m_inputsDock = nullptr;
    QDockWidget* m_breakpointsDock = nullptr;
    QDockWidget* m_callStackDock = nullptr;
    QDockWidget* m_valuesDock = nullptr;
    QDockWidget* m_profileDock = nullptr;
    QPointer<YieldDialog> m_yieldDialog;
    QLabel* m_status = nullptr;
    CompareUi* m_compare = nullptr;

    QString m_breakpointsKey; // settings group of the open model's breakpoints; empty: not saved
    QPointer<QMessageBox> m_problemBox;
    QString m_lastProblem; // what showProblem() last said, for tests
    int m_problemCount = 0;
    int m_quietFailures = 0;
    QAction* m_stepConstants = nullptr;
    MemoryBudget* m_budget = nullptr;
    ExportCommands* m_exports = nullptr;

    bool m_colourByTime = false;
    ValueInspection* m_valueView = nullptr;
    bool m_autoYieldDialog = true;
    DebugSnapshotPtr m_shown; // what the graph decorations show
};

} // namespace onnxscope
