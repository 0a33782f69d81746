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
    const GraphStyle& style = GraphStyle::instance();
    const QFontMetricsF fm(style.smallFont);
    if (!m_edge.label.isEmpty() && m_edge.label != QStringLiteral("?")) {
        const double w = fm.horizontalAdvance(m_edge.label) + 6;
        m_labelRect = QRectF(m_labelPos.x() + 3, m_labelPos.y() - fm.height() / 2, w, fm.height());
    }
    QPainterPathStroker stroker;
    stroker.setWidth(8);
    m_shape = stroker.createStroke(m_path);
    if (!m_labelRect.isNull())
        m_shape.addRect(m_labelRect);
    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).united(m_labelRect).adjusted(-4, -4, 4, 4);
    QString tip = m_edge.label;
    setToolTip(tip);
}

void EdgeItem::setActualLabel(const QString& label)
{
    if (m_actualLabel == label)
        return;
    prepareGeometryChange();
    m_actualLabel = label;
    const QString text = this->label();
    const QFontMetricsF fm(GraphStyle::instance().smallFont);
    m_labelRect = text.isEmpty() || text == QStringLiteral("?")
        ? QRectF()
        : QRectF(m_labelPos.x() + 3, m_labelPos.y() - fm.height() / 2, fm.horizontalAdvance(text) + 6, fm.height());
    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).united(m_labelRect).adjusted(-4, -4, 4, 4);
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
