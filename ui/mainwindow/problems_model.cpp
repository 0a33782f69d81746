// SPDX-License-Identifier: MIT
#include "ui/mainwindow/problems_model.h"

#include <QApplication>
#include <QStyle>

namespace onnxscope {

ProblemsModel::ProblemsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ProblemsModel::setDiagnostics(std::vector<Diagnostic> diagnostics)
{
    beginResetModel();
    m_items = std::move(diagnostics);
    endResetModel();
}

int ProblemsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_items.size());
}

int ProblemsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProblemsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || static_cast<size_t>(index.row()) >= m_items.size())
        return {};
    const Diagnostic& d = m_items[static_cast<size_t>(index.row())];
    const bool error = d.severity == Diagnostic::Severity::Error;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn:
            return error ? QStringLiteral("error") : QStringLiteral("warning");
        case SourceColumn:
            return QString::fromStdString(d.source);
        case MessageColumn:
            return QString::fromStdString(d.message).simplified();
        default:
            return {};
        }
    case Qt::ToolTipRole:
        return QString::fromStdString(d.message);
    case Qt::DecorationRole:
        if (index.column() == SeverityColumn)
            return QApplication::style()->standardIcon(
                error ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning);
        return {};
    default:
        return {};
    }
}

QVariant ProblemsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn:
        return QStringLiteral("Severity");
    case SourceColumn:
        return QStringLiteral("Source");
    case MessageColumn:
        return QStringLiteral("Message");
    default:
        return {};
    }
}

} // namespace onnxscope
