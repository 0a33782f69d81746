// SPDX-License-Identifier: MIT
#include "ui/mainwindow/extract_ui.h"

#include "engine/compare/divergence_extract.h"
#include "engine/exec/extract_case.h"
#include "engine/io/value_writer.h"
#include "ui/common/model_document.h"
#include "ui/compare/compare_job.h"
#include "ui/compare/compare_panel.h"
#include "ui/graphview/graph_view.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/compare_ui.h"
#include "ui/mainwindow/main_window.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

namespace onnxscope {

namespace {

struct ExtractOutcome {
    QString summary;
    QString error;
};

QString namesText(const std::vector<std::string>& names)
{
    QStringList list;
    for (const auto& n : names)
        list << QString::fromStdString(n);
    return list.join(QStringLiteral(", "));
}

} // namespace

ExtractUi::ExtractUi(MainWindow* window, InputsPanel* inputs, CompareUi* compare)
    : QObject(window)
    , m_window(window)
    , m_inputs(inputs)
    , m_extract(new QAction(QStringLiteral("Extract as Test Case\u2026"), this))
    , m_compare(compare)
{
    if (m_compare) {
        m_divergence = new QAction(QStringLiteral("Extract First Divergence\u2026"), this);
        m_divergence->setToolTip(QStringLiteral(
            "Write the first divergent node as two test cases: side A's node and side B's counterpart, both fed the "
            "values side A's run gave the node, with a README that states the error between them"));
        m_divergence->setEnabled(false);
        m_compare->panel()->addPanelAction(m_divergence);
        connect(m_divergence, &QAction::triggered, this, &ExtractUi::onDivergenceTriggered);
        auto update = [this] {
            const auto session = m_compare->session();
            m_divergence->setEnabled(session && session->b && session->result.firstDivergence);
        };
        connect(m_compare, &CompareUi::comparisonShown, this, update);
        connect(m_compare->panel(), &ComparePanel::clearRequested, this, update, Qt::QueuedConnection);
        connect(
            m_compare->controller(), &CompareController::started, this, [this] { m_divergence->setEnabled(false); });
    }
    m_extract->setToolTip(QStringLiteral("Write this node as a standalone repro: a model of just this node and the "
                                         "values a run on the Inputs dock's inputs gave it"));
    connect(m_extract, &QAction::triggered, this, &ExtractUi::onTriggered);
    window->graphView()->addNodeAction(m_extract);
    connect(this, &ExtractUi::finished, this, [this](const QString& folder, const QString& summary) {
        m_window->statusBar()->showMessage(QStringLiteral("Wrote %1").arg(QDir::toNativeSeparators(folder)), 8000);
        if (m_fromMenu) // a dialog for the user who asked; scripted calls get the signal only
            QMessageBox::information(m_window,
                m_divergenceRun ? QStringLiteral("Test cases written") : QStringLiteral("Test case written"), summary);
        m_fromMenu = false;
    });
    connect(this, &ExtractUi::failed, this, [this](const QString& message) {
        m_fromMenu = false;
        m_window->reportError(QStringLiteral("Cannot extract"), message);
    });
}

void ExtractUi::onTriggered()
{
    GraphView* view = m_window->graphView();
    const NodeId node = view->selectedNode();
    const auto model = m_window->document()->model();
    if (!model || node < 0)
        return;
    if (view->currentGraph() != &model->graph()) {
        m_window->reportError(QStringLiteral("Cannot extract"),
            QStringLiteral("Only nodes of the main graph can be extracted for now; go back to it and extract the node "
                           "that holds this subgraph."));
        return;
    }
    const QString name = QString::fromStdString(safeFileName(model->graph().node(node).displayName()));
    const QString parent = QFileDialog::getExistingDirectory(
        m_window, QStringLiteral("Folder to write the test case \u201c%1\u201d in").arg(name));
    if (parent.isEmpty())
        return;
    m_fromMenu = extractNode(node, QDir(parent).filePath(QStringLiteral("test_") + name));
}

void ExtractUi::onDivergenceTriggered()
{
    const auto session = m_compare->session();
    if (!session || !session->b) {
        extractDivergence(session, {}); // reports why
        return;
    }
    if (!session->result.firstDivergence) {
        QMessageBox::information(m_window, QStringLiteral("Nothing to extract"),
            QStringLiteral("No node diverged in this comparison: there is no first divergence to extract."));
        return;
    }
    const NodeCompare& n = session->result.nodes[*session->result.firstDivergence];
    const QString name = QString::fromStdString(safeFileName(n.node));
    const QString parent = QFileDialog::getExistingDirectory(
        m_window, QStringLiteral("Folder to write the first divergence \u201c%1\u201d in").arg(name));
    if (parent.isEmpty())
        return;
    m_fromMenu = extractDivergence(session, QDir(parent).filePath(QStringLiteral("divergence_") + name));
}

bool ExtractUi::canStart(const QString& folder)
{
    if (m_running) {
        m_window->reportError(QStringLiteral("Cannot extract"), QStringLiteral("An extraction is still running."));
        return false;
    }
    if (QDir(folder).exists() && !QDir(folder).isEmpty()) {
        m_window->reportError(QStringLiteral("Cannot extract"),
            QStringLiteral("%1 exists and is not empty.").arg(QDir::toNativeSeparators(folder)));
        return false;
    }
    return true;
}

bool ExtractUi::extractDivergence(const std::shared_ptr<const CompareSession>& session, const QString& folder)
{
    if (!session) {
        m_window->reportError(QStringLiteral("Cannot extract"), QStringLiteral("Run a comparison first."));
        return false;
    }
    if (!session->b) {
        m_window->reportError(QStringLiteral("Cannot extract"),
            QStringLiteral("Side B of this comparison is not a model: extracting the first divergence needs two "
                           "models, to write side A's node and side B's."));
        return false;
    }
    if (!session->result.firstDivergence) {
        m_window->reportError(QStringLiteral("Nothing to extract"),
            QStringLiteral("No node diverged in this comparison: nothing was written."));
        return false;
    }
    if (!canStart(folder))
        return false;
    m_running = true;
    m_divergenceRun = true;
    const std::string path = folder.toStdString();
    auto* watcher = new QFutureWatcher<ExtractOutcome>(this);
    connect(watcher, &QFutureWatcher<ExtractOutcome>::finished, this, [this, watcher, folder] {
        const ExtractOutcome outcome = watcher->result();
        watcher->deleteLater();
        m_running = false;
        if (outcome.error.isEmpty())
            emit finished(folder, outcome.summary);
        else
            emit failed(outcome.error);
    });
    watcher->setFuture(QtConcurrent::run([session, path]() -> ExtractOutcome {
        try {
            const DivergenceExtract x = extractFirstDivergence(session->result, session->a, *session->b, path);
            QString inputs;
            for (const auto& in : x.inputs)
                inputs += QStringLiteral("\n  %1: %2")
                              .arg(QString::fromStdString(in.nameB),
                                  in.fromA ? QStringLiteral("A's \u201c%1\u201d%2")
                                                 .arg(QString::fromStdString(in.nameA),
                                                     in.note.empty()
                                                         ? QString()
                                                         : QStringLiteral(" (%1)").arg(QString::fromStdString(in.note)))
                                           : QStringLiteral("B's own value (%1)").arg(QString::fromStdString(in.note)));
            return { QStringLiteral("%1\n\na/: node \u201c%2\u201d (%3) of A\nb/: node \u201c%4\u201d (%5) of B, "
                                    "fed the same inputs:%6\n\nMax abs error between a/'s and b/'s outputs: %7\n"
                                    "README.txt says what was compared; `onnxscope-cli test` and onnxruntime's "
                                    "onnx_test_runner run each folder.")
                         .arg(QDir::toNativeSeparators(QString::fromStdString(path)), QString::fromStdString(x.nodeA),
                             QString::fromStdString(x.opTypeA), QString::fromStdString(x.nodeB),
                             QString::fromStdString(x.opTypeB), inputs)
                         .arg(x.maxAbsError, 0, 'g', 4),
                {} };
        } catch (const std::exception& e) {
            return { {}, QString::fromStdString(e.what()) };
        }
    }));
    return true;
}

bool ExtractUi::extractNode(NodeId node, const QString& folder)
{
    const auto model = m_window->document()->model();
    if (!model || node < 0 || static_cast<size_t>(node) >= model->graph().nodes().size())
        return false;
    if (!canStart(folder))
        return false;
    if (!m_inputs->validate()) {
        m_window->reportError(QStringLiteral("Cannot extract"),
            QStringLiteral("The run needs valid inputs first: %1").arg(m_inputs->revealFirstError()));
        return false;
    }
    SubgraphBoundary part;
    try {
        part = subgraphOfNodes(model->graph(), { model->graph().node(node).displayName() });
    } catch (const std::exception& e) {
        m_window->reportError(QStringLiteral("Cannot extract"), QString::fromStdString(e.what()));
        return false;
    }
    m_running = true;
    m_divergenceRun = false;
    const InputsPanel::InputFactory factory = m_inputs->factory();
    const std::string path = folder.toStdString();
    auto* watcher = new QFutureWatcher<ExtractOutcome>(this);
    connect(watcher, &QFutureWatcher<ExtractOutcome>::finished, this, [this, watcher, folder] {
        const ExtractOutcome outcome = watcher->result();
        watcher->deleteLater();
        m_running = false;
        if (outcome.error.isEmpty())
            emit finished(folder, outcome.summary);
        else
            emit failed(outcome.error);
    });
    watcher->setFuture(QtConcurrent::run([model, part, factory, path]() -> ExtractOutcome {
        try {
            auto program = std::make_shared<Program>(model);
            const ExtractedCase written = extractTestCase(program, part, factory(), path);
            return { QStringLiteral("%1\n\n%2 node(s), %3 initializer(s)%4.\nInputs: %5\nOutputs: %6\n\n"
                                    "test_data_set_0 holds the values this run gave them; `onnxscope-cli test` and "
                                    "onnxruntime's onnx_test_runner run the folder.")
                         .arg(QDir::toNativeSeparators(QString::fromStdString(path)))
                         .arg(written.model.nodeCount)
                         .arg(written.model.initializerCount)
                         .arg(written.model.externalData ? QStringLiteral(", as external data") : QString())
                         .arg(namesText(part.inputs), namesText(part.outputs)),
                {} };
        } catch (const std::exception& e) {
            return { {}, QString::fromStdString(e.what()) };
        }
    }));
    return true;
}

} // namespace onnxscope
