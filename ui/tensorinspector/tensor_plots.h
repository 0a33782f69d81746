// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/tensor_stats.h"

#include <QImage>
#include <QWidget>

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

private:
    QRectF plotRect() const;
    Histogram m_histogram;
    QString m_note;
};

/// A 2-D slice drawn as an image (viridis-like colour map), with its colour scale. Large slices are sampled down to
/// at most `kMaxSide` pixels per side; NaN/Inf are drawn magenta.
class HeatmapWidget : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxSide = 1024;
    explicit HeatmapWidget(QWidget* parent = nullptr);
    /// Elements [offset, offset + rows * columns) of `tensor` as a rows × columns image.
    void setSlice(const Tensor& tensor, int64_t offset, int64_t rows, int64_t columns);
    void clear();
    const QImage& image() const { return m_image; }
    double low() const { return m_low; }
    double high() const { return m_high; }
    /// RGB of the colour map at t in [0, 1].
    static QRgb colourAt(double t);
    QSize sizeHint() const override { return { 360, 260 }; }

signals:
    /// The cell under the mouse (slice row and column) and its value.
    void hovered(qint64 row, qint64 column, double value);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QRectF imageRect() const;
    double scaleWidth() const;
    QImage m_image;
    Tensor m_tensor;
    int64_t m_offset = 0, m_rows = 0, m_columns = 0;
    double m_low = 0, m_high = 0;
};

} // namespace onnxscope
