// SPDX-License-Identifier: MIT
#include "ui/debugger/call_stack_model.h"

#include <QFont>

namespace onnxscope {

CallStackModel::CallStackModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void CallStackModel::setSnapshot(const DebugSnapshotPtr& snapshot)
{
    beginResetModel();
    m_snapshot = snapshot;
    endResetModel();
}

const FrameSnapshot* CallStackModel::frameAt(int row) const
{
    if (!m_snapshot || row < 0 || static_cast<size_t>(row) >= m_snapshot->frames.size())
        return nullptr;
    return &m_snapshot->frames[m_snapshot->frames.size() - 1 - static_cast<size_t>(row)];
}

QString CallStackModel::pathText() const
{
    if (!m_snapshot)
        return {};
    QStringList parts;
    for (const auto& f : m_snapshot->frames)
        parts << QString::fromStdString(f.label);
    return parts.join(QStringLiteral(" \u203a "));
}

int CallStackModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_snapshot ? 0 : static_cast<int>(m_snapshot->frames.size());
}

int CallStackModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CallStackModel::data(const QModelIndex& index, int role) const
{
    const FrameSnapshot* f = index.isValid() ? frameAt(index.row()) : nullptr;
    if (!f)
        return {};
    if (role == FrameIdRole)
        return static_cast<qulonglong>(f->id);
    if (role == Qt::FontRole && index.row() == 0) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole)
        return QString::fromStdString(f->path);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case LevelColumn:
        return index.row();
    case FrameColumn:
        return QString::fromStdString(f->label);
    case PositionColumn: {
        if (f->position < 0)
            return QStringLiteral("(end of graph)");
        const Node& n = f->graph->node(f->position);
        const bool inProgress = index.row() > 0; // outer frames sit at the control-flow node that runs the inner one
        return QStringLiteral("%1%2 (%3)")
            .arg(inProgress ? QStringLiteral("in ") : QStringLiteral("before "),
                QString::fromStdString(n.displayName()), QString::fromStdString(n.opType));
    }
    default:
        return {};
    }
}

QVariant CallStackModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = { "#", "Frame", "Position" };
    return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
}

} // namespace onnxscope
