// SPDX-License-Identifier: MIT
#include "ui/compare/compare_colours.h"

#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace onnxscope {

namespace CompareColours {

double scalePosition(double error, ErrorMetric metric)
{
    if (!(error > 0))
        return 0;
    if (std::isinf(error))
        return 1;
    const double decade = std::log10(error);
    const double t = metric == ErrorMetric::ToleranceRatio ? (decade + 3) / 6 : (decade + 8) / 8;
    return std::clamp(t, 0.0, 1.0);
}

QColor gradient(double t)
{
    t = std::clamp(t, 0.0, 1.0);
    const QColor green(0x2e, 0x7d, 0x32), amber(0xf9, 0xa8, 0x25), red(0xc6, 0x28, 0x28);
    auto mix = [](const QColor& x, const QColor& y, double f) {
        return QColor::fromRgbF(static_cast<float>(x.redF() + (y.redF() - x.redF()) * f),
            static_cast<float>(x.greenF() + (y.greenF() - x.greenF()) * f),
            static_cast<float>(x.blueF() + (y.blueF() - x.blueF()) * f));
    };
    return t < 0.5 ? mix(green, amber, t * 2) : mix(amber, red, (t - 0.5) * 2);
}

QColor unmeasurable()
{
    return QColor(0x8e, 0x24, 0xaa);
}

QColor unmatched()
{
    return QColor(0x9e, 0xa4, 0xad);
}

QColor forStatus(
    CompareStatus status, double toleranceRatio, double maxAbs, double maxRel, bool nonFinite, ErrorMetric metric)
{
    switch (status) {
    case CompareStatus::OnlyA:
    case CompareStatus::OnlyB:
    case CompareStatus::Skipped:
        return unmatched();
    case CompareStatus::ShapeMismatch:
    case CompareStatus::KindMismatch:
        return unmeasurable();
    case CompareStatus::Match:
    case CompareStatus::Mismatch:
        break;
    }
    if (nonFinite || !std::isfinite(toleranceRatio))
        return unmeasurable();
    const double error = metric == ErrorMetric::ToleranceRatio ? toleranceRatio
        : metric == ErrorMetric::MaxAbsError                   ? maxAbs
                                                               : maxRel;
    return gradient(scalePosition(error, metric));
}

QColor forNode(const NodeCompare& node, const ComparisonResult& result, ErrorMetric metric)
{
    bool nonFinite = false;
    for (size_t r : node.rows)
        nonFinite = nonFinite || result.rows[r].stats.nonFiniteMismatches > 0;
    return forStatus(node.status, node.toleranceRatio, node.maxAbsError, node.maxRelError, nonFinite, metric);
}

QColor forRow(const CompareRow& row, ErrorMetric metric)
{
    return forStatus(row.status, row.stats.toleranceRatio, row.stats.maxAbsError, row.stats.maxRelError,
        row.stats.nonFiniteMismatches > 0, metric);
}

QString lowLabel(ErrorMetric metric)
{
    return metric == ErrorMetric::ToleranceRatio ? QStringLiteral("\u2264 0.001") : QStringLiteral("\u2264 1e-8");
}

QString midLabel(ErrorMetric metric)
{
    return metric == ErrorMetric::ToleranceRatio ? QStringLiteral("1 = tolerance") : QStringLiteral("1e-4");
}

QString highLabel(ErrorMetric metric)
{
    return metric == ErrorMetric::ToleranceRatio ? QStringLiteral("\u2265 1000") : QStringLiteral("\u2265 1");
}

QString metricName(ErrorMetric metric)
{
    switch (metric) {
    case ErrorMetric::ToleranceRatio:
        return QStringLiteral("error \u00f7 tolerance");
    case ErrorMetric::MaxAbsError:
        return QStringLiteral("max abs error");
    case ErrorMetric::MaxRelError:
        return QStringLiteral("max rel error");
    }
    return {};
}

QString statusLabel(CompareStatus status)
{
    switch (status) {
    case CompareStatus::Match:
        return QStringLiteral("match");
    case CompareStatus::Mismatch:
        return QStringLiteral("mismatch");
    case CompareStatus::ShapeMismatch:
        return QStringLiteral("shape mismatch");
    case CompareStatus::KindMismatch:
        return QStringLiteral("type mismatch");
    case CompareStatus::OnlyA:
        return QStringLiteral("only in A");
    case CompareStatus::OnlyB:
        return QStringLiteral("only in B");
    case CompareStatus::Skipped:
        return QStringLiteral("skipped");
    }
    return {};
}

} // namespace CompareColours

CompareLegend::CompareLegend(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("compareLegend"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    resize(sizeHint());
}

void CompareLegend::setMetric(ErrorMetric metric)
{
    m_metric = metric;
    update();
}

QSize CompareLegend::sizeHint() const
{
    const QFontMetrics fm(font());
    return { std::max(250, fm.horizontalAdvance(QStringLiteral("Compare: error \u00f7 tolerance (log scale)")) + 24),
        fm.height() * 6 + 30 };
}

void CompareLegend::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF frame = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    p.setPen(QColor(0xc4, 0xcb, 0xd4));
    p.setBrush(QColor(255, 255, 255, 235));
    p.drawRoundedRect(frame, 6, 6);
    const QFontMetrics fm(font());
    const double pad = 10;
    double y = pad;
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(QColor(0x1f, 0x29, 0x37));
    p.drawText(QPointF(pad, y + fm.ascent()),
        QStringLiteral("Compare: %1 (log scale)").arg(CompareColours::metricName(m_metric)));
    p.setFont(font());
    y += fm.height() + 4;
    const QRectF bar(pad, y, width() - 2 * pad, 12);
    QLinearGradient g(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 10; ++i)
        g.setColorAt(i / 10.0, CompareColours::gradient(i / 10.0));
    p.setPen(Qt::NoPen);
    p.setBrush(g);
    p.drawRect(bar);
    p.setPen(QColor(0x37, 0x41, 0x51));
    p.drawLine(QPointF(bar.center().x(), bar.top() - 2), QPointF(bar.center().x(), bar.bottom() + 2));
    y = bar.bottom() + 2;
    const QRectF labels(bar.left(), y, bar.width(), fm.height());
    p.drawText(labels, Qt::AlignLeft | Qt::AlignTop, CompareColours::lowLabel(m_metric));
    p.drawText(labels, Qt::AlignHCenter | Qt::AlignTop, CompareColours::midLabel(m_metric));
    p.drawText(labels, Qt::AlignRight | Qt::AlignTop, CompareColours::highLabel(m_metric));
    y += fm.height() + 6;
    auto swatch = [&](const QColor& colour, bool hatched, const QString& text) {
        const QRectF box(pad, y + (fm.height() - 12) / 2.0, 18, 12);
        p.setPen(QPen(colour, 1.5));
        p.setBrush(colour.lighter(hatched ? 130 : 100));
        p.drawRoundedRect(box, 2, 2);
        if (hatched) {
            p.setBrush(QBrush(colour.darker(120), Qt::BDiagPattern));
            p.drawRoundedRect(box, 2, 2);
        }
        p.setPen(QColor(0x37, 0x41, 0x51));
        p.drawText(QPointF(box.right() + 6, y + fm.ascent()), text);
        y += fm.height() + 3;
    };
    swatch(CompareColours::unmeasurable(), false, QStringLiteral("NaN/Inf, shape or type differ"));
    swatch(CompareColours::unmatched(), true, QStringLiteral("no counterpart on side B"));
    // The first-divergence tag as nodes carry it.
    const QString tag = QStringLiteral("1st \u2260");
    const QRectF tagBox(pad, y + 1, fm.horizontalAdvance(tag) + 10, fm.height());
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0xc6, 0x28, 0x28));
    p.drawRoundedRect(tagBox, 4, 4);
    p.setPen(Qt::white);
    p.setFont(bold);
    p.drawText(tagBox, Qt::AlignCenter, tag);
    p.setFont(font());
    p.setPen(QColor(0x37, 0x41, 0x51));
    p.drawText(
        QPointF(tagBox.right() + 6, y + 1 + fm.ascent()), QStringLiteral("first divergence (root of the difference)"));
}

} // namespace onnxscope
