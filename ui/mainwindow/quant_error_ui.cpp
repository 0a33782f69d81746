// SPDX-License-Identifier: MIT
#include "ui/mainwindow/quant_error_ui.h"

#include "ui/common/model_document.h"
#include "ui/compare/compare_job.h"
#include "ui/compare/compare_panel.h"
#include "ui/compare/quant_error_model.h"
#include "ui/graphview/graph_view.h"
#include "ui/mainwindow/compare_ui.h"
#include "ui/mainwindow/main_window.h"

#include <QAction>
#include <QDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace onnxscope {

namespace {

bool isQuantized(const Model& model)
{
    for (const Node& n : model.graph().nodes())
        if (n.opType == "QuantizeLinear" || n.opType == "DequantizeLinear" || n.opType == "QGemm"
            || n.opType.rfind("QLinear", 0) == 0)
            return true;
    return false;
}

struct Outcome {
    std::shared_ptr<const QuantErrorReport> report;
    QString error;
};

} // namespace

QuantErrorUi::QuantErrorUi(MainWindow* window, CompareUi* compare)
    : QObject(window)
    , m_window(window)
    , m_compare(compare)
    , m_action(new QAction(QStringLiteral("Int8 Layer Errors\u2026"), this))
    , m_dialog(new QDialog(window))
    , m_summary(new QLabel(m_dialog))
    , m_model(new QuantErrorModel(this))
    , m_table(new QTableView(m_dialog))
    , m_cancelButton(new QPushButton(QStringLiteral("Cancel"), m_dialog))
{
    m_action->setToolTip(QStringLiteral(
        "For a float model compared with its quantized copy: each quantized layer run alone on the float run's values "
        "(its own error) beside its error in the quantized run (accumulated), ranked"));
    m_action->setEnabled(false);
    m_compare->panel()->addPanelAction(m_action);
    connect(m_action, &QAction::triggered, this, &QuantErrorUi::run);
    connect(m_compare, &CompareUi::comparisonShown, this, [this] {
        const auto session = m_compare->session();
        m_action->setEnabled(session && session->b && session->b->program
            && (isQuantized(session->a.program->model()) != isQuantized(session->b->program->model())));
    });
    connect(m_compare->controller(), &CompareController::started, this, [this] { m_action->setEnabled(false); });

    m_dialog->setWindowTitle(QStringLiteral("Int8 Layer Errors"));
    m_dialog->setModal(false);
    m_dialog->resize(1100, 420);
    m_summary->setWordWrap(true);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_cancelButton->setEnabled(false);
    connect(m_cancelButton, &QPushButton::clicked, this, &QuantErrorUi::cancel);
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_cancelButton);
    auto* layout = new QVBoxLayout(m_dialog);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &QuantErrorUi::onRowChanged);
    connect(this, &QuantErrorUi::failed, this, [this](const QString& message) {
        m_window->reportError(QStringLiteral("Cannot rank the int8 layers"), message);
    });
}

bool QuantErrorUi::run()
{
    const auto session = m_compare->session();
    if (m_running) {
        emit failed(QStringLiteral("The analysis is still running."));
        return false;
    }
    if (!session || !session->b || !session->b->program) {
        emit failed(QStringLiteral("Compare the float model with its quantized copy first (Debug › Compare…, another "
                                   "model)."));
        return false;
    }
    const bool quantA = isQuantized(session->a.program->model());
    const bool quantB = isQuantized(session->b->program->model());
    if (quantA == quantB) {
        emit failed(quantA
                ? QStringLiteral("Both models of this comparison are quantized: one must be the float model.")
                : QStringLiteral("Neither model of this comparison is quantized (no QuantizeLinear, "
                                 "DequantizeLinear, QLinear* or QGemm node)."));
        return false;
    }
    m_floatIsA = !quantA;
    const RunSide floatSide = m_floatIsA ? session->a : *session->b;
    const RunSide quantSide = m_floatIsA ? *session->b : session->a;
    m_running = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_action->setEnabled(false);
    m_cancelButton->setEnabled(true);
    m_summary->setText(QStringLiteral("Running both models, then each quantized layer alone\u2026"));
    m_dialog->show();
    m_dialog->raise();
    m_window->statusBar()->showMessage(QStringLiteral("Ranking the int8 layers\u2026"));
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, cancel = m_cancel] {
        const Outcome outcome = watcher->result();
        watcher->deleteLater();
        m_running = false;
        m_action->setEnabled(true);
        m_cancelButton->setEnabled(false);
        m_window->statusBar()->clearMessage();
        // Cancelled, even if the work had already finished when the user asked.
        if (cancel->load()) {
            m_summary->setText(QStringLiteral("Cancelled.")
                + (m_model->rowCount() ? QStringLiteral(" The table is the previous analysis's.") : QString()));
            emit cancelled();
            return;
        }
        if (!outcome.report) {
            emit failed(outcome.error);
            return;
        }
        m_model->setReport(outcome.report);
        const auto& r = *outcome.report;
        m_summary->setText(
            QStringLiteral("%1 quantized layer(s) of the %2 copy paired with the float model, ranked by the error each "
                           "adds on its own (run alone on the float run's values, quantized with its own scales); "
                           "accumulated: its error in the quantized model's own run.%3")
                .arg(r.layers.size())
                .arg(QString::fromStdString(r.format))
                .arg(r.unpaired.empty() ? QString()
                                        : QStringLiteral(" %1 layer(s) not paired.").arg(r.unpaired.size())));
        m_table->resizeColumnsToContents();
        m_dialog->show();
        m_dialog->raise();
        emit finished();
    });
    QPointer<QuantErrorUi> self(this);
    watcher->setFuture(QtConcurrent::run([floatSide, quantSide, cancel = m_cancel, self]() -> Outcome {
        try {
            QuantErrorOptions options;
            options.cancel = cancel.get();
            options.progress = [self](size_t done, size_t total) {
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, done, total] {
                        if (!self || !self->m_running)
                            return;
                        self->m_summary->setText(QStringLiteral("Running each quantized layer alone\u2026 %1 of %2")
                                                     .arg(done + 1)
                                                     .arg(total));
                        emit self->progress(static_cast<int>(done), static_cast<int>(total));
                    },
                    Qt::QueuedConnection);
            };
            return { std::make_shared<QuantErrorReport>(
                         checkQuantization(floatSide.program, quantSide.program, floatSide.inputs, options)),
                {} };
        } catch (const QuantErrorCancelled&) {
            return { nullptr, {} };
        } catch (const std::exception& e) {
            return { nullptr, QString::fromStdString(e.what()) };
        }
    }));
    return true;
}

void QuantErrorUi::cancel()
{
    if (m_running && m_cancel)
        m_cancel->store(true);
}

void QuantErrorUi::onRowChanged()
{
    const QuantLayer* l = m_model->layerAt(m_table->currentIndex().row());
    const auto model = m_window->document()->model();
    if (!l || !model)
        return;
    const std::string& name = m_floatIsA ? l->floatNode : l->node;
    const Graph& g = model->graph();
    for (const Node& n : g.nodes())
        if (n.displayName() == name) {
            m_window->graphView()->centerOnNode(&g, n.id, true);
            return;
        }
}

} // namespace onnxscope
