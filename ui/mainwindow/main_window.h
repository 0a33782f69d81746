// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"

#include <QMainWindow>

#include <functional>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QTableView;
class QToolBar;

namespace onnxscope {

class GraphView;
class ModelDocument;
class ModelProperties;
class NodeInspector;
class ProblemsModel;
class SearchPanel;
class TensorInspector;

/// The application window: graph in the centre, Inspector / Model / Find / Problems / Tensor Inspector docks around
/// it. The node inspector's tensors (initializers, tensor attributes) open in the Tensor Inspector.
///
/// It is the composition root of the UI: other features add their own docks, menus and toolbar actions through
/// addDock(), mainToolBar(), addToolBarAction() and menuBar(), reach the window's views and docks through the typed
/// accessors below, and listen to modelOpened(). Window geometry, dock layout and recent files persist in the Settings.
///
/// The dock layout is settled when the window is first shown, once every feature has added its docks: the saved one
/// if it was saved by this layout version in a window of about this size, and if, in this window, every dock tab title
/// is whole and the graph keeps its share; otherwise the default one, sized for this window (sizingDefaultLayout()).
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a model off the UI thread; errors go to the error reporter and the window keeps its current model.
    void openModel(const QString& path);
    /// The sample model shipped with onnxscope, or empty if it cannot be found.
    static QString bundledSamplePath();

    /// How errors are shown; a QMessageBox by default. Tests replace it to capture the message.
    using ErrorReporter = std::function<void(const QString& title, const QString& message)>;
    void setErrorReporter(ErrorReporter reporter);
    /// Shows an error through the reporter (a dialog by default).
    void reportError(const QString& title, const QString& message);

    /// Writes the current graph as SVG or PNG (by suffix). False with an error reported on failure.
    bool exportGraph(const QString& path);
    /// Puts the selected node's, tensor's or group's name on the clipboard.
    void copySelectionName();

    /// A dock around `content`, every area allowed. `objectName` is its key in the saved window layout only: code
    /// reaches docks through typed accessors.
    /// A dock around `content`, which scrolls when the dock is smaller than the content's minimum size.
    static QDockWidget* makeDock(const QString& title, const QString& objectName, QWidget* content, QWidget* parent);
    /// Shrinks the window to the available geometry of its screen, frame included, if it is larger.
    void fitToScreen();
    /// Widens each group of tabbed docks whose tab bar cuts a title until every title is whole (a side column up to a
    /// quarter of the window). Done once for the default layout; a title cut later shows whole in its tab's tooltip.
    void fitDockTabTitles();
    /// The version of the dock layout: a layout saved with another version is replaced by the default one.
    static constexpr int kLayoutVersion = 3;
    /// In this window, is every dock tab title whole (and every lone dock as wide as its title) and does the graph
    /// keep its share (half the width, 45% of the height)? If not, `why` says what is cut.
    bool layoutFits(QString* why = nullptr) const;
    /// Has the layout been settled (after the first show)? Then restoredSavedLayout() says which one it is.
    bool isLayoutSettled() const { return m_layoutSettled; }
    bool restoredSavedLayout() const { return m_layoutRestored; }
    /// Why the saved layout was not used (empty if it was, or if there was none).
    QString layoutRejection() const { return m_layoutRejection; }
    /// View › Expand All Groups and Collapse All Groups: enabled when the graph shown has groups.
    QAction* expandAllAction() const { return m_expandAll; }
    QAction* collapseAllAction() const { return m_collapseAll; }
    void addDock(QDockWidget* dock, Qt::DockWidgetArea area, bool tabifyWithInspector = false);
    void addToolBarAction(QAction* action);
    QToolBar* mainToolBar() const { return m_toolBar; }
    QMenu* viewMenu() const { return m_viewMenu; }

    ModelDocument* document() const { return m_document; }
    GraphView* graphView() const { return m_graphView; }
    NodeInspector* inspector() const { return m_inspector; }
    ModelProperties* modelProperties() const { return m_properties; }
    SearchPanel* searchPanel() const { return m_search; }
    ProblemsModel* problemsModel() const { return m_problems; }
    /// The one tensor viewer: initializers from the node inspector, and the debugger's values.
    TensorInspector* tensorInspector() const { return m_tensorInspector; }
    QDockWidget* inspectorDock() const { return m_inspectorDock; }
    QDockWidget* modelDock() const { return m_propertiesDock; }
    QDockWidget* findDock() const { return m_searchDock; }
    QDockWidget* problemsDock() const { return m_problemsDock; }
    QDockWidget* tensorInspectorDock() const { return m_tensorInspectorDock; }
    QStringList recentFiles() const { return m_recent; }

signals:
    void modelOpened(const QString& path);
    /// The default layout is being sized, for this window at its size: each feature sets its docks' sizes here. The
    /// tab titles are fitted after.
    void sizingDefaultLayout();
    /// The layout is settled: restored and checked, or the default one sized.
    void layoutSettled();
    void modelOpenFailed(const QString& path, const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void createDocks();
    void applyDefaultLayout();
    void settleLayout();
    void onLoaded();
    void onLoadFailed(const QString& path, const QString& message);
    void onDiagnostics();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void showOpenDialog();
    void showExportDialog(const QString& suffix);
    void showAbout();
    void updateStatus();

    ModelDocument* m_document;
    GraphView* m_graphView;
    NodeInspector* m_inspector = nullptr;
    ModelProperties* m_properties = nullptr;
    SearchPanel* m_search = nullptr;
    ProblemsModel* m_problems = nullptr;
    QTableView* m_problemsView = nullptr;
    TensorInspector* m_tensorInspector = nullptr;
    QDockWidget* m_inspectorDock = nullptr;
    QDockWidget* m_propertiesDock = nullptr;
    QDockWidget* m_searchDock = nullptr;
    QDockWidget* m_problemsDock = nullptr;
    QDockWidget* m_tensorInspectorDock = nullptr;
    QToolBar* m_toolBar = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_statusInfo = nullptr;
    QAction* m_expandAll = nullptr;
    QAction* m_collapseAll = nullptr;
    QProgressBar* m_busy = nullptr;
    QStringList m_recent;
    ErrorReporter m_errorReporter;
    double m_lastLayoutMs = 0;
    QByteArray m_defaultState;
    QString m_layoutRejection;
    bool m_layoutStarted = false;
    bool m_layoutSettled = false;
    bool m_layoutRestored = false;
};

} // namespace onnxscope
