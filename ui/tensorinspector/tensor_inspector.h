// SPDX-License-Identifier: MIT
#pragma once

#include "engine/compare/expected_value_check.h"
#include "engine/core/tensor_stats.h"
#include "engine/core/value.h"

#include <QWidget>

#include <functional>
#include <optional>
#include <vector>

class QLabel;
class QSpinBox;
class QTabWidget;
class QTableView;
class QHBoxLayout;
class QPushButton;

namespace onnxscope {

class HeatmapWidget;
class HistogramWidget;
class TensorDiffView;
class TensorTableModel;

/// The one tensor viewer (the window's Tensor Inspector dock), for an initializer or a value of a run: dtype and shape,
/// statistics (min, max, mean, std, zeros, NaN, ±Inf), a lazy table of a 2-D slice with spin boxes for the other axes,
/// a histogram, a heatmap of the slice with its colour scale, and "compare with…" another value or a .npy/.pb file (max
/// abs/rel error and the worst index), and the diff view of a pair from a comparison run (showPair: both slices, |A −
/// B| heatmap, worst indices).
///
/// Opening is instant whatever the size: the table formats only visible cells, and statistics and the histogram are
/// computed on a worker thread.
class TensorInspector : public QWidget {
    Q_OBJECT
public:
    /// Values the user may compare against: (label, tensor).
    using CandidateSource = std::function<std::vector<std::pair<QString, Tensor>>()>;
    enum Tab { TableTab, HeatmapTab, HistogramTab, CompareTab, DiffTab };

    explicit TensorInspector(QWidget* parent = nullptr);
    /// Pin: while checked, the views that follow the selection leave the tensor shown alone.
    QPushButton* pinButton() const { return m_pinButton; }
    bool isPinned() const;
    ~TensorInspector() override;

    void setTensor(const QString& title, const Tensor& tensor);
    /// Tensors, optionals and sequences (an item spin box picks the sequence item); maps show keys and values.
    void setValue(const QString& title, const Value& value);
    void clear();
    const Tensor& tensor() const { return m_tensor; }
    QString title() const { return m_title; }

    void setCandidateSource(CandidateSource source) { m_candidates = std::move(source); }
    /// Compares the shown tensor with `reference`; the result shows in the Compare tab and is returned.
    std::optional<TensorDiff> compareWith(const QString& label, const Tensor& reference);
    /// Reads a .npy/.pb file and compares; errors show in the Compare tab.
    std::optional<TensorDiff> compareWithFile(const QString& path);
    QString compareText() const;
    /// Shows side A's value like setValue() and opens the Diff tab on the pair (A, B).
    void showPair(const QString& title, const QString& labelA, const QString& labelB, const Value& a, const Value& b,
        Tolerance tolerance);
    TensorDiffView* diffView() const { return m_diff; }

    /// Leading-axes indices of the slice shown (all but the last two axes).
    void setSlice(const std::vector<int64_t>& leading);
    /// Names of the shown tensor's axes (e.g. batch, kv head, position, head dim), used by the slice controls and the
    /// slice's statistics; empty for "axis N". setTensor() guesses them (guessAxisNames); this overrides the guess.
    void setAxisNames(const QStringList& names);
    const QStringList& axisNames() const { return m_axisNames; }
    /// Axis names from what the title says: a key/value cache (a value named present…/past… key or value, or an
    /// output of GroupQueryAttention, MultiHeadAttention or Attention, as the debugger's title "name ← node (Op)"
    /// names it) of rank 4 is [batch, kv head (GroupQueryAttention) or head, position, head dim]; Attention's rank-5
    /// present adds its leading key/value axis. Empty when nothing is known.
    static QStringList guessAxisNames(const QString& title, const Shape& shape);
    /// Statistics of the 2-D slice shown (one head of a KV cache), as the line under the slice controls says.
    QString sliceStatsText() const;
    bool statsReady() const { return m_stats.has_value(); }
    const std::optional<TensorStats>& stats() const { return m_stats; }
    QString statsText() const;
    QString headerText() const;

    TensorTableModel* tableModel() const { return m_model; }
    QTableView* table() const { return m_table; }
    HeatmapWidget* heatmap() const { return m_heatmap; }
    HistogramWidget* histogram() const { return m_histogram; }
    QTabWidget* tabs() const { return m_tabs; }

signals:
    void statsComputed();
    /// "Export…" was clicked for the shown tensor.
    void exportRequested(const QString& title, const onnxscope::Tensor& tensor);

private:
    void rebuildSliceControls();
    void updateSliceVisibility();
    void sliceChanged();
    void updateSliceStats();
    QString axisName(int64_t axis) const;
    void updateHeatmap();
    void startStats();
    void chooseValueToCompare();
    void chooseFileToCompare();
    QString indexText(int64_t flat) const;

    QString m_title;
    Value m_value;
    Tensor m_tensor;
    std::optional<TensorStats> m_stats;
    quint64 m_generation = 0;
    CandidateSource m_candidates;

    QLabel* m_header;
    QLabel* m_statsLabel;
    QHBoxLayout* m_sliceLayout;
    std::vector<QSpinBox*> m_sliceBoxes;
    QStringList m_axisNames;
    QLabel* m_sliceStats;
    QSpinBox* m_itemBox = nullptr;
    QTabWidget* m_tabs;
    QTableView* m_table;
    TensorTableModel* m_model;
    HeatmapWidget* m_heatmap;
    HistogramWidget* m_histogram;
    QLabel* m_compareResult;
    TensorDiffView* m_diff;
    QPushButton* m_exportButton;
    QPushButton* m_pinButton;
};

} // namespace onnxscope
