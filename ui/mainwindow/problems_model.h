// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/model.h"

#include <QAbstractTableModel>

#include <vector>

namespace onnxscope {

/// onnx checker and shape-inference diagnostics as a table. Columns: Severity, Source, Message.
class ProblemsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SeverityColumn, SourceColumn, MessageColumn, ColumnCount };
    explicit ProblemsModel(QObject* parent = nullptr);

    void setDiagnostics(std::vector<Diagnostic> diagnostics);
    const std::vector<Diagnostic>& diagnostics() const { return m_items; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<Diagnostic> m_items;
};

} // namespace onnxscope
