// SPDX-License-Identifier: MIT
#include "ui/compare/compare_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace onnxscope {

ComparePanel::ComparePanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new CompareRowsModel(this))
    , m_proxy(new CompareFilterModel(this))
    , m_summary(new QLabel(this))
    , m_message(new QLabel(this))
    , m_progressRow(new QWidget(this))
    , m_progress(new QProgressBar(m_progressRow))
    , m_progressLabel(new QLabel(m_progressRow))
    , m_cancel(new QPushButton(QStringLiteral("Cancel"), m_progressRow))
    , m_filter(new QLineEdit(this))
    , m_show(new QComboBox(this))
    , m_initializers(new QCheckBox(QStringLiteral("Initializers"), this))
    , m_metric(new QComboBox(this))
    , m_diff(new QPushButton(QStringLiteral("Diff"), this))
    , m_goTo(new QPushButton(QStringLiteral("Go to Node"), this))
    , m_compare(new QPushButton(QStringLiteral("Compare\u2026"), this))
    , m_clear(new QPushButton(QStringLiteral("Clear"), this))
    , m_view(new QTableView(this))
{
    setObjectName(QStringLiteral("comparePanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(3);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_compare, 0, Qt::AlignTop);
    top->addWidget(m_clear, 0, Qt::AlignTop);
    layout->addLayout(top);
    m_message->setTextFormat(Qt::RichText);
    m_message->setWordWrap(true);
    m_message->hide();
    layout->addWidget(m_message);

    auto* progressLayout = new QHBoxLayout(m_progressRow);
    progressLayout->setContentsMargins(0, 0, 0, 0);
    m_progress->setRange(0, 0);
    m_progress->setMaximumHeight(14);
    progressLayout->addWidget(m_progressLabel);
    progressLayout->addWidget(m_progress, 1);
    progressLayout->addWidget(m_cancel);
    m_progressRow->hide();
    layout->addWidget(m_progressRow);

    auto* bar = new QHBoxLayout;
    m_filter->setPlaceholderText(QStringLiteral("Filter by value, node, op type or frame"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(120);
    bar->addWidget(m_filter, 1);
    m_show->addItems({ QStringLiteral("All values"), QStringLiteral("Divergent"), QStringLiteral("One side only"),
        QStringLiteral("Matching"), QStringLiteral("Roots of differences") });
    m_show->setToolTip(QStringLiteral("Which rows to list"));
    bar->addWidget(m_show);
    m_initializers->setChecked(true);
    m_initializers->setToolTip(QStringLiteral("List the initializers (weights) compared by name"));
    bar->addWidget(m_initializers);
    bar->addWidget(new QLabel(QStringLiteral("Colour:"), this));
    for (ErrorMetric m : { ErrorMetric::ToleranceRatio, ErrorMetric::MaxAbsError, ErrorMetric::MaxRelError })
        m_metric->addItem(CompareColours::metricName(m), static_cast<int>(m));
    m_metric->setToolTip(QStringLiteral("What the graph's colours show, on a log scale"));
    bar->addWidget(m_metric);
    m_diff->setToolTip(QStringLiteral("Open both values of the selected row in the tensor inspector's diff view"));
    m_goTo->setToolTip(QStringLiteral("Select the node of the selected row in the graph (double-click does the same)"));
    m_compare->setToolTip(QStringLiteral("Debug \u203a Compare\u2026"));
    m_clear->setToolTip(QStringLiteral("Clear the comparison: back to normal colouring"));
    for (QPushButton* b : { m_diff, m_goTo })
        bar->addWidget(b);
    layout->addLayout(bar);
    m_bar = bar;

    m_proxy->setSourceModel(m_model);
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(CompareRowsModel::OrderColumn, Qt::AscendingOrder);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(20);
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->horizontalHeader()->setStretchLastSection(true);
    const std::pair<int, int> widths[] = { { CompareRowsModel::OrderColumn, 48 }, { CompareRowsModel::FrameColumn, 70 },
        { CompareRowsModel::IterationColumn, 36 }, { CompareRowsModel::NodeColumn, 190 },
        { CompareRowsModel::OpColumn, 90 }, { CompareRowsModel::ValueColumn, 150 },
        { CompareRowsModel::CounterpartColumn, 150 }, { CompareRowsModel::TypeAColumn, 110 },
        { CompareRowsModel::TypeBColumn, 110 }, { CompareRowsModel::MaxAbsColumn, 76 },
        { CompareRowsModel::MaxRelColumn, 76 }, { CompareRowsModel::CosineColumn, 64 },
        { CompareRowsModel::MismatchesColumn, 90 }, { CompareRowsModel::StatusColumn, 100 } };
    for (const auto& [column, width] : widths)
        m_view->setColumnWidth(column, width);
    layout->addWidget(m_view, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &CompareFilterModel::setText);
    connect(m_show, &QComboBox::currentIndexChanged, this,
        [this](int i) { m_proxy->setShow(static_cast<CompareFilterModel::Show>(i)); });
    connect(m_initializers, &QCheckBox::toggled, m_proxy, &CompareFilterModel::setInitializersShown);
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
        m_model->setMetric(metric());
        emit metricChanged(metric());
    });
    connect(m_view, &QTableView::activated, this,
        [this](const QModelIndex& index) { emit rowActivated(index.data(CompareRowsModel::RowIndexRole).toInt()); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ComparePanel::updateButtons);
    connect(m_diff, &QPushButton::clicked, this, [this] {
        if (currentRow() >= 0)
            emit diffRequested(currentRow());
    });
    connect(m_goTo, &QPushButton::clicked, this, [this] {
        if (currentRow() >= 0)
            emit rowActivated(currentRow());
    });
    connect(m_compare, &QPushButton::clicked, this, &ComparePanel::compareRequested);
    connect(m_clear, &QPushButton::clicked, this, &ComparePanel::clearRequested);
    connect(m_cancel, &QPushButton::clicked, this, &ComparePanel::cancelRequested);
    connect(m_summary, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QStringLiteral("first"))
            emit firstDivergenceRequested();
    });
    setSession(nullptr);
}

ErrorMetric ComparePanel::metric() const
{
    return static_cast<ErrorMetric>(m_metric->currentData().toInt());
}

void ComparePanel::setSession(CompareSessionPtr session)
{
    m_model->setSession(std::move(session));
    m_view->sortByColumn(CompareRowsModel::OrderColumn, Qt::AscendingOrder);
    // Frame and iteration say something only for models with subgraphs.
    bool nested = false;
    if (const CompareSessionPtr& s = m_model->session())
        for (const CompareRow& row : s->result.rows)
            nested = nested || (!row.framePath.empty() && row.framePath != "main");
    m_view->setColumnHidden(CompareRowsModel::FrameColumn, !nested);
    m_view->setColumnHidden(CompareRowsModel::IterationColumn, !nested);
    updateSummary();
    updateButtons();
}

void ComparePanel::setRunning(bool running)
{
    m_progressRow->setVisible(running);
    m_compare->setEnabled(!running);
    m_progress->setRange(0, 0);
    m_progressLabel->setText(QStringLiteral("Comparing\u2026"));
    if (running)
        m_message->hide();
}

void ComparePanel::setProgress(qint64 nodesDone, qint64 totalHint)
{
    if (totalHint > 0) {
        m_progress->setRange(0, static_cast<int>(std::min<qint64>(totalHint, INT_MAX)));
        m_progress->setValue(static_cast<int>(std::min(nodesDone, totalHint)));
    }
    m_progressLabel->setText(QStringLiteral("Comparing\u2026 %1 nodes of side A").arg(nodesDone));
}

void ComparePanel::setMessage(const QString& html)
{
    m_message->setText(html);
    m_message->setVisible(!html.isEmpty());
}

int ComparePanel::currentRow() const
{
    const QModelIndex index = m_view->currentIndex();
    return index.isValid() ? index.data(CompareRowsModel::RowIndexRole).toInt() : -1;
}

void ComparePanel::selectRow(int row)
{
    QModelIndex source = m_model->index(row, 0);
    if (!source.isValid())
        return;
    QModelIndex index = m_proxy->mapFromSource(source);
    if (!index.isValid()) {
        m_filter->clear();
        m_show->setCurrentIndex(0);
        m_initializers->setChecked(true);
        index = m_proxy->mapFromSource(source);
    }
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
}

void ComparePanel::updateButtons()
{
    const CompareRow* row = m_model->rowAt(currentRow());
    m_diff->setEnabled(row != nullptr);
    m_goTo->setEnabled(
        row && (row->graph || row->origin != ValueOrigin::NodeOutput) && row->status != CompareStatus::OnlyB);
    m_clear->setEnabled(m_model->session() != nullptr);
}

void ComparePanel::updateSummary()
{
    const CompareSessionPtr& s = m_model->session();
    if (!s) {
        m_summary->setText(QStringLiteral(
            "<span style='color:#6b7280'>No comparison. Debug \u203a Compare\u2026 runs the open model against "
            "another model, reference values or other inputs and lists every value here.</span>"));
        return;
    }
    const ComparisonResult& r = s->result;
    QString text = QStringLiteral("<b>A</b> %1 \u00b7 <b>B</b> %2 \u00b7 rtol %3, atol %4 \u00b7 %5 s<br>")
                       .arg(CompareColours::sideName(s->descriptionA).toHtmlEscaped(),
                           CompareColours::sideName(s->descriptionB).toHtmlEscaped(),
                           CompareColours::errorText(r.tolerance.rtol), CompareColours::errorText(r.tolerance.atol),
                           QString::number(s->seconds, 'f', 2));
    QStringList counts;
    for (CompareStatus status : { CompareStatus::Match, CompareStatus::Mismatch, CompareStatus::ShapeMismatch,
             CompareStatus::KindMismatch, CompareStatus::OnlyA, CompareStatus::OnlyB, CompareStatus::Skipped }) {
        const size_t n = r.count(status);
        if (n > 0 || status == CompareStatus::Match || status == CompareStatus::Mismatch)
            counts << QStringLiteral("%1 %2").arg(n).arg(CompareColours::statusLabel(status));
    }
    text += QStringLiteral("%1 values (%2 nodes run): %3")
                .arg(r.rows.size())
                .arg(r.nodes.size())
                .arg(counts.join(QStringLiteral(", ")));
    if (r.firstDivergence) {
        const NodeCompare& n = r.nodes[*r.firstDivergence];
        QString detail = CompareColours::statusLabel(n.status);
        int64_t nonFinite = 0;
        for (size_t row : n.rows)
            nonFinite += r.rows[row].stats.nonFiniteMismatches;
        if (nonFinite > 0)
            detail += QStringLiteral(", NaN/Inf differ in %1 element%2")
                          .arg(nonFinite)
                          .arg(nonFinite == 1 ? QString() : QStringLiteral("s"));
        else if (n.status == CompareStatus::Mismatch)
            detail += QStringLiteral(", max abs error %1, max rel error %2, cosine %3")
                          .arg(CompareColours::errorText(n.maxAbsError), CompareColours::errorText(n.maxRelError),
                              CompareColours::errorText(n.minCosine));
        text += QStringLiteral(
            "<br><span style='color:#c62828'>First divergence:</span> <a href='first'><b>%1</b></a> (%2)%3 \u2014 %4")
                    .arg(QString::fromStdString(n.node).toHtmlEscaped(),
                        QString::fromStdString(n.opType).toHtmlEscaped(),
                        n.framePath == "main"
                            ? QString()
                            : QStringLiteral(" at ") + QString::fromStdString(n.framePath).toHtmlEscaped(),
                        detail);
        size_t roots = 0;
        for (const auto& node : r.nodes)
            roots += node.root;
        if (roots > 1)
            text += QStringLiteral(" \u00b7 %1 more independent difference(s)").arg(roots - 1);
        if (s->modules && s->modules->firstDivergence) {
            const ModuleCompare& m = s->modules->modules[*s->modules->firstDivergence];
            text += QStringLiteral("<br><span style='color:#c62828'>First divergent module:</span> <b>%1</b> (%2)%3")
                        .arg(QString::fromStdString(m.path).toHtmlEscaped(),
                            QString::fromStdString(m.className).toHtmlEscaped(),
                            m.calls > 1 ? QStringLiteral(", call %1").arg(m.call) : QString());
        }
    } else if (r.hasDivergence() && !r.differingSources.empty()) {
        text += QStringLiteral("<br><span style='color:#c62828'>Only graph inputs or initializers differ.</span>");
    } else if (r.errorA.empty() && r.errorB.empty() && !r.cancelled) {
        text += QStringLiteral(
            "<br><span style='color:#2e7d32'>No divergence: every value present on both sides matches.</span>");
    }
    for (size_t i : r.differingSources) {
        const CompareRow& row = r.rows[i];
        text += QStringLiteral("<br>Differing %1 <b>%2</b>: max abs error %3")
                    .arg(QString::fromUtf8(valueOriginName(row.origin).data()),
                        QString::fromStdString(row.name).toHtmlEscaped(),
                        CompareColours::errorText(row.stats.maxAbsError));
        if (i != r.differingSources.front() && r.differingSources.size() > 3) {
            text += QStringLiteral(" (and %1 more)").arg(r.differingSources.size() - 2);
            break;
        }
    }
    if (s->modules && !s->modules->unmatchedKeys.empty()) {
        const auto& keys = s->modules->unmatchedKeys;
        QStringList listed;
        for (size_t i = 0; i < keys.size() && i < 3; ++i)
            listed << QStringLiteral("%1 (nearest: %2)")
                          .arg(QString::fromStdString(keys[i].key).toHtmlEscaped(),
                              QString::fromStdString(keys[i].nearest.empty() ? std::string() : keys[i].nearest[0])
                                  .toHtmlEscaped());
        text += QStringLiteral("<br><span style='color:#b45309'>%1 key(s) name no module of the graph:</span> %2%3")
                    .arg(keys.size())
                    .arg(listed.join(QStringLiteral(", ")), keys.size() > 3 ? QStringLiteral(", \u2026") : QString());
    }
    if (!r.errorA.empty())
        text += QStringLiteral("<br><span style='color:#c62828'>Side A stopped: %1</span>")
                    .arg(QString::fromStdString(r.errorA).toHtmlEscaped());
    if (!r.errorB.empty())
        text += QStringLiteral("<br><span style='color:#c62828'>Side B stopped: %1</span>")
                    .arg(QString::fromStdString(r.errorB).toHtmlEscaped());
    if (r.cancelled)
        text += QStringLiteral("<br><span style='color:#b45309'>Cancelled: the table covers what ran.</span>");
    m_summary->setText(text);
}

void ComparePanel::addPanelAction(QAction* action)
{
    auto* button = new QToolButton(this);
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_bar->addWidget(button);
    m_view->addAction(action);
}

} // namespace onnxscope
