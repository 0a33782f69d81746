// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor_stats.h"

#include <QImage>
#include <QWidget>

#include <vector>

namespace onnxscope {

/// Bar chart of a Histogram, with the bin range on the axis and the count of the bin under the mouse.
class HistogramWidget : public QWidget {
    Q_OBJECT
public:
    explicit HistogramWidget(QWidget* parent = nullptr);
    void setHistogram(const Histogram& histogram, const QString& note = {});
    const Histogram& histogram() const { return m_histogram; }
    QSize sizeHint() const override { return { 360, 200 }; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

public:
    /// Where the bars are drawn; left of it, room for the y axis's labels (the peak count in full).
    QRectF plotRect() const;

private:
    Histogram m_histogram;
    QString m_note;
};

/// A 2-D slice drawn as an image (viridis-like colour map), with its colour scale. Large slices are sampled down to
/// at most `kMaxSide` pixels per side; NaN/Inf are drawn magenta.
class HeatmapWidget : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxSide = 1024;
    /// How values map to colours. MinMax spans the slice's finite minimum to maximum. Robust spans its 2nd to 98th
    /// percentile, so that a few outliers do not turn the rest into one colour; values beyond take the end colours.
    /// Log spans log10 |x| over the finite non-zero elements, for values over many orders of magnitude (sigmoid
    /// outputs, differences); zeros take the lowest colour.
    enum class ColourScale { MinMax, Robust, Log };
    explicit HeatmapWidget(QWidget* parent = nullptr);
    /// Elements [offset, offset + rows * columns) of `tensor` as a rows × columns image.
    void setSlice(const Tensor& tensor, int64_t offset, int64_t rows, int64_t columns);
    void clear();
    void setColourScale(ColourScale scale);
    ColourScale colourScale() const { return m_scale; }
    const QImage& image() const { return m_image; }
    /// The values at the two ends of the colour bar (for Log, magnitudes).
    double low() const { return m_low; }
    double high() const { return m_high; }
    /// RGB of the colour map at t in [0, 1].
    static QRgb colourAt(double t);
    QSize sizeHint() const override { return { 360, 260 }; }
    /// Where the slice is drawn in the widget.
    QRectF imageRect() const;

signals:
    /// The cell under the mouse (slice row and column) and its value.
    void hovered(qint64 row, qint64 column, double value);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    double scaleWidth() const;
    QString endLabel(bool high) const;
    void recolour();
    QImage m_image;
    Tensor m_tensor;
    int64_t m_offset = 0, m_rows = 0, m_columns = 0;
    int m_width = 0, m_height = 0; // of the image
    std::vector<double> m_samples; // the drawn elements, row by row
    ColourScale m_scale = ColourScale::MinMax;
    double m_low = 0, m_high = 0;
    bool m_clippedLow = false, m_clippedHigh = false; // Robust: some elements lie beyond an end
};

/// `heatmap` under a "Colours:" choice of its ColourScale (a QComboBox named `choiceName`), remembered in the
/// settings under that name: the inspector's heatmap and the diff view's |A − B| each keep their own.
QWidget* makeHeatmapPage(HeatmapWidget* heatmap, const QString& choiceName, QWidget* parent);

} // namespace onnxscope
