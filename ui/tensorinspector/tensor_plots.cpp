// SPDX-License-Identifier: MIT
#include "ui/tensorinspector/tensor_plots.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>

namespace onnxscope {

HistogramWidget::HistogramWidget(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumHeight(120);
}

void HistogramWidget::setHistogram(const Histogram& histogram, const QString& note)
{
    m_histogram = histogram;
    m_note = note;
    update();
}

QRectF HistogramWidget::plotRect() const { return QRectF(rect()).adjusted(44, 10, -12, -28); }

void HistogramWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRectF r = plotRect();
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(r);
    if (m_histogram.counts.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, m_note.isEmpty() ? QStringLiteral("No numeric values") : m_note);
        return;
    }
    int64_t peak = 1;
    for (int64_t c : m_histogram.counts)
        peak = std::max(peak, c);
    const double w = r.width() / static_cast<double>(m_histogram.counts.size());
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x3b, 0x82, 0xf6));
    for (size_t i = 0; i < m_histogram.counts.size(); ++i) {
        const double h = r.height() * static_cast<double>(m_histogram.counts[i]) / static_cast<double>(peak);
        p.drawRect(QRectF(r.left() + static_cast<double>(i) * w, r.bottom() - h, std::max(w - 1, 1.0), h));
    }
    p.setPen(palette().color(QPalette::Text));
    const QFontMetrics fm(font());
    p.drawText(QRectF(r.left(), r.bottom() + 4, r.width() / 2, fm.height()), Qt::AlignLeft, QString::number(m_histogram.lo, 'g', 5));
    p.drawText(QRectF(r.center().x(), r.bottom() + 4, r.width() / 2, fm.height()), Qt::AlignRight, QString::number(m_histogram.hi, 'g', 5));
    p.drawText(QRectF(0, r.top(), r.left() - 4, fm.height()), Qt::AlignRight, QString::number(peak));
    p.drawText(QRectF(0, r.bottom() - fm.height(), r.left() - 4, fm.height()), Qt::AlignRight, QStringLiteral("0"));
    if (!m_note.isEmpty())
        p.drawText(QRectF(r.left(), r.bottom() + 4, r.width(), fm.height()), Qt::AlignHCenter, m_note);
}

void HistogramWidget::mouseMoveEvent(QMouseEvent* event)
{
    const QRectF r = plotRect();
    if (m_histogram.counts.empty() || !r.contains(event->position()))
        return;
    const size_t n = m_histogram.counts.size();
    const size_t i = std::min(n - 1, static_cast<size_t>((event->position().x() - r.left()) / r.width() * static_cast<double>(n)));
    const double width = (m_histogram.hi - m_histogram.lo) / static_cast<double>(n);
    QToolTip::showText(event->globalPosition().toPoint(),
        QStringLiteral("[%1, %2): %3").arg(m_histogram.lo + width * static_cast<double>(i), 0, 'g', 6)
            .arg(m_histogram.lo + width * static_cast<double>(i + 1), 0, 'g', 6)
            .arg(m_histogram.counts[i]),
        this);
}

HeatmapWidget::HeatmapWidget(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(160, 120);
}

QRgb HeatmapWidget::colourAt(double t)
{
    // A few stops of matplotlib's viridis, linearly interpolated.
    static const double stops[][3] = { { 68, 1, 84 }, { 72, 40, 120 }, { 62, 74, 137 }, { 49, 104, 142 }, { 38, 130, 142 },
        { 31, 158, 137 }, { 53, 183, 121 }, { 110, 206, 88 }, { 181, 222, 43 }, { 253, 231, 37 } };
    constexpr int n = 10;
    t = std::clamp(t, 0.0, 1.0) * (n - 1);
    const int i = std::min(static_cast<int>(t), n - 2);
    const double f = t - i;
    auto mix = [&](int c) { return static_cast<int>(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f); };
    return qRgb(mix(0), mix(1), mix(2));
}

void HeatmapWidget::clear()
{
    m_image = QImage();
    m_tensor = Tensor();
    m_rows = m_columns = 0;
    update();
}

void HeatmapWidget::setSlice(const Tensor& tensor, int64_t offset, int64_t rows, int64_t columns)
{
    m_tensor = tensor;
    m_offset = offset;
    m_rows = rows;
    m_columns = columns;
    if (!tensor.defined() || rows <= 0 || columns <= 0 || tensor.dtype() == DataType::String) {
        m_image = QImage();
        update();
        return;
    }
    const int height = static_cast<int>(std::min<int64_t>(rows, kMaxSide));
    const int width = static_cast<int>(std::min<int64_t>(columns, kMaxSide));
    std::vector<double> samples(static_cast<size_t>(width) * static_cast<size_t>(height));
    m_low = INFINITY;
    m_high = -INFINITY;
    std::vector<double> line(static_cast<size_t>(width));
    for (int y = 0; y < height; ++y) {
        const int64_t row = rows == height ? y : y * rows / height;
        if (columns == width)
            copyAsDouble(tensor, offset + row * columns, offset + (row + 1) * columns, line.data());
        else // sampled: read only the columns drawn
            for (int x = 0; x < width; ++x) {
                const int64_t i = offset + row * columns + x * columns / width;
                copyAsDouble(tensor, i, i + 1, &line[static_cast<size_t>(x)]);
            }
        for (int x = 0; x < width; ++x) {
            const double v = line[static_cast<size_t>(x)];
            samples[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)] = v;
            if (std::isfinite(v)) {
                m_low = std::min(m_low, v);
                m_high = std::max(m_high, v);
            }
        }
    }
    if (!std::isfinite(m_low))
        m_low = m_high = 0;
    m_image = QImage(width, height, QImage::Format_RGB32);
    const double span = m_high > m_low ? m_high - m_low : 1.0;
    for (int y = 0; y < height; ++y) {
        auto* out = reinterpret_cast<QRgb*>(m_image.scanLine(y));
        for (int x = 0; x < width; ++x) {
            const double v = samples[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)];
            out[x] = std::isfinite(v) ? colourAt((v - m_low) / span) : qRgb(255, 0, 255);
        }
    }
    update();
}

double HeatmapWidget::scaleWidth() const
{
    // The colour bar and its two labels, as wide as the longer label needs.
    const QFontMetrics fm(font());
    return 14 + 3 + std::max({ fm.horizontalAdvance(QString::number(m_high, 'g', 4)), fm.horizontalAdvance(QString::number(m_low, 'g', 4)), 30 }) + 8;
}

QRectF HeatmapWidget::imageRect() const
{
    const QRectF area = QRectF(rect()).adjusted(6, 6, -scaleWidth() - 10, -6);
    if (m_image.isNull() || area.width() <= 0 || area.height() <= 0)
        return {};
    const double scale = std::min(area.width() / m_image.width(), area.height() / m_image.height());
    const QSizeF size(m_image.width() * scale, m_image.height() * scale);
    return QRectF(area.topLeft(), size);
}

void HeatmapWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (m_image.isNull()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, QStringLiteral("No numeric slice to draw"));
        return;
    }
    const QRectF target = imageRect();
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(target, m_image);
    // Colour scale: a vertical bar with the slice's min at the bottom and max at the top.
    const QRectF bar(rect().right() - scaleWidth(), 10, 14, std::max(40.0, target.height() - 20));
    for (int y = 0; y < static_cast<int>(bar.height()); ++y) {
        p.setPen(QColor(colourAt(1.0 - y / bar.height())));
        p.drawLine(QPointF(bar.left(), bar.top() + y), QPointF(bar.right(), bar.top() + y));
    }
    p.setPen(palette().color(QPalette::Text));
    p.drawRect(bar);
    const QFontMetrics fm(font());
    p.drawText(QPointF(bar.right() + 3, bar.top() + fm.ascent()), QString::number(m_high, 'g', 4));
    p.drawText(QPointF(bar.right() + 3, bar.bottom()), QString::number(m_low, 'g', 4));
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* event)
{
    const QRectF target = imageRect();
    if (m_image.isNull() || !target.contains(event->position()))
        return;
    const int64_t column = std::min<int64_t>(m_columns - 1, static_cast<int64_t>((event->position().x() - target.left()) / target.width() * static_cast<double>(m_columns)));
    const int64_t row = std::min<int64_t>(m_rows - 1, static_cast<int64_t>((event->position().y() - target.top()) / target.height() * static_cast<double>(m_rows)));
    double v = 0;
    copyAsDouble(m_tensor, m_offset + row * m_columns + column, m_offset + row * m_columns + column + 1, &v);
    emit hovered(row, column, v);
    QToolTip::showText(event->globalPosition().toPoint(), QStringLiteral("[%1, %2] = %3").arg(row).arg(column).arg(v, 0, 'g', 7), this);
}

} // namespace onnxscope
