// SPDX-License-Identifier: MIT
#include "ui/debugger/breakpoint_model.h"

#include "ui/common/settings.h"

namespace onnxscope {

QString BreakpointSpec::description() const
{
    QString text;
    switch (kind) {
    case Kind::Node:
        text = QStringLiteral("node %1").arg(pattern);
        break;
    case Kind::OpType:
        text = QStringLiteral("op type %1").arg(pattern);
        break;
    case Kind::NonFinite:
        text = QStringLiteral("first NaN/Inf");
        break;
    case Kind::DebugNodes:
        text = QStringLiteral("DEBUG nodes");
        break;
    case Kind::Condition:
        text = QStringLiteral("%1 on %2%3")
                   .arg(condition, pattern.isEmpty() ? QStringLiteral("any node") : pattern,
                       outputIndex >= 0 ? QStringLiteral(" output %1").arg(outputIndex) : QString());
        break;
    }
    if (iteration >= 0)
        text += QStringLiteral(" (iteration %1)").arg(iteration);
    return text;
}

BreakpointModel::BreakpointModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

int BreakpointModel::add(BreakpointSpec spec)
{
    spec.id = m_nextId++;
    beginInsertRows({}, static_cast<int>(m_items.size()), static_cast<int>(m_items.size()));
    m_items.append(spec);
    endInsertRows();
    emit breakpointsChanged();
    return spec.id;
}

int BreakpointModel::rowOf(int id) const
{
    for (int i = 0; i < m_items.size(); ++i)
        if (m_items[i].id == id)
            return i;
    return -1;
}

const BreakpointSpec* BreakpointModel::find(int id) const
{
    const int row = rowOf(id);
    return row < 0 ? nullptr : &m_items[row];
}

bool BreakpointModel::remove(int id)
{
    const int row = rowOf(id);
    if (row < 0)
        return false;
    beginRemoveRows({}, row, row);
    m_items.removeAt(row);
    endRemoveRows();
    emit breakpointsChanged();
    return true;
}

void BreakpointModel::clear()
{
    if (m_items.isEmpty())
        return;
    beginResetModel();
    m_items.clear();
    endResetModel();
    emit breakpointsChanged();
}

bool BreakpointModel::setEnabled(int id, bool enabled)
{
    const int row = rowOf(id);
    if (row < 0)
        return false;
    if (m_items[row].enabled != enabled) {
        m_items[row].enabled = enabled;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
        emit breakpointsChanged();
    }
    return true;
}

void BreakpointModel::setBreakOnNonFinite(bool on)
{
    QList<int> existing;
    for (const auto& b : m_items)
        if (b.kind == BreakpointSpec::Kind::NonFinite)
            existing.push_back(b.id);
    if (!on) {
        for (int id : existing)
            remove(id);
        return;
    }
    if (existing.isEmpty()) {
        BreakpointSpec spec;
        spec.kind = BreakpointSpec::Kind::NonFinite;
        add(spec);
        return;
    }
    for (int id : existing)
        setEnabled(id, true);
}

void BreakpointModel::save(const QString& modelPath) const
{
    QList<Settings::Breakpoint> saved;
    for (const BreakpointSpec& b : m_items)
        saved << Settings::Breakpoint { static_cast<int>(b.kind), b.pattern, b.enabled, b.iteration, b.condition,
            b.outputIndex };
    Settings::instance().setBreakpoints(modelPath, saved);
}

void BreakpointModel::restore(const QString& modelPath)
{
    QList<BreakpointSpec> items;
    for (const Settings::Breakpoint& saved : Settings::instance().breakpoints(modelPath)) {
        if (saved.kind < static_cast<int>(BreakpointSpec::Kind::Node)
            || saved.kind > static_cast<int>(BreakpointSpec::Kind::Condition))
            continue;
        BreakpointSpec b;
        b.kind = static_cast<BreakpointSpec::Kind>(saved.kind);
        b.pattern = saved.pattern;
        b.enabled = saved.enabled;
        b.iteration = saved.iteration;
        b.condition = saved.condition;
        b.outputIndex = saved.output;
        b.id = m_nextId++;
        items.push_back(b);
    }
    beginResetModel();
    m_items = items;
    endResetModel();
    emit breakpointsChanged();
}

bool BreakpointModel::breaksOnNonFinite() const
{
    for (const auto& b : m_items)
        if (b.kind == BreakpointSpec::Kind::NonFinite && b.enabled)
            return true;
    return false;
}

bool BreakpointModel::hasNodeBreakpoint(const QString& nodeName) const
{
    for (const auto& b : m_items)
        if (b.kind == BreakpointSpec::Kind::Node && b.pattern == nodeName && b.enabled)
            return true;
    return false;
}

bool BreakpointModel::toggleNode(const QString& nodeName)
{
    for (const auto& b : m_items)
        if (b.kind == BreakpointSpec::Kind::Node && b.pattern == nodeName && b.iteration < 0) {
            remove(b.id);
            return false;
        }
    BreakpointSpec spec;
    spec.kind = BreakpointSpec::Kind::Node;
    spec.pattern = nodeName;
    add(spec);
    return true;
}

void BreakpointModel::recordHit(int id)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    ++m_items[row].hits;
    emit dataChanged(index(row, HitsColumn), index(row, HitsColumn));
}

void BreakpointModel::resetHits()
{
    for (int row = 0; row < m_items.size(); ++row) {
        if (m_items[row].hits == 0)
            continue;
        m_items[row].hits = 0;
        emit dataChanged(index(row, HitsColumn), index(row, HitsColumn));
    }
}

int BreakpointModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_items.size());
}

int BreakpointModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BreakpointModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_items.size())
        return {};
    const BreakpointSpec& b = m_items[index.row()];
    if (role == IdRole)
        return b.id;
    if (role == Qt::CheckStateRole && index.column() == KindColumn)
        return b.enabled ? Qt::Checked : Qt::Unchecked;
    if (role == Qt::ToolTipRole)
        return b.description();
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case KindColumn:
        switch (b.kind) {
        case BreakpointSpec::Kind::Node:
            return QStringLiteral("Node");
        case BreakpointSpec::Kind::OpType:
            return QStringLiteral("Op type");
        case BreakpointSpec::Kind::NonFinite:
            return QStringLiteral("NaN/Inf");
        case BreakpointSpec::Kind::DebugNodes:
            return QStringLiteral("DEBUG");
        case BreakpointSpec::Kind::Condition:
            return QStringLiteral("Condition");
        }
        return {};
    case WhereColumn:
        if (b.kind == BreakpointSpec::Kind::NonFinite || b.kind == BreakpointSpec::Kind::DebugNodes)
            return QStringLiteral("any node");
        if (b.pattern.isEmpty())
            return QStringLiteral("any node");
        return b.outputIndex >= 0 ? QStringLiteral("%1 (output %2)").arg(b.pattern).arg(b.outputIndex) : b.pattern;
    case IterationColumn:
        return b.iteration >= 0 ? QString::number(b.iteration) : QStringLiteral("all");
    case ConditionColumn:
        return b.condition;
    case HitsColumn:
        return b.hits;
    default:
        return {};
    }
}

bool BreakpointModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || index.column() != KindColumn || role != Qt::CheckStateRole)
        return false;
    return setEnabled(m_items[index.row()].id, value.toInt() == Qt::Checked);
}

Qt::ItemFlags BreakpointModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == KindColumn)
        f |= Qt::ItemIsUserCheckable;
    return f;
}

QVariant BreakpointModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char* names[] = { "Breakpoint", "Where", "Iteration", "Condition", "Hits" };
    return section >= 0 && section < ColumnCount ? QString::fromLatin1(names[section]) : QVariant();
}

} // namespace onnxscope
