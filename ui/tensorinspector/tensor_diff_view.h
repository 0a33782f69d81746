// SPDX-License-Identifier: MIT
#pragma once

#include "engine/compare/value_comparison.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QHBoxLayout;
class QSpinBox;
class QSplitter;
class QTableView;
class QTableWidget;

namespace onnxscope {

class HeatmapWidget;
class TensorTableModel;
class DiffHighlightModel;

/// One element where two tensors differ.
struct ElementDifference {
    int64_t index = -1; // flat, row-major
    double a = 0, b = 0;
    double absDiff = 0; // |a - b|; infinity where NaN/Inf differ
    double relDiff = 0; // |a - b| / |b|, 0 where b == 0
};

/// The `k` elements with the largest |a - b| (computed in float64), largest first; elements where NaN/Inf differ rank
/// above every finite difference, equal differences by index. The tensors must have the same element count; they
/// are read in chunks, so this costs O(k) memory whatever their size.
std::vector<ElementDifference> worstDifferences(const Tensor& a, const Tensor& b, size_t k);

/// |a - b| over elements [offset, offset + rows * columns) as a float64 rows × columns tensor (NaN where NaN/Inf
/// differ, 0 where both are the same non-finite value).
Tensor differenceSlice(const Tensor& a, const Tensor& b, int64_t offset, int64_t rows, int64_t columns);

/// The tensor inspector's diff view of a compared pair: both slices side by side (cells outside the tolerance
/// tinted), the element-wise |A − B| of the slice as a heatmap, and the worst indices (top-k |A − B| with both
/// values); choosing one shows it in both tables. Statistics and the worst indices are computed on a worker thread.
class TensorDiffView : public QWidget {
    Q_OBJECT
public:
    static constexpr size_t kWorst = 20;
    explicit TensorDiffView(QWidget* parent = nullptr);
    ~TensorDiffView() override;

    /// Shows a pair. Optionals are unwrapped; a pair that is not two tensors shows why it cannot be diffed.
    void setPair(const QString& title, const QString& labelA, const QString& labelB, const Value& a, const Value& b,
        Tolerance tolerance);
    void clear();

    const Tensor& tensorA() const { return m_a; }
    const Tensor& tensorB() const { return m_b; }
    /// Statistics and worst indices of the current pair are known.
    bool isReady() const { return m_ready; }
    const std::vector<ElementDifference>& worst() const { return m_worst; }
    const std::optional<PairComparison>& comparison() const { return m_comparison; }
    QString summaryText() const;
    /// "[0, 4]" for a flat index of the current pair.
    QString indexText(int64_t flat) const;

    /// Shows the slice holding `flat` and selects that element in both tables.
    void goToElement(int64_t flat);
    void setSlice(const std::vector<int64_t>& leading);

    TensorTableModel* modelA() const { return m_modelA; }
    TensorTableModel* modelB() const { return m_modelB; }
    QTableView* tableA() const { return m_tableA; }
    QTableView* tableB() const { return m_tableB; }
    HeatmapWidget* heatmap() const { return m_heatmap; }
    QTableWidget* worstTable() const { return m_worstTable; }

signals:
    /// Statistics and worst indices arrived.
    void computed();

private:
    void rebuildSliceControls();
    void sliceChanged();
    void updateHeatmap();
    void showComputed();

    QString m_title, m_labelA, m_labelB;
    Tensor m_a, m_b;
    Tolerance m_tolerance;
    bool m_ready = false;
    bool m_sameCount = false;
    std::vector<ElementDifference> m_worst;
    std::optional<PairComparison> m_comparison;
    quint64 m_generation = 0;

    QLabel* m_header;
    QLabel* m_summary;
    QHBoxLayout* m_sliceLayout;
    std::vector<QSpinBox*> m_sliceBoxes;
    QLabel* m_captionA;
    QLabel* m_captionB;
    TensorTableModel* m_modelA;
    TensorTableModel* m_modelB;
    DiffHighlightModel* m_highlightA;
    DiffHighlightModel* m_highlightB;
    QTableView* m_tableA;
    QTableView* m_tableB;
    HeatmapWidget* m_heatmap;
    QLabel* m_heatmapCaption;
    QTableWidget* m_worstTable;
};

} // namespace onnxscope
