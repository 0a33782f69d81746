// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/debug_snapshot.h"
#include "ui/common/value_comparison.h"

#include <QAbstractTableModel>

namespace onnxscope {

/// Every value the debugger recorded in the last stop, one row each: name, producer, frame, iteration, dtype, shape,
/// statistics, NaN/Inf counts. Adapts a DebugSnapshot; tensors are never copied. While a comparison is loaded
/// (setComparison), five more columns show each value's error against the other side, matched by frame path and name.
/// While the snapshot is a position only (DebugSnapshot::summarising), a last placeholder row (no value: its
/// ValueIndexRole is -1) says the values are being summarised, "…" in its summary columns.
class ValuesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        ProducerColumn,
        FrameColumn,
        IterationColumn,
        TypeColumn,
        ShapeColumn,
        MinColumn,
        MaxColumn,
        MeanColumn,
        StdColumn,
        NanColumn,
        InfColumn,
        MaxAbsErrorColumn, // the comparison columns, present only while a comparison is loaded
        MaxRelErrorColumn,
        CosineColumn,
        MismatchesColumn,
        CompareStatusColumn,
        ColumnCount,
        BaseColumnCount = MaxAbsErrorColumn,
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers as numbers for QSortFilterProxyModel
        ValueIndexRole, // int: index into DebugSnapshot::values
        FrameIdRole, // qulonglong
        FilterRole, // name, producer and op type, for the text filter
        CompareRowRole, // int: the value's row in the comparison, -1 if none
    };

    explicit ValuesModel(QObject* parent = nullptr);

    void setSnapshot(DebugSnapshotPtr snapshot);
    const DebugSnapshotPtr& snapshot() const { return m_snapshot; }
    /// Adds (or with null removes) the comparison columns.
    void setComparison(ValueComparisonPtr comparison);
    const ValueComparisonPtr& comparison() const { return m_comparison; }
    /// The comparison row of a value (by snapshot index), or null.
    const CompareRow* compareRowOf(int row) const;
    const ValueSnapshot* valueAt(int row) const;
    /// Whether `row` is the placeholder row of a snapshot still summarising.
    bool isPlaceholder(int row) const;
    /// The row of the latest value with this name (optionally in a frame), -1 if none.
    int rowOf(const std::string& name, uint64_t frameId = 0) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant compareData(int column, int role, const CompareRow* row) const;
    QVariant placeholderData(int column, int role) const;

    DebugSnapshotPtr m_snapshot;
    ValueComparisonPtr m_comparison;
};

} // namespace onnxscope
