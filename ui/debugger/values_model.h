// SPDX-License-Identifier: MIT
#pragma once

#include "ui/debugger/debug_snapshot.h"

#include <QAbstractTableModel>

namespace onnxscope {

/// Every value the debugger recorded in the last stop, one row each: name, producer, frame, iteration, dtype, shape,
/// statistics, NaN/Inf counts. Adapts a DebugSnapshot; tensors are never copied.
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
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers as numbers for QSortFilterProxyModel
        ValueIndexRole, // int: index into DebugSnapshot::values
        FrameIdRole, // qulonglong
        FilterRole, // name, producer and op type, for the text filter
    };

    explicit ValuesModel(QObject* parent = nullptr);

    void setSnapshot(DebugSnapshotPtr snapshot);
    const DebugSnapshotPtr& snapshot() const { return m_snapshot; }
    const ValueSnapshot* valueAt(int row) const;
    /// The row of the latest value with this name (optionally in a frame), -1 if none.
    int rowOf(const std::string& name, uint64_t frameId = 0) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    DebugSnapshotPtr m_snapshot;
};

} // namespace onnxscope
