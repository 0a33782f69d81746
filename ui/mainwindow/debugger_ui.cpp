// SPDX-License-Identifier: MIT
#include "ui/mainwindow/debugger_ui.h"

#include "ui/common/elided_label.h"
#include "ui/common/model_document.h"
#include "ui/common/settings.h"
#include "ui/common/tensor_format.h"
#include "ui/debugger/debugger_panels.h"
#include "ui/debugger/export_commands.h"
#include "ui/debugger/memory_budget.h"
#include "ui/debugger/run_decorations.h"
#include "ui/debugger/stop_status.h"
#include "ui/debugger/value_export.h"
#include "ui/debugger/yield_dialog.h"
#include "ui/graphview/graph_view.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/compare_ui.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/value_inspection.h"
#include "ui/nodeinspector/node_inspector.h"
#include "ui/tensorinspector/tensor_inspector.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>

#include <algorithm>
#include <memory>

namespace onnxscope {

DebuggerUi::DebuggerUi(MainWindow* window)
    : QObject(window)
    , m_window(window)
    , m_controller(new DebugController(this))
    , m_breakpoints(new BreakpointModel(this))
    , m_inspector(window->tensorInspector())
{
    m_controller->setBreakpointModel(m_breakpoints);
    m_budget = new MemoryBudget(m_controller, m_window, this);
    m_exports = new ExportCommands(m_controller, m_window, this);
    createDocks();
    createActions();
    m_controller->setInputSource([this] { return m_inputs->factory(); });

    m_status = new ElidedLabel(m_window); // a long failure ends in "…" (the tooltip has all of it)
    m_status->setObjectName(QStringLiteral("debuggerStatus"));
    m_valueView->setStatusLabel(m_status);
    m_window->statusBar()->addWidget(m_status, 1);

    connect(m_window, &MainWindow::modelOpened, this, &DebuggerUi::onModelOpened);
    connect(m_controller, &DebugController::stateChanged, this, &DebuggerUi::onStateChanged);
    connect(m_controller, &DebugController::stopped, this, &DebuggerUi::onStopped);
    connect(m_controller, &DebugController::stopShown, this, &DebuggerUi::onStopped);
    connect(m_controller, &DebugController::runCleared, this, &DebuggerUi::onRunCleared);
    connect(m_controller, &DebugController::progress, this, [this](qint64 done, qint64 total) {
        if (m_controller->state() == DebuggerState::Running)
            m_status->setText(QStringLiteral("Running\u2026 node %1 of %2").arg(done).arg(total));
    });
    connect(m_breakpoints, &BreakpointModel::breakpointsChanged, this, &DebuggerUi::applyDecorations);
    connect(m_breakpoints, &BreakpointModel::breakpointsChanged, this, [this] {
        if (!m_breakpointsKey.isEmpty())
            m_breakpoints->save(m_breakpointsKey);
    });
    GraphView* view = m_window->graphView();
    connect(view, &GraphView::layoutFinished, this, [this](bool ok, double) {
        if (ok)
            applyDecorations();
    });
    connect(view, &GraphView::nodeSelected, this, &DebuggerUi::onGraphNodeSelected);
    connect(view, &GraphView::valueSelected, this, &DebuggerUi::onGraphValueSelected);
    connect(view, &GraphView::selectionCleared, this, [this] {
        m_actions->setSelectedNode(nullptr, -1);
        onStateChanged(m_controller->state());
    });
    // The window shows an initializer the node inspector opens in the Tensor Inspector: no longer a value of the run.
    connect(
        m_window->inspector(), &NodeInspector::tensorRequested, this, [this] { m_valueView->setShowsRunValue(false); });
    m_compare = new CompareUi(m_window, this);
    onStateChanged(m_controller->state());
    onRunCleared();
}

DebuggerUi::~DebuggerUi() = default;

void DebuggerUi::createDocks()
{
    m_inputs = new InputsPanel(m_window);
    m_inputsDock = MainWindow::makeDock(QStringLiteral("Inputs"), QStringLiteral("inputsDock"), m_inputs, m_window);
    m_window->addDock(m_inputsDock, Qt::LeftDockWidgetArea);

    m_breakpointsPanel = new BreakpointsPanel(m_breakpoints, m_window);
    m_breakpointsDock = MainWindow::makeDock(
        QStringLiteral("Breakpoints"), QStringLiteral("breakpointsDock"), m_breakpointsPanel, m_window);
    m_window->addDock(m_breakpointsDock, Qt::LeftDockWidgetArea);

    m_callStack = new CallStackPanel(m_window);
    m_callStackDock
        = MainWindow::makeDock(QStringLiteral("Call Stack"), QStringLiteral("callStackDock"), m_callStack, m_window);
    m_window->addDock(m_callStackDock, Qt::LeftDockWidgetArea);

    m_values = new ValuesPanel(m_window);
    m_valueView = new ValueInspection(m_controller, m_inspector, m_values, m_window->graphView(), this);
    connect(m_valueView, &ValueInspection::shown, this, [this] { onStateChanged(m_controller->state()); });
    m_valuesDock = MainWindow::makeDock(QStringLiteral("Values"), QStringLiteral("valuesDock"), m_values, m_window);
    m_window->addDock(m_valuesDock, Qt::BottomDockWidgetArea);

    m_profile = new ProfilePanel(m_window);
    m_profileDock = MainWindow::makeDock(QStringLiteral("Profile"), QStringLiteral("profileDock"), m_profile, m_window);
    m_window->addDock(m_profileDock, Qt::BottomDockWidgetArea);

    // Bottom, under the graph: the values, tabbed with the profile and the window's Problems dock. (Docks added to
    // one area sit side by side; tabifying moves the second onto the first.)
    m_window->tabifyDockWidget(m_valuesDock, m_profileDock);
    if (m_window->dockWidgetArea(m_window->problemsDock()) == Qt::BottomDockWidgetArea)
        m_window->tabifyDockWidget(m_valuesDock, m_window->problemsDock());
    m_valuesDock->raise();
    // Default sizes once the window is shown (sizes set before are not kept), unless MainWindow restored a saved
    // layout.
    connect(m_window, &MainWindow::sizingDefaultLayout, this, [this] {
        // The graph gets the rest: the values 12 rows (up to 2/5 of the height), the side columns what their tables
        // need.
        // Measured again once the dock has its first size, from what was asked (the tab bar under the dock is taken
        // from it), before the window settles.
        auto asked = std::make_shared<int>(0);
        const auto sizeValues = [this, asked] {
            *asked = std::min((*asked ? *asked : m_valuesDock->height()) + m_values->heightMissingForRows(12),
                m_window->height() * 2 / 5);
            m_window->resizeDocks({ m_valuesDock }, { *asked }, Qt::Vertical);
        };
        sizeValues();
        m_window->resizeDocks({ m_inputsDock, m_window->tensorInspectorDock() },
            { std::min(260, m_window->width() / 6), std::min(330, m_window->width() / 5) }, Qt::Horizontal);
        QTimer::singleShot(0, this, sizeValues);
    });
    // Left: inputs, breakpoints, the call stack and Find, tabbed.
    m_window->tabifyDockWidget(m_inputsDock, m_breakpointsDock);
    m_window->tabifyDockWidget(m_inputsDock, m_callStackDock);
    if (QDockWidget* find = m_window->findDock();
        m_window->dockWidgetArea(find) == m_window->dockWidgetArea(m_inputsDock))
        m_window->tabifyDockWidget(m_inputsDock, find);
    m_inputsDock->raise();

    connect(m_inputs, &InputsPanel::inputsChanged, this, [this] {
        if (m_controller->state() == DebuggerState::Ready)
            onStateChanged(DebuggerState::Ready); // the sizes still guessed
    });
    connect(m_values, &ValuesPanel::valueChosen, m_valueView, &ValueInspection::inspect);
    connect(m_values, &ValuesPanel::valueActivated, m_valueView, &ValueInspection::goTo);
    connect(m_values, &ValuesPanel::retentionChanged, this, &DebuggerUi::updateRetention);
    // A value's context menu: where it comes from, export it, copy its name, or break when it meets a condition.
    m_values->addStandardRowActions();
    connect(m_values, &ValuesPanel::exportRequested, this, [this] { showExportDialog(QStringLiteral("tensor")); });
    connect(m_values, &ValuesPanel::breakWhenRequested, this, [this](const QString& node, int output) {
        m_breakpointsPanel->showAddDialog(BreakpointSpec::Kind::Condition, node, output);
    });
    connect(m_callStack, &CallStackPanel::frameSelected, this, &DebuggerUi::onFrameSelected);
    connect(m_breakpointsPanel, &BreakpointsPanel::goToNode, this, [this](const QString& name) {
        auto model = m_controller->model();
        if (!model)
            return;
        const Graph& g = model->graph();
        const NodeId id = g.findNode(name.toStdString());
        if (id >= 0)
            m_window->graphView()->centerOnNode(&g, id);
    });
    connect(m_profile, &ProfilePanel::colourByTimeToggled, this, [this](bool on) {
        m_colourByTime = on;
        applyDecorations();
    });
    connect(m_profile, &ProfilePanel::nodeActivated, this,
        [this](const Graph* g, NodeId n) { m_window->graphView()->centerOnNode(g, n); });
    connect(
        m_inspector, &TensorInspector::exportRequested, this, [this] { showExportDialog(QStringLiteral("tensor")); });
    m_inspector->setCandidateSource([this] {
        std::vector<std::pair<QString, Tensor>> out;
        if (const DebugSnapshotPtr s = m_controller->snapshot())
            for (const auto& [name, t] : exportableTensors(*s))
                out.emplace_back(QString::fromStdString(name), t);
        return out;
    });
}

void DebuggerUi::createActions()
{
    m_actions = new DebuggerActions(m_controller, m_breakpoints, m_window);
    m_actions->setRunGuard([this](bool explain) { return inputsReady(explain); });
    connect(m_actions, &DebuggerActions::statusChanged, this, [this](const QString& text) { m_status->setText(text); });
    connect(m_actions, &DebuggerActions::messageShown, m_window->statusBar(), &QStatusBar::showMessage);
    connect(m_actions, &DebuggerActions::conditionRequested, this,
        [this](const QString& node) { m_breakpointsPanel->showAddDialog(BreakpointSpec::Kind::Condition, node); });
    m_window->graphView()->setNodeActions(m_actions->nodeActions());

    // Constants only make a value and are drawn inside their consumers' boxes: stepping runs them without a stop, like
    // a debugger stepping over library code. Stepping them draws them as boxes of their own, so that the box
    // highlighted is always the node the run stopped before.
    m_stepConstants = m_actions->menu()->addAction(QStringLiteral("Step Into Constant &Nodes"));
    m_stepConstants->setCheckable(true);
    m_stepConstants->setChecked(Settings::instance().stepConstants());
    m_stepConstants->setToolTip(QStringLiteral("Stop before Constant nodes when stepping, and draw them as boxes of "
                                               "their own (off: they run without a stop)"));
    auto applyStepConstants = [this](bool on) {
        DebuggerOptions options = m_controller->options();
        options.stepConstants = on;
        m_controller->setOptions(options);
        m_window->graphView()->setFoldConstants(!on);
    };
    connect(m_stepConstants, &QAction::toggled, this, [applyStepConstants](bool on) {
        Settings::instance().setStepConstants(on);
        applyStepConstants(on);
    });
    applyStepConstants(m_stepConstants->isChecked());
    m_actions->menu()->addAction(m_budget->action());
    m_actions->menu()->addAction(m_budget->keepValueDataAction());
    m_window->statusBar()->addPermanentWidget(m_budget->label());
    m_actions->menu()->addAction(m_exports->exportAllAction());
    connect(m_exports, &ExportCommands::exportRequested, this, &DebuggerUi::showExportDialog);
    connect(m_exports, &ExportCommands::statusMessage, this,
        [this](const QString& text, int timeout) { m_window->statusBar()->showMessage(text, timeout); });
    connect(m_exports, &ExportCommands::statusText, this, [this](const QString& text) { m_status->setText(text); });
    connect(m_exports, &ExportCommands::failed, this, &DebuggerUi::reportError);
    connect(m_exports, &ExportCommands::busyChanged, this, [this] { onStateChanged(m_controller->state()); });
    connect(m_exports, &ExportCommands::exportAllFailed, this, [this](const QString& message) {
        showProblem(QStringLiteral("Export failed"), message,
            QStringLiteral("Choose a folder you can write to, with room for every value."));
    });
    connect(m_exports, &ExportCommands::exportFinished, this, &DebuggerUi::exportFinished);
    m_actions->menu()->addMenu(m_exports->menu());
    // Before Help, as IDEs order their menus.
    QMenuBar* bar = m_window->menuBar();
    const QList<QAction*> menus = bar->actions();
    bar->insertMenu(menus.isEmpty() ? nullptr : menus.last(), m_actions->menu());

    m_window->mainToolBar()->addSeparator();
    for (QAction* a : m_actions->toolBarActions())
        m_window->addToolBarAction(a);
}

bool DebuggerUi::inputsReady(bool explain)
{
    if (m_inputs->validate())
        return true;
    if (!explain)
        return false;
    m_inputsDock->show();
    m_inputsDock->raise();
    const QString error = m_inputs->revealFirstError();
    showProblem(QStringLiteral("Inputs not valid"), error.isEmpty() ? QStringLiteral("An input is not valid.") : error,
        QStringLiteral("The Inputs dock shows the error under the input. Fix it, then run again."));
    m_status->setText(QStringLiteral("Fix the inputs first \u2014 %1")
                          .arg(error.isEmpty() ? QStringLiteral("see the Inputs dock") : error));
    m_status->setToolTip(m_status->text());
    return false;
}

void DebuggerUi::onModelOpened()
{
    auto model = m_window->document()->model();
    // Breakpoints are remembered per model file, as the inputs are.
    const QString path = m_window->document()->path();
    m_actions->setSelectedNode(nullptr, -1); // of the previous model, which may be gone
    m_breakpointsKey.clear();
    path.isEmpty() ? m_breakpoints->clear() : m_breakpoints->restore(path);
    m_breakpointsKey = path;
    m_inspector->clear();
    m_inputs->setModel(model, path, m_window->document());
    m_controller->setModel(model);
    m_breakpointsPanel->setNames(model->graph());
    updateRetention();
}

void DebuggerUi::updateRetention()
{
    DebuggerOptions options = m_controller->options();
    const int mode = m_values->retentionBox()->currentIndex();
    options.iterationRetention = mode == 0 ? IterationRetention::All
        : mode == 1                        ? IterationRetention::LastN
                                           : IterationRetention::None;
    options.keepIterations = m_values->keepBox()->value();
    m_controller->setOptions(options);
}

void DebuggerUi::onStateChanged(DebuggerState state)
{
    // The debugger's own actions follow the state by themselves (DebuggerActions); the export commands need values.
    const bool idle = state != DebuggerState::NoModel && state != DebuggerState::Running;
    const bool haveValues = idle && m_controller->snapshot() != nullptr && !m_controller->summarising();
    if (m_exports)
        m_exports->updateActions(haveValues, m_inspector->tensor().defined());
    switch (state) {
    case DebuggerState::NoModel:
        m_status->setText(QString());
        break;
    case DebuggerState::Ready:
        m_status->setText(QStringLiteral("Ready \u2014 F5 runs, F10 steps") + guessedSizesNote());
        break;
    case DebuggerState::Running:
        m_status->setText(QStringLiteral("Running\u2026"));
        break;
    default:
        break;
    }
}

void DebuggerUi::onRunCleared()
{
    // A value of the run that is gone: neither shown as if current nor kept alive (its memory goes back for the
    // next run). An initializer the inspector shows stays.
    m_valueView->clearRunValue();
    m_shown.reset();
    m_budget->updateLabel(m_shown);
    m_values->setSnapshot(nullptr);
    m_values->setFrameFilter(0, {});
    m_callStack->setSnapshot(nullptr);
    m_profile->setSnapshot(nullptr);
    m_window->graphView()->clearNodeStates();
    applyDecorations();
}

void DebuggerUi::onStopped(const DebugSnapshotPtr& snapshot)
{
    m_shown = snapshot;
    m_budget->updateLabel(m_shown);
    m_values->setSnapshot(snapshot);
    m_values->setFrameFilter(0, {});
    m_callStack->setSnapshot(snapshot);
    m_profile->setSnapshot(snapshot);
    applyGraphState();
    applyDecorations();

    QString text;
    switch (snapshot->reason) {
    case StopReason::Failed:
        text = QStringLiteral("Failed: %1").arg(snapshot->message);
        // Exported models leave most sizes symbolic, and the Inputs dock can only guess them: a window or pooling node
        // may not fit. Say which sizes were guesses.
        text += guessedSizesNote();
        if (snapshot->summarising) // the dialog comes with the values made before the failure
            break;
        // Like a debugger stopping at an unhandled exception: a dialog says what failed, after the views show where.
        // Not when the comparison that started this run has already said so.
        if (m_quietFailures > 0) {
            --m_quietFailures;
        } else {
            QTimer::singleShot(0, this, [this, text] {
                showProblem(QStringLiteral("Run failed"), text.mid(QStringLiteral("Failed: ").size()),
                    QStringLiteral(
                        "The node is marked red in the graph. The values computed before it stay in the Values dock."));
            });
        }
        break;
    default:
        text = stopStatusText(*snapshot);
        break;
    }
    m_window->statusBar()->clearMessage(); // a passing message would hide why the run stopped
    m_status->setText(text);
    m_status->setToolTip(text); // the whole of it, when the status bar cuts it
    m_valueView->setStopStatus(text);
    onStateChanged(m_controller->state());
    if (snapshot->summarising) // the position only: the inspector and a YieldOp's dialog wait for the values
        return;

    // The inspector follows the selection: at the end of a run, a node selected in the graph (the first divergence of
    // a comparison) shows its value; while stepping, and without a selection, what the last node produced, like a
    // debugger's "autos".
    GraphView* view = m_window->graphView();
    const uint64_t inspectedBefore = m_valueView->shownCount();
    if (const NodeId selected = view->selectedNode();
        snapshot->reason == StopReason::Finished && selected >= 0 && view->currentGraph()) {
        onGraphNodeSelected(view->currentGraph(), selected);
    } else if (snapshot->lastGraph && snapshot->lastNode >= 0) {
        const Node& last = snapshot->lastGraph->node(snapshot->lastNode);
        for (ValueId out : last.outputs) {
            if (out == kNoValue)
                continue;
            const std::string& name = snapshot->lastGraph->value(out).name;
            for (size_t i = snapshot->values.size(); i-- > 0;) {
                const auto& r = snapshot->values[i].record;
                if (r.name == name && r.graph == snapshot->lastGraph) {
                    m_valueView->inspect(static_cast<int>(i));
                    m_values->selectValue(static_cast<int>(i));
                    break;
                }
            }
            break;
        }
    }
    // Nothing new was shown (a reverse move back to a frame's entry or the start, a selected node that has not run):
    // the value the inspector shows is the one of this position, or it says that it is not made yet.
    if (m_valueView->shownCount() == inspectedBefore && m_valueView->showsRunValue())
        m_valueView->follow(*snapshot);
    if (snapshot->reason == StopReason::YieldOp && m_autoYieldDialog)
        openYieldDialog();
    emit viewsUpdated();
}

void DebuggerUi::applyGraphState()
{
    GraphView* view = m_window->graphView();
    const DebugSnapshotPtr s = m_shown;
    showRunState(*view, s.get(), *m_breakpoints);
    if (!s)
        return;
    const FrameSnapshot* inner = s->innermost();
    if (s->failedGraph && s->failedNode >= 0) {
        view->centerOnNode(s->failedGraph, s->failedNode, false);
        m_window->inspector()->showNode(s->failedGraph, s->failedNode);
    } else if (inner && inner->position >= 0) {
        view->centerOnNode(inner->graph, inner->position, false);
        m_window->inspector()->showNode(inner->graph, inner->position);
    } else if (inner && inner->graph != view->currentGraph()) {
        view->showGraph(inner->graph);
    }
}

void DebuggerUi::applyDecorations()
{
    decorateRun(*m_window->graphView(), m_shown.get(), *m_breakpoints, m_colourByTime);
}

void DebuggerUi::onFrameSelected(const FrameSnapshot& frame, bool)
{
    m_values->setFrameFilter(frame.id, QString::fromStdString(frame.label));
    GraphView* view = m_window->graphView();
    if (frame.position >= 0)
        view->centerOnNode(frame.graph, frame.position, false);
    else
        view->showGraph(frame.graph);
}

void DebuggerUi::onGraphNodeSelected(const Graph* graph, NodeId node)
{
    m_actions->setSelectedNode(graph, node);
    onStateChanged(m_controller->state());
    const DebugSnapshotPtr s = m_controller->snapshot();
    if (!s || !graph || node < 0 || m_controller->state() == DebuggerState::Running)
        return;
    for (ValueId out : graph->node(node).outputs) {
        if (out != kNoValue) {
            m_valueView->inspectLatest(graph, graph->value(out).name);
            return;
        }
    }
}

void DebuggerUi::onGraphValueSelected(const Graph* graph, ValueId value)
{
    if (!graph || value < 0)
        return;
    const ValueInfo& info = graph->value(value);
    if (m_controller->snapshot() && m_controller->state() != DebuggerState::Running
        && m_valueView->inspectLatest(graph, info.name))
        return;
    if (info.initializer && graph->model() && !m_inspector->isPinned()) {
        try {
            m_inspector->setTensor(QString::fromStdString(info.name) + QStringLiteral(" (initializer)"),
                graph->model()->initializer(info));
            m_valueView->setShowsRunValue(false);
        } catch (const std::exception& e) {
            m_status->setText(QString::fromStdString(e.what()));
        }
    }
}

YieldDialog* DebuggerUi::openYieldDialog()
{
    const DebugSnapshotPtr s = m_controller->snapshot();
    if (!s || s->reason != StopReason::YieldOp)
        return nullptr;
    if (m_yieldDialog)
        m_yieldDialog->deleteLater();
    auto* dialog = new YieldDialog(*s, m_controller->rememberedYieldOutputs(), m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_yieldDialog = dialog;
    connect(dialog, &QDialog::accepted, this, [this, dialog] { dialog->answer(*m_controller); });
    dialog->open();
    return dialog;
}

void DebuggerUi::scheduleRun(const QStringList& inputs, const QString& node, const QString& inspect)
{
    auto* once = new QObject(this);
    connect(m_window, &MainWindow::modelOpened, once, [this, once, inputs, node, inspect] {
        once->deleteLater();
        for (const QString& item : inputs) {
            const QString name = item.section(QLatin1Char('='), 0, 0);
            m_inputs->setFile(name, item.section(QLatin1Char('='), 1));
        }
        if (!inspect.isEmpty()) {
            auto* after = new QObject(this);
            connect(m_controller, &DebugController::stopped, after, [this, after, inspect] {
                after->deleteLater();
                const QString value = inspect.section(QLatin1Char(':'), 0, 0);
                const QString tab = inspect.section(QLatin1Char(':'), 1);
                const int row = m_values->model()->rowOf(value.toStdString());
                if (row >= 0) {
                    m_valueView->inspect(row);
                    m_values->selectValue(row);
                }
                if (tab == QStringLiteral("heatmap"))
                    m_inspector->tabs()->setCurrentIndex(TensorInspector::HeatmapTab);
                else if (tab == QStringLiteral("histogram"))
                    m_inspector->tabs()->setCurrentIndex(TensorInspector::HistogramTab);
            });
        }
        if (!m_inputs->validate()) {
            m_inputsDock->raise();
            return;
        }
        if (node.isEmpty())
            m_controller->continueRun();
        else
            m_controller->runTo(node);
    });
}

void DebuggerUi::restoreStatus()
{
    const DebuggerState state = m_controller->state();
    const bool stopped
        = state == DebuggerState::Paused || state == DebuggerState::Finished || state == DebuggerState::Failed;
    if (const QString& text = m_valueView->stopStatus(); stopped && !text.isEmpty()) {
        m_status->setText(text);
        m_status->setToolTip(text);
    } else {
        m_status->setToolTip(QString());
        onStateChanged(state);
    }
}

QString DebuggerUi::guessedSizesNote() const
{
    const QStringList guessed = m_inputs ? m_inputs->guessedDimensions() : QStringList();
    if (guessed.isEmpty())
        return {};
    return QStringLiteral(" \u2014 sizes guessed for the generated inputs: %1 (set them in Inputs \u203a Dimensions)")
        .arg(guessed.join(QStringLiteral(", ")));
}

void DebuggerUi::showProblem(const QString& title, const QString& message, const QString& hint)
{
    m_lastProblem = QStringLiteral("%1: %2").arg(title, message);
    ++m_problemCount;
    if (qEnvironmentVariableIsSet("ONNXSCOPE_NO_DIALOGS"))
        return;
    // Not modal: the user goes on inspecting the graph and the values with it open. One at a time.
    if (!m_problemBox) {
        m_problemBox = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, m_window);
        m_problemBox->setObjectName(QStringLiteral("debuggerProblemDialog"));
        m_problemBox->setAttribute(Qt::WA_DeleteOnClose);
        m_problemBox->setWindowModality(Qt::NonModal);
        m_problemBox->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_problemBox->setWindowTitle(title);
    m_problemBox->setText(message);
    m_problemBox->setInformativeText(hint);
    m_problemBox->show();
    m_problemBox->raise();
}

void DebuggerUi::reportError(const QString& title, const QString& message)
{
    m_status->setText(QStringLiteral("%1: %2").arg(title, message));
    QMessageBox box(QMessageBox::Warning, title, message, QMessageBox::Ok, m_window);
    box.setObjectName(QStringLiteral("debuggerErrorDialog"));
    if (!qEnvironmentVariableIsSet("ONNXSCOPE_NO_DIALOGS"))
        box.exec();
}

void DebuggerUi::showExportDialog(const QString& format)
{
    if (format == QStringLiteral("tensor") && !m_inspector->tensor().defined()) {
        m_status->setText(QStringLiteral("Select a tensor to export first."));
        return;
    }
    const QString path = m_window->document()->path();
    const QString base = path.isEmpty() ? QStringLiteral("values") : QFileInfo(path).completeBaseName();
    m_exports->showDialog(format, base, m_inspector->tensor(), m_inspector->title().section(QLatin1Char(' '), 0, 0));
}

bool DebuggerUi::exportSelectedTensor(const QString& path)
{
    return m_exports->exportTensor(path, m_inspector->tensor(), m_inspector->title().section(QLatin1Char(' '), 0, 0));
}

} // namespace onnxscope
