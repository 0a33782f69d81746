// SPDX-License-Identifier: MIT
#include "ui/debugger/profile_model.h"

#include <map>

namespace onnxscope {

ProfileModel::ProfileModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ProfileModel::setSnapshot(const DebugSnapshotPtr& snapshot)
{
    beginResetModel();
    m_snapshot = snapshot;
    rebuild();
    endResetModel();
}

void ProfileModel::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    beginResetModel();
    m_mode = mode;
    endResetModel();
}

void ProfileModel::rebuild()
{
    m_nodes.clear();
    m_opTypes.clear();
    m_totalMs = 0;
    if (!m_snapshot)
        return;
    std::map<std::string, Row> byOp;
    const Graph* main = m_snapshot->model ? &m_snapshot->model->graph() : nullptr;
    for (const NodeTiming& t : m_snapshot->timings) {
        const Node& node = t.graph->node(t.node);
        Row r;
        r.graph = t.graph;
        r.node = t.node;
        r.name = QString::fromStdString(node.displayName());
        if (t.graph != main && t.graph->ownerNode())
            r.name = QString::fromStdString(t.graph->ownerNode()->displayName()) + QStringLiteral(" \u203a ") + r.name;
        r.opType = QString::fromStdString(node.opType);
        r.calls = t.calls;
        r.milliseconds = static_cast<double>(t.total.count()) / 1e6;
        if (t.graph == main)
            m_totalMs += r.milliseconds;
        m_nodes.push_back(r);
        // Op-type totals count leaf work only where it happens: bodies are summed by their own nodes, so a
        // control-flow node's own row would count them twice.
        if (node.subgraphs.empty() && !node.functionBody) {
            Row& o = byOp[node.opType];
            o.name = o.opType = r.opType;
            o.calls += r.calls;
            o.milliseconds += r.milliseconds;
        }
    }
    for (auto& [op, row] : byOp)
        m_opTypes.push_back(row);
}

const ProfileModel::Row* ProfileModel::rowAt(int row) const
{
    const auto& rows = m_mode == Mode::PerNode ? m_nodes : m_opTypes;
    return row >= 0 && static_cast<size_t>(row) < rows.size() ? &rows[static_cast<size_t>(row)] : nullptr;
}

int ProfileModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid())
        return 0;
    return static_cast<int>(m_mode == Mode::PerNode ? m_nodes.size() : m_opTypes.size());
}

int ProfileModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProfileModel::data(const QModelIndex& index, int role) const
{
    const Row* r = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!r)
        return {};
    if (role == RowIndexRole)
        return index.row();
    if (role == Qt::TextAlignmentRole && index.column() >= CallsColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    const double share = m_totalMs > 0 ? 100.0 * r->milliseconds / m_totalMs : 0.0;
    switch (index.column()) {
    case NameColumn:
        return r->name;
    case OpTypeColumn:
        return r->opType;
    case CallsColumn:
        return sort ? QVariant(static_cast<qlonglong>(r->calls)) : QVariant(QString::number(r->calls));
    case TotalColumn:
        return sort ? QVariant(r->milliseconds) : QVariant(QString::number(r->milliseconds, 'f', 3));
    case ShareColumn:
        return sort ? QVariant(share) : QVariant(QStringLiteral("%1 %").arg(share, 0, 'f', 1));
    default:
        return {};
    }
}

QVariant ProfileModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = { "Node", "Op type", "Calls", "Time (ms)", "Share" };
    if (section == NameColumn && m_mode == Mode::PerOpType)
        return QStringLiteral("Op type");
    return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
}

} // namespace onnxscope
