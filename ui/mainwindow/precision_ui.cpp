// SPDX-License-Identifier: MIT
#include "ui/mainwindow/precision_ui.h"

#include "ui/common/model_document.h"
#include "ui/graphview/graph_view.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/main_window.h"
#include "ui/precision/precision_decorations.h"
#include "ui/precision/precision_panel.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QMenu>
#include <QStatusBar>

namespace onnxscope {

PrecisionUi::PrecisionUi(MainWindow* window, DebuggerUi* debugger)
    : QObject(window)
    , m_window(window)
    , m_debugger(debugger)
    , m_controller(new PrecisionController(this))
    , m_panel(new PrecisionPanel(window))
    , m_dock(MainWindow::makeDock(QStringLiteral("Precision"), QStringLiteral("precisionDock"), m_panel, window))
    , m_check(new QAction(QStringLiteral("Check Precision\u2026"), this))
{
    m_window->addDock(m_dock, Qt::BottomDockWidgetArea);
    if (QDockWidget* values = m_debugger->valuesDock(); m_window->dockWidgetArea(values) == Qt::BottomDockWidgetArea) {
        m_window->tabifyDockWidget(values, m_dock);
        values->raise();
    }
    m_check->setToolTip(QStringLiteral("Which values overflow or flush to zero in float16 or bfloat16, and which nodes "
                                       "must stay in float32 (the Precision dock)"));
    if (QMenu* menu = m_debugger->debugMenu()) {
        menu->addSeparator();
        menu->addAction(m_check);
    }
    connect(m_check, &QAction::triggered, this, [this] {
        m_dock->show();
        m_dock->raise();
        check();
    });
    connect(m_panel, &PrecisionPanel::checkRequested, this, &PrecisionUi::check);
    connect(m_panel, &PrecisionPanel::cancelRequested, m_controller, &PrecisionController::cancel);
    connect(m_panel, &PrecisionPanel::overlayToggled, this, &PrecisionUi::applyOverlay);
    connect(m_panel, &PrecisionPanel::saveBlockListRequested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(m_window, QStringLiteral("Save Block List"),
            QStringLiteral("keep_fp32.json"), QStringLiteral("JSON (*.json);;Text, one name a line (*.txt)"));
        if (!path.isEmpty())
            saveBlockList(path);
    });
    connect(m_panel, &PrecisionPanel::nodeActivated, this,
        [this](const Graph* graph, NodeId node) { m_window->graphView()->centerOnNode(graph, node, true); });
    connect(m_window->graphView(), &GraphView::nodeSelected, m_panel, &PrecisionPanel::selectNode);
    connect(m_window->graphView(), &GraphView::layoutFinished, this, [this](bool ok, double) {
        if (ok)
            applyOverlay();
    });
    connect(m_window, &MainWindow::modelOpened, this, &PrecisionUi::clear);

    connect(m_controller, &PrecisionController::started, this, [this] { m_panel->setRunning(true); });
    connect(m_controller, &PrecisionController::progress, this, [this](qint64 done) {
        const auto model = m_window->document()->model();
        m_panel->setProgress(done, model ? static_cast<qint64>(model->graph().totalNodeCount()) : 0);
    });
    connect(m_controller, &PrecisionController::finished, this, [this](PrecisionResultPtr result) {
        m_panel->setRunning(false);
        // A result of a model closed meanwhile is dropped.
        if (!result || &result->program->model() != m_window->document()->model().get()) {
            m_panel->setMessage(QStringLiteral("The model changed during the check; run it again."));
            return;
        }
        m_result = result;
        m_panel->setResult(result);
        applyOverlay();
        m_window->statusBar()->showMessage(
            QStringLiteral("Precision check: %1 node(s) to keep in float32").arg(result->report.keep.size()), 8000);
        emit resultShown();
    });
    connect(m_controller, &PrecisionController::cancelled, this, [this] {
        m_panel->setRunning(false);
        m_panel->setMessage(QStringLiteral("Cancelled: nothing was checked."));
    });
    connect(m_controller, &PrecisionController::failed, this, [this](const QString& message) {
        m_panel->setRunning(false);
        m_panel->setMessage(QStringLiteral("The check failed: %1").arg(message));
        m_window->reportError(QStringLiteral("Precision check failed"), message);
    });
}

bool PrecisionUi::check()
{
    const auto model = m_window->document()->model();
    if (!model) {
        m_window->reportError(QStringLiteral("Cannot check precision"), QStringLiteral("Open a model first."));
        return false;
    }
    if (m_controller->isRunning()) {
        m_window->reportError(QStringLiteral("Cannot check precision"), QStringLiteral("A check is still running."));
        return false;
    }
    InputsPanel* inputs = m_debugger->inputs();
    if (!inputs->validate()) {
        m_window->reportError(QStringLiteral("Cannot check precision"),
            QStringLiteral("The run needs valid inputs first: %1").arg(inputs->revealFirstError()));
        return false;
    }
    PrecisionRequest request;
    request.model = model;
    request.inputs = inputs->factory();
    request.target = m_panel->target();
    request.underflowShare = m_panel->underflowShare();
    return m_controller->start(std::move(request));
}

bool PrecisionUi::saveBlockList(const QString& path)
{
    if (!m_result) {
        m_window->reportError(QStringLiteral("Cannot save the block list"), QStringLiteral("Run a check first."));
        return false;
    }
    const bool json = path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive);
    const std::string text = blockListText(m_result->report, json);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || file.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())) {
        m_window->reportError(QStringLiteral("Cannot save the block list"),
            QStringLiteral("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
        return false;
    }
    m_window->statusBar()->showMessage(QStringLiteral("Wrote %1 (%2 node name(s))")
                                           .arg(QDir::toNativeSeparators(path))
                                           .arg(m_result->report.blockList().size()),
        8000);
    return true;
}

void PrecisionUi::scheduleCheck(DataType target)
{
    auto* once = new QObject(this);
    connect(m_window, &MainWindow::modelOpened, once, [this, once, target] {
        once->deleteLater();
        m_panel->setTarget(target);
        m_dock->show();
        m_dock->raise();
        check();
    });
}

void PrecisionUi::applyOverlay()
{
    decoratePrecision(*m_window->graphView(), m_panel->overlayEnabled() ? m_result.get() : nullptr);
}

void PrecisionUi::clear()
{
    m_controller->cancel();
    m_result.reset();
    m_panel->setResult(nullptr);
    applyOverlay();
}

} // namespace onnxscope
