// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/debug_snapshot.h"

#include <QAbstractTableModel>

namespace onnxscope {

/// Time spent per node, or per op type, in the current run (all frames and iterations summed). A node with a
/// subgraph includes the time of its body.
class ProfileModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Mode { PerNode, PerOpType };
    enum Column { NameColumn, OpTypeColumn, CallsColumn, TotalColumn, ShareColumn, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, RowIndexRole };
    struct Row {
        const Graph* graph = nullptr; // PerNode
        NodeId node = -1;
        QString name;
        QString opType;
        int64_t calls = 0;
        double milliseconds = 0;
    };

    explicit ProfileModel(QObject* parent = nullptr);
    void setSnapshot(const DebugSnapshotPtr& snapshot);
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    const Row* rowAt(int row) const;
    double totalMilliseconds() const { return m_totalMs; }
    /// Milliseconds per (graph, node), for colouring the graph.
    const std::vector<Row>& nodeRows() const { return m_nodes; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();
    DebugSnapshotPtr m_snapshot;
    Mode m_mode = Mode::PerNode;
    std::vector<Row> m_nodes;
    std::vector<Row> m_opTypes;
    double m_totalMs = 0; // main-graph nodes only (bodies are inside their owners)
};

} // namespace onnxscope
