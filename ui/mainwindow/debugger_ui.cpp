// SPDX-License-Identifier: MIT
#include "ui/mainwindow/debugger_ui.h"

#include "ui/common/elided_label.h"
#include "ui/common/model_document.h"
#include "ui/common/tensor_format.h"
#include "ui/debugger/debugger_panels.h"
#include "ui/debugger/run_decorations.h"
#include "ui/debugger/yield_dialog.h"
#include "ui/export/value_export.h"
#include "ui/graphview/graph_view.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/compare_ui.h"
#include "ui/mainwindow/main_window.h"
#include "ui/nodeinspector/node_inspector.h"
#include "ui/tensorinspector/tensor_inspector.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QScopeGuard>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace onnxscope {

namespace {

QString valueLabel(const RecordedValue& r)
{
    QString label = QString::fromStdString(r.name);
    if (r.framePath != "main")
        label += QStringLiteral(" @ ") + QString::fromStdString(r.framePath);
    return label;
}

/// Where a model file's breakpoints are kept in the settings.
QString breakpointSettingsGroup(const QString& modelPath)
{
    return modelSettingsGroup(QStringLiteral("breakpoints"), QFileInfo(modelPath).absoluteFilePath());
}

} // namespace

DebuggerUi::DebuggerUi(MainWindow* window)
    : QObject(window)
    , m_window(window)
    , m_controller(new DebugController(this))
    , m_breakpoints(new BreakpointModel(this))
    , m_inspector(window->tensorInspector())
{
    m_controller->setBreakpointModel(m_breakpoints);
    createDocks();
    createActions();
    m_controller->setInputSource([this] { return m_inputs->factory(); });

    m_status = new ElidedLabel(m_window); // a long failure ends in "…" (the tooltip has all of it)
    m_status->setObjectName(QStringLiteral("debuggerStatus"));
    m_window->statusBar()->addWidget(m_status, 1);

    connect(m_window, &MainWindow::modelOpened, this, &DebuggerUi::onModelOpened);
    connect(m_controller, &DebugController::stateChanged, this, &DebuggerUi::onStateChanged);
    connect(m_controller, &DebugController::stopped, this, &DebuggerUi::onStopped);
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
    connect(m_window->inspector(), &NodeInspector::tensorRequested, this, [this] { m_inspectorShowsRunValue = false; });
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
    // layout ("windowState" is where it keeps it).
    QTimer::singleShot(0, this, [this] {
        if (QSettings().contains(QStringLiteral("windowState")))
            return;
        // The graph gets the rest: the values a fifth of the height, the side columns what their tables need.
        m_window->resizeDocks({ m_valuesDock }, { m_window->height() / 5 }, Qt::Vertical);
        m_window->resizeDocks({ m_inputsDock, m_window->tensorInspectorDock() },
            { std::min(260, m_window->width() / 6), std::min(330, m_window->width() / 5) }, Qt::Horizontal);
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
    connect(m_values, &ValuesPanel::valueChosen, this, &DebuggerUi::inspectValue);
    connect(m_values, &ValuesPanel::valueActivated, this, &DebuggerUi::goToValue);
    connect(m_values, &ValuesPanel::retentionChanged, this, &DebuggerUi::updateRetention);
    // A value's context menu: where it comes from, export it, copy its name, or break when it meets a condition.
    auto* goToProducer = new QAction(QStringLiteral("Go to Producer in Graph"), this);
    connect(goToProducer, &QAction::triggered, this, [this] { goToValue(m_values->currentValueIndex()); });
    auto* exportValue = new QAction(QStringLiteral("Export Value\u2026"), this);
    connect(exportValue, &QAction::triggered, this, [this] { showExportDialog(QStringLiteral("tensor")); });
    auto* copyValueName = new QAction(QStringLiteral("Copy Name"), this);
    connect(copyValueName, &QAction::triggered, this, [this] {
        if (const RecordedValue* r = recordedValue(m_values->currentValueIndex()))
            QApplication::clipboard()->setText(QString::fromStdString(r->name));
    });
    auto* breakOnValue = new QAction(QStringLiteral("Break When This Value\u2026"), this);
    connect(breakOnValue, &QAction::triggered, this, [this] {
        const RecordedValue* r = recordedValue(m_values->currentValueIndex());
        if (!r || !r->graph || r->producer < 0)
            return;
        const Node& producer = r->graph->node(r->producer);
        int output = -1;
        for (size_t i = 0; i < producer.outputs.size(); ++i)
            if (producer.outputs[i] != kNoValue && r->graph->value(producer.outputs[i]).name == r->name)
                output = static_cast<int>(i);
        m_breakpointsPanel->showAddDialog(
            BreakpointSpec::Kind::Condition, QString::fromStdString(producer.displayName()), output);
    });
    m_values->setRowActions({ goToProducer, exportValue, copyValueName, breakOnValue });
    connect(m_values, &ValuesPanel::valueChosen, this, [this, goToProducer, breakOnValue](int index) {
        const RecordedValue* r = recordedValue(index);
        goToProducer->setEnabled(r && r->graph);
        breakOnValue->setEnabled(r && r->graph && r->producer >= 0); // not for the model's inputs
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
    m_stepConstants->setChecked(QSettings().value(QStringLiteral("debugger/stepConstants"), false).toBool());
    m_stepConstants->setToolTip(QStringLiteral("Stop before Constant nodes when stepping, and draw them as boxes of "
                                               "their own (off: they run without a stop)"));
    auto applyStepConstants = [this](bool on) {
        DebuggerOptions options = m_controller->options();
        options.stepConstants = on;
        m_controller->setOptions(options);
        m_window->graphView()->setFoldConstants(!on);
    };
    connect(m_stepConstants, &QAction::toggled, this, [applyStepConstants](bool on) {
        QSettings().setValue(QStringLiteral("debugger/stepConstants"), on);
        applyStepConstants(on);
    });
    applyStepConstants(m_stepConstants->isChecked());
    // The memory budget of debug runs: what they keep of the values and checkpoints; the rest is rebuilt on request.
    m_memoryBudgetAction = m_actions->menu()->addAction(QStringLiteral("&Memory Budget\u2026"));
    m_memoryBudgetAction->setObjectName(QStringLiteral("memoryBudgetAction"));
    m_memoryBudgetAction->setToolTip(QStringLiteral(
        "How much memory a debug run keeps for checkpoints (and, with Keep Every Value's Data, values: older ones "
        "beyond it are dropped, their statistics staying); a value whose data is not kept is rebuilt from the nearest "
        "checkpoint when it is inspected or exported"));
    connect(m_memoryBudgetAction, &QAction::triggered, this, &DebuggerUi::showMemoryBudgetDialog);
    // What a debug run keeps of each value: by default its summary, the data rebuilt when it is opened (a third of the
    // memory on ocr_det); checked, the data of every value within the budget (opening one needs no rebuild; about the
    // same time, 1.4-2.1x a plain run on the OCR models on AMD EPYC Zen 4 at AVX-512 and AVX2, docs/performance.md).
    m_keepValueData = m_actions->menu()->addAction(QStringLiteral("&Keep Every Value's Data"));
    m_keepValueData->setObjectName(QStringLiteral("keepValueDataAction"));
    m_keepValueData->setCheckable(true);
    m_keepValueData->setChecked(QSettings().value(QStringLiteral("debugger/keepValueData"), false).toBool());
    m_keepValueData->setToolTip(QStringLiteral(
        "Keep the data of every value within the memory budget, so that opening one needs no rebuild (off: only each "
        "value's summary is kept and a run needs far less memory; opening a value rebuilds it from the nearest "
        "checkpoint)"));
    auto applyKeepValueData = [this](bool on) {
        DebuggerOptions options = m_controller->options();
        options.retention = on ? ValueRetention::Values : ValueRetention::Summaries;
        m_controller->setOptions(options);
    };
    connect(m_keepValueData, &QAction::toggled, this, [applyKeepValueData](bool on) {
        QSettings().setValue(QStringLiteral("debugger/keepValueData"), on);
        applyKeepValueData(on);
    });
    applyKeepValueData(m_keepValueData->isChecked());
    m_memoryLabel = new QLabel(m_window);
    m_memoryLabel->setObjectName(QStringLiteral("memoryBudgetLabel"));
    m_window->statusBar()->addPermanentWidget(m_memoryLabel);
    setMemoryBudget(QSettings().value(QStringLiteral("debugger/memoryBudget"), 0).toULongLong());
    // Every intermediate to a folder, dropped values rebuilt as the writing reaches them, within the budget.
    m_exportAllAction = m_actions->menu()->addAction(QStringLiteral("Export A&ll\u2026"));
    m_exportAllAction->setObjectName(QStringLiteral("exportAllAction"));
    m_exportAllAction->setToolTip(
        QStringLiteral("Write every intermediate of this run to a folder: one .npy per value and manifest.json, as "
                       "onnxscope-cli run --dump-all writes them; values dropped to stay under the memory budget are "
                       "rebuilt on the way"));
    connect(m_exportAllAction, &QAction::triggered, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(
            m_window, QStringLiteral("Folder for every value (.npy files and manifest.json)"));
        if (!folder.isEmpty())
            exportAllValues(folder);
    });
    connect(m_controller, &DebugController::exportProgress, this, [this](qint64 done, qint64 total) {
        if (!m_exportProgress)
            return;
        m_exportProgress->setMaximum(static_cast<int>(std::max<qint64>(total, 1)));
        m_exportProgress->setValue(static_cast<int>(done));
    });
    connect(m_controller, &DebugController::valueRebuilt, this, &DebuggerUi::onValueRebuilt);
    connect(m_controller, &DebugController::exportFinished, this,
        [this](bool ok, bool cancelled, const QString& message, qint64) {
            if (m_exportProgress) {
                m_exportProgress->reset();
                m_exportProgress->deleteLater();
            }
            m_exportFolder.clear();
            m_lastExportMessage = message;
            onStateChanged(m_controller->state());
            if (ok)
                m_window->statusBar()->showMessage(QStringLiteral("Exported: %1").arg(message), 10000);
            else if (cancelled)
                m_window->statusBar()->showMessage(QStringLiteral("Export cancelled: %1").arg(message), 10000);
            else
                showProblem(QStringLiteral("Export failed"), message,
                    QStringLiteral("Choose a folder you can write to, with room for every value."));
            emit exportFinished(ok);
        });
    QMenu* exportMenu = m_actions->menu()->addMenu(QStringLiteral("&Export Values"));
    const std::pair<const char*, const char*> exports[] = {
        { "Selected Tensor (.npy, .pb, .csv)\u2026", "tensor" },
        { "All Values as .npz\u2026", "npz" },
        { "All Values as .npy Files\u2026", "npy" },
        { "All Values as TensorProto .pb Files\u2026", "pb" },
        { "Summary of All Values (JSON)\u2026", "json" },
        { "Debug Model (values as initializers)\u2026", "debug-model" },
    };
    for (const auto& [text, format] : exports) {
        QAction* a = exportMenu->addAction(QString::fromUtf8(text));
        const QString f = QString::fromLatin1(format);
        connect(a, &QAction::triggered, this, [this, f] { showExportDialog(f); });
        m_exportActions << a;
    }
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
    if (path.isEmpty())
        m_breakpoints->clear();
    else
        m_breakpoints->restore(breakpointSettingsGroup(path));
    m_breakpointsKey = path.isEmpty() ? QString() : breakpointSettingsGroup(path);
    m_inspector->clear();
    m_inputs->setModel(model, m_window->document()->path(), m_window->document());
    m_controller->setModel(model);
    QStringList nodes, ops;
    std::set<std::string> opSet;
    std::vector<const Graph*> stack { &model->graph() };
    while (!stack.empty()) {
        const Graph* g = stack.back();
        stack.pop_back();
        for (const Node& n : g->nodes()) {
            nodes << QString::fromStdString(n.displayName());
            opSet.insert(n.opType);
            for (const auto& [attr, sub] : n.subgraphs)
                stack.push_back(sub.get());
        }
    }
    for (const auto& op : opSet)
        ops << QString::fromStdString(op);
    nodes.removeDuplicates();
    m_breakpointsPanel->setNames(nodes, ops);
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

void DebuggerUi::setMemoryBudget(uint64_t bytes)
{
    m_memoryBudgetSet = bytes;
    DebuggerOptions options = m_controller->options();
    options.memoryBudget = bytes ? static_cast<size_t>(bytes) : defaultMemoryBudget();
    m_controller->setOptions(options);
    if (bytes)
        QSettings().setValue(QStringLiteral("debugger/memoryBudget"), static_cast<qulonglong>(bytes));
    else
        QSettings().remove(QStringLiteral("debugger/memoryBudget"));
    updateMemoryLabel();
}

uint64_t DebuggerUi::memoryBudget() const
{
    return m_controller->options().memoryBudget;
}

void DebuggerUi::updateMemoryLabel()
{
    const QString budget = formatBytes(memoryBudget()) + (m_memoryBudgetSet ? QString() : QStringLiteral(" (default)"));
    QString text = QStringLiteral("Memory budget %1").arg(budget);
    QString tip = QStringLiteral("Debug runs keep values and checkpoints within %1 (Debug \u203a Memory Budget\u2026); "
                                 "a change applies to the next run")
                      .arg(budget);
    if (const DebugSnapshotPtr s = m_shown) {
        text = QStringLiteral("%1 kept of %2").arg(formatBytes(s->recordedBytes + s->checkpointBytes), budget);
        tip += QStringLiteral("\nThis run keeps %1 of values and %2 in %3 checkpoint(s)")
                   .arg(formatBytes(s->recordedBytes), formatBytes(s->checkpointBytes))
                   .arg(s->checkpoints);
        size_t summarised = s->forgottenValues;
        for (const auto& v : s->values)
            summarised += v.record.dropped;
        if (summarised)
            text += QStringLiteral(", %1 as summaries").arg(summarised);
    }
    m_memoryLabel->setText(text);
    m_memoryLabel->setToolTip(tip);
}

void DebuggerUi::showMemoryBudgetDialog()
{
    QInputDialog dialog(m_window);
    dialog.setObjectName(QStringLiteral("memoryBudgetDialog"));
    dialog.setWindowTitle(QStringLiteral("Memory Budget"));
    dialog.setLabelText(QStringLiteral("Memory a debug run keeps for values and checkpoints (e.g. 512M, 4G; empty for "
                                       "the default, a quarter of the RAM: %1).\nApplies to the next run.")
                            .arg(formatBytes(defaultMemoryBudget())));
    dialog.setTextValue(m_memoryBudgetSet ? formatBytes(m_memoryBudgetSet) : QString());
    while (dialog.exec() == QDialog::Accepted) {
        const QString text = dialog.textValue().trimmed();
        if (text.isEmpty() || text.compare(QStringLiteral("default"), Qt::CaseInsensitive) == 0) {
            setMemoryBudget(0);
            return;
        }
        if (const auto bytes = parseBytes(text)) {
            setMemoryBudget(*bytes);
            return;
        }
        dialog.setLabelText(QStringLiteral("\"%1\" is not a size: give a number of bytes with K, M, G or T (powers of "
                                           "1024), e.g. 512M or 4G; empty for the default (%2).")
                                .arg(text, formatBytes(defaultMemoryBudget())));
    }
}

void DebuggerUi::onStateChanged(DebuggerState state)
{
    // The debugger's own actions follow the state by themselves (DebuggerActions); the export commands need values.
    const bool idle = state != DebuggerState::NoModel && state != DebuggerState::Running;
    const bool haveValues = idle && m_controller->snapshot() != nullptr;
    for (QAction* a : m_exportActions)
        a->setEnabled(haveValues || (a == m_exportActions.first() && m_inspector->tensor().defined()));
    if (m_exportAllAction)
        m_exportAllAction->setEnabled(haveValues && !m_controller->exporting());
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
    if (m_inspectorShowsRunValue) {
        m_inspector->clear();
        m_inspectorShowsRunValue = false;
    }
    m_shown.reset();
    updateMemoryLabel();
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
    updateMemoryLabel();
    m_values->setSnapshot(snapshot);
    m_values->setFrameFilter(0, {});
    m_callStack->setSnapshot(snapshot);
    m_profile->setSnapshot(snapshot);
    applyGraphState();
    applyDecorations();

    QString text;
    const Node* next = snapshot->nextNode();
    switch (snapshot->reason) {
    case StopReason::Finished:
        text = QStringLiteral("Finished \u2014 %1 values recorded").arg(snapshot->values.size());
        break;
    case StopReason::Failed:
        text = QStringLiteral("Failed: %1").arg(snapshot->message);
        // Exported models leave most sizes symbolic, and the Inputs dock can only guess them: a window or pooling node
        // may not fit. Say which sizes were guesses.
        text += guessedSizesNote();
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
        text = QStringLiteral("Paused (%1)").arg(QString::fromUtf8(stopReasonName(snapshot->reason).data()));
        if (next)
            text += QStringLiteral(" before %1").arg(QString::fromStdString(next->displayName()));
        if (!snapshot->message.isEmpty() && snapshot->reason != StopReason::Step)
            text += QStringLiteral(" \u2014 ") + snapshot->message;
        // Inside a body, where the stop is in it comes first; the main graph's progress after.
        const QString mainProgress
            = QStringLiteral("%1 of %2").arg(snapshot->mainNodesDone).arg(snapshot->mainNodeCount);
        if (const FrameSnapshot* f = snapshot->innermost(); f && snapshot->frames.size() > 1 && f->graph) {
            const auto count = static_cast<int64_t>(f->graph->nodes().size());
            text += QStringLiteral(" \u00b7 node %1 of %2 in %3, %4 in main")
                        .arg(f->position < 0 ? count : f->position)
                        .arg(count)
                        .arg(QString::fromStdString(f->label), mainProgress);
        } else {
            text += QStringLiteral(" \u00b7 node ") + mainProgress;
        }
        break;
    }
    m_window->statusBar()->clearMessage(); // a passing message would hide why the run stopped
    m_status->setText(text);
    m_status->setToolTip(text); // the whole of it, when the status bar cuts it
    m_stopStatus = text;
    onStateChanged(m_controller->state());

    // The inspector follows the selection: at the end of a run, a node selected in the graph (the first divergence of
    // a comparison) shows its value; while stepping, and without a selection, what the last node produced, like a
    // debugger's "autos".
    GraphView* view = m_window->graphView();
    const uint64_t inspectedBefore = m_inspectedStop;
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
                    inspectValue(static_cast<int>(i));
                    m_values->selectValue(static_cast<int>(i));
                    break;
                }
            }
            break;
        }
    }
    // Nothing new was shown (a reverse move back to a frame's entry or the start, a selected node that has not run):
    // the value the inspector shows is the one of this position, or it says that it is not made yet.
    if (m_inspectedStop == inspectedBefore && m_inspectorShowsRunValue)
        followInspectedValue(*snapshot);
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

const RecordedValue* DebuggerUi::recordedValue(int valueIndex) const
{
    const DebugSnapshotPtr s = m_controller->snapshot();
    if (!s || valueIndex < 0 || static_cast<size_t>(valueIndex) >= s->values.size())
        return nullptr;
    return &s->values[static_cast<size_t>(valueIndex)].record;
}

void DebuggerUi::goToValue(int valueIndex)
{
    inspectValue(valueIndex);
    if (const RecordedValue* r = recordedValue(valueIndex); r && r->graph)
        m_window->graphView()->centerOnValue(r->graph, r->graph->findValue(r->name));
}

void DebuggerUi::inspectValue(int valueIndex)
{
    if (m_inspector->isPinned())
        return;
    const DebugSnapshotPtr s = m_controller->snapshot(); // keeps the value alive while it is shown
    const RecordedValue* found = recordedValue(valueIndex);
    if (!found)
        return;
    const RecordedValue& r = *found;
    m_inspected = { r.graph, r.name.str(), r.ordinal };
    ++m_inspectedStop;
    if (r.dropped) {
        // Only its summary was kept: the worker rebuilds the data (from the frames of this position, or by a replay
        // from the nearest checkpoint), and valueRebuilt() shows it if it is still the value asked for.
        m_inspector->clear();
        m_rebuilding = m_controller->rebuildValue(r.ordinal) ? std::optional<uint64_t>(r.ordinal) : std::nullopt;
        m_inspectorShowsRunValue = m_rebuilding.has_value();
        m_status->setText(m_rebuilding
                ? QStringLiteral("Rebuilding %1 from the nearest checkpoint\u2026").arg(valueLabel(r))
                : QStringLiteral("%1 was dropped to stay under the memory budget").arg(valueLabel(r)));
        return;
    }
    m_rebuilding.reset();
    m_inspector->setValue(inspectedTitle(r), r.value);
    m_inspectorShowsRunValue = true;
    onStateChanged(m_controller->state());
}

QString DebuggerUi::inspectedTitle(const RecordedValue& r) const
{
    QString title = valueLabel(r);
    if (r.graph && r.producer >= 0)
        title += QStringLiteral("  \u2190 %1 (%2)")
                     .arg(QString::fromStdString(r.graph->node(r.producer).displayName()),
                         QString::fromStdString(r.graph->node(r.producer).opType));
    return title;
}

void DebuggerUi::onValueRebuilt(quint64 ordinal, const Value& value, const QString& error, double ms)
{
    if (!m_rebuilding || *m_rebuilding != ordinal || m_inspector->isPinned())
        return;
    m_rebuilding.reset();
    const DebugSnapshotPtr s = m_controller->snapshot();
    const RecordedValue* r = nullptr;
    if (s)
        for (const auto& v : s->values)
            if (v.record.ordinal == ordinal)
                r = &v.record;
    if (!r)
        return;
    if (value.isNone()) {
        m_inspectorShowsRunValue = false;
        const QString text = QStringLiteral("Could not rebuild %1: %2").arg(valueLabel(*r), error);
        m_status->setText(text);
        m_status->setToolTip(text);
        return;
    }
    m_inspector->setValue(inspectedTitle(*r), value);
    m_inspectorShowsRunValue = true;
    m_status->setText(m_stopStatus);
    m_status->setToolTip(QStringLiteral("%1: rebuilt in %2 ms").arg(valueLabel(*r)).arg(ms, 0, 'f', 1));
    onStateChanged(m_controller->state());
}

void DebuggerUi::followInspectedValue(const DebugSnapshot& snapshot)
{
    if (m_inspector->isPinned())
        return;
    // Values keep their ordinal (their place among every value the run made) when a reverse move makes them again.
    for (size_t i = snapshot.values.size(); i-- > 0;) {
        const RecordedValue& r = snapshot.values[i].record;
        if (r.ordinal == m_inspected.ordinal && r.graph == m_inspected.graph && r.name == m_inspected.name) {
            inspectValue(static_cast<int>(i));
            m_values->selectValue(static_cast<int>(i));
            return;
        }
    }
    m_inspector->clear();
    m_inspectorShowsRunValue = false;
    const QString note
        = QStringLiteral("%1 is not produced yet at this position").arg(QString::fromStdString(m_inspected.name));
    m_stopStatus += QStringLiteral(" \u2014 ") + note;
    m_status->setText(m_stopStatus);
    m_status->setToolTip(m_stopStatus);
}

void DebuggerUi::onFrameSelected(const FrameSnapshot& frame, bool innermost)
{
    m_values->setFrameFilter(frame.id, QString::fromStdString(frame.label));
    GraphView* view = m_window->graphView();
    if (frame.position >= 0)
        view->centerOnNode(frame.graph, frame.position, false);
    else
        view->showGraph(frame.graph);
    (void)innermost;
}

void DebuggerUi::onGraphNodeSelected(const Graph* graph, NodeId node)
{
    m_actions->setSelectedNode(graph, node);
    onStateChanged(m_controller->state());
    const DebugSnapshotPtr s = m_controller->snapshot();
    if (!s || !graph || node < 0 || m_controller->state() == DebuggerState::Running)
        return;
    for (ValueId out : graph->node(node).outputs) {
        if (out == kNoValue)
            continue;
        const std::string& name = graph->value(out).name;
        for (size_t i = s->values.size(); i-- > 0;)
            if (s->values[i].record.graph == graph && s->values[i].record.name == name) {
                inspectValue(static_cast<int>(i));
                m_values->selectValue(static_cast<int>(i));
                return;
            }
        return;
    }
}

void DebuggerUi::onGraphValueSelected(const Graph* graph, ValueId value)
{
    if (!graph || value < 0)
        return;
    const ValueInfo& info = graph->value(value);
    const DebugSnapshotPtr s = m_controller->snapshot();
    if (s && m_controller->state() != DebuggerState::Running)
        for (size_t i = s->values.size(); i-- > 0;)
            if (s->values[i].record.graph == graph && s->values[i].record.name == info.name) {
                inspectValue(static_cast<int>(i));
                m_values->selectValue(static_cast<int>(i));
                return;
            }
    if (info.initializer && graph->model() && !m_inspector->isPinned()) {
        try {
            m_inspector->setTensor(QString::fromStdString(info.name) + QStringLiteral(" (initializer)"),
                graph->model()->initializer(info));
            m_inspectorShowsRunValue = false;
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
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        std::map<std::string, Value> outputs;
        for (auto& [name, value] : dialog->outputs())
            if (!value.isNone())
                outputs[name] = value;
        const auto kept = dialog->keptOutputs();
        std::map<std::string, Value> replaced;
        for (const auto& [name, value] : outputs)
            if (std::find(kept.begin(), kept.end(), name) == kept.end())
                replaced[name] = value;
        for (const std::string& name : kept)
            m_controller->forgetYieldOutputs(name);
        m_controller->setYieldOutputs(replaced, dialog->remember());
        // Kept outputs are passed too, so that a replacement remembered earlier does not apply this time.
        std::map<std::string, Value> keptValues;
        for (const std::string& name : kept)
            if (outputs.count(name))
                keptValues[name] = outputs[name];
        m_controller->setYieldOutputs(keptValues, false);
        if (dialog->continueAfter())
            m_controller->continueRun();
    });
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
                    inspectValue(row);
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
    if (stopped && !m_stopStatus.isEmpty()) {
        m_status->setText(m_stopStatus);
        m_status->setToolTip(m_stopStatus);
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

bool DebuggerUi::exportAllValues(const QString& folder)
{
    if (!m_controller->exportValues(folder)) {
        m_status->setText(m_controller->exporting() ? QStringLiteral("An export is under way.")
                                                    : QStringLiteral("Nothing to export: run the model first."));
        return false;
    }
    m_exportFolder = folder;
    onStateChanged(m_controller->state());
    m_exportProgress = new QProgressDialog(
        QStringLiteral("Writing every value to %1\u2026").arg(folder), QStringLiteral("Cancel"), 0, 0, m_window);
    m_exportProgress->setObjectName(QStringLiteral("exportAllProgress"));
    m_exportProgress->setWindowTitle(QStringLiteral("Export All"));
    m_exportProgress->setWindowModality(Qt::WindowModal);
    m_exportProgress->setMinimumDuration(500);
    m_exportProgress->setAutoClose(false);
    m_exportProgress->setAutoReset(false);
    connect(m_exportProgress, &QProgressDialog::canceled, m_controller, &DebugController::cancelExport);
    return true;
}

bool DebuggerUi::exportSelectedTensor(const QString& path)
{
    try {
        exportTensor(path, m_inspector->tensor(), m_inspector->title().section(QLatin1Char(' '), 0, 0));
        m_window->statusBar()->showMessage(QStringLiteral("Exported %1").arg(path), 5000);
        return true;
    } catch (const std::exception& e) {
        reportError(QStringLiteral("Export failed"), QString::fromStdString(e.what()));
        return false;
    }
}

bool DebuggerUi::exportAll(const QString& path, const QString& format)
{
    if (!m_controller->snapshot()) {
        reportError(QStringLiteral("Export failed"), QStringLiteral("Nothing to export: run the model first."));
        return false;
    }
    try {
        // Every value's data: those the run kept only as summaries are rebuilt first.
        DebugSnapshotPtr s;
        {
            QApplication::setOverrideCursor(Qt::WaitCursor);
            const auto restore = qScopeGuard([] { QApplication::restoreOverrideCursor(); });
            s = m_controller->snapshotWithData();
        }
        if (!s)
            throw Error("a command or an export is under way");
        int count = 0;
        if (format == QStringLiteral("npz"))
            count = exportAllNpz(path, *s);
        else if (format == QStringLiteral("npy"))
            count = exportAllToFolder(path, *s, QStringLiteral(".npy"));
        else if (format == QStringLiteral("pb"))
            count = exportAllToFolder(path, *s, QStringLiteral(".pb"));
        else if (format == QStringLiteral("json")) {
            exportJsonSummary(path, *s);
            count = static_cast<int>(s->values.size());
        } else if (format == QStringLiteral("debug-model"))
            count = exportDebugModel(path, *s);
        else
            throw Error("unknown export format " + format.toStdString());
        m_window->statusBar()->showMessage(QStringLiteral("Exported %1 values to %2").arg(count).arg(path), 5000);
        return true;
    } catch (const std::exception& e) {
        reportError(QStringLiteral("Export failed"), QString::fromStdString(e.what()));
        return false;
    }
}

void DebuggerUi::showExportDialog(const QString& format)
{
    const QString base = m_window->document()->path().isEmpty()
        ? QStringLiteral("values")
        : QFileInfo(m_window->document()->path()).completeBaseName();
    QString path;
    if (format == QStringLiteral("tensor")) {
        if (!m_inspector->tensor().defined()) {
            m_status->setText(QStringLiteral("Select a tensor to export first."));
            return;
        }
        path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Export tensor"),
            safeFileName(m_inspector->title().section(QLatin1Char(' '), 0, 0)) + QStringLiteral(".npy"),
            QStringLiteral("numpy (*.npy);;TensorProto (*.pb);;CSV (*.csv)"));
        if (!path.isEmpty())
            exportSelectedTensor(path);
        return;
    }
    if (format == QStringLiteral("npy") || format == QStringLiteral("pb"))
        path = QFileDialog::getExistingDirectory(m_window, QStringLiteral("Folder for the %1 files").arg(format));
    else if (format == QStringLiteral("npz"))
        path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Export all values"),
            base + QStringLiteral("_values.npz"), QStringLiteral("numpy archive (*.npz)"));
    else if (format == QStringLiteral("json"))
        path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Export summary"),
            base + QStringLiteral("_values.json"), QStringLiteral("JSON (*.json)"));
    else
        path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Export debug model"),
            base + QStringLiteral("_debug.onnx"), QStringLiteral("ONNX (*.onnx)"));
    if (!path.isEmpty())
        exportAll(path, format);
}

} // namespace onnxscope
