// SPDX-License-Identifier: MIT
#include "ui/tensorinspector/tensor_plots.h"

#include "ui/common/settings.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
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

QRectF HistogramWidget::plotRect() const
{
    int64_t peak = 1;
    for (int64_t c : m_histogram.counts)
        peak = std::max(peak, c);
    const int labels = QFontMetrics(font()).horizontalAdvance(QString::number(peak)) + 10;
    return QRectF(rect()).adjusted(std::max(44, labels), 10, -12, -28);
}

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
    p.drawText(QRectF(r.left(), r.bottom() + 4, r.width() / 2, fm.height()), Qt::AlignLeft,
        QString::number(m_histogram.lo, 'g', 5));
    p.drawText(QRectF(r.center().x(), r.bottom() + 4, r.width() / 2, fm.height()), Qt::AlignRight,
        QString::number(m_histogram.hi, 'g', 5));
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
    const size_t i
        = std::min(n - 1, static_cast<size_t>((event->position().x() - r.left()) / r.width() * static_cast<double>(n)));
    const double width = (m_histogram.hi - m_histogram.lo) / static_cast<double>(n);
    QToolTip::showText(event->globalPosition().toPoint(),
        QStringLiteral("[%1, %2): %3")
            .arg(m_histogram.lo + width * static_cast<double>(i), 0, 'g', 6)
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
    static const double stops[][3] = { { 68, 1, 84 }, { 72, 40, 120 }, { 62, 74, 137 }, { 49, 104, 142 },
        { 38, 130, 142 }, { 31, 158, 137 }, { 53, 183, 121 }, { 110, 206, 88 }, { 181, 222, 43 }, { 253, 231, 37 } };
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
    m_samples.clear();
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
    m_samples.clear();
    if (!tensor.defined() || rows <= 0 || columns <= 0 || tensor.dtype() == DataType::String) {
        m_image = QImage();
        update();
        return;
    }
    m_height = static_cast<int>(std::min<int64_t>(rows, kMaxSide));
    m_width = static_cast<int>(std::min<int64_t>(columns, kMaxSide));
    m_samples.resize(static_cast<size_t>(m_width) * static_cast<size_t>(m_height));
    for (int y = 0; y < m_height; ++y) {
        const int64_t row = rows == m_height ? y : y * rows / m_height;
        double* line = m_samples.data() + static_cast<size_t>(y) * static_cast<size_t>(m_width);
        if (columns == m_width)
            copyAsDouble(tensor, offset + row * columns, offset + (row + 1) * columns, line);
        else // sampled: read only the columns drawn
            for (int x = 0; x < m_width; ++x) {
                const int64_t i = offset + row * columns + x * columns / m_width;
                copyAsDouble(tensor, i, i + 1, &line[x]);
            }
    }
    recolour();
}

void HeatmapWidget::setColourScale(ColourScale scale)
{
    if (scale == m_scale)
        return;
    m_scale = scale;
    if (!m_samples.empty())
        recolour();
}

void HeatmapWidget::recolour()
{
    const bool log = m_scale == ColourScale::Log;
    // The values that set the ends: finite ones, and for Log the finite non-zero magnitudes.
    std::vector<double> ends;
    ends.reserve(m_samples.size());
    for (double v : m_samples)
        if (std::isfinite(v) && (!log || v != 0))
            ends.push_back(log ? std::abs(v) : v);
    m_clippedLow = m_clippedHigh = false;
    if (ends.empty()) {
        m_low = m_high = 0;
    } else if (m_scale == ColourScale::Robust && ends.size() > 2) {
        const size_t lo = ends.size() * 2 / 100, hi = ends.size() - 1 - ends.size() * 2 / 100;
        std::nth_element(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(lo), ends.end());
        m_low = ends[lo];
        std::nth_element(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(hi), ends.end());
        m_high = ends[hi];
        if (m_high <= m_low) { // mostly one value: the full range says more
            const auto [mn, mx] = std::minmax_element(ends.begin(), ends.end());
            m_low = *mn;
            m_high = *mx;
        }
    } else {
        const auto [mn, mx] = std::minmax_element(ends.begin(), ends.end());
        m_low = *mn;
        m_high = *mx;
    }
    const double low = log && m_low > 0 ? std::log10(m_low) : m_low;
    const double high = log && m_high > 0 ? std::log10(m_high) : m_high;
    const double span = high > low ? high - low : 1.0;
    m_image = QImage(m_width, m_height, QImage::Format_RGB32);
    for (int y = 0; y < m_height; ++y) {
        auto* out = reinterpret_cast<QRgb*>(m_image.scanLine(y));
        const double* line = m_samples.data() + static_cast<size_t>(y) * static_cast<size_t>(m_width);
        for (int x = 0; x < m_width; ++x) {
            const double v = line[x];
            if (!std::isfinite(v)) {
                out[x] = qRgb(255, 0, 255);
                continue;
            }
            const double at = log ? (v == 0 ? low : std::log10(std::abs(v))) : v;
            m_clippedLow |= at < low;
            m_clippedHigh |= at > high;
            out[x] = colourAt((at - low) / span);
        }
    }
    update();
}

QString HeatmapWidget::endLabel(bool high) const
{
    // "≥ 0.9812" where Robust clipped elements beyond the end; "|x| 1e-20" for Log.
    const QString number = QString::number(high ? m_high : m_low, 'g', 4);
    if (m_scale == ColourScale::Log)
        return QStringLiteral("|x| ") + number;
    if (high ? m_clippedHigh : m_clippedLow)
        return (high ? QStringLiteral("\u2265 ") : QStringLiteral("\u2264 ")) + number;
    return number;
}

double HeatmapWidget::scaleWidth() const
{
    // The colour bar and its two labels, as wide as the longer label needs.
    const QFontMetrics fm(font());
    return 14 + 3 + std::max({ fm.horizontalAdvance(endLabel(true)), fm.horizontalAdvance(endLabel(false)), 30 }) + 8;
}

QRectF HeatmapWidget::imageRect() const
{
    const QRectF area = QRectF(rect()).adjusted(6, 6, -scaleWidth() - 10, -6);
    if (m_image.isNull() || area.width() <= 0 || area.height() <= 0)
        return {};
    // Square cells, as large as fit. A slice much wider than tall (or taller than wide), such as 2 x 96, would then be
    // a strip a few pixels high that uses under a quarter of the room: its cells may be up to kMaxCellAspect times
    // taller than wide (or wider than tall) instead.
    constexpr double kMaxCellAspect = 8;
    const double fitX = area.width() / m_image.width();
    const double fitY = area.height() / m_image.height();
    const double square = std::min(fitX, fitY);
    double sx = square, sy = square;
    if (m_image.height() * square < area.height() / 4)
        sy = std::min(fitY, square * kMaxCellAspect);
    if (m_image.width() * square < area.width() / 4)
        sx = std::min(fitX, square * kMaxCellAspect);
    return QRectF(area.topLeft(), QSizeF(m_image.width() * sx, m_image.height() * sy));
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
    p.drawText(QPointF(bar.right() + 3, bar.top() + fm.ascent()), endLabel(true));
    p.drawText(QPointF(bar.right() + 3, bar.bottom()), endLabel(false));
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* event)
{
    const QRectF target = imageRect();
    if (m_image.isNull() || !target.contains(event->position()))
        return;
    const int64_t column = std::min<int64_t>(m_columns - 1,
        static_cast<int64_t>(
            (event->position().x() - target.left()) / target.width() * static_cast<double>(m_columns)));
    const int64_t row = std::min<int64_t>(m_rows - 1,
        static_cast<int64_t>((event->position().y() - target.top()) / target.height() * static_cast<double>(m_rows)));
    double v = 0;
    copyAsDouble(m_tensor, m_offset + row * m_columns + column, m_offset + row * m_columns + column + 1, &v);
    emit hovered(row, column, v);
    QToolTip::showText(event->globalPosition().toPoint(),
        QStringLiteral("[%1, %2] = %3").arg(row).arg(column).arg(v, 0, 'g', 7), this);
}

QWidget* makeHeatmapPage(HeatmapWidget* heatmap, const QString& choiceName, QWidget* parent)
{
    auto* page = new QWidget(parent);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 2, 0, 0);
    layout->setSpacing(2);
    auto* bar = new QHBoxLayout;
    auto* colours = new QComboBox(page);
    colours->setObjectName(choiceName);
    colours->addItem(QStringLiteral("Minimum to maximum"), static_cast<int>(HeatmapWidget::ColourScale::MinMax));
    colours->addItem(QStringLiteral("2nd to 98th percentile"), static_cast<int>(HeatmapWidget::ColourScale::Robust));
    colours->addItem(QStringLiteral("Log |x|"), static_cast<int>(HeatmapWidget::ColourScale::Log));
    colours->setToolTip(QStringLiteral("How values map to colours. The percentile scale keeps a few outliers from "
                                       "turning the rest into one colour; log |x| shows values over many orders of "
                                       "magnitude. The tooltip over the image gives each element's value."));
    const QString key = choiceName; // each heatmap remembers its own
    const int saved = colours->findData(Settings::instance().heatmapColourScale(key));
    colours->setCurrentIndex(saved >= 0 ? saved : 0);
    heatmap->setColourScale(static_cast<HeatmapWidget::ColourScale>(colours->currentData().toInt()));
    QObject::connect(colours, &QComboBox::currentIndexChanged, heatmap, [colours, heatmap, key] {
        const int scale = colours->currentData().toInt();
        heatmap->setColourScale(static_cast<HeatmapWidget::ColourScale>(scale));
        Settings::instance().setHeatmapColourScale(key, scale);
    });
    bar->addWidget(new QLabel(QStringLiteral("Colours:"), page));
    bar->addWidget(colours);
    bar->addStretch(1);
    layout->addLayout(bar);
    heatmap->setParent(page);
    layout->addWidget(heatmap, 1);
    return page;
}

} // namespace onnxscope
