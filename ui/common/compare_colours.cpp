// SPDX-License-Identifier: MIT
#include "ui/common/compare_colours.h"

#include <QFileInfo>
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

QColor gradient(double t, ErrorMetric metric)
{
    t = std::clamp(t, 0.0, 1.0);
    auto mix = [](const QColor& x, const QColor& y, double f) {
        return QColor::fromRgbF(static_cast<float>(x.redF() + (y.redF() - x.redF()) * f),
            static_cast<float>(x.greenF() + (y.greenF() - x.greenF()) * f),
            static_cast<float>(x.blueF() + (y.blueF() - x.blueF()) * f));
    };
    const QColor green(0x2e, 0x7d, 0x32), lime(0x8b, 0xb4, 0x3a), amber(0xf9, 0xa8, 0x25), red(0xc6, 0x28, 0x28);
    if (metric == ErrorMetric::ToleranceRatio) {
        // Within tolerance stays green (darker the closer to exact); beyond it goes amber to red: the colour and the
        // status never disagree.
        if (t <= 0.5)
            return mix(green, lime, t * 2);
        return mix(amber, red, (t - 0.5) * 2);
    }
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
    return gradient(scalePosition(error, metric), metric);
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

QString errorText(double v)
{
    if (!std::isfinite(v))
        return std::isnan(v) ? QStringLiteral("nan") : QStringLiteral("inf");
    return QString::number(v, 'g', 3);
}

QString sideName(const QString& description)
{
    const QFileInfo info(description);
    return info.exists() && info.isFile() ? info.fileName() : description;
}

} // namespace CompareColours

CompareLegend::CompareLegend(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("compareLegend"));
    setAttribute(Qt::WA_TransparentForMouseEvents);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    setFont(small);
    resize(sizeHint());
}

void CompareLegend::setMetric(ErrorMetric metric)
{
    m_metric = metric;
    resize(sizeHint());
    update();
}

namespace {

const QString kUnmeasurable = QStringLiteral("NaN/Inf, shape or type differ");
const QString kUnmatched = QStringLiteral("no counterpart on side B");
const QString kFirst = QStringLiteral("first divergence");
const QString kRoot = QStringLiteral("other root");

QString title(ErrorMetric metric)
{
    return QStringLiteral("Compare: %1, log scale").arg(CompareColours::metricName(metric));
}

} // namespace

QSize CompareLegend::sizeHint() const
{
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fm(font()), fb(bold);
    const int swatches = 18 + 6 + std::max(fm.horizontalAdvance(kUnmeasurable), fm.horizontalAdvance(kUnmatched));
    const int tags = fb.horizontalAdvance(QStringLiteral("1st \u2260")) + 10 + 6 + fm.horizontalAdvance(kFirst) + 14
        + fb.horizontalAdvance(QStringLiteral("\u2260")) + 10 + 6 + fm.horizontalAdvance(kRoot);
    const int labels = fm.horizontalAdvance(CompareColours::lowLabel(m_metric) + CompareColours::midLabel(m_metric)
                           + CompareColours::highLabel(m_metric))
        + 40;
    const int width = std::max({ fb.horizontalAdvance(title(m_metric)), swatches, tags, labels, 220 }) + 20;
    return { width, fm.height() * 6 + 12 + 20 + 12 };
}

void CompareLegend::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF frame = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    p.setPen(QColor(0xc4, 0xcb, 0xd4));
    p.setBrush(QColor(255, 255, 255, 240));
    p.drawRoundedRect(frame, 6, 6);
    const QFontMetrics fm(font());
    const QColor text(0x37, 0x41, 0x51);
    const double pad = 10;
    double y = 8;
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(QColor(0x1f, 0x29, 0x37));
    p.drawText(QPointF(pad, y + fm.ascent()), title(m_metric));
    p.setFont(font());
    y += fm.height() + 4;
    const QRectF bar(pad, y, width() - 2 * pad, 12);
    QLinearGradient g(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 20; ++i) {
        const double t = i / 20.0;
        g.setColorAt(t, CompareColours::gradient(t, m_metric));
    }
    if (m_metric == ErrorMetric::ToleranceRatio) { // the jump at the tolerance
        g.setColorAt(0.4999, CompareColours::gradient(0.5, m_metric));
        g.setColorAt(0.5001, CompareColours::gradient(0.5001, m_metric));
    }
    p.setPen(Qt::NoPen);
    p.setBrush(g);
    p.drawRect(bar);
    p.setPen(QPen(QColor(0x1f, 0x29, 0x37), 1.5));
    p.drawLine(QPointF(bar.center().x(), bar.top() - 3), QPointF(bar.center().x(), bar.bottom() + 3));
    y = bar.bottom() + 3;
    const QRectF labels(bar.left(), y, bar.width(), fm.height());
    p.setPen(text);
    p.drawText(labels, Qt::AlignLeft | Qt::AlignTop, CompareColours::lowLabel(m_metric));
    p.drawText(labels, Qt::AlignHCenter | Qt::AlignTop, CompareColours::midLabel(m_metric));
    p.drawText(labels, Qt::AlignRight | Qt::AlignTop, CompareColours::highLabel(m_metric));
    y += fm.height() + 6;
    auto swatch = [&](const QColor& colour, bool hatched, const QString& label) {
        const QRectF box(pad, y + (fm.height() - 12) / 2.0, 18, 12);
        p.setPen(QPen(colour, 1.5, hatched ? Qt::DashLine : Qt::SolidLine));
        p.setBrush(hatched ? QColor(0xf1, 0xf2, 0xf4) : colour);
        p.drawRoundedRect(box, 2, 2);
        if (hatched) {
            p.setBrush(QBrush(colour, Qt::BDiagPattern));
            p.drawRoundedRect(box, 2, 2);
        }
        p.setPen(text);
        p.drawText(QPointF(box.right() + 6, y + fm.ascent()), label);
        y += fm.height() + 3;
    };
    swatch(CompareColours::unmeasurable(), false, kUnmeasurable);
    swatch(CompareColours::unmatched(), true, kUnmatched);
    // The tags nodes carry.
    double x = pad;
    auto tag = [&](const QString& glyph, const QColor& colour, const QString& label) {
        const QRectF box(x, y + 1, QFontMetrics(bold).horizontalAdvance(glyph) + 10, fm.height());
        p.setPen(Qt::NoPen);
        p.setBrush(colour);
        p.drawRoundedRect(box, 4, 4);
        p.setPen(Qt::white);
        p.setFont(bold);
        p.drawText(box, Qt::AlignCenter, glyph);
        p.setFont(font());
        p.setPen(text);
        p.drawText(QPointF(box.right() + 6, y + 1 + fm.ascent()), label);
        x = box.right() + 6 + fm.horizontalAdvance(label) + 14;
    };
    tag(QStringLiteral("1st \u2260"), QColor(0xc6, 0x28, 0x28), kFirst);
    tag(QStringLiteral("\u2260"), QColor(0xe6, 0x73, 0x5c), kRoot);
}

} // namespace onnxscope
