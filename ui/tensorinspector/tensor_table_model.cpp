// SPDX-License-Identifier: MIT
#include "ui/tensorinspector/tensor_table_model.h"

#include "ui/common/tensor_format.h"

#include <QColor>
#include <QFontDatabase>
#include <limits>

namespace onnxscope {

namespace {

// Views cannot address more rows than an int holds; huge axes are truncated.
int clampToInt(int64_t n)
{
    return static_cast<int>(std::min<int64_t>(n, std::numeric_limits<int>::max()));
}

} // namespace

TensorTableModel::TensorTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void TensorTableModel::setTensor(const Tensor& tensor)
{
    beginResetModel();
    m_tensor = tensor;
    m_rowLabels.clear();
    const int64_t rank = tensor.defined() ? tensor.rank() : 0;
    m_slice.assign(static_cast<size_t>(std::max<int64_t>(rank - 2, 0)), 0);
    if (!tensor.defined() || tensor.size() == 0) {
        m_rows = m_columns = 0;
    } else if (rank == 0) {
        m_rows = m_columns = 1;
    } else if (rank == 1) {
        m_rows = tensor.dim(0);
        m_columns = 1;
    } else {
        m_rows = tensor.dim(rank - 2);
        m_columns = tensor.dim(rank - 1);
    }
    endResetModel();
}

void TensorTableModel::setSlice(std::vector<int64_t> leading)
{
    leading.resize(m_slice.size(), 0);
    for (size_t i = 0; i < leading.size(); ++i)
        leading[i]
            = std::clamp<int64_t>(leading[i], 0, std::max<int64_t>(m_tensor.dim(static_cast<int64_t>(i)) - 1, 0));
    if (leading == m_slice)
        return;
    m_slice = std::move(leading);
    if (m_rows > 0 && m_columns > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

int64_t TensorTableModel::elementIndex(int row, int column) const
{
    if (!m_tensor.defined())
        return -1;
    int64_t offset = 0;
    for (size_t i = 0; i < m_slice.size(); ++i)
        offset = offset * m_tensor.dim(static_cast<int64_t>(i)) + m_slice[i];
    return (offset * m_rows + row) * m_columns + column;
}

int TensorTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : clampToInt(m_rows);
}

int TensorTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : clampToInt(m_columns);
}

QVariant TensorTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const int64_t i = elementIndex(index.row(), index.column());
    switch (role) {
    case Qt::DisplayRole:
        return formatElement(m_tensor, i);
    case ValueRole:
        return m_tensor.toDouble(i);
    case Qt::TextAlignmentRole:
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    case Qt::ForegroundRole: {
        const double v = m_tensor.toDouble(i);
        if (std::isnan(v) || std::isinf(v))
            return QColor(0xc6, 0x28, 0x28);
        return {};
    }
    default:
        return {};
    }
}

QVariant TensorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role == Qt::DisplayRole) {
        if (orientation == Qt::Vertical && section >= 0 && section < m_rowLabels.size())
            return m_rowLabels[section];
        return section;
    }
    if (role == Qt::ToolTipRole && orientation == Qt::Vertical && section >= 0 && section < m_rowLabels.size())
        return QStringLiteral("key %1 (row %2)").arg(m_rowLabels[section]).arg(section);
    return {};
}

void TensorTableModel::setRowLabels(const QStringList& labels)
{
    m_rowLabels = labels;
    if (m_rows > 0)
        emit headerDataChanged(Qt::Vertical, 0, static_cast<int>(m_rows) - 1);
}

} // namespace onnxscope
