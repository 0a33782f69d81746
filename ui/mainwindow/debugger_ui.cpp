// SPDX-License-Identifier: MIT
#include "ui/mainwindow/debugger_ui.h"

#include "engine/core/thread_pool.h"
#include "ui/common/elided_label.h"
#include "ui/common/model_document.h"
#include "ui/common/tensor_format.h"
#include "ui/debugger/debugger_panels.h"
#include "ui/debugger/yield_dialog.h"
#include "ui/export/value_export.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/compare_ui.h"
#include "ui/mainwindow/main_window.h"
#include "ui/nodeinspector/node_inspector.h"
#include "ui/tensorinspector/tensor_inspector.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>

#include <algorithm>
#include <cmath>
#include <set>

namespace onnxscope {

namespace {

QDockWidget* makeDock(const QString& title, const QString& objectName, QWidget* content, QWidget* parent)
{
    auto* dock = new QDockWidget(title, parent);
    dock->setObjectName(objectName);
    dock->setWidget(content);
    dock->setAllowedAreas(Qt::AllDockWidgetAreas);
    return dock;
}

QString valueLabel(const RecordedValue& r)
{
    QString label = QString::fromStdString(r.name);
    if (r.framePath != "main")
        label += QStringLiteral(" @ ") + QString::fromStdString(r.framePath);
    return label;
}

QString shortType(const Value& v)
{
    const Value* inner = v.isOptional() ? v.optionalValue() : &v;
    if (inner && inner->isTensor())
        return QStringLiteral("%1 %2").arg(QString::fromUtf8(dataTypeName(inner->tensor().dtype()).data()), formatShape(inner->tensor().shape()));
    return QString::fromStdString(v.typeString());
}

/// White through amber to red as t goes from 0 to 1.
QColor heat(double t)
{
    t = std::clamp(t, 0.0, 1.0);
    const QColor a(0xff, 0xff, 0xff), b(0xff, 0xcc, 0x80), c(0xef, 0x53, 0x50);
    auto mix = [](const QColor& x, const QColor& y, double f) {
        return QColor::fromRgbF(x.redF() + (y.redF() - x.redF()) * f, x.greenF() + (y.greenF() - x.greenF()) * f, x.blueF() + (y.blueF() - x.blueF()) * f);
    };
    return t < 0.5 ? mix(a, b, t * 2) : mix(b, c, (t - 0.5) * 2);
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
        m_selectedGraph = nullptr;
        m_selectedNode = -1;
        updateOpTypeAction();
        onStateChanged(m_controller->state());
    });
    connect(m_window->inspector(), &NodeInspector::tensorRequested, this, [this](const QString& title, const Tensor& tensor) {
        m_inspector->setTensor(title, tensor);
        m_inspectorShowsRunValue = false;
    });
    m_compare = new CompareUi(m_window, this);
    onStateChanged(m_controller->state());
    onRunCleared();
}

DebuggerUi::~DebuggerUi() = default;

void DebuggerUi::createDocks()
{
    m_inputs = new InputsPanel(m_window);
    m_inputsDock = makeDock(QStringLiteral("Inputs"), QStringLiteral("inputsDock"), m_inputs, m_window);
    m_window->addDock(m_inputsDock, Qt::LeftDockWidgetArea);

    m_breakpointsPanel = new BreakpointsPanel(m_breakpoints, m_window);
    auto* breakpointsDock = makeDock(QStringLiteral("Breakpoints"), QStringLiteral("breakpointsDock"), m_breakpointsPanel, m_window);
    m_window->addDock(breakpointsDock, Qt::LeftDockWidgetArea);

    m_callStack = new CallStackPanel(m_window);
    auto* stackDock = makeDock(QStringLiteral("Call Stack"), QStringLiteral("callStackDock"), m_callStack, m_window);
    m_window->addDock(stackDock, Qt::LeftDockWidgetArea);

    m_values = new ValuesPanel(m_window);
    m_valuesDock = makeDock(QStringLiteral("Values"), QStringLiteral("valuesDock"), m_values, m_window);
    m_window->addDock(m_valuesDock, Qt::BottomDockWidgetArea);

    m_inspector = new TensorInspector(m_window);
    m_inspectorDock = makeDock(QStringLiteral("Tensor Inspector"), QStringLiteral("tensorInspectorDock"), m_inspector, m_window);
    m_window->addDock(m_inspectorDock, Qt::BottomDockWidgetArea);

    m_profile = new ProfilePanel(m_window);
    auto* profileDock = makeDock(QStringLiteral("Profile"), QStringLiteral("profileDock"), m_profile, m_window);
    m_window->addDock(profileDock, Qt::BottomDockWidgetArea);

    // Bottom: the values (tabbed with the profile and the window's Problems and Tensor docks) beside the inspector.
    // (Docks added to one area sit side by side; tabifying moves the second onto the first.)
    m_window->tabifyDockWidget(m_valuesDock, profileDock);
    for (const char* name : { "problemsDock", "tensorDock" })
        if (auto* dock = m_window->findChild<QDockWidget*>(QString::fromLatin1(name)); dock && m_window->dockWidgetArea(dock) == Qt::BottomDockWidgetArea)
            m_window->tabifyDockWidget(m_valuesDock, dock);
    m_valuesDock->raise();
    // Default sizes once the window is shown (sizes set before are not kept), unless MainWindow restored a saved
    // layout ("windowState" is where it keeps it).
    QTimer::singleShot(0, this, [this] {
        if (QSettings().contains(QStringLiteral("windowState")))
            return;
        m_window->resizeDocks({ m_valuesDock, m_inspectorDock }, { m_window->width() / 2, m_window->width() / 2 }, Qt::Horizontal);
        m_window->resizeDocks({ m_valuesDock }, { m_window->height() * 2 / 5 }, Qt::Vertical);
        // The inputs (a few rows of controls each) get the left column's room; Find keeps its box and a few results.
        if (auto* find = m_window->findChild<QDockWidget*>(QStringLiteral("findDock"));
            find && m_window->dockWidgetArea(find) == m_window->dockWidgetArea(m_inputsDock))
            m_window->resizeDocks({ find, m_inputsDock }, { 130, m_window->height() }, Qt::Vertical);
    });
    // Left: inputs, breakpoints and the call stack, tabbed.
    m_window->tabifyDockWidget(m_inputsDock, breakpointsDock);
    m_window->tabifyDockWidget(m_inputsDock, stackDock);
    m_inputsDock->raise();

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
    connect(m_profile, &ProfilePanel::nodeActivated, this, [this](const Graph* g, NodeId n) { m_window->graphView()->centerOnNode(g, n); });
    connect(m_inspector, &TensorInspector::exportRequested, this, [this] { showExportDialog(QStringLiteral("tensor")); });
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
    auto make = [this](const QString& text, const QKeySequence& key, const QString& tip) {
        auto* a = new QAction(text, this);
        a->setShortcut(key);
        a->setShortcutContext(Qt::ApplicationShortcut);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
        m_window->addAction(a);
        return a;
    };
    m_continue = make(QStringLiteral("Run"), QKeySequence(Qt::Key_F5), QStringLiteral("Run, or continue to the next breakpoint"));
    m_stepOver = make(QStringLiteral("Step Over"), QKeySequence(Qt::Key_F10), QStringLiteral("Run the next node (a subgraph runs whole)"));
    m_stepInto = make(QStringLiteral("Step Into"), QKeySequence(Qt::Key_F11), QStringLiteral("Enter the subgraph of the next node"));
    m_stepOut = make(QStringLiteral("Step Out"), QKeySequence(Qt::SHIFT | Qt::Key_F11), QStringLiteral("Finish the current subgraph"));
    m_runTo = make(QStringLiteral("Run to Selected Node"), QKeySequence(Qt::CTRL | Qt::Key_F10), QStringLiteral("Run until just before the selected node"));
    m_pause = make(QStringLiteral("Pause"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Pause), QStringLiteral("Pause at the next node boundary"));
    m_stop = make(QStringLiteral("Stop"), QKeySequence(Qt::SHIFT | Qt::Key_F5), QStringLiteral("Abandon the run"));
    m_restart = make(QStringLiteral("Restart"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5), QStringLiteral("Start the run again"));
    m_toggleBreakpoint = make(QStringLiteral("Toggle Breakpoint"), QKeySequence(Qt::Key_F9), QStringLiteral("Set or clear a breakpoint on the selected node"));

    auto needsInputs = [this] {
        const DebuggerState s = m_controller->state();
        if (s == DebuggerState::Paused)
            return true;
        if (m_inputs->validate())
            return true;
        m_inputsDock->show();
        m_inputsDock->raise();
        const QString error = m_inputs->revealFirstError();
        showProblem(QStringLiteral("Inputs not valid"),
            error.isEmpty() ? QStringLiteral("An input is not valid.") : error,
            QStringLiteral("The Inputs dock shows the error under the input. Fix it, then run again."));
        m_status->setText(QStringLiteral("Fix the inputs first \u2014 %1")
                              .arg(error.isEmpty() ? QStringLiteral("see the Inputs dock") : error));
        m_status->setToolTip(m_status->text());
        return false;
    };
    connect(m_continue, &QAction::triggered, this, [this, needsInputs] {
        if (needsInputs())
            m_controller->continueRun();
    });
    connect(m_stepOver, &QAction::triggered, this, [this, needsInputs] {
        if (needsInputs())
            m_controller->stepOver();
    });
    connect(m_stepInto, &QAction::triggered, this, [this, needsInputs] {
        if (needsInputs())
            m_controller->stepInto();
    });
    connect(m_stepOut, &QAction::triggered, m_controller, &DebugController::stepOut);
    connect(m_runTo, &QAction::triggered, this, [this, needsInputs] {
        if (needsInputs())
            runToSelected();
    });
    connect(m_pause, &QAction::triggered, m_controller, &DebugController::pause);
    connect(m_stop, &QAction::triggered, m_controller, &DebugController::stop);
    connect(m_restart, &QAction::triggered, this, [this] {
        if (m_inputs->validate())
            m_controller->restart();
    });
    connect(m_toggleBreakpoint, &QAction::triggered, this, &DebuggerUi::toggleBreakpoint);
    // "Break on Every Conv": an op-type breakpoint for the selected node's op, set or cleared (its text follows the
    // selection). With Run to and Toggle Breakpoint it is on a node's context menu.
    m_breakOnOpType = new QAction(QStringLiteral("Break on Every Node of This Op Type"), this);
    m_breakOnOpType->setCheckable(true);
    connect(m_breakOnOpType, &QAction::triggered, this, [this](bool on) {
        if (!m_selectedGraph || m_selectedNode < 0)
            return;
        const QString op = QString::fromStdString(m_selectedGraph->node(m_selectedNode).opType);
        for (const auto& b : m_breakpoints->breakpoints())
            if (b.kind == BreakpointSpec::Kind::OpType && b.pattern == op) {
                if (on)
                    m_breakpoints->setEnabled(b.id, true);
                else
                    m_breakpoints->remove(b.id);
                return;
            }
        if (on) {
            BreakpointSpec spec;
            spec.kind = BreakpointSpec::Kind::OpType;
            spec.pattern = op;
            m_breakpoints->add(spec);
        }
    });
    connect(m_breakpoints, &BreakpointModel::breakpointsChanged, this, &DebuggerUi::updateOpTypeAction);
    m_window->graphView()->setNodeActions({ m_runTo, m_toggleBreakpoint, m_breakOnOpType });

    m_menu = new QMenu(QStringLiteral("&Debug"), m_window);
    for (QAction* a : { m_continue, m_pause, m_stop, m_restart })
        m_menu->addAction(a);
    m_menu->addSeparator();
    for (QAction* a : { m_stepOver, m_stepInto, m_stepOut, m_runTo })
        m_menu->addAction(a);
    m_menu->addSeparator();
    m_menu->addAction(m_toggleBreakpoint);
    // Checked while an enabled NaN/Inf breakpoint is set, however it was set (here or in the Breakpoints dock).
    m_breakOnNonFinite = m_menu->addAction(QStringLiteral("Break on First NaN/Inf"));
    m_breakOnNonFinite->setCheckable(true);
    connect(m_breakOnNonFinite, &QAction::triggered, this, [this](bool on) {
        m_breakpoints->setBreakOnNonFinite(on);
        m_window->statusBar()->showMessage(on
                ? QStringLiteral("Runs stop after the first node that produces NaN or Inf (Breakpoints dock)")
                : QStringLiteral("Runs no longer stop at NaN or Inf"),
            5000);
    });
    connect(m_breakpoints, &BreakpointModel::breakpointsChanged, m_breakOnNonFinite,
        [this] { m_breakOnNonFinite->setChecked(m_breakpoints->breaksOnNonFinite()); });
    QAction* condition = m_menu->addAction(QStringLiteral("Add Conditional Breakpoint\u2026"));
    connect(condition, &QAction::triggered, this, [this] {
        m_breakpointsPanel->showAddDialog(BreakpointSpec::Kind::Condition, selectedNodeName());
    });
    m_menu->addSeparator();
    createThreadsMenu();
    QMenu* exportMenu = m_menu->addMenu(QStringLiteral("&Export Values"));
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
    bar->insertMenu(menus.isEmpty() ? nullptr : menus.last(), m_menu);

    m_window->mainToolBar()->addSeparator();
    for (QAction* a : { m_continue, m_stepOver, m_stepInto, m_stepOut, m_runTo, m_pause, m_stop, m_toggleBreakpoint })
        m_window->addToolBarAction(a);
}

void DebuggerUi::createThreadsMenu()
{
    // Like the CLI's --threads: how many threads one kernel may use. Every count up to the machine's, or powers of
    // two and the machine's count on a big one. Remembered across sessions; a paused run keeps its count.
    m_threadsMenu = m_menu->addMenu(QStringLiteral("&Threads"));
    m_threadsMenu->setToolTipsVisible(true);
    auto* group = new QActionGroup(m_threadsMenu);
    const int hardware = ThreadPool::hardwareThreads();
    QList<int> counts;
    for (int n = 1; n <= hardware; n = hardware <= 8 ? n + 1 : n * 2)
        counts << n;
    if (counts.last() != hardware)
        counts << hardware;
    const int saved = std::clamp(QSettings().value(QStringLiteral("debugger/threads"), hardware).toInt(), 1, hardware);
    for (int n : counts) {
        QString text = n == 1 ? QStringLiteral("1 Thread") : QStringLiteral("%1 Threads").arg(n);
        if (n == hardware && n > 1)
            text += QStringLiteral(" (every hardware thread)");
        QAction* a = m_threadsMenu->addAction(text);
        a->setCheckable(true);
        a->setData(n);
        a->setToolTip(QStringLiteral("Kernels of the next run use %1; a paused run keeps the count it started with")
                          .arg(n == 1 ? QStringLiteral("one thread") : QStringLiteral("up to %1 threads").arg(n)));
        group->addAction(a);
        connect(a, &QAction::triggered, this, [this, n] { setThreads(n); });
    }
    setThreads(counts.contains(saved) ? saved : hardware);
}

void DebuggerUi::setThreads(int threads)
{
    m_controller->setThreads(threads);
    const int applied = m_controller->threads();
    for (QAction* a : m_threadsMenu->actions())
        a->setChecked(a->data().toInt() == applied);
    QSettings().setValue(QStringLiteral("debugger/threads"), applied);
}

void DebuggerUi::onModelOpened()
{
    auto model = m_window->document()->model();
    // Breakpoints are remembered per model file, as the inputs are.
    const QString path = m_window->document()->path();
    m_selectedGraph = nullptr; // of the previous model, which may be gone
    m_selectedNode = -1;
    m_breakpointsKey.clear();
    if (path.isEmpty())
        m_breakpoints->clear();
    else
        m_breakpoints->restore(breakpointSettingsGroup(path));
    m_breakpointsKey = path.isEmpty() ? QString() : breakpointSettingsGroup(path);
    updateOpTypeAction();
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
    options.iterationRetention = mode == 0 ? IterationRetention::All : mode == 1 ? IterationRetention::LastN : IterationRetention::None;
    options.keepIterations = m_values->keepBox()->value();
    m_controller->setOptions(options);
}

void DebuggerUi::onStateChanged(DebuggerState state)
{
    const bool hasModel = state != DebuggerState::NoModel;
    const bool idle = hasModel && state != DebuggerState::Running;
    m_continue->setEnabled(idle);
    m_continue->setText(state == DebuggerState::Paused ? QStringLiteral("Continue") : QStringLiteral("Run"));
    m_stepOver->setEnabled(idle);
    m_stepInto->setEnabled(idle);
    m_stepOut->setEnabled(state == DebuggerState::Paused);
    m_runTo->setEnabled(idle && m_selectedNode >= 0);
    m_pause->setEnabled(state == DebuggerState::Running);
    m_stop->setEnabled(hasModel && state != DebuggerState::Ready);
    m_restart->setEnabled(hasModel);
    m_toggleBreakpoint->setEnabled(hasModel && m_selectedNode >= 0);
    const bool haveValues = idle && m_controller->snapshot() != nullptr;
    for (QAction* a : m_exportActions)
        a->setEnabled(haveValues || (a == m_exportActions.first() && m_inspector->tensor().defined()));
    switch (state) {
    case DebuggerState::NoModel:
        m_status->setText(QString());
        break;
    case DebuggerState::Ready:
        m_status->setText(QStringLiteral("Ready \u2014 F5 runs, F10 steps"));
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
        // Exported models leave most sizes symbolic, and the Inputs dock starts them at 1: a 1×1 image or a one-sample
        // signal fails in the first window or pooling node. Say which sizes the generated inputs had.
        if (const QStringList ones = m_inputs ? m_inputs->generatedDimensionsOfOne() : QStringList(); !ones.isEmpty()) {
            text += QStringLiteral(" \u2014 generated inputs used %1 = 1 (Inputs \u203a Dimensions)")
                        .arg(ones.join(QStringLiteral(", ")));
        }
        // Like a debugger stopping at an unhandled exception: a dialog says what failed, after the views show where.
        QTimer::singleShot(0, this, [this, text] {
            showProblem(QStringLiteral("Run failed"), text.mid(QStringLiteral("Failed: ").size()),
                QStringLiteral(
                    "The node is marked red in the graph. The values computed before it stay in the Values dock."));
        });
        break;
    default:
        text = QStringLiteral("Paused (%1)").arg(QString::fromUtf8(stopReasonName(snapshot->reason).data()));
        if (next)
            text += QStringLiteral(" before %1").arg(QString::fromStdString(next->displayName()));
        if (!snapshot->message.isEmpty() && snapshot->reason != StopReason::Step)
            text += QStringLiteral(" \u2014 ") + snapshot->message;
        // Inside a body, where the stop is in it comes first; the main graph's progress after.
        const QString mainProgress = QStringLiteral("%1 of %2").arg(snapshot->mainNodesDone).arg(snapshot->mainNodeCount);
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
    onStateChanged(m_controller->state());

    // Show what the last node produced, like a debugger's "autos".
    if (snapshot->lastGraph && snapshot->lastNode >= 0) {
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
    if (snapshot->reason == StopReason::YieldOp && m_autoYieldDialog)
        openYieldDialog();
    emit viewsUpdated();
}

void DebuggerUi::applyGraphState()
{
    GraphView* view = m_window->graphView();
    view->clearNodeStates();
    const DebugSnapshotPtr s = m_shown;
    if (!s)
        return;
    for (const auto& [graph, nodes] : s->executed)
        for (NodeId n : nodes)
            view->setNodeState(graph, n, NodeState::Done);
    for (size_t i = 0; i < s->frames.size(); ++i) {
        const FrameSnapshot& f = s->frames[i];
        if (i > 0 && f.ownerNode >= 0)
            view->setNodeState(s->frames[i - 1].graph, f.ownerNode, NodeState::Current);
    }
    if (const BreakpointSpec* b = s->breakpointId > 0 ? m_breakpoints->find(s->breakpointId) : nullptr; s->lastGraph
        && s->lastNode >= 0
        && (s->reason == StopReason::NonFinite || (b && b->kind == BreakpointSpec::Kind::Condition)))
        view->setNodeState(s->lastGraph, s->lastNode, NodeState::Tripped);
    const FrameSnapshot* inner = s->innermost();
    if (s->failedGraph && s->failedNode >= 0) {
        view->setNodeState(s->failedGraph, s->failedNode, NodeState::Failed);
        view->centerOnNode(s->failedGraph, s->failedNode, false);
        m_window->inspector()->showNode(s->failedGraph, s->failedNode);
    } else if (inner && inner->position >= 0) {
        view->setNodeState(inner->graph, inner->position, NodeState::Current);
        view->centerOnNode(inner->graph, inner->position, false);
        m_window->inspector()->showNode(inner->graph, inner->position);
    } else if (inner && inner->graph != view->currentGraph()) {
        view->showGraph(inner->graph);
    }
}

void DebuggerUi::applyDecorations()
{
    GraphScene* scene = m_window->graphView()->scene();
    const Graph* graph = scene->viewGraph().graph;
    if (!graph)
        return;
    const DebugSnapshotPtr s = m_shown;
    std::set<std::string> breakNodes, breakOps;
    for (const auto& b : m_breakpoints->breakpoints()) {
        if (!b.enabled)
            continue;
        if (b.kind == BreakpointSpec::Kind::Node || (b.kind == BreakpointSpec::Kind::Condition && !b.pattern.isEmpty()))
            breakNodes.insert(b.pattern.toStdString());
        else if (b.kind == BreakpointSpec::Kind::OpType)
            breakOps.insert(b.pattern.toStdString());
    }
    std::map<NodeId, const NodeTiming*> timing;
    double maxMs = 0;
    if (s)
        for (const NodeTiming& t : s->timings)
            if (t.graph == graph) {
                timing[t.node] = &t;
                maxMs = std::max(maxMs, static_cast<double>(t.total.count()) / 1e6);
            }
    for (NodeItem* item : scene->nodeItems()) {
        const ViewItem& vi = item->viewItem();
        if (vi.kind != ViewItem::Kind::Node || vi.node < 0) {
            item->setBreakpointMarker(false);
            item->setHeatColour({});
            continue;
        }
        const Node& node = graph->node(vi.node);
        item->setBreakpointMarker(breakNodes.count(node.displayName()) || breakOps.count(node.opType));
        QString note;
        const auto t = timing.find(vi.node);
        if (t != timing.end())
            note = QStringLiteral("Time: %1 ms (%2 call%3)").arg(static_cast<double>(t->second->total.count()) / 1e6, 0, 'f', 3).arg(t->second->calls).arg(t->second->calls == 1 ? QString() : QStringLiteral("s"));
        if (s && s->failedGraph == graph && s->failedNode == vi.node)
            note = QStringLiteral("Failed: %1").arg(s->message);
        else if (item->state() == NodeState::Tripped && s && s->lastGraph == graph && s->lastNode == vi.node)
            note = QStringLiteral("Stopped the run: %1").arg(s->message);
        item->setDebugNote(note);
        if (m_colourByTime && t != timing.end() && maxMs > 0)
            item->setHeatColour(heat(std::sqrt(static_cast<double>(t->second->total.count()) / 1e6 / maxMs)));
        else
            item->setHeatColour({});
    }
    // Executed edges show the actual type and shape of what flowed on them.
    std::map<std::string, const Value*> latest;
    if (s)
        for (const auto& v : s->values)
            if (v.record.graph == graph && !v.record.dropped)
                latest[v.record.name] = &v.record.value;
    for (EdgeItem* edge : scene->edgeItems()) {
        const ViewEdge& e = edge->viewEdge();
        QString label;
        if (e.values.size() == 1 && e.values.front() != kNoValue) {
            auto it = latest.find(graph->value(e.values.front()).name);
            if (it != latest.end())
                label = shortType(*it->second);
        }
        edge->setActualLabel(label);
    }
    // So do the graph's inputs and outputs, whose declared types may be symbolic or missing (function bodies).
    for (NodeItem* item : scene->nodeItems()) {
        const ViewItem& vi = item->viewItem();
        QString label;
        if ((vi.kind == ViewItem::Kind::Input || vi.kind == ViewItem::Kind::Output) && vi.value != kNoValue)
            if (auto it = latest.find(graph->value(vi.value).name); it != latest.end())
                label = shortType(*it->second);
        item->setActualSubtitle(label == vi.subtitle ? QString() : label);
    }
}

QString DebuggerUi::selectedNodeName() const
{
    if (!m_selectedGraph || m_selectedNode < 0)
        return {};
    return QString::fromStdString(m_selectedGraph->node(m_selectedNode).displayName());
}

void DebuggerUi::toggleBreakpoint()
{
    const QString name = selectedNodeName();
    if (name.isEmpty()) {
        m_status->setText(QStringLiteral("Select a node to toggle its breakpoint."));
        return;
    }
    const bool on = m_breakpoints->toggleNode(name);
    m_window->statusBar()->showMessage(on ? QStringLiteral("Breakpoint set on %1").arg(name) : QStringLiteral("Breakpoint removed from %1").arg(name), 3000);
}

void DebuggerUi::runToSelected()
{
    const QString name = selectedNodeName();
    if (name.isEmpty()) {
        m_status->setText(QStringLiteral("Select the node to run to."));
        return;
    }
    m_controller->runTo(name);
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
    const DebugSnapshotPtr s = m_controller->snapshot(); // keeps the value alive while it is shown
    const RecordedValue* found = recordedValue(valueIndex);
    if (!found)
        return;
    const RecordedValue& r = *found;
    if (r.dropped) {
        m_inspector->clear();
        m_status->setText(QStringLiteral("%1 was dropped to stay under the memory budget").arg(valueLabel(r)));
        return;
    }
    QString title = valueLabel(r);
    if (r.graph && r.producer >= 0)
        title += QStringLiteral("  \u2190 %1 (%2)").arg(QString::fromStdString(r.graph->node(r.producer).displayName()), QString::fromStdString(r.graph->node(r.producer).opType));
    m_inspector->setValue(title, r.value);
    m_inspectorShowsRunValue = true;
    onStateChanged(m_controller->state());
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

void DebuggerUi::updateOpTypeAction()
{
    if (!m_breakOnOpType)
        return;
    const bool have = m_selectedGraph && m_selectedNode >= 0;
    const QString op = have ? QString::fromStdString(m_selectedGraph->node(m_selectedNode).opType) : QString();
    m_breakOnOpType->setEnabled(have);
    m_breakOnOpType->setText(
        have ? QStringLiteral("Break on Every %1").arg(op) : QStringLiteral("Break on Every Node of This Op Type"));
    bool set = false;
    for (const auto& b : m_breakpoints->breakpoints())
        set |= have && b.kind == BreakpointSpec::Kind::OpType && b.pattern == op && b.enabled;
    m_breakOnOpType->setChecked(set);
}

void DebuggerUi::onGraphNodeSelected(const Graph* graph, NodeId node)
{
    m_selectedGraph = graph;
    m_selectedNode = node;
    updateOpTypeAction();
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
    if (info.initializer && graph->model()) {
        try {
            m_inspector->setTensor(QString::fromStdString(info.name) + QStringLiteral(" (initializer)"), graph->model()->initializer(info));
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

void DebuggerUi::showProblem(const QString& title, const QString& message, const QString& hint)
{
    m_lastProblem = QStringLiteral("%1: %2").arg(title, message);
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
    const DebugSnapshotPtr s = m_controller->snapshot();
    if (!s) {
        reportError(QStringLiteral("Export failed"), QStringLiteral("Nothing to export: run the model first."));
        return false;
    }
    try {
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
    const QString base = m_window->document()->path().isEmpty() ? QStringLiteral("values") : QFileInfo(m_window->document()->path()).completeBaseName();
    QString path;
    if (format == QStringLiteral("tensor")) {
        if (!m_inspector->tensor().defined()) {
            m_status->setText(QStringLiteral("Select a tensor to export first."));
            return;
        }
        path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Export tensor"), safeFileName(m_inspector->title().section(QLatin1Char(' '), 0, 0)) + QStringLiteral(".npy"),
            QStringLiteral("numpy (*.npy);;TensorProto (*.pb);;CSV (*.csv)"));
        if (!path.isEmpty())
            exportSelectedTensor(path);
        return;
    }
    if (format == QStringLiteral("npy") || format == QStringLiteral("pb"))
        path = QFileDialog::getExistingDirectory(m_window, QStringLiteral("Folder for the %1 files").arg(format));
    else if (format == QStringLiteral("npz"))
        path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Export all values"), base + QStringLiteral("_values.npz"), QStringLiteral("numpy archive (*.npz)"));
    else if (format == QStringLiteral("json"))
        path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Export summary"), base + QStringLiteral("_values.json"), QStringLiteral("JSON (*.json)"));
    else
        path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Export debug model"), base + QStringLiteral("_debug.onnx"), QStringLiteral("ONNX (*.onnx)"));
    if (!path.isEmpty())
        exportAll(path, format);
}

} // namespace onnxscope
