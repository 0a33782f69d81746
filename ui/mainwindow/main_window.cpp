// SPDX-License-Identifier: MIT
#include "ui/mainwindow/main_window.h"

#include "ui/common/elided_label.h"
#include "ui/common/model_document.h"
#include "ui/common/settings.h"
#include "ui/common/wheel_guard.h"
#include "ui/graphview/graph_canvas.h"
#include "ui/graphview/graph_export.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/search_panel.h"
#include "ui/mainwindow/about_text.h"
#include "ui/mainwindow/problems_model.h"
#include "ui/nodeinspector/node_inspector.h"
#include "ui/tensorinspector/tensor_inspector.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
#include <QShowEvent>
#include <QStatusBar>
#include <QTabBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>

#include <cstdlib>
#include <optional>

namespace onnxscope {

namespace {

constexpr int kMaxRecent = 10;
/// A saved layout is restored only into a window of about the size it was saved in: each side within this share.
constexpr double kLayoutSizeTolerance = 0.15;
/// The share of the window's width and height that the graph keeps in a restored layout.
constexpr double kGraphWidthShare = 0.5;
constexpr double kGraphHeightShare = 0.45;

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_document(new ModelDocument(this))
    , m_graphView(new GraphView(this))
{
    setWindowTitle(QStringLiteral("onnxscope"));
    WheelGuard::install();
    setAcceptDrops(true);
    setCentralWidget(m_graphView);
    setDockNestingEnabled(true);
    createDocks();
    createActions();

    m_statusInfo = new ElidedLabel(this);
    m_statusInfo->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred); // its text when there is room
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(120);
    m_busy->setMaximumHeight(12);
    m_busy->hide();
    statusBar()->addPermanentWidget(m_busy);
    statusBar()->addPermanentWidget(m_statusInfo);

    connect(m_document, &ModelDocument::loadingStarted, this, [this](const QString& path) {
        m_busy->show();
        statusBar()->showMessage(QStringLiteral("Opening %1\u2026").arg(QDir::toNativeSeparators(path)));
    });
    connect(m_document, &ModelDocument::loaded, this, &MainWindow::onLoaded);
    connect(m_document, &ModelDocument::loadFailed, this, &MainWindow::onLoadFailed);
    connect(m_document, &ModelDocument::diagnosticsChanged, this, &MainWindow::onDiagnostics);

    connect(m_graphView, &GraphView::nodeSelected, m_inspector, &NodeInspector::showNode);
    connect(m_graphView, &GraphView::valueSelected, m_inspector, &NodeInspector::showValue);
    connect(m_graphView, &GraphView::selectionCleared, m_inspector, &NodeInspector::clear);
    connect(m_graphView, &GraphView::groupSelected, this, [this](const Graph*, int scope) {
        const ScopeTree* tree = m_graphView->scopeTree();
        if (!tree)
            return;
        const auto& s = tree->scopes[static_cast<size_t>(scope)];
        m_inspector->showText(tree->path(scope),
            QStringLiteral("%1 nodes in this group (%2 directly, %3 sub-groups).\n\nDouble-click the group to expand "
                           "it; click the "
                           "title of an expanded group to collapse it again.")
                .arg(s.total)
                .arg(s.nodes.size())
                .arg(s.children.size()));
    });
    connect(m_graphView, &GraphView::layoutStarted, this, [this](int boxes) {
        if (boxes > 200)
            m_busy->show();
    });
    connect(m_graphView, &GraphView::layoutFinished, this, [this](bool ok, double ms) {
        m_busy->setVisible(m_document->isLoading());
        m_lastLayoutMs = ms;
        updateStatus();
    });
    connect(m_graphView, &GraphView::currentGraphChanged, this, [this] { m_inspector->clear(); });
    connect(m_inspector, &NodeInspector::tensorRequested, this, [this](const QString& title, const Tensor& tensor) {
        if (m_tensorInspector->isPinned())
            return;
        m_tensorInspector->setTensor(title, tensor);
        m_tensorInspectorDock->show();
        m_tensorInspectorDock->raise();
    });
    connect(m_inspector, &NodeInspector::goToNode, m_graphView,
        [this](const Graph* g, NodeId n) { m_graphView->centerOnNode(g, n); });
    connect(m_inspector, &NodeInspector::goToValue, m_graphView, &GraphView::centerOnValue);
    connect(m_search, &SearchPanel::resultsChanged, this, [this] {
        std::vector<std::pair<const Graph*, NodeId>> nodes;
        for (const SearchResult& r : m_search->model()->results())
            if (r.node >= 0)
                nodes.emplace_back(r.graph, r.node);
        m_graphView->setHighlightedNodes(std::move(nodes));
    });
    connect(m_search, &SearchPanel::resultActivated, this, [this](const SearchResult& r) {
        if (r.node >= 0)
            m_graphView->centerOnNode(r.graph, r.node);
        else
            m_graphView->centerOnValue(r.graph, r.value);
    });

    const Settings& settings = Settings::instance();
    m_recent = settings.recentFiles();
    rebuildRecentMenu();
    // The geometry of a layout of this version; otherwise the screen, on screens up to 1600 x 1000. The dock layout
    // is restored, or the default one made, when the window is first shown (showEvent), once every feature has added
    // its docks.
    const std::optional<Settings::WindowLayout> saved = settings.windowLayout();
    if (!saved || saved->version != kLayoutVersion || !restoreGeometry(saved->geometry))
        resize(1600, 1000);
    fitToScreen();
    updateStatus();
}

MainWindow::~MainWindow() = default;

void MainWindow::fitToScreen()
{
    const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    if (!screen)
        return;
    // Room for the window manager's frame and title bar, which the available geometry does not count.
    const QRect available = screen->availableGeometry();
    const QSize most(available.width() - 16, available.height() - 48);
    if (width() > most.width() || height() > most.height())
        resize(std::min(width(), most.width()), std::min(height(), most.height()));
    if (!available.contains(frameGeometry()))
        move(available.topLeft());
}

void MainWindow::fitDockTabTitles()
{
    // The tab bars of tabbed docks are the window's own children (a tab bar inside a dock's content is not).
    const QList<QDockWidget*> docks = findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly);
    for (QTabBar* bar : findChildren<QTabBar*>(QString(), Qt::FindDirectChildrenOnly)) {
        const int wanted = bar->sizeHint().width(); // every title whole
        if (!bar->isVisible() || bar->count() < 2 || bar->width() >= wanted)
            continue;
        // The docks of this group of tabs: their titles are the bar's, and they sit above it.
        QDockWidget* group = nullptr;
        for (QDockWidget* dock : docks)
            if (!dock->isFloating() && dock->isVisible() && dock->geometry().left() < bar->geometry().right()
                && dock->geometry().right() > bar->geometry().left()
                && bar->tabText(bar->currentIndex()) == dock->windowTitle())
                group = dock;
        if (!group)
            continue;
        // Side columns at most a quarter of the window, the bottom groups half of it.
        const Qt::DockWidgetArea area = dockWidgetArea(group);
        const int most
            = (area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea) ? width() / 4 : width() / 2;
        const int extra = group->width() - bar->width(); // the dock's frame around the bar, if any
        resizeDocks({ group }, { std::min(most, wanted + std::max(0, extra)) }, Qt::Horizontal);
    }
}

void MainWindow::createDocks()
{
    m_inspector = new NodeInspector(this);
    m_inspector->setDocument(m_document);
    m_inspectorDock = makeDock(QStringLiteral("Inspector"), QStringLiteral("inspectorDock"), m_inspector, this);
    addDockWidget(Qt::RightDockWidgetArea, m_inspectorDock);

    m_properties = new ModelProperties(this);
    m_propertiesDock = makeDock(QStringLiteral("Model"), QStringLiteral("modelDock"), m_properties, this);
    addDockWidget(Qt::RightDockWidgetArea, m_propertiesDock);
    tabifyDockWidget(m_inspectorDock, m_propertiesDock);
    m_inspectorDock->raise();

    m_search = new SearchPanel(this);
    m_searchDock = makeDock(QStringLiteral("Find"), QStringLiteral("findDock"), m_search, this);
    addDockWidget(Qt::LeftDockWidgetArea, m_searchDock);

    m_problems = new ProblemsModel(this);
    m_problemsView = new QTableView(this);
    m_problemsView->setModel(m_problems);
    m_problemsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_problemsView->horizontalHeader()->setStretchLastSection(true);
    m_problemsView->verticalHeader()->hide();
    m_problemsView->setWordWrap(false);
    m_problemsView->setColumnWidth(0, 90);
    m_problemsView->setColumnWidth(1, 120);
    m_problemsDock = makeDock(QStringLiteral("Problems"), QStringLiteral("problemsDock"), m_problemsView, this);
    addDockWidget(Qt::BottomDockWidgetArea, m_problemsDock);

    m_tensorInspector = new TensorInspector(this);
    m_tensorInspectorDock
        = makeDock(QStringLiteral("Tensor Inspector"), QStringLiteral("tensorInspectorDock"), m_tensorInspector, this);
    addDockWidget(Qt::RightDockWidgetArea, m_tensorInspectorDock);
    tabifyDockWidget(m_inspectorDock, m_tensorInspectorDock);
    m_inspectorDock->raise();

    // The graph gets most of the window: the side columns run the full height, the bottom docks sit under the graph
    // only, and each area holds one group of tabs.
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::TopRightCorner, Qt::RightDockWidgetArea);
    resizeDocks({ m_inspectorDock }, { 380 }, Qt::Horizontal);
    resizeDocks({ m_searchDock }, { 240 }, Qt::Horizontal);
    resizeDocks({ m_problemsDock }, { 150 }, Qt::Vertical);
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
    QAction* open = file->addAction(QIcon::fromTheme(QStringLiteral("document-open")), QStringLiteral("&Open\u2026"),
        this, &MainWindow::showOpenDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(QStringLiteral("Open &Recent"));
    file->addSeparator();
    file->addAction(
        QStringLiteral("Export Graph as &SVG\u2026"), this, [this] { showExportDialog(QStringLiteral("svg")); });
    file->addAction(
        QStringLiteral("Export Graph as &PNG\u2026"), this, [this] { showExportDialog(QStringLiteral("png")); });
    file->addSeparator();
    QAction* quit = file->addAction(QStringLiteral("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(QStringLiteral("&Edit"));
    QAction* copy = edit->addAction(QStringLiteral("&Copy Name"), this, &MainWindow::copySelectionName);
    copy->setShortcut(QKeySequence::Copy);
    edit->addSeparator();
    QAction* find
        = edit->addAction(QIcon::fromTheme(QStringLiteral("edit-find")), QStringLiteral("&Find\u2026"), this, [this] {
              m_searchDock->show();
              m_searchDock->raise();
              m_search->focusQuery();
          });
    find->setShortcut(QKeySequence::Find);
    QAction* findNext = edit->addAction(QStringLiteral("Find &Next"), m_search, &SearchPanel::next);
    findNext->setShortcut(QKeySequence::FindNext);
    QAction* findPrevious = edit->addAction(QStringLiteral("Find &Previous"), m_search, &SearchPanel::previous);
    findPrevious->setShortcut(QKeySequence::FindPrevious);

    m_viewMenu = menuBar()->addMenu(QStringLiteral("&View"));
    QAction* zoomIn = m_viewMenu->addAction(
        QIcon::fromTheme(QStringLiteral("zoom-in")), QStringLiteral("Zoom &In"), m_graphView, &GraphView::zoomIn);
    zoomIn->setShortcuts({ QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal) });
    QAction* zoomOut = m_viewMenu->addAction(
        QIcon::fromTheme(QStringLiteral("zoom-out")), QStringLiteral("Zoom &Out"), m_graphView, &GraphView::zoomOut);
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* fit = m_viewMenu->addAction(QIcon::fromTheme(QStringLiteral("zoom-fit-best")),
        QStringLiteral("&Fit to Window"), m_graphView, &GraphView::zoomToFit);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    QAction* actual = m_viewMenu->addAction(QIcon::fromTheme(QStringLiteral("zoom-original")),
        QStringLiteral("&Actual Size"), m_graphView, &GraphView::zoomToActualSize);
    actual->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    QAction* overview = m_viewMenu->addAction(QStringLiteral("&Overview"));
    overview->setCheckable(true);
    overview->setChecked(true);
    overview->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    connect(overview, &QAction::toggled, m_graphView, &GraphView::setOverviewVisible);
    m_viewMenu->addSeparator();
    m_expandAll = m_viewMenu->addAction(QStringLiteral("&Expand All Groups"), m_graphView, &GraphView::expandAll);
    m_collapseAll = m_viewMenu->addAction(QStringLiteral("&Collapse All Groups"), m_graphView, &GraphView::collapseAll);
    // Only a graph with groups (name scopes, or blocks of a long flat graph) has something to expand or collapse.
    auto updateGroupActions = [this] {
        const ScopeTree* tree = m_graphView->scopeTree();
        const bool groups = tree && tree->scopes.size() > 1;
        m_expandAll->setEnabled(groups);
        m_collapseAll->setEnabled(groups);
    };
    connect(m_graphView, &GraphView::layoutFinished, this, updateGroupActions);
    connect(m_graphView, &GraphView::currentGraphChanged, this, updateGroupActions);
    updateGroupActions();
    QAction* up = m_viewMenu->addAction(QIcon::fromTheme(QStringLiteral("go-up")), QStringLiteral("&Parent Graph"),
        m_graphView, &GraphView::leaveSubgraph);
    up->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
    m_viewMenu->addSeparator();
    for (QDockWidget* dock : { m_inspectorDock, m_propertiesDock, m_searchDock, m_problemsDock, m_tensorInspectorDock })
        m_viewMenu->addAction(dock->toggleViewAction());

    QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
    help->addAction(QStringLiteral("&About onnxscope"), this, &MainWindow::showAbout);

    m_toolBar = addToolBar(QStringLiteral("Main"));
    m_toolBar->setObjectName(QStringLiteral("mainToolBar"));
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_toolBar->addAction(open);
    m_toolBar->addSeparator();
    m_toolBar->addAction(zoomIn);
    m_toolBar->addAction(zoomOut);
    m_toolBar->addAction(fit);
    m_toolBar->addAction(up);
    m_toolBar->addSeparator();
    m_toolBar->addAction(find);
}

QDockWidget* MainWindow::makeDock(const QString& title, const QString& objectName, QWidget* content, QWidget* parent)
{
    auto* dock = new QDockWidget(title, parent);
    dock->setObjectName(objectName);
    // A dock never makes the window wider or taller than the screen: below its content's minimum size it scrolls.
    auto* scroll = new QScrollArea(dock);
    scroll->setObjectName(objectName + QStringLiteral("Scroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    dock->setWidget(scroll);
    dock->setAllowedAreas(Qt::AllDockWidgetAreas);
    return dock;
}

void MainWindow::addDock(QDockWidget* dock, Qt::DockWidgetArea area, bool tabifyWithInspector)
{
    addDockWidget(area, dock);
    if (tabifyWithInspector)
        tabifyDockWidget(m_inspectorDock, dock);
    m_viewMenu->addAction(dock->toggleViewAction());
}

void MainWindow::addToolBarAction(QAction* action)
{
    m_toolBar->addAction(action);
}

QString MainWindow::bundledSamplePath()
{
    const QString name = QStringLiteral("mlp_classifier.onnx");
    const QString appDir = QCoreApplication::applicationDirPath();
    QStringList candidates { appDir + QStringLiteral("/../share/onnxscope/samples/") + name };
#ifdef ONNXSCOPE_UI_SOURCE_DIR
    candidates << QStringLiteral(ONNXSCOPE_UI_SOURCE_DIR "/resources/samples/") + name;
#endif
    for (const QString& candidate : candidates)
        if (QFileInfo::exists(candidate))
            return QFileInfo(candidate).canonicalFilePath();
    return {};
}

void MainWindow::setErrorReporter(ErrorReporter reporter)
{
    m_errorReporter = std::move(reporter);
}

void MainWindow::reportError(const QString& title, const QString& message)
{
    if (m_errorReporter) {
        m_errorReporter(title, message);
        return;
    }
    QMessageBox box(QMessageBox::Critical, title, message, QMessageBox::Ok, this);
    box.setObjectName(QStringLiteral("errorDialog"));
    box.exec();
}

void MainWindow::openModel(const QString& path)
{
    m_document->open(path);
}

void MainWindow::onLoaded()
{
    m_busy->hide();
    const QString path = m_document->path();
    m_graphView->setModel(m_document->model(), m_document);
    m_properties->showModel(m_document);
    m_search->setGraph(&m_document->model()->graph());
    m_inspector->clear();
    m_problems->setDiagnostics({});
    setWindowTitle(QStringLiteral("%1 \u2014 onnxscope")
                       .arg(path.isEmpty() ? QString::fromStdString(m_document->model()->displayName())
                                           : QFileInfo(path).fileName()));
    if (!path.isEmpty())
        addRecent(path);
    statusBar()->showMessage(QStringLiteral("Opened %1 in %2 ms")
                                 .arg(QDir::toNativeSeparators(path))
                                 .arg(m_document->loadMilliseconds(), 0, 'f', 0),
        5000);
    updateStatus();
    emit modelOpened(path);
}

void MainWindow::onLoadFailed(const QString& path, const QString& message)
{
    m_busy->hide();
    statusBar()->showMessage(QStringLiteral("Could not open %1").arg(QDir::toNativeSeparators(path)), 8000);
    emit modelOpenFailed(path, message);
    reportError(
        QStringLiteral("Cannot open model"), QStringLiteral("%1\n\n%2").arg(QDir::toNativeSeparators(path), message));
}

void MainWindow::onDiagnostics()
{
    m_problems->setDiagnostics(m_document->diagnostics());
    const size_t n = m_document->diagnostics().size();
    if (!m_document->diagnosticsReady())
        m_problemsDock->setWindowTitle(QStringLiteral("Problems (checking\u2026)"));
    else
        m_problemsDock->setWindowTitle(
            n == 0 ? QStringLiteral("Problems (none)") : QStringLiteral("Problems (%1)").arg(n));
    m_problemsView->resizeRowsToContents();
}

void MainWindow::updateStatus()
{
    auto model = m_document->model();
    if (!model) {
        m_statusInfo->setText(QStringLiteral("No model \u2014 File \u203a Open or drop an .onnx file here"));
        return;
    }
    const GraphScene* scene = m_graphView->scene();
    int groups = 0;
    for (const NodeItem* item : scene->nodeItems())
        groups += item->viewItem().kind == ViewItem::Kind::Group;
    // "· 31 nodes and 9 groups shown", "· 10 groups shown", "· 52 nodes shown".
    const int nodes = scene->operatorItemCount();
    QStringList parts;
    if (nodes > 0 || groups == 0)
        parts << (nodes == 1 ? QStringLiteral("1 node") : QStringLiteral("%1 nodes").arg(nodes));
    if (groups > 0)
        parts << (groups == 1 ? QStringLiteral("1 group") : QStringLiteral("%1 groups").arg(groups));
    QString text = QStringLiteral("%1 nodes in the model \u00b7 %2 shown")
                       .arg(model->graph().totalNodeCount())
                       .arg(parts.join(QStringLiteral(" and ")));
    text += QStringLiteral(" \u00b7 layout %1 ms").arg(m_lastLayoutMs, 0, 'f', 0);
    m_statusInfo->setText(text);
}

void MainWindow::addRecent(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_recent.removeAll(absolute);
    m_recent.prepend(absolute);
    while (m_recent.size() > kMaxRecent)
        m_recent.removeLast();
    Settings::instance().setRecentFiles(m_recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    for (const QString& path : m_recent) {
        QAction* action = m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openModel(path); });
        action->setToolTip(path);
        action->setStatusTip(path);
        action->setEnabled(QFileInfo::exists(path));
    }
    m_recentMenu->setEnabled(!m_recent.isEmpty());
    if (!m_recent.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(QStringLiteral("Clear List"), this, [this] {
            m_recent.clear();
            Settings::instance().setRecentFiles(m_recent);
            rebuildRecentMenu();
        });
    }
}

void MainWindow::showOpenDialog()
{
    const QString dir = m_recent.isEmpty() ? QDir::homePath() : QFileInfo(m_recent.first()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(
        this, QStringLiteral("Open ONNX model"), dir, QStringLiteral("ONNX models (*.onnx *.ort *.pb);;All files (*)"));
    if (!path.isEmpty())
        openModel(path);
}

bool MainWindow::exportGraph(const QString& path)
{
    QString error;
    const bool svg = path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive);
    const QString title = m_document->model() ? QString::fromStdString(m_document->model()->displayName()) : QString();
    const bool ok = svg ? exportSceneSvg(m_graphView->scene(), path, title, &error)
                        : exportScenePng(m_graphView->scene(), path, 2.0, &error);
    if (!ok)
        reportError(QStringLiteral("Export failed"), error);
    else
        statusBar()->showMessage(QStringLiteral("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
    return ok;
}

void MainWindow::showExportDialog(const QString& suffix)
{
    QString base
        = m_document->path().isEmpty() ? QStringLiteral("graph") : QFileInfo(m_document->path()).completeBaseName();
    const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export graph"),
        QDir::home().filePath(base + QLatin1Char('.') + suffix),
        suffix == QStringLiteral("svg") ? QStringLiteral("SVG (*.svg)") : QStringLiteral("PNG (*.png)"));
    if (!path.isEmpty())
        exportGraph(path);
}

void MainWindow::copySelectionName()
{
    // Item views (inspector, problems, search) copy their current cell; otherwise the graph selection.
    if (auto* view = qobject_cast<QAbstractItemView*>(QApplication::focusWidget())) {
        const QModelIndex index = view->currentIndex();
        if (index.isValid()) {
            QApplication::clipboard()->setText(index.data().toString());
            return;
        }
    }
    const QString name = m_graphView->selectedName();
    if (!name.isEmpty()) {
        QApplication::clipboard()->setText(name);
        statusBar()->showMessage(
            QStringLiteral("Copied \u201c%1\u201d").arg(name.section(QLatin1Char('\n'), 0, 0)), 3000);
    }
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, QStringLiteral("About onnxscope"), aboutText());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    // Only a layout that was made for this window (restored and checked, or the default one sized) is worth keeping.
    if (m_layoutSettled)
        Settings::instance().setWindowLayout({ saveGeometry(), saveState(kLayoutVersion), size(), kLayoutVersion });
    QMainWindow::closeEvent(event);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (m_layoutStarted)
        return;
    m_layoutStarted = true;
    // The docks as the features placed them: the default layout, before any saved one replaces it.
    m_defaultState = saveState(kLayoutVersion);
    const std::optional<Settings::WindowLayout> saved = Settings::instance().windowLayout();
    if (!saved) {
        QTimer::singleShot(0, this, &MainWindow::applyDefaultLayout);
        return;
    }
    if (saved->version != kLayoutVersion) {
        m_layoutRejection = QStringLiteral("it was saved by another layout version (%1, this is %2)")
                                .arg(saved->version)
                                .arg(kLayoutVersion);
    } else {
        const auto near = [](int a, int b) { return std::abs(a - b) <= kLayoutSizeTolerance * b; };
        if (!near(saved->windowSize.width(), width()) || !near(saved->windowSize.height(), height()))
            m_layoutRejection = QStringLiteral("it was saved in a %1 x %2 window, this one is %3 x %4")
                                    .arg(saved->windowSize.width())
                                    .arg(saved->windowSize.height())
                                    .arg(width())
                                    .arg(height());
        else if (!restoreState(saved->state, kLayoutVersion))
            m_layoutRejection = QStringLiteral("it could not be read");
    }
    if (!m_layoutRejection.isEmpty()) {
        QTimer::singleShot(0, this, &MainWindow::applyDefaultLayout);
        return;
    }
    // Check it once it has taken its place in this window.
    QTimer::singleShot(0, this, [this] {
        if (layout())
            layout()->activate();
        QString why;
        if (layoutFits(&why)) {
            m_layoutRestored = true;
            settleLayout();
            return;
        }
        m_layoutRejection = why;
        restoreState(m_defaultState, kLayoutVersion);
        QTimer::singleShot(0, this, &MainWindow::applyDefaultLayout);
    });
}

void MainWindow::applyDefaultLayout()
{
    // Dock sizes only take once the window has its size. The features that add docks set theirs in the same way,
    // after these; the tab titles are made to fit after all of them.
    resizeDocks(
        { m_inspectorDock, m_searchDock }, { std::min(420, width() / 4), std::min(300, width() / 5) }, Qt::Horizontal);
    resizeDocks({ m_problemsDock }, { 110 }, Qt::Vertical);
    emit sizingDefaultLayout();
    QTimer::singleShot(0, this, [this] {
        fitDockTabTitles();
        settleLayout();
    });
}

void MainWindow::settleLayout()
{
    if (layout())
        layout()->activate(); // the docks resized last take their place now
    m_layoutSettled = true;
    emit layoutSettled();
}

bool MainWindow::layoutFits(QString* why) const
{
    const auto fail = [why](const QString& reason) {
        if (why)
            *why = reason;
        return false;
    };
    // The tab bars of tabbed docks are the window's own children.
    for (const QTabBar* bar : findChildren<QTabBar*>(QString(), Qt::FindDirectChildrenOnly)) {
        if (!bar->isVisible() || bar->count() < 2 || bar->width() >= bar->sizeHint().width())
            continue;
        QStringList titles;
        for (int i = 0; i < bar->count(); ++i)
            titles << bar->tabText(i);
        return fail(QStringLiteral("the tabs %1 would have %2 px of the %3 px their titles need")
                        .arg(titles.join(QStringLiteral(", ")))
                        .arg(bar->width())
                        .arg(bar->sizeHint().width()));
    }
    // A dock alone shows its title in its title bar.
    for (const QDockWidget* dock : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly)) {
        if (!dock->isVisible() || dock->isFloating() || !tabifiedDockWidgets(const_cast<QDockWidget*>(dock)).isEmpty())
            continue;
        const int title = dock->fontMetrics().horizontalAdvance(dock->windowTitle());
        if (dock->width() < title)
            return fail(QStringLiteral("the %1 dock would be %2 px wide, narrower than its title")
                            .arg(dock->windowTitle())
                            .arg(dock->width()));
    }
    const QSize graph = m_graphView->size();
    if (graph.width() < kGraphWidthShare * width() || graph.height() < kGraphHeightShare * height())
        return fail(QStringLiteral("the graph would have %1 x %2 px of the %3 x %4 window")
                        .arg(graph.width())
                        .arg(graph.height())
                        .arg(width())
                        .arg(height()));
    return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QMimeData* mime = event->mimeData();
    if (mime->hasUrls() && !mime->urls().isEmpty() && mime->urls().first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    openModel(urls.first().toLocalFile());
}

} // namespace onnxscope
