// SPDX-License-Identifier: MIT
#pragma once

#include "engine/analysis/quant_error.h"

#include <QAbstractTableModel>

#include <memory>

namespace onnxscope {

/// check-quantization's ranked table (engine/analysis/quant_error.h): one row per quantized layer, ranked by its own
/// error, with the accumulated error beside it. Adapts the report; copies nothing.
class QuantErrorModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        LayerColumn,
        OpColumn,
        FloatValueColumn,
        OwnRelColumn,
        OwnMaxColumn,
        OwnCosineColumn,
        AccRelColumn,
        AccMaxColumn,
        AccCosineColumn,
        AccRankColumn,
        ColumnCount
    };

    explicit QuantErrorModel(QObject* parent = nullptr);
    void setReport(std::shared_ptr<const QuantErrorReport> report);
    const QuantLayer* layerAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const QuantErrorReport> m_report;
};

} // namespace onnxscope
