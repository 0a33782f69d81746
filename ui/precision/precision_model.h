// SPDX-License-Identifier: MIT
#pragma once

#include "ui/precision/precision_job.h"

#include <QAbstractTableModel>
#include <QColor>

namespace onnxscope {

/// A node's risk in a precision check, worst first.
enum class PrecisionRisk { Overflow, Underflow, ReadsFlagged, Fine };
/// The risk of a node the check keeps in float32.
PrecisionRisk precisionRisk(const PrecisionNode& node);
QColor precisionRiskColour(PrecisionRisk risk);
/// "overflows", "mostly flushes to zero", "reads a flagged value", "fine".
QString precisionRiskName(PrecisionRisk risk, const PrecisionTarget& target);

/// The nodes a precision check keeps in float32, one row each, with the evidence of the first flagged value that made
/// it kept: its range, smallest non-zero magnitude and underflowed share. Adapts the report; copies nothing.
class PrecisionModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NodeColumn,
        OpColumn,
        RiskColumn,
        ValueColumn,
        MinColumn,
        MaxColumn,
        SmallestColumn,
        UnderflowedColumn,
        ReasonColumn,
        ColumnCount
    };
    /// Qt::UserRole: the row's node id (int) in its graph.
    static constexpr int NodeIdRole = Qt::UserRole + 1;

    explicit PrecisionModel(QObject* parent = nullptr);
    void setResult(PrecisionResultPtr result);
    PrecisionResultPtr result() const { return m_result; }
    const PrecisionNode* nodeAt(int row) const;
    /// The row of `node` of `graph`, -1 if it is not kept.
    int rowOf(const Graph* graph, NodeId node) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    PrecisionResultPtr m_result;
};

} // namespace onnxscope
