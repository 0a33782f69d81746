// SPDX-License-Identifier: MIT
#include "ui/nodeinspector/property_tree_model.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

namespace onnxscope {

// internalId 0 marks a section; a row's internalId is its section index + 1.

PropertyTreeModel::PropertyTreeModel(QObject* parent)
    : QAbstractItemModel(parent)
{
}

void PropertyTreeModel::setSections(std::vector<PropertySection> sections)
{
    beginResetModel();
    m_sections = std::move(sections);
    endResetModel();
}

const PropertyRow* PropertyTreeModel::row(const QModelIndex& index) const
{
    if (!index.isValid() || index.internalId() == 0)
        return nullptr;
    const size_t section = static_cast<size_t>(index.internalId() - 1);
    if (section >= m_sections.size() || static_cast<size_t>(index.row()) >= m_sections[section].rows.size())
        return nullptr;
    return &m_sections[section].rows[static_cast<size_t>(index.row())];
}

QModelIndex PropertyTreeModel::find(const QString& section, const QString& name) const
{
    for (size_t s = 0; s < m_sections.size(); ++s) {
        if (m_sections[s].title != section)
            continue;
        for (size_t r = 0; r < m_sections[s].rows.size(); ++r)
            if (m_sections[s].rows[r].name == name)
                return createIndex(static_cast<int>(r), 0, static_cast<quintptr>(s + 1));
    }
    return {};
}

QModelIndex PropertyTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return static_cast<size_t>(row) < m_sections.size() ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0 || parent.column() != 0)
        return {};
    const size_t section = static_cast<size_t>(parent.row());
    if (section >= m_sections.size() || static_cast<size_t>(row) >= m_sections[section].rows.size())
        return {};
    return createIndex(row, column, static_cast<quintptr>(section + 1));
}

QModelIndex PropertyTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int PropertyTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_sections.size());
    if (parent.internalId() != 0 || parent.column() != 0)
        return 0;
    return static_cast<int>(m_sections[static_cast<size_t>(parent.row())].rows.size());
}

int PropertyTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant PropertyTreeModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == 0) {
        const auto& section = m_sections[static_cast<size_t>(index.row())];
        switch (role) {
        case Qt::DisplayRole:
            if (index.column() == NameColumn)
                return section.title;
            if (index.column() == ValueColumn && section.rows.size() > 1)
                return QStringLiteral("%1").arg(section.rows.size());
            return {};
        case Qt::FontRole: {
            QFont f = QGuiApplication::font();
            f.setBold(true);
            return f;
        }
        case Qt::ForegroundRole:
            return index.column() == NameColumn ? QVariant() : QVariant(QColor(0x8a, 0x94, 0xa6));
        case IsSectionRole:
            return true;
        default:
            return {};
        }
    }
    const PropertyRow* r = row(index);
    if (!r)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn)
            return r->name;
        if (index.column() == ValueColumn)
            return r->value;
        return r->detail;
    case Qt::ToolTipRole:
        if (!r->toolTip.isEmpty())
            return r->toolTip;
        return index.column() == ValueColumn && r->value.size() > 40 ? QVariant(r->value) : QVariant();
    case Qt::ForegroundRole:
        if (index.column() == DetailColumn)
            return QColor(0x6b, 0x72, 0x80);
        if (index.column() == ValueColumn && (r->tensor || r->valueRef != kNoValue || r->nodeRef >= 0))
            return QColor(0x15, 0x65, 0xc0);
        return {};
    case HasTensorRole:
        return static_cast<bool>(r->tensor);
    case ValueRefRole:
        return r->valueRef;
    case NodeRefRole:
        return r->nodeRef;
    case IsSectionRole:
        return false;
    default:
        return {};
    }
}

QVariant PropertyTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return QStringLiteral("Name");
    case ValueColumn:
        return QStringLiteral("Value");
    case DetailColumn:
        return QStringLiteral("Type");
    default:
        return {};
    }
}

Qt::ItemFlags PropertyTreeModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

} // namespace onnxscope
