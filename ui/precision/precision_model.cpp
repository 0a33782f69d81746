// SPDX-License-Identifier: MIT
#include "ui/precision/precision_model.h"

#include <QStringList>

namespace onnxscope {

PrecisionRisk precisionRisk(const PrecisionNode& node)
{
    if (node.producesOverflow)
        return PrecisionRisk::Overflow;
    if (node.producesUnderflow)
        return PrecisionRisk::Underflow;
    return PrecisionRisk::ReadsFlagged;
}

QColor precisionRiskColour(PrecisionRisk risk)
{
    switch (risk) {
    case PrecisionRisk::Overflow:
        return QColor(0xd3, 0x2f, 0x2f);
    case PrecisionRisk::Underflow:
        return QColor(0xef, 0x8f, 0x00);
    case PrecisionRisk::ReadsFlagged:
        return QColor(0x8e, 0x44, 0xad);
    default:
        return QColor(0x43, 0xa0, 0x47);
    }
}

QString precisionRiskName(PrecisionRisk risk, const PrecisionTarget& target)
{
    const QString type = QString::fromLatin1(target.shortName());
    switch (risk) {
    case PrecisionRisk::Overflow:
        return QStringLiteral("overflows %1").arg(type);
    case PrecisionRisk::Underflow:
        return QStringLiteral("mostly flushes to zero in %1").arg(type);
    case PrecisionRisk::ReadsFlagged:
        return QStringLiteral("reads a flagged value");
    default:
        return QStringLiteral("fine");
    }
}

PrecisionModel::PrecisionModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void PrecisionModel::setResult(PrecisionResultPtr result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

const PrecisionNode* PrecisionModel::nodeAt(int row) const
{
    if (!m_result || row < 0 || row >= static_cast<int>(m_result->report.keep.size()))
        return nullptr;
    return &m_result->report.keep[static_cast<size_t>(row)];
}

int PrecisionModel::rowOf(const Graph* graph, NodeId node) const
{
    if (!m_result)
        return -1;
    const auto& keep = m_result->report.keep;
    for (size_t i = 0; i < keep.size(); ++i)
        if (keep[i].graph == graph && keep[i].nodeId == node)
            return static_cast<int>(i);
    return -1;
}

int PrecisionModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_result ? 0 : static_cast<int>(m_result->report.keep.size());
}

int PrecisionModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QString number(double v)
{
    return QString::number(v, 'g', 4);
}

} // namespace

QVariant PrecisionModel::data(const QModelIndex& index, int role) const
{
    const PrecisionNode* node = index.isValid() ? nodeAt(index.row()) : nullptr;
    if (!node)
        return {};
    const PrecisionRisk risk = precisionRisk(*node);
    // The evidence shown: the flagged value the node makes, else the first one it reads.
    const PrecisionValue* value = nullptr;
    for (size_t v : node->values) {
        if (v >= m_result->report.flagged.size())
            continue;
        const PrecisionValue& p = m_result->report.flagged[v];
        if (!value || (p.producer == node->displayName && p.framePath == node->framePath)) {
            value = &p;
            if (p.producer == node->displayName && p.framePath == node->framePath)
                break;
        }
    }
    if (role == NodeIdRole)
        return static_cast<int>(node->nodeId);
    if (role == Qt::DecorationRole && index.column() == RiskColumn)
        return precisionRiskColour(risk);
    if (role == Qt::ToolTipRole) {
        QStringList reasons;
        for (const auto& r : node->reasons)
            reasons << QString::fromStdString(r);
        return QStringLiteral("%1 (%2): keep in float32\n%3")
            .arg(QString::fromStdString(node->displayName), QString::fromStdString(node->opType),
                reasons.join(QLatin1Char('\n')));
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case NodeColumn:
        return QString::fromStdString(node->displayName)
            + (node->framePath == "main" ? QString()
                                         : QStringLiteral(" (%1)").arg(QString::fromStdString(node->framePath)));
    case OpColumn:
        return QString::fromStdString(node->opType);
    case RiskColumn:
        return precisionRiskName(risk, m_result->report.target);
    case ValueColumn:
        return value ? QString::fromStdString(value->name) : QString();
    case MinColumn:
        return value ? number(value->min) : QString();
    case MaxColumn:
        return value ? number(value->max) : QString();
    case SmallestColumn:
        return value ? number(value->minAbsNonZero) : QString();
    case UnderflowedColumn:
        return value ? QStringLiteral("%1% (%2/%3)")
                           .arg(number(100 * value->underflowShare()))
                           .arg(value->underflow)
                           .arg(value->nonZero)
                     : QString();
    case ReasonColumn: {
        QStringList reasons;
        for (const auto& r : node->reasons)
            reasons << QString::fromStdString(r);
        return reasons.join(QStringLiteral("; "));
    }
    default:
        return {};
    }
}

QVariant PrecisionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* const names[]
        = { "Node", "Op", "Risk", "Value", "Min", "Max", "Smallest |x|>0", "Underflowed", "Why it stays float32" };
    return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
}

} // namespace onnxscope
