// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

namespace onnxscope {

/// A 2-D slice of an N-D tensor as a table, read lazily: nothing is copied, cells are formatted when a view asks.
/// Rank 0 is one cell, rank 1 one column, rank ≥ 2 shows the last two axes at the leading indices of slice().
/// The tensor inspector of the debugger builds on this (stats, heatmap, diff).
class TensorTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role { ValueRole = Qt::UserRole + 1 }; // double: the element as a number (NaN for strings)

    explicit TensorTableModel(QObject* parent = nullptr);

    void setTensor(const Tensor& tensor);
    const Tensor& tensor() const { return m_tensor; }
    /// Indices of the leading rank-2 axes; values are clamped to the axes' sizes.
    void setSlice(std::vector<int64_t> leading);
    const std::vector<int64_t>& slice() const { return m_slice; }
    /// Flat element index of a cell.
    int64_t elementIndex(int row, int column) const;
    /// Names for the rows of a 1-D tensor (a map's keys), shown in the vertical header instead of the row index;
    /// empty for indices. setTensor() clears them.
    void setRowLabels(const QStringList& labels);
    const QStringList& rowLabels() const { return m_rowLabels; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    Tensor m_tensor;
    std::vector<int64_t> m_slice;
    int64_t m_rows = 0;
    int64_t m_columns = 0;
    QStringList m_rowLabels;
};

} // namespace onnxscope
