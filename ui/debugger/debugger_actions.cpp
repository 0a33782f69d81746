// SPDX-License-Identifier: MIT
#include "ui/debugger/debugger_actions.h"

#include "engine/core/thread_pool.h"
#include "ui/common/settings.h"
#include "ui/debugger/breakpoint_model.h"
#include "ui/debugger/debug_controller.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QWidget>

#include <algorithm>

namespace onnxscope {

DebuggerActions::DebuggerActions(DebugController* controller, BreakpointModel* breakpoints, QWidget* window)
    : QObject(window)
    , m_controller(controller)
    , m_breakpoints(breakpoints)
{
    createActions(window);
    createMenu(window);
    connect(m_controller, &DebugController::stateChanged, this, &DebuggerActions::updateEnabled);
    connect(m_breakpoints, &BreakpointModel::breakpointsChanged, this, &DebuggerActions::updateOpTypeAction);
    // Checked while an enabled NaN/Inf breakpoint is set, however it was set (here or in the Breakpoints dock).
    connect(m_breakpoints, &BreakpointModel::breakpointsChanged, m_breakOnNonFinite,
        [this] { m_breakOnNonFinite->setChecked(m_breakpoints->breaksOnNonFinite()); });
    updateOpTypeAction();
    updateEnabled();
}

DebuggerActions::~DebuggerActions() = default;

void DebuggerActions::createActions(QWidget* window)
{
    auto make = [this, window](const QString& text, const QKeySequence& key, const QString& tip) {
        auto* a = new QAction(text, this);
        a->setShortcut(key);
        a->setShortcutContext(Qt::ApplicationShortcut);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
        window->addAction(a);
        return a;
    };
    m_continue = make(
        QStringLiteral("Run"), QKeySequence(Qt::Key_F5), QStringLiteral("Run, or continue to the next breakpoint"));
    m_stepOver = make(QStringLiteral("Step Over"), QKeySequence(Qt::Key_F10),
        QStringLiteral("Run the next node (a subgraph runs whole)"));
    m_stepInto = make(
        QStringLiteral("Step Into"), QKeySequence(Qt::Key_F11), QStringLiteral("Enter the subgraph of the next node"));
    m_stepOut = make(QStringLiteral("Step Out"), QKeySequence(Qt::SHIFT | Qt::Key_F11),
        QStringLiteral("Finish the current subgraph"));
    m_runTo = make(QStringLiteral("Run to Selected Node"), QKeySequence(Qt::CTRL | Qt::Key_F10),
        QStringLiteral("Run until just before the selected node"));
    m_stepBack = make(QStringLiteral("Step Back"), QKeySequence(Qt::ALT | Qt::Key_BracketLeft),
        QStringLiteral("Go back over the last node run in this subgraph (gdb's reverse-next)"));
    m_stepBackInto = make(QStringLiteral("Step Back Into"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_BracketLeft),
        QStringLiteral("Go back one step, into the end of a subgraph (gdb's reverse-step)"));
    m_stepBackOut = make(QStringLiteral("Step Back Out"), QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key_BracketLeft),
        QStringLiteral("Go back to just before the node that runs this subgraph (gdb's reverse-finish)"));
    m_reverseContinue = make(QStringLiteral("Reverse Continue"), QKeySequence(Qt::ALT | Qt::SHIFT | Qt::Key_F5),
        QStringLiteral("Go back to the previous breakpoint hit (gdb's reverse-continue)"));
    m_runBackTo = make(QStringLiteral("Run Back to Selected Node"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_F10),
        QStringLiteral("Go back to just before the latest earlier run of the selected node"));
    m_pause = make(QStringLiteral("Pause"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Pause),
        QStringLiteral("Pause at the next node boundary"));
    m_stop = make(QStringLiteral("Stop"), QKeySequence(Qt::SHIFT | Qt::Key_F5), QStringLiteral("Abandon the run"));
    m_restart = make(QStringLiteral("Restart"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5),
        QStringLiteral("Start the run again"));
    m_toggleBreakpoint = make(QStringLiteral("Toggle Breakpoint"), QKeySequence(Qt::Key_F9),
        QStringLiteral("Set or clear a breakpoint on the selected node"));

    connect(m_continue, &QAction::triggered, this, [this] {
        if (mayRun())
            m_controller->continueRun();
    });
    connect(m_stepOver, &QAction::triggered, this, [this] {
        if (mayRun())
            m_controller->stepOver();
    });
    connect(m_stepInto, &QAction::triggered, this, [this] {
        if (mayRun())
            m_controller->stepInto();
    });
    connect(m_stepOut, &QAction::triggered, m_controller, &DebugController::stepOut);
    connect(m_runTo, &QAction::triggered, this, [this] {
        if (mayRun())
            runToSelected();
    });
    connect(m_stepBack, &QAction::triggered, m_controller, &DebugController::stepBack);
    connect(m_stepBackInto, &QAction::triggered, m_controller, &DebugController::stepBackInto);
    connect(m_stepBackOut, &QAction::triggered, m_controller, &DebugController::stepBackOut);
    connect(m_reverseContinue, &QAction::triggered, m_controller, &DebugController::reverseContinue);
    connect(m_runBackTo, &QAction::triggered, this, [this] {
        const QString name = selectedNodeName();
        if (name.isEmpty()) {
            emit statusChanged(QStringLiteral("Select the node to run back to."));
            return;
        }
        m_controller->runBackTo(name);
    });
    connect(m_pause, &QAction::triggered, m_controller, &DebugController::pause);
    connect(m_stop, &QAction::triggered, m_controller, &DebugController::stop);
    connect(m_restart, &QAction::triggered, this, [this] {
        if (!m_runGuard || m_runGuard(false))
            m_controller->restart();
    });
    connect(m_toggleBreakpoint, &QAction::triggered, this, &DebuggerActions::toggleBreakpoint);
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
}

void DebuggerActions::createMenu(QWidget* window)
{
    m_menu = new QMenu(QStringLiteral("&Debug"), window);
    for (QAction* a : { m_continue, m_pause, m_stop, m_restart })
        m_menu->addAction(a);
    m_menu->addSeparator();
    for (QAction* a : { m_stepOver, m_stepInto, m_stepOut, m_runTo })
        m_menu->addAction(a);
    m_menu->addSeparator();
    for (QAction* a : { m_reverseContinue, m_stepBack, m_stepBackInto, m_stepBackOut, m_runBackTo })
        m_menu->addAction(a);
    m_menu->addSeparator();
    m_menu->addAction(m_toggleBreakpoint);
    m_breakOnNonFinite = m_menu->addAction(QStringLiteral("Break on First NaN/Inf"));
    m_breakOnNonFinite->setCheckable(true);
    connect(m_breakOnNonFinite, &QAction::triggered, this, [this](bool on) {
        m_breakpoints->setBreakOnNonFinite(on);
        emit messageShown(on
                ? QStringLiteral("Runs stop after the first node that produces NaN or Inf (Breakpoints dock)")
                : QStringLiteral("Runs no longer stop at NaN or Inf"),
            5000);
    });
    QAction* condition = m_menu->addAction(QStringLiteral("Add Conditional Breakpoint\u2026"));
    connect(condition, &QAction::triggered, this, [this] { emit conditionRequested(selectedNodeName()); });
    m_menu->addSeparator();
    m_recordProfile = m_menu->addAction(QStringLiteral("Record &Profile"));
    m_recordProfile->setObjectName(QStringLiteral("recordProfileAction"));
    m_recordProfile->setCheckable(true);
    m_recordProfile->setToolTip(QStringLiteral(
        "Runs go node by node and time every node for the Profile dock. Off, Continue and Run to run as fast as a "
        "plain run between breakpoints and the values are summarized after the stop"));
    m_recordProfile->setChecked(Settings::instance().recordProfile());
    m_controller->setRecordProfile(m_recordProfile->isChecked());
    connect(m_recordProfile, &QAction::toggled, this, [this](bool on) {
        m_controller->setRecordProfile(on);
        Settings::instance().setRecordProfile(on);
    });
    createThreadsMenu();
}

void DebuggerActions::createThreadsMenu()
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
    const int saved = std::clamp(Settings::instance().debuggerThreads(hardware), 1, hardware);
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

void DebuggerActions::setThreads(int threads)
{
    m_controller->setThreads(threads);
    const int applied = m_controller->threads();
    for (QAction* a : m_threadsMenu->actions())
        a->setChecked(a->data().toInt() == applied);
    Settings::instance().setDebuggerThreads(applied);
}

QList<QAction*> DebuggerActions::toolBarActions() const
{
    return { m_reverseContinue, m_stepBack, m_continue, m_stepOver, m_stepInto, m_stepOut, m_runTo, m_pause, m_stop,
        m_toggleBreakpoint };
}

QList<QAction*> DebuggerActions::nodeActions() const
{
    return { m_runTo, m_runBackTo, m_toggleBreakpoint, m_breakOnOpType };
}

void DebuggerActions::setSelectedNode(const Graph* graph, NodeId node)
{
    m_selectedGraph = graph;
    m_selectedNode = graph ? node : -1;
    updateOpTypeAction();
    updateEnabled();
}

QString DebuggerActions::selectedNodeName() const
{
    if (!m_selectedGraph || m_selectedNode < 0)
        return {};
    return QString::fromStdString(m_selectedGraph->node(m_selectedNode).displayName());
}

void DebuggerActions::updateEnabled()
{
    const DebuggerState state = m_controller->state();
    const bool hasModel = state != DebuggerState::NoModel;
    const bool idle = hasModel && state != DebuggerState::Running;
    m_continue->setEnabled(idle);
    m_continue->setText(state == DebuggerState::Paused ? QStringLiteral("Continue") : QStringLiteral("Run"));
    m_stepOver->setEnabled(idle);
    m_stepInto->setEnabled(idle);
    m_stepOut->setEnabled(state == DebuggerState::Paused);
    m_runTo->setEnabled(idle && m_selectedNode >= 0);
    const bool reverse = m_controller->canReverse();
    for (QAction* a : { m_stepBack, m_stepBackInto, m_stepBackOut, m_reverseContinue })
        a->setEnabled(reverse);
    m_runBackTo->setEnabled(reverse && m_selectedNode >= 0);
    m_pause->setEnabled(state == DebuggerState::Running);
    // Nothing to stop once the run has finished or failed (Restart and Run start again).
    m_stop->setEnabled(state == DebuggerState::Running || state == DebuggerState::Paused);
    m_restart->setEnabled(hasModel);
    m_toggleBreakpoint->setEnabled(hasModel && m_selectedNode >= 0);
}

void DebuggerActions::updateOpTypeAction()
{
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

bool DebuggerActions::mayRun() const
{
    return m_controller->state() == DebuggerState::Paused || !m_runGuard || m_runGuard(true);
}

void DebuggerActions::toggleBreakpoint()
{
    const QString name = selectedNodeName();
    if (name.isEmpty()) {
        emit statusChanged(QStringLiteral("Select a node to toggle its breakpoint."));
        return;
    }
    const bool on = m_breakpoints->toggleNode(name);
    emit messageShown(
        on ? QStringLiteral("Breakpoint set on %1").arg(name) : QStringLiteral("Breakpoint removed from %1").arg(name),
        3000);
}

void DebuggerActions::runToSelected()
{
    const QString name = selectedNodeName();
    if (name.isEmpty()) {
        emit statusChanged(QStringLiteral("Select the node to run to."));
        return;
    }
    m_controller->runTo(name);
}

} // namespace onnxscope
