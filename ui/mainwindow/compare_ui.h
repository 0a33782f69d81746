// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/compare_colours.h"
#include "ui/compare/compare_dialog.h"
#include "ui/compare/compare_job.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <list>

class QAction;
class QDockWidget;

namespace onnxscope {

class ComparePanel;
class DebuggerUi;
class GraphView;
class MainWindow;
class ModelDocument;

/// Compare runs in the main window: Debug › Compare… (menu and toolbar) opens the CompareDialog; the comparison runs
/// on a worker (progress and Cancel in the Compare Results dock); then the graph is coloured by error with a legend,
/// the first divergent node is tagged, selected and scrolled into view, the Values dock gains error columns, and the
/// Compare Results dock lists every row. Diff (the dock's button, its context menu, the Values dock's context menu)
/// opens a pair in the tensor inspector's diff view. Debug › Clear Comparison goes back to normal colouring.
class CompareUi : public QObject {
    Q_OBJECT
public:
    CompareUi(MainWindow* window, DebuggerUi* debugger);
    ~CompareUi() override;

    CompareController* controller() const { return m_controller; }
    ComparePanel* panel() const { return m_panel; }
    QDockWidget* dock() const { return m_dock; }
    /// Side B's graph when side B is another model (a fused, optimized or quantized version): coloured by the errors
    /// of the values aligned with side A's, its node that made the first divergence's counterpart tagged.
    QDockWidget* graphBDock() const { return m_graphBDock; }
    GraphView* graphBView() const { return m_graphB; }
    CompareLegend* legend() const { return m_legend; }
    QAction* compareAction() const { return m_compare; }
    QAction* clearAction() const { return m_clear; }
    QAction* cancelAction() const { return m_cancel; }
    /// "Diff With Side B" in the Values dock's context menu.
    QAction* diffValueAction() const { return m_diffValue; }
    CompareSessionPtr session() const { return m_session; }
    /// The Compare dialog while it is open.
    CompareDialog* dialog() const { return m_dialog; }

    /// Opens the Compare dialog (non-modal); accepting it starts the comparison. Null if no model is open or the
    /// Inputs dock has an invalid input (the reason goes to the status bar and the Inputs dock is raised).
    CompareDialog* openDialog();
    /// Starts a comparison with the dialog's choices; false (with the reason reported) if it cannot start.
    bool startFromDialog(const CompareDialog& dialog);
    /// Starts a comparison; side A's model and inputs are filled in from the window and the Inputs dock.
    bool start(CompareRequest request, bool recordInDebugger);
    void cancel();
    void clear();

    /// Selects the node (or input/initializer) of a row in the graph.
    void goToRow(int row);
    /// Opens the pair of a row in the tensor inspector's diff view (fetched on a worker).
    void openDiff(int row);

    /// How errors are shown; a QMessageBox by default. Tests replace it.
    using ErrorReporter = std::function<void(const QString& title, const QString& message)>;
    void setErrorReporter(ErrorReporter reporter) { m_errorReporter = std::move(reporter); }

    /// Once the next model is open: side B is `other` (a model, a reference folder or .npz), then the comparison
    /// runs (with the tolerances last used in the Compare dialog) and, if `diffValue` is set, its pair is opened in the
    /// diff view. For demos and screenshots.
    void scheduleCompare(const QString& other, const QString& diffValue, bool byModule = false);

signals:
    /// A comparison finished and is shown (colours, tables, selection).
    void comparisonShown();
    void comparisonFailed(const QString& message);
    /// The diff view shows the pair of `row`.
    void diffShown(int row);

private:
    void onFinished(const CompareSessionPtr& session);
    /// Half the column (or half the width under the graph) for the Side B Graph dock, which opens as a strip otherwise.
    void giveGraphBRoom();
    void onFailed(const QString& message);
    void applyColours();
    void applyColoursB();
    void positionLegend();
    void syncSelection(const Graph* graph, NodeId node);
    void reportError(const QString& title, const QString& message);
    void setRunning(bool running);
    bool eventFilter(QObject* watched, QEvent* event) override;

    MainWindow* m_window;
    DebuggerUi* m_debugger;
    CompareController* m_controller;
    ComparePanel* m_panel;
    QDockWidget* m_dock;
    GraphView* m_graphB;
    /// Side B's model for its graph: the types of values its Constant nodes make, and inferred ones.
    ModelDocument* m_documentB;
    QDockWidget* m_graphBDock;
    CompareLegend* m_legend;
    QAction* m_compare = nullptr;
    QAction* m_clear = nullptr;
    QAction* m_cancel = nullptr;
    QAction* m_diffValue = nullptr;
    QPointer<CompareDialog> m_dialog;
    CompareSessionPtr m_session;
    bool m_recordAfter = false;
    bool m_syncing = false;
    qint64 m_nodeCountHint = 0;
    ErrorReporter m_errorReporter;
    /// Pairs fetched lately (row -> pair), most recent first; re-running a side for each look is the cost of not
    /// holding every value of both runs.
    std::list<std::pair<size_t, ValuePair>> m_pairs;
};

} // namespace onnxscope
