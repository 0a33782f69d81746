// SPDX-License-Identifier: MIT
#pragma once

#include "ui/debugger/debug_controller.h"

#include <QObject>
#include <QPointer>

#include "ui/debugger/yield_dialog.h"

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

/// The debugger's face in the main window: the Debug menu and toolbar actions (F5, F10, F11, Shift+F11, Ctrl+F10,
/// Pause, Shift+F5, F9), the Inputs, Breakpoints, Call Stack, Values, Profile and Tensor Inspector docks, the graph's
/// run state (done / current / failed nodes, breakpoint dots, actual shapes on executed edges, colour by time),
/// progress in the status bar, the YieldOp dialog and the export commands, and Debug › Compare… (CompareUi). Built on
/// MainWindow's public API.
class DebuggerUi : public QObject {
    Q_OBJECT
public:
    explicit DebuggerUi(MainWindow* window);
    ~DebuggerUi() override;

    DebugController* controller() const { return m_controller; }
    BreakpointModel* breakpoints() const { return m_breakpoints; }
    InputsPanel* inputs() const { return m_inputs; }
    ValuesPanel* values() const { return m_values; }
    CallStackPanel* callStack() const { return m_callStack; }
    ProfilePanel* profile() const { return m_profile; }
    BreakpointsPanel* breakpointsPanel() const { return m_breakpointsPanel; }
    TensorInspector* inspector() const { return m_inspector; }
    /// The YieldOp dialog while it is open.
    YieldDialog* yieldDialog() const { return m_yieldDialog; }
    QLabel* statusLabel() const { return m_status; }
    /// "title: message" of the last failed run or invalid inputs reported (shown in a dialog unless
    /// ONNXSCOPE_NO_DIALOGS).
    const QString& lastProblem() const { return m_lastProblem; }

    QAction* continueAction() const { return m_continue; }
    QAction* stepOverAction() const { return m_stepOver; }
    QAction* stepIntoAction() const { return m_stepInto; }
    QAction* stepOutAction() const { return m_stepOut; }
    QAction* runToAction() const { return m_runTo; }
    QAction* pauseAction() const { return m_pause; }
    QAction* stopAction() const { return m_stop; }
    QAction* restartAction() const { return m_restart; }
    QAction* toggleBreakpointAction() const { return m_toggleBreakpoint; }
    QAction* breakOnNonFiniteAction() const { return m_breakOnNonFinite; }
    QAction* breakOnOpTypeAction() const { return m_breakOnOpType; }
    QMenu* debugMenu() const { return m_menu; }
    /// Debug › Threads: one checkable action per offered count (data() is the count).
    QMenu* threadsMenu() const { return m_threadsMenu; }
    /// Threads for the kernels of the next run (as Debug › Threads); remembered in QSettings "debugger/threads".
    void setThreads(int threads);
    /// Debug › Compare… and its views.
    CompareUi* compare() const { return m_compare; }

    /// The node F9 and Ctrl+F10 act on: the graph selection.
    QString selectedNodeName() const;
    /// Shows a recorded value (index into the snapshot's values) in the tensor inspector.
    void inspectValue(int valueIndex);

    /// Export commands (also in the Debug menu); false with the error reported on failure.
    bool exportSelectedTensor(const QString& path);
    bool exportAll(const QString& path, const QString& format); // "npz", "npy", "pb", "json", "debug-model"

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

private:
    void createActions();
    void createDocks();
    void createThreadsMenu();
    void onModelOpened();
    void onStateChanged(DebuggerState state);
    void onStopped(const DebugSnapshotPtr& snapshot);
    void onRunCleared();
    void applyGraphState();
    void applyDecorations();
    void toggleBreakpoint();
    void runToSelected();
    void onFrameSelected(const FrameSnapshot& frame, bool innermost);
    void onGraphNodeSelected(const Graph* graph, NodeId node);
    void updateOpTypeAction();
    /// The recorded value at an index of the current snapshot's values, null if none.
    const RecordedValue* recordedValue(int valueIndex) const;
    /// Inspects a value and shows it in the graph (its edge, or its producer).
    void goToValue(int valueIndex);
    void onGraphValueSelected(const Graph* graph, ValueId value);
    void updateRetention();
    void showExportDialog(const QString& format);
    void reportError(const QString& title, const QString& message);
    /// A failed run or invalid inputs: a dialog that does not block the window (none under ONNXSCOPE_NO_DIALOGS).
    void showProblem(const QString& title, const QString& message, const QString& hint);

    MainWindow* m_window;
    DebugController* m_controller;
    BreakpointModel* m_breakpoints;
    InputsPanel* m_inputs = nullptr;
    ValuesPanel* m_values = nullptr;
    CallStackPanel* m_callStack = nullptr;
    ProfilePanel* m_profile = nullptr;
    BreakpointsPanel* m_breakpointsPanel = nullptr;
    TensorInspector* m_inspector = nullptr;
    QDockWidget* m_inspectorDock = nullptr;
    QDockWidget* m_inputsDock = nullptr;
    QDockWidget* m_valuesDock = nullptr;
    QPointer<YieldDialog> m_yieldDialog;
    QLabel* m_status = nullptr;
    QMenu* m_menu = nullptr;
    QMenu* m_threadsMenu = nullptr;
    CompareUi* m_compare = nullptr;

    QAction* m_continue = nullptr;
    QAction* m_stepOver = nullptr;
    QAction* m_stepInto = nullptr;
    QAction* m_stepOut = nullptr;
    QAction* m_runTo = nullptr;
    QAction* m_pause = nullptr;
    QAction* m_stop = nullptr;
    QAction* m_restart = nullptr;
    QAction* m_toggleBreakpoint = nullptr;
    QAction* m_breakOnNonFinite = nullptr;
    QAction* m_breakOnOpType = nullptr;
    QString m_breakpointsKey;
    QPointer<QMessageBox> m_problemBox;
    QString m_lastProblem; // what showProblem() last said, for tests // settings group of the open model's breakpoints;
                           // empty: not saved
    QList<QAction*> m_exportActions;

    const Graph* m_selectedGraph = nullptr;
    NodeId m_selectedNode = -1;
    bool m_colourByTime = false;
    bool m_inspectorShowsRunValue = false; // the tensor inspector shows a value of the current run (inspectValue)
    bool m_autoYieldDialog = true;
    DebugSnapshotPtr m_shown; // what the graph decorations show
};

} // namespace onnxscope
