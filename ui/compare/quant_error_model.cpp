// SPDX-License-Identifier: MIT
#include "ui/compare/quant_error_model.h"

#include <QColor>
#include <QStringList>

namespace onnxscope {

QuantErrorModel::QuantErrorModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void QuantErrorModel::setReport(std::shared_ptr<const QuantErrorReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

const QuantLayer* QuantErrorModel::layerAt(int row) const
{
    if (!m_report || row < 0 || row >= static_cast<int>(m_report->layers.size()))
        return nullptr;
    return &m_report->layers[static_cast<size_t>(row)];
}

int QuantErrorModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->layers.size());
}

int QuantErrorModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant QuantErrorModel::data(const QModelIndex& index, int role) const
{
    const QuantLayer* l = index.isValid() ? layerAt(index.row()) : nullptr;
    if (!l)
        return {};
    if (role == Qt::ToolTipRole) {
        QStringList inputs;
        for (const auto& [q, f] : l->inputs)
            inputs << QStringLiteral("%1 \u2190 float %2").arg(QString::fromStdString(q), QString::fromStdString(f));
        QString tip = QStringLiteral("%1 (%2), output %3, paired by %4 with the float value %5")
                          .arg(QString::fromStdString(l->node), QString::fromStdString(l->opType),
                              QString::fromStdString(l->output), QString::fromStdString(l->pairedBy),
                              QString::fromStdString(l->floatValue));
        if (!inputs.isEmpty())
            tip += QStringLiteral("\nRun alone on: ") + inputs.join(QStringLiteral(", "));
        if (!l->error.empty())
            tip += QStringLiteral("\nNot run alone: ") + QString::fromStdString(l->error);
        return tip;
    }
    auto number = [](const QuantErrorStats& s, double v, int digits = 3) -> QVariant {
        return s.computed ? QVariant(QString::number(v, 'g', digits)) : QVariant(QStringLiteral("\u2013"));
    };
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case RankColumn:
        return l->ownRank > 0 ? QVariant(l->ownRank) : QVariant(QStringLiteral("\u2013"));
    case LayerColumn:
        return QString::fromStdString(l->node);
    case OpColumn:
        return QString::fromStdString(l->opType);
    case FloatValueColumn:
        return QString::fromStdString(l->floatValue)
            + (l->pairedBy == "name" ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(l->pairedBy)));
    case OwnRelColumn:
        return number(l->own, l->own.relativeL2);
    case OwnMaxColumn:
        return number(l->own, l->own.maxAbsError);
    case OwnCosineColumn:
        return number(l->own, l->own.cosine, 5);
    case AccRelColumn:
        return number(l->accumulated, l->accumulated.relativeL2);
    case AccMaxColumn:
        return number(l->accumulated, l->accumulated.maxAbsError);
    case AccCosineColumn:
        return number(l->accumulated, l->accumulated.cosine, 5);
    case AccRankColumn:
        return l->accumulatedRank > 0 ? QVariant(l->accumulatedRank) : QVariant(QStringLiteral("\u2013"));
    default:
        return {};
    }
}

QVariant QuantErrorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* const names[] = { "Rank", "Layer", "Op", "Float value", "Own rel. L2", "Own max |err|",
        "Own cosine", "Accumulated rel. L2", "Accumulated max |err|", "Accumulated cosine", "Accumulated rank" };
    return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
}

} // namespace onnxscope
