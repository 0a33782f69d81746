// SPDX-License-Identifier: MIT
#include "ui/mainwindow/compare_ui.h"

#include "ui/common/model_document.h"
#include "ui/common/settings.h"
#include "ui/common/value_comparison.h"
#include "ui/compare/compare_decorations.h"
#include "ui/compare/compare_dialog.h"
#include "ui/compare/compare_panel.h"
#include "ui/debugger/debug_controller.h"
#include "ui/debugger/debugger_panels.h"
#include "ui/graphview/graph_canvas.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/main_window.h"
#include "ui/tensorinspector/tensor_inspector.h"

#include <QAction>
#include <QDockWidget>
#include <QEvent>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>

#include <algorithm>
#include <memory>

namespace onnxscope {

namespace {

constexpr size_t kCachedPairs = 6;

/// A comparison's session as the Values dock reads it.
class SessionComparison final : public ValueComparison {
public:
    explicit SessionComparison(CompareSessionPtr session)
        : m_session(std::move(session))
    {
    }
    const ComparisonResult& comparisonResult() const override { return m_session->result; }
    int64_t rowOf(const std::string& framePath, const std::string& name) const override
    {
        return m_session->rowOf(framePath, name);
    }

private:
    CompareSessionPtr m_session;
};

} // namespace

CompareUi::CompareUi(MainWindow* window, DebuggerUi* debugger)
    : QObject(debugger)
    , m_window(window)
    , m_debugger(debugger)
    , m_controller(new CompareController(this))
    , m_panel(new ComparePanel(window))
    , m_dock(MainWindow::makeDock(QStringLiteral("Compare Results"), QStringLiteral("compareDock"), m_panel, window))
    , m_graphB(new GraphView(window))
    , m_documentB(new ModelDocument(this))
    , m_graphBDock(
          MainWindow::makeDock(QStringLiteral("Side B Graph"), QStringLiteral("compareGraphBDock"), m_graphB, window))
    , m_legend(new CompareLegend(window->graphView()->canvas()))
{
    m_window->addDock(m_dock, Qt::BottomDockWidgetArea);
    if (QDockWidget* values = m_debugger->valuesDock(); m_window->dockWidgetArea(values) == Qt::BottomDockWidgetArea) {
        m_window->tabifyDockWidget(values, m_dock);
        values->raise();
    }
    m_window->addDock(m_graphBDock, Qt::RightDockWidgetArea);
    m_graphBDock->hide();
    m_legend->hide();
    m_window->graphView()->canvas()->viewport()->installEventFilter(this);

    m_compare = new QAction(QStringLiteral("Compare\u2026"), this);
    m_compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    m_compare->setShortcutContext(Qt::ApplicationShortcut);
    m_compare->setToolTip(
        QStringLiteral("Compare this model's run with another model, reference values or other inputs (%1)")
            .arg(m_compare->shortcut().toString(QKeySequence::NativeText)));
    m_clear = new QAction(QStringLiteral("Clear Comparison"), this);
    m_clear->setToolTip(QStringLiteral("Back to normal colouring"));
    m_cancel = new QAction(QStringLiteral("Cancel Comparison"), this);
    m_diffValue = new QAction(QStringLiteral("Diff With Side B"), this);
    m_diffValue->setToolTip(QStringLiteral("Open this value and its counterpart in the tensor inspector's diff view"));
    m_window->addAction(m_compare);
    if (QMenu* menu = m_debugger->debugMenu()) {
        menu->addSeparator();
        menu->addAction(m_compare);
        menu->addAction(m_cancel);
        menu->addAction(m_clear);
    }
    m_window->mainToolBar()->addSeparator();
    m_window->addToolBarAction(m_compare);
    // On a value's context menu, after the debugger's own actions.
    auto* separator = new QAction(this);
    separator->setSeparator(true);
    m_debugger->values()->addRowAction(separator);
    m_debugger->values()->addRowAction(m_diffValue);
    auto* panelDiff = new QAction(QStringLiteral("Diff"), this);
    auto* panelGoTo = new QAction(QStringLiteral("Go to Node"), this);
    m_panel->view()->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_panel->view()->addAction(panelDiff);
    m_panel->view()->addAction(panelGoTo);

    connect(m_compare, &QAction::triggered, this, &CompareUi::openDialog);
    connect(m_clear, &QAction::triggered, this, &CompareUi::clear);
    connect(m_cancel, &QAction::triggered, this, &CompareUi::cancel);
    connect(m_diffValue, &QAction::triggered, this, [this] {
        const QModelIndex index = m_debugger->values()->view()->currentIndex();
        const int row = index.isValid() ? index.data(ValuesModel::CompareRowRole).toInt() : -1;
        if (row < 0) {
            m_window->statusBar()->showMessage(QStringLiteral("This value was not compared."), 4000);
            return;
        }
        openDiff(row);
    });
    connect(panelDiff, &QAction::triggered, this, [this] { openDiff(m_panel->currentRow()); });
    connect(panelGoTo, &QAction::triggered, this, [this] { goToRow(m_panel->currentRow()); });
    connect(m_panel, &ComparePanel::rowActivated, this, &CompareUi::goToRow);
    connect(m_panel, &ComparePanel::diffRequested, this, &CompareUi::openDiff);
    connect(m_panel, &ComparePanel::compareRequested, this, &CompareUi::openDialog);
    connect(m_panel, &ComparePanel::clearRequested, this, &CompareUi::clear);
    connect(m_panel, &ComparePanel::cancelRequested, this, &CompareUi::cancel);
    connect(m_panel, &ComparePanel::firstDivergenceRequested, this, [this] {
        if (!m_session || !m_session->result.firstDivergence)
            return;
        const NodeCompare& n = m_session->result.nodes[*m_session->result.firstDivergence];
        if (!n.rows.empty())
            m_panel->selectRow(static_cast<int>(n.rows.front()));
        m_window->graphView()->centerOnNode(n.graph, n.nodeId, true);
    });
    connect(m_panel, &ComparePanel::metricChanged, this, [this](ErrorMetric metric) {
        m_legend->setMetric(metric);
        applyColours();
        applyColoursB();
    });

    connect(m_controller, &CompareController::progress, this, [this](qint64 done) {
        m_panel->setProgress(done, m_nodeCountHint);
        m_debugger->statusLabel()->setText(QStringLiteral("Comparing\u2026 %1 nodes").arg(done));
    });
    connect(m_controller, &CompareController::finished, this, &CompareUi::onFinished);
    connect(m_controller, &CompareController::failed, this, &CompareUi::onFailed);
    connect(m_controller, &CompareController::pairFetched, this,
        [this](const CompareSessionPtr& session, qint64 row, const Value& a, const Value& b) {
            if (session != m_session)
                return;
            m_pairs.push_front({ static_cast<size_t>(row), ValuePair { a, b } });
            if (m_pairs.size() > kCachedPairs)
                m_pairs.pop_back();
            openDiff(static_cast<int>(row));
        });
    connect(m_controller, &CompareController::pairFailed, this,
        [this](qint64, const QString& message) { reportError(QStringLiteral("Cannot show the diff"), message); });

    GraphView* view = m_window->graphView();
    connect(view, &GraphView::layoutFinished, this, [this](bool ok, double) {
        if (ok)
            applyColours();
    });
    connect(view, &GraphView::nodeSelected, this, &CompareUi::syncSelection);
    connect(m_graphB, &GraphView::layoutFinished, this, [this](bool ok, double) {
        if (ok)
            applyColoursB();
    });
    // A node of side B selects the first row whose counterpart it produced.
    connect(m_graphB, &GraphView::nodeSelected, this, [this](const Graph* graph, NodeId node) {
        if (!m_session || m_syncing)
            return;
        const auto& rows = m_session->result.rows;
        auto nodeB = [&](size_t i) {
            const bool onlyB = rows[i].status == CompareStatus::OnlyB;
            return std::make_pair(onlyB ? rows[i].graph : rows[i].graphB, onlyB ? rows[i].nodeId : rows[i].nodeIdB);
        };
        // Keep the current row when its counterpart is drawn in the selected box (a Constant folded into it).
        const int current = m_panel->currentRow();
        if (current >= 0) {
            const auto [g, n] = nodeB(static_cast<size_t>(current));
            GraphScene* scene = m_graphB->scene();
            if (g == graph
                && (n == node
                    || (scene->viewGraph().graph == graph && n >= 0 && scene->itemForNode(n)
                        && scene->itemForNode(n) == scene->itemForNode(node))))
                return;
        }
        for (size_t i = 0; i < rows.size(); ++i) {
            const bool onlyB = rows[i].status == CompareStatus::OnlyB;
            if ((onlyB ? rows[i].graph : rows[i].graphB) == graph && (onlyB ? rows[i].nodeId : rows[i].nodeIdB) == node
                && rows[i].status != CompareStatus::OnlyA) {
                m_panel->selectRow(static_cast<int>(i));
                return;
            }
        }
    });
    connect(m_window, &MainWindow::modelOpened, this, &CompareUi::clear);
    setRunning(false);
    clear();
}

CompareUi::~CompareUi() = default;

bool CompareUi::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::Resize && watched == m_window->graphView()->canvas()->viewport())
        positionLegend();
    return QObject::eventFilter(watched, event);
}

void CompareUi::positionLegend()
{
    const QRect vp = m_window->graphView()->canvas()->viewport()->geometry();
    m_legend->resize(m_legend->sizeHint());
    m_legend->move(vp.left() + 10, vp.bottom() - m_legend->height() - 10);
}

void CompareUi::reportError(const QString& title, const QString& message)
{
    m_debugger->statusLabel()->setText(QStringLiteral("%1: %2").arg(title, message));
    if (m_errorReporter) {
        m_errorReporter(title, message);
        return;
    }
    if (qEnvironmentVariableIsSet("ONNXSCOPE_NO_DIALOGS"))
        return;
    QMessageBox box(QMessageBox::Warning, title, message, QMessageBox::Ok, m_window);
    box.setObjectName(QStringLiteral("compareErrorDialog"));
    box.exec();
}

void CompareUi::setRunning(bool running)
{
    m_compare->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_clear->setEnabled(!running && m_session != nullptr);
    m_diffValue->setEnabled(m_session != nullptr);
    m_panel->setRunning(running);
}

CompareDialog* CompareUi::openDialog()
{
    if (!m_window->document()->model()) {
        m_window->statusBar()->showMessage(QStringLiteral("Open a model to compare first."), 4000);
        return nullptr;
    }
    if (m_controller->isRunning())
        return nullptr;
    if (!m_debugger->inputs()->validate()) {
        m_debugger->inputsDock()->show();
        m_debugger->inputsDock()->raise();
        m_debugger->statusLabel()->setText(
            QStringLiteral("Fix the inputs first (see the Inputs dock): they are side A's inputs."));
        return nullptr;
    }
    if (m_dialog) {
        m_dialog->raise();
        return m_dialog;
    }
    auto* dialog = new CompareDialog(m_debugger->inputs()->inputNames(), m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_dialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog] { startFromDialog(*dialog); });
    dialog->open();
    return dialog;
}

bool CompareUi::startFromDialog(const CompareDialog& dialog)
{
    CompareRequest request;
    request.kind = dialog.kind();
    request.modelB = dialog.modelPath();
    request.reference = dialog.referencePath();
    request.byModule = request.kind == CompareRequest::Kind::Reference && dialog.byModule();
    request.tolerance = dialog.tolerance();
    request.compareInitializers = dialog.compareInitializers();
    request.align = dialog.alignMode();
    if (request.kind != CompareRequest::Kind::Reference && !dialog.randomInputs())
        request.inputFilesB = dialog.inputFiles();
    try {
        if (request.kind == CompareRequest::Kind::Model)
            request.nameMap = parseNameMap(dialog.nameMapText());
    } catch (const std::exception& e) {
        reportError(QStringLiteral("Cannot compare"), QString::fromStdString(e.what()));
        return false;
    }
    if (dialog.randomInputs()) {
        // The Inputs dock's generator with another seed: random inputs keep their range, the others become random.
        struct Item {
            QString name;
            InputSpec spec;
            ValueType type;
        };
        std::vector<Item> items;
        const Graph& graph = m_window->document()->model()->graph();
        quint64 seed = dialog.seed();
        for (const QString& name : m_debugger->inputs()->inputNames()) {
            InputSpec spec = m_debugger->inputs()->spec(name);
            const ValueId id = graph.findValue(name.toStdString());
            const ValueType type = id != kNoValue ? graph.value(id).type : ValueType {};
            if (spec.source != InputSpec::Source::Uniform && spec.source != InputSpec::Source::Normal) {
                spec = InputSpec {};
                spec.source = InputSpec::Source::Uniform;
                spec.low = 0;
                spec.high = isInteger(type.elementType) ? 10 : 1;
            }
            spec.seed = seed++;
            items.push_back({ name, spec, type });
        }
        const DimValues dims = m_debugger->inputs()->dims();
        request.randomInputsB = [items, dims] {
            std::map<std::string, Value> inputs;
            for (const Item& item : items)
                inputs[item.name.toStdString()] = buildInputTensor(item.name, item.spec, item.type, dims);
            return inputs;
        };
        request.randomDescription = QStringLiteral("random, seed %1").arg(dialog.seed());
    }
    return start(std::move(request), dialog.recordInDebugger());
}

bool CompareUi::start(CompareRequest request, bool recordInDebugger)
{
    auto model = m_window->document()->model();
    if (!model) {
        reportError(QStringLiteral("Cannot compare"), QStringLiteral("No model is open."));
        return false;
    }
    if (m_controller->isRunning())
        return false;
    if (!m_debugger->inputs()->validate()) {
        reportError(QStringLiteral("Cannot compare"),
            QStringLiteral("Side A's inputs (the Inputs dock) are not valid: fix them first."));
        return false;
    }
    request.modelA = model;
    request.descriptionA = m_window->document()->path().isEmpty() ? QString::fromStdString(model->displayName())
                                                                  : m_window->document()->path();
    request.inputsA = m_debugger->inputs()->factory();
    request.threadPool = m_debugger->controller()->threadPool();
    m_recordAfter = recordInDebugger;
    m_nodeCountHint = static_cast<qint64>(model->graph().totalNodeCount());
    m_dock->show();
    m_dock->raise();
    m_controller->start(std::move(request));
    setRunning(true);
    m_debugger->statusLabel()->setText(QStringLiteral("Comparing\u2026"));
    return true;
}

void CompareUi::cancel()
{
    m_controller->cancel();
}

void CompareUi::giveGraphBRoom()
{
    // A dock added to a column takes only what the docks already there leave over (a strip of boxes): half the
    // column, or half the window's width under the graph. Never less than it has.
    if (m_graphBDock->isFloating()) {
        m_graphBDock->resize(m_graphBDock->size().expandedTo(QSize(m_window->width() / 3, m_window->height() / 2)));
        return;
    }
    const Qt::DockWidgetArea area = m_window->dockWidgetArea(m_graphBDock);
    const bool column = area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea;
    const auto length = [column](const QWidget* w) { return column ? w->height() : w->width(); };
    // The docks it shares its column (or row) with; they give up the room in proportion to theirs.
    const QRect own = m_graphBDock->geometry();
    QList<QDockWidget*> docks;
    QList<int> sizes;
    int total = 0;
    for (QDockWidget* dock : m_window->findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly)) {
        const QRect g = dock->geometry();
        if (dock != m_graphBDock && dock->isVisible() && !dock->isFloating() && m_window->dockWidgetArea(dock) == area
            && (column ? g.left() < own.right() && g.right() > own.left()
                       : g.top() < own.bottom() && g.bottom() > own.top())) {
            docks << dock;
            sizes << length(dock);
            total += length(dock);
        }
    }
    const int half = (total + length(m_graphBDock)) / 2;
    if (docks.isEmpty() || length(m_graphBDock) >= half)
        return;
    for (int& size : sizes)
        size = size * (total + length(m_graphBDock) - half) / total;
    docks << m_graphBDock;
    sizes << half;
    m_window->resizeDocks(docks, sizes, column ? Qt::Vertical : Qt::Horizontal);
}

void CompareUi::onFinished(const CompareSessionPtr& session)
{
    m_session = session;
    m_pairs.clear();
    setRunning(false);
    m_panel->setSession(session);
    m_panel->setMessage({});
    m_debugger->values()->model()->setComparison(std::make_shared<SessionComparison>(session));
    m_legend->setMetric(m_panel->metric());
    positionLegend();
    m_legend->show();
    m_legend->raise();
    applyColours();
    const ComparisonResult& r = session->result;
    if (session->kind == CompareRequest::Kind::Model && session->b) {
        m_documentB->setModel(session->b->program->modelPtr());
        m_graphB->setModel(m_documentB->model(), m_documentB);
        m_graphBDock->setWindowTitle(
            QStringLiteral("Side B Graph \u2014 %1").arg(CompareColours::sideName(session->descriptionB)));
        const bool wasHidden = m_graphBDock->isHidden();
        m_graphBDock->show();
        if (wasHidden) // once the layout has made room for it
            QTimer::singleShot(0, this, &CompareUi::giveGraphBRoom);
        if (r.firstDivergence)
            for (size_t i : r.nodes[*r.firstDivergence].rows)
                if (isDivergent(r.rows[i].status) && r.rows[i].graphB && r.rows[i].nodeIdB >= 0) {
                    m_graphB->centerOnNode(r.rows[i].graphB, r.rows[i].nodeIdB, false);
                    break;
                }
    } else {
        m_graphB->clear();
        m_documentB->setModel(nullptr);
        m_graphBDock->hide();
    }
    QString status = QStringLiteral("Compared %1 values in %2 s").arg(r.rows.size()).arg(session->seconds, 0, 'f', 2);
    if (r.firstDivergence) {
        const NodeCompare& n = r.nodes[*r.firstDivergence];
        status += QStringLiteral(" \u2014 first divergence at %1 (%2)")
                      .arg(QString::fromStdString(n.node), QString::fromStdString(n.opType));
        if (!n.rows.empty())
            m_panel->selectRow(static_cast<int>(n.rows.front()));
        m_window->graphView()->centerOnNode(n.graph, n.nodeId, true);
    } else if (r.allMatch()) {
        status += QStringLiteral(" \u2014 everything matches");
    } else if (!r.hasDivergence()) {
        status += QStringLiteral(" \u2014 no divergence (%1 values on one side only)")
                      .arg(r.count(CompareStatus::OnlyA) + r.count(CompareStatus::OnlyB));
    }
    m_debugger->statusLabel()->setText(status);
    if (m_recordAfter) {
        DebugController* debug = m_debugger->controller();
        if (!r.errorA.empty()) // side A fails again in the debugger: the comparison's report below is the one
            m_debugger->quietNextFailure();
        switch (debug->state()) {
        case DebuggerState::Ready:
            debug->continueRun();
            break;
        case DebuggerState::Finished:
        case DebuggerState::Failed:
            debug->restart();
            break;
        default:
            m_panel->setMessage(QStringLiteral(
                "<span style='color:#6b7280'>The debugger is paused: the Values dock shows errors for the values it "
                "has recorded so far.</span>"));
            break;
        }
    }
    emit comparisonShown();
    if (!r.errorA.empty() || !r.errorB.empty()) {
        const bool a = !r.errorA.empty();
        reportError(QStringLiteral("Comparison incomplete"),
            QStringLiteral("Side %1 (%2) stopped:\n\n%3\n\nThe results cover what ran before.%4")
                .arg(a ? QStringLiteral("A") : QStringLiteral("B"),
                    CompareColours::sideName(a ? session->descriptionA : session->descriptionB),
                    QString::fromStdString(a ? r.errorA : r.errorB),
                    m_debugger->guessedSizesNote().isEmpty()
                        ? QString()
                        : QStringLiteral("\n\nThe inputs were generated with sizes the model leaves open, guessed: %1. "
                                         "Set them in Inputs \u203a Dimensions.")
                              .arg(m_debugger->inputs()->guessedDimensions().join(QStringLiteral(", ")))));
    }
}

void CompareUi::onFailed(const QString& message)
{
    setRunning(false);
    m_panel->setMessage(
        QStringLiteral("<span style='color:#c62828'>The comparison failed: %1</span>").arg(message.toHtmlEscaped()));
    emit comparisonFailed(message);
    reportError(QStringLiteral("Compare failed"), message);
}

void CompareUi::clear()
{
    if (m_controller->isRunning())
        m_controller->cancel();
    m_session.reset();
    m_pairs.clear();
    m_panel->setSession(nullptr);
    m_panel->setMessage({});
    m_debugger->values()->model()->setComparison(nullptr);
    m_legend->hide();
    m_graphB->clear();
    m_documentB->setModel(nullptr);
    m_graphBDock->hide();
    applyColours();
    setRunning(m_controller->isRunning());
    m_debugger->restoreStatus(); // no "Diff of …" or "Compared …" left from the comparison cleared
}

void CompareUi::applyColours()
{
    const auto model = m_window->document()->model();
    decorateComparison(*m_window->graphView(), m_session ? &m_session->result : nullptr, m_panel->metric(),
        model ? &model->graph() : nullptr);
}

void CompareUi::applyColoursB()
{
    const auto model = m_graphB->model();
    decorateComparison(*m_graphB, m_session && model ? &m_session->result : nullptr, m_panel->metric(),
        model ? &model->graph() : nullptr, CompareSide::B);
}

void CompareUi::syncSelection(const Graph* graph, NodeId node)
{
    if (!m_session || m_syncing)
        return;
    const auto& rows = m_session->result.rows;
    // Keep the current row when it belongs to the selected box (its own node, or a Constant folded into it).
    const int current = m_panel->currentRow();
    if (current >= 0 && rows[static_cast<size_t>(current)].graph == graph) {
        const NodeId currentNode = rows[static_cast<size_t>(current)].nodeId;
        GraphScene* scene = m_window->graphView()->scene();
        if (currentNode == node
            || (scene->viewGraph().graph == graph && currentNode >= 0 && scene->itemForNode(currentNode)
                && scene->itemForNode(currentNode) == scene->itemForNode(node)))
            return;
    }
    for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].graph == graph && rows[i].nodeId == node && rows[i].status != CompareStatus::OnlyB) {
            const QModelIndex index = m_panel->proxy()->mapFromSource(m_panel->model()->index(static_cast<int>(i), 0));
            if (index.isValid()) {
                m_panel->view()->setCurrentIndex(index);
                m_panel->view()->scrollTo(index);
            }
            return;
        }
}

void CompareUi::goToRow(int index)
{
    if (!m_session || index < 0 || static_cast<size_t>(index) >= m_session->result.rows.size())
        return;
    const CompareRow& row = m_session->result.rows[static_cast<size_t>(index)];
    GraphView* view = m_window->graphView();
    if (row.status == CompareStatus::OnlyB && m_graphBDock->isVisible() && row.graph && row.nodeId >= 0) {
        m_syncing = true;
        m_graphB->centerOnNode(row.graph, row.nodeId, true);
        m_syncing = false;
        return;
    }
    if (row.status == CompareStatus::OnlyB) {
        m_window->statusBar()->showMessage(
            QStringLiteral("\u201c%1\u201d exists on side B only%2: it is not in this graph.")
                .arg(QString::fromStdString(row.name),
                    row.node.empty() ? QString()
                                     : QStringLiteral(" (node %1 of side B)").arg(QString::fromStdString(row.node))),
            6000);
        return;
    }
    m_syncing = true;
    if (m_graphBDock->isVisible() && row.graphB && row.nodeIdB >= 0)
        m_graphB->centerOnNode(row.graphB, row.nodeIdB, false);
    if (row.origin != ValueOrigin::NodeOutput) {
        const Graph& g = m_session->a.program->model().graph();
        view->centerOnValue(&g, g.findValue(row.name));
    } else if (row.graph && row.nodeId >= 0) {
        view->centerOnNode(row.graph, row.nodeId, true);
    }
    m_syncing = false;
}

void CompareUi::openDiff(int index)
{
    if (!m_session || index < 0 || static_cast<size_t>(index) >= m_session->result.rows.size())
        return;
    const size_t rowIndex = static_cast<size_t>(index);
    const auto cached
        = std::find_if(m_pairs.begin(), m_pairs.end(), [&](const auto& p) { return p.first == rowIndex; });
    if (cached == m_pairs.end()) {
        m_debugger->statusLabel()->setText(QStringLiteral("Fetching both values of \u201c%1\u201d\u2026")
                                               .arg(QString::fromStdString(m_session->result.rows[rowIndex].name)));
        m_controller->requestPair(m_session, rowIndex);
        return;
    }
    if (cached != m_pairs.begin())
        m_pairs.splice(m_pairs.begin(), m_pairs, cached);
    const CompareRow& row = m_session->result.rows[rowIndex];
    const ValuePair& pair = m_pairs.front().second;
    QString title = QString::fromStdString(row.name);
    if (row.framePath != "main")
        title += QStringLiteral(" @ ") + QString::fromStdString(row.framePath);
    if (!row.node.empty())
        title += QStringLiteral("  \u2190 %1 (%2)")
                     .arg(QString::fromStdString(row.node), QString::fromStdString(row.opType));
    const QString labelA = CompareColours::sideName(m_session->descriptionA);
    QString labelB = CompareColours::sideName(m_session->descriptionB);
    if (row.nameB != row.name && row.status != CompareStatus::OnlyB)
        labelB = QStringLiteral("\u201c%1\u201d in %2").arg(QString::fromStdString(row.nameB), labelB);
    TensorInspector* inspector = m_debugger->inspector();
    inspector->showPair(title, labelA, labelB, pair.a, pair.b, m_session->result.tolerance);
    m_window->tensorInspectorDock()->show();
    m_window->tensorInspectorDock()->raise();
    m_debugger->statusLabel()->setText(QStringLiteral("Diff of \u201c%1\u201d").arg(QString::fromStdString(row.name)));
    emit diffShown(index);
}

void CompareUi::scheduleCompare(const QString& other, const QString& diffValue, bool byModule)
{
    auto* once = new QObject(this);
    connect(m_window, &MainWindow::modelOpened, once, [this, once, other, diffValue, byModule] {
        once->deleteLater();
        CompareRequest request;
        // The tolerances last used in the Compare dialog.
        const Settings::CompareFields fields = Settings::instance().compareFields();
        bool ok = false;
        if (const double rtol = fields.rtol.toDouble(&ok); ok)
            request.tolerance.rtol = rtol;
        if (const double atol = fields.atol.toDouble(&ok); ok)
            request.tolerance.atol = atol;
        if (other.endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive)) {
            request.kind = CompareRequest::Kind::Model;
            request.modelB = other;
        } else {
            request.kind = CompareRequest::Kind::Reference;
            request.reference = other;
            request.byModule = byModule;
        }
        if (!diffValue.isEmpty()) {
            auto* after = new QObject(this);
            connect(this, &CompareUi::comparisonShown, after, [this, after, diffValue] {
                after->deleteLater();
                for (size_t i = 0; i < m_session->result.rows.size(); ++i)
                    if (m_session->result.rows[i].name == diffValue.toStdString()
                        && m_session->result.rows[i].status != CompareStatus::OnlyB) {
                        m_panel->selectRow(static_cast<int>(i));
                        openDiff(static_cast<int>(i));
                        break;
                    }
            });
        }
        start(std::move(request), false);
    });
}

} // namespace onnxscope
