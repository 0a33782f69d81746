// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/debug_snapshot.h"

#include <QAbstractTableModel>

namespace onnxscope {

/// The frame stack where the debugger stopped, innermost frame first (as debuggers list it): the frame's label
/// (`Loop "loop_0" iteration 3`), the graph it runs, and the node it is at.
class CallStackModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { LevelColumn, FrameColumn, PositionColumn, ColumnCount };
    enum Role { FrameIdRole = Qt::UserRole + 1 };

    explicit CallStackModel(QObject* parent = nullptr);
    void setSnapshot(const DebugSnapshotPtr& snapshot);
    /// Row 0 is the innermost frame.
    const FrameSnapshot* frameAt(int row) const;
    /// The full path, "main › Loop "body" iteration 3 › If "then_branch"".
    QString pathText() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    DebugSnapshotPtr m_snapshot;
};

} // namespace onnxscope
