// SPDX-License-Identifier: MIT
#include "ui/graphview/edge_item.h"

#include "ui/common/graph_style.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <QtMath>

namespace onnxscope {

EdgeItem::EdgeItem(int index, const ViewEdge& edge, const std::vector<QPointF>& points, QGraphicsItem* parent)
    : QGraphicsItem(parent)
    , m_index(index)
    , m_edge(edge)
{
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setZValue(1);
    if (points.size() >= 2) {
        m_path.moveTo(points.front());
        size_t i = 1;
        for (; i + 2 < points.size(); i += 3)
            m_path.cubicTo(points[i], points[i + 1], points[i + 2]);
        for (; i < points.size(); ++i)
            m_path.lineTo(points[i]);
        // Arrow head at the target end, along the last segment.
        const QPointF tip = points.back();
        QPointF from = points[points.size() - 2];
        if (QLineF(from, tip).length() < 0.5 && points.size() >= 3)
            from = points[points.size() - 3];
        const double angle = std::atan2(tip.y() - from.y(), tip.x() - from.x());
        const double size = 7;
        m_arrow << tip << tip - QPointF(size * std::cos(angle - 0.4), size * std::sin(angle - 0.4))
                << tip - QPointF(size * std::cos(angle + 0.4), size * std::sin(angle + 0.4));
        m_labelPos = m_path.pointAtPercent(0.5);
    }
    setLabelRect(labelRectAt(0.5, true));
    setToolTip(m_edge.label);
}

QRectF EdgeItem::labelRectAt(double t, bool right) const
{
    const QString text = label();
    if (text.isEmpty() || text == QStringLiteral("?") || m_path.isEmpty())
        return {};
    const QFontMetricsF fm(GraphStyle::instance().smallFont);
    const QPointF at = m_path.pointAtPercent(t);
    const double w = fm.horizontalAdvance(text) + 6;
    return QRectF(right ? at.x() + 3 : at.x() - 3 - w, at.y() - fm.height() / 2, w, fm.height());
}

void EdgeItem::setLabelRect(const QRectF& rect)
{
    prepareGeometryChange();
    m_labelRect = rect;
    QPainterPathStroker stroker;
    stroker.setWidth(8);
    m_shape = stroker.createStroke(m_path);
    if (!m_labelRect.isNull())
        m_shape.addRect(m_labelRect);
    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).united(m_labelRect).adjusted(-4, -4, 4, 4);
    update();
}

void EdgeItem::placeLabel(const std::function<bool(const QRectF&)>& isFree)
{
    if (m_labelRect.isNull() && labelRectAt(0.5, true).isNull())
        return;
    for (const bool right : { true, false })
        for (const double t : { 0.5, 0.35, 0.65, 0.2, 0.8 })
            if (const QRectF r = labelRectAt(t, right); isFree(r)) {
                m_labelPos = m_path.pointAtPercent(t);
                setLabelRect(r);
                return;
            }
    m_labelPos = m_path.pointAtPercent(0.5);
    setLabelRect(labelRectAt(0.5, true));
}

void EdgeItem::setActualLabel(const QString& label)
{
    if (m_actualLabel == label)
        return;
    m_actualLabel = label;
    // Same place, new width (the scene places the labels again).
    const bool right = m_labelRect.isNull() || m_labelRect.left() >= m_labelPos.x();
    const QString text = this->label();
    const QFontMetricsF fm(GraphStyle::instance().smallFont);
    const double w = fm.horizontalAdvance(text) + 6;
    setLabelRect(text.isEmpty() || text == QStringLiteral("?")
            ? QRectF()
            : QRectF(
                right ? m_labelPos.x() + 3 : m_labelPos.x() - 3 - w, m_labelPos.y() - fm.height() / 2, w, fm.height()));
    setToolTip(
        m_actualLabel.isEmpty() ? m_edge.label : QStringLiteral("%1 (declared %2)").arg(m_actualLabel, m_edge.label));
    update();
}

QRectF EdgeItem::boundingRect() const
{
    return m_bounds;
}

QPainterPath EdgeItem::shape() const
{
    return m_shape;
}

void EdgeItem::setEmphasised(bool emphasised)
{
    if (m_emphasised == emphasised)
        return;
    m_emphasised = emphasised;
    setZValue(emphasised ? 1.5 : 1);
    update();
}

void EdgeItem::hoverEnterEvent(QGraphicsSceneHoverEvent*)
{
    m_hovered = true;
    update();
}

void EdgeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent*)
{
    m_hovered = false;
    update();
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const GraphStyle& style = GraphStyle::instance();
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    painter->setRenderHint(QPainter::Antialiasing, lod > 0.2);
    QColor colour = style.edgeColour;
    double width = m_edge.values.size() > 1 ? 1.8 : 1.1;
    if (m_emphasised || m_hovered) {
        colour = style.accent;
        width += 0.6;
    }
    if (isSelected()) {
        colour = style.accent;
        width += 1.4;
    }
    QPen pen(colour, width);
    pen.setCapStyle(Qt::RoundCap);
    if (m_edge.implicit)
        pen.setStyle(Qt::DashLine);
    painter->setPen(pen);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_path);
    painter->setPen(Qt::NoPen);
    painter->setBrush(colour);
    painter->drawPolygon(m_arrow);
    if (lod < 0.55 || m_labelRect.isNull())
        return;
    QColor halo = style.background;
    halo.setAlpha(200);
    painter->setPen(Qt::NoPen);
    painter->setBrush(halo);
    painter->drawRoundedRect(m_labelRect, 2, 2);
    painter->setFont(style.smallFont);
    painter->setPen((isSelected() || m_emphasised) ? style.accent.darker(130) : style.mutedText);
    if (!m_actualLabel.isEmpty())
        painter->setPen(style.actualText);
    painter->drawText(m_labelRect.adjusted(3, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, label());
}

} // namespace onnxscope
