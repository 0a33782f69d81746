// SPDX-License-Identifier: MIT
#include "ui/precision/precision_panel.h"

#include "ui/precision/precision_model.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace onnxscope {

namespace {

QLabel* swatch(const QColor& colour, const QString& text, QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setText(
        QStringLiteral("<span style=\"color:%1; font-size:14px\">\u25A0</span> %2").arg(colour.name(), text));
    return label;
}

} // namespace

PrecisionPanel::PrecisionPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new PrecisionModel(this))
    , m_target(new QComboBox(this))
    , m_share(new QSpinBox(this))
    , m_check(new QPushButton(QStringLiteral("Check"), this))
    , m_cancel(new QPushButton(QStringLiteral("Cancel"), this))
    , m_save(new QPushButton(QStringLiteral("Save Block List\u2026"), this))
    , m_overlay(new QCheckBox(QStringLiteral("Colour graph by risk"), this))
    , m_progress(new QProgressBar(this))
    , m_summary(new QLabel(this))
    , m_table(new QTableView(this))
{
    m_target->addItem(QStringLiteral("float16"), static_cast<int>(DataType::Float16));
    m_target->addItem(QStringLiteral("bfloat16"), static_cast<int>(DataType::BFloat16));
    m_target->setToolTip(QStringLiteral("The type the model would be converted to"));
    m_share->setRange(0, 99);
    m_share->setValue(50);
    m_share->setSuffix(QStringLiteral(" %"));
    m_share->setToolTip(QStringLiteral("Flag a value as mostly flushing to zero when more than this share of its "
                                       "non-zero elements is below the target's smallest subnormal"));
    m_check->setToolTip(QStringLiteral("Run the model once in float32 on the Inputs dock's values and read every "
                                       "value's range: which overflow or mostly flush to zero in the target type"));
    m_save->setToolTip(
        QStringLiteral("Write the nodes to keep in float32: {\"node_block_list\": [...]} for a .json file "
                       "(the float16 converters' keyword arguments), else one name a line"));
    m_save->setEnabled(false);
    m_cancel->setEnabled(false);
    m_overlay->setChecked(true);
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(QStringLiteral("Target:"), this));
    top->addWidget(m_target);
    top->addWidget(new QLabel(QStringLiteral("Underflow share >"), this));
    top->addWidget(m_share);
    top->addWidget(m_check);
    top->addWidget(m_cancel);
    top->addWidget(m_progress);
    top->addWidget(m_save);
    top->addStretch(1);
    top->addWidget(m_overlay);
    auto* legend = new QHBoxLayout;
    const PrecisionTarget fp16;
    for (PrecisionRisk r :
        { PrecisionRisk::Overflow, PrecisionRisk::Underflow, PrecisionRisk::ReadsFlagged, PrecisionRisk::Fine }) {
        QString text = r == PrecisionRisk::Overflow ? QStringLiteral("overflows")
            : r == PrecisionRisk::Underflow         ? QStringLiteral("mostly flushes to zero")
            : r == PrecisionRisk::ReadsFlagged      ? QStringLiteral("reads a flagged value (kept too)")
                                                    : QStringLiteral("fine");
        legend->addWidget(swatch(precisionRiskColour(r), text, this));
    }
    legend->addStretch(1);
    m_summary->setWordWrap(true);
    m_summary->setText(QStringLiteral("Check which values would overflow or flush to zero in float16 or bfloat16, and "
                                      "which nodes must stay in float32."));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addLayout(legend);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);

    connect(m_check, &QPushButton::clicked, this, &PrecisionPanel::checkRequested);
    connect(m_cancel, &QPushButton::clicked, this, &PrecisionPanel::cancelRequested);
    connect(m_save, &QPushButton::clicked, this, &PrecisionPanel::saveBlockListRequested);
    connect(m_overlay, &QCheckBox::toggled, this, &PrecisionPanel::overlayToggled);
    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &PrecisionPanel::onCurrentRowChanged);
}

PrecisionTarget PrecisionPanel::target() const
{
    return { static_cast<DataType>(m_target->currentData().toInt()) };
}

void PrecisionPanel::setTarget(DataType type)
{
    m_target->setCurrentIndex(type == DataType::BFloat16 ? 1 : 0);
}

double PrecisionPanel::underflowShare() const
{
    return m_share->value() / 100.0;
}

void PrecisionPanel::setUnderflowShare(double share)
{
    m_share->setValue(static_cast<int>(std::lround(share * 100)));
}

bool PrecisionPanel::overlayEnabled() const
{
    return m_overlay->isChecked();
}

void PrecisionPanel::setOverlayEnabled(bool on)
{
    m_overlay->setChecked(on);
}

void PrecisionPanel::setRunning(bool running)
{
    m_check->setEnabled(!running);
    m_target->setEnabled(!running);
    m_share->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_progress->setVisible(running);
    if (running) {
        m_progress->setRange(0, 0);
        m_summary->setText(QStringLiteral("Running the model in float32\u2026"));
    }
}

void PrecisionPanel::setProgress(qint64 nodesDone, qint64 nodesTotal)
{
    if (nodesTotal > 0) {
        m_progress->setRange(0, static_cast<int>(nodesTotal));
        m_progress->setValue(static_cast<int>(std::min(nodesDone, nodesTotal)));
    }
    m_summary->setText(QStringLiteral("Running the model in float32\u2026 node %1").arg(nodesDone));
}

void PrecisionPanel::setResult(PrecisionResultPtr result)
{
    m_model->setResult(result);
    m_save->setEnabled(result && !result->report.keep.empty());
    if (!result) {
        m_summary->clear();
        return;
    }
    const PrecisionReport& r = result->report;
    const QString type = QString::fromStdString(std::string(dataTypeName(r.target.type)));
    size_t over = 0;
    for (const auto& v : r.flagged)
        over += v.overflows;
    QString text = r.flagged.empty()
        ? QStringLiteral("%1 float32 values checked in %2 s: none overflows or mostly flushes to zero in %3 on these "
                         "inputs; every node can convert.")
              .arg(r.valuesChecked)
              .arg(result->seconds, 0, 'f', 2)
              .arg(type)
        : QStringLiteral("%1 float32 values checked in %2 s: %3 overflow and %4 mostly flush to zero in %5. Keep "
                         "these %6 nodes in float32:")
              .arg(r.valuesChecked)
              .arg(result->seconds, 0, 'f', 2)
              .arg(over)
              .arg(r.flagged.size() - over)
              .arg(type)
              .arg(r.keep.size());
    for (const auto& note : r.notes)
        text += QStringLiteral("\nNote: ") + QString::fromStdString(note);
    m_summary->setText(text);
    m_table->resizeColumnsToContents();
}

void PrecisionPanel::setMessage(const QString& text)
{
    m_summary->setText(text);
}

void PrecisionPanel::selectNode(const Graph* graph, NodeId node)
{
    const int row = m_model->rowOf(graph, node);
    if (row < 0)
        return;
    m_selecting = true;
    m_table->selectRow(row);
    m_selecting = false;
}

void PrecisionPanel::onCurrentRowChanged()
{
    if (m_selecting)
        return;
    const PrecisionNode* node = m_model->nodeAt(m_table->currentIndex().row());
    if (node && node->graph)
        emit nodeActivated(node->graph, node->nodeId);
}

} // namespace onnxscope
