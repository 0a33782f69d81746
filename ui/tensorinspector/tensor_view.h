// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"

#include <QWidget>

#include <vector>

class QLabel;
class QSpinBox;
class QTableView;
class QHBoxLayout;

namespace onnxscope {

class TensorTableModel;

/// A read-only tensor viewer: name, dtype, shape, min/max/mean, and a table of a 2-D slice with spin boxes for the
/// leading axes. The debugger issue extends it (histogram, heatmap, diff, export).
class TensorView : public QWidget {
    Q_OBJECT
public:
    explicit TensorView(QWidget* parent = nullptr);
    void setTensor(const QString& title, const Tensor& tensor);
    TensorTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QString summary() const;

private:
    void sliceChanged();

    QLabel* m_header;
    QHBoxLayout* m_sliceLayout;
    std::vector<QSpinBox*> m_sliceBoxes;
    QTableView* m_table;
    TensorTableModel* m_model;
};

} // namespace onnxscope
