// SPDX-License-Identifier: MIT
#include "ui/graphview/node_item.h"

#include "ui/common/graph_style.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace onnxscope {

namespace {

// The node the debugger is paused before, or a box that stands for it.
const QColor kCurrentBody(0xff, 0xf4, 0xdc);
const QColor kCurrentBorder(0xef, 0x8a, 0x00);
const QColor kBreakpointColour(0xd3, 0x2f, 0x2f);
constexpr double kGutter = 20; // left of the box: the breakpoint and "paused here" markers

QString elided(const QFont& font, const QString& text, double width)
{
    return QFontMetricsF(font).elidedText(text, Qt::ElideMiddle, width);
}

} // namespace

NodeItem::NodeItem(int index, const ViewItem& item, QGraphicsItem* parent)
    : QGraphicsItem(parent)
    , m_index(index)
    , m_item(item)
{
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setZValue(2);
    QString tip = m_item.title;
    if (!m_item.subtitle.isEmpty())
        tip += QLatin1Char('\n') + m_item.subtitle;
    for (const auto& row : m_item.rows)
        tip += QLatin1Char('\n') + row;
    setToolTip(tip);
    m_baseToolTip = tip;
}

void NodeItem::setBreakpointMarker(bool marker)
{
    if (m_breakpointMarker == marker)
        return;
    m_breakpointMarker = marker;
    update();
}

void NodeItem::setHeatColour(const QColor& colour)
{
    if (m_heat == colour)
        return;
    m_heat = colour;
    update();
}

void NodeItem::setDebugNote(const QString& note)
{
    m_debugNote = note;
    updateToolTip();
}

void NodeItem::setCompareMark(const CompareMark& mark)
{
    const bool tagged = m_compare.firstDivergence || m_compare.root;
    if (tagged != (mark.firstDivergence || mark.root))
        prepareGeometryChange();
    m_compare = mark;
    updateToolTip();
    update();
}

void NodeItem::setRiskMark(const RiskMark& mark)
{
    m_risk = mark;
    updateToolTip();
    update();
}

void NodeItem::updateToolTip()
{
    QString tip = m_baseToolTip;
    const QString inside = m_currentInside.isEmpty()
        ? QString()
        : QStringLiteral("Paused before %1, which this box stands for").arg(m_currentInside);
    const QString actual = m_actualSubtitle.isEmpty()
        ? QString()
        : QStringLiteral("In this run: %1 (declared %2)").arg(m_actualSubtitle, m_item.subtitle);
    for (const QString& note : { actual, inside, m_debugNote, m_compare.note, m_risk.note })
        if (!note.isEmpty())
            tip += QStringLiteral("\n\n") + note;
    setToolTip(tip);
}

QPointF NodeItem::breakpointMarkerCentre() const
{
    const QRectF r = box();
    return { r.left() - kGutter / 2, r.top() + std::min(10.0, r.height() / 2) };
}

QPointF NodeItem::pausedMarkerCentre() const
{
    const QRectF r = box();
    return { r.left() - kGutter / 2, r.center().y() + (r.height() > 30 ? 6 : 0) };
}

bool NodeItem::showsPausedMarker() const
{
    return m_item.kind == ViewItem::Kind::Node && (m_state == NodeState::Current || !m_currentInside.isEmpty());
}

QRectF NodeItem::box() const
{
    const QSizeF s = m_item.size;
    return QRectF(-s.width() / 2, -s.height() / 2, s.width(), s.height());
}

QRectF NodeItem::boundingRect() const
{
    // Room for the comparison tag above the top-right corner, and for the breakpoint and "paused here" markers in the
    // gutter on the left.
    const double top = m_compare.firstDivergence || m_compare.root ? 22 : 5;
    return box().adjusted(-kGutter - 2, -top, 9, 9);
}

QPainterPath NodeItem::shape() const
{
    QPainterPath path;
    path.addRect(box());
    return path;
}

void NodeItem::setState(NodeState state)
{
    if (m_state == state)
        return;
    m_state = state;
    update();
}

void NodeItem::setCurrentInside(const QString& nodeName)
{
    if (m_currentInside == nodeName)
        return;
    m_currentInside = nodeName;
    updateToolTip();
    update();
}

void NodeItem::setActualSubtitle(const QString& subtitle)
{
    if (m_actualSubtitle == subtitle)
        return;
    m_actualSubtitle = subtitle;
    updateToolTip();
    update();
}

void NodeItem::setHighlighted(bool highlighted)
{
    if (m_highlighted == highlighted)
        return;
    m_highlighted = highlighted;
    update();
}

void NodeItem::hoverEnterEvent(QGraphicsSceneHoverEvent*)
{
    m_hovered = true;
    update();
}

void NodeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent*)
{
    m_hovered = false;
    update();
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    painter->setRenderHint(QPainter::Antialiasing, lod > 0.2);
    switch (m_item.kind) {
    case ViewItem::Kind::Node:
        paintNode(painter, lod);
        break;
    case ViewItem::Kind::Group:
        paintGroup(painter, lod);
        break;
    case ViewItem::Kind::Input:
    case ViewItem::Kind::Output:
        paintTerminal(painter, lod);
        break;
    }
    paintFrame(painter);
    if (m_compare.firstDivergence || m_compare.root)
        paintCompareTag(painter);
}

QRectF NodeItem::compareTag() const
{
    if (!m_compare.firstDivergence && !m_compare.root)
        return {};
    QFont font = GraphStyle::instance().titleFont;
    font.setBold(true);
    const QString text = m_compare.firstDivergence ? QStringLiteral("1st \u2260") : QStringLiteral("\u2260");
    const double w = QFontMetricsF(font).horizontalAdvance(text) + 12;
    const QRectF r = box();
    return QRectF(r.right() - w + 4, r.top() - 20, w, 17);
}

QRectF NodeItem::compareTagRect() const
{
    const QRectF tag = compareTag();
    return tag.isNull() ? tag : mapRectToScene(tag);
}

void NodeItem::paintCompareTag(QPainter* painter) const
{
    const GraphStyle& style = GraphStyle::instance();
    QFont font = style.titleFont;
    font.setBold(true);
    const QString text = m_compare.firstDivergence ? QStringLiteral("1st \u2260") : QStringLiteral("\u2260");
    const QRectF tag = compareTag();
    painter->setPen(QPen(Qt::white, 1.2));
    painter->setBrush(m_compare.firstDivergence ? QColor(0xc6, 0x28, 0x28) : QColor(0xe6, 0x73, 0x5c));
    painter->drawRoundedRect(tag, 4, 4);
    painter->setFont(font);
    painter->setPen(Qt::white);
    painter->drawText(tag, Qt::AlignCenter, text);
}

void NodeItem::paintNode(QPainter* painter, double lod) const
{
    const GraphStyle& style = GraphStyle::instance();
    const QRectF r = box();
    const double radius = 5;
    QPainterPath outline;
    outline.addRoundedRect(r, radius, radius);
    QColor body = Qt::white;
    if (m_state == NodeState::Done)
        body = QColor(0xe8, 0xf5, 0xe9);
    else if (m_state == NodeState::Failed || m_state == NodeState::Tripped)
        body = QColor(0xfd, 0xec, 0xea);
    else if (m_state == NodeState::Current || !m_currentInside.isEmpty())
        body = kCurrentBody;
    if (m_heat.isValid())
        body = m_heat;
    if (m_risk.colour.isValid())
        body = QColor::fromRgbF(0.75f + 0.25f * m_risk.colour.redF(), 0.75f + 0.25f * m_risk.colour.greenF(),
            0.75f + 0.25f * m_risk.colour.blueF());
    if (m_compare.colour.isValid())
        body = m_compare.unmatched
            ? QColor(0xf1, 0xf2, 0xf4)
            : QColor::fromRgbF(0.72f + 0.28f * m_compare.colour.redF(), 0.72f + 0.28f * m_compare.colour.greenF(),
                0.72f + 0.28f * m_compare.colour.blueF());
    painter->fillPath(outline, body);
    if (m_compare.unmatched)
        painter->fillPath(outline, QBrush(QColor(0xc4, 0xc8, 0xce), Qt::BDiagPattern));
    QColor header = m_item.colour;
    if (m_hovered)
        header = header.lighter(115);
    const QRectF headerRect(r.left(), r.top(), r.width(), std::min(style.headerHeight, r.height()));
    painter->save();
    painter->setClipPath(outline);
    painter->fillRect(headerRect, header);
    painter->restore();
    if (lod < 0.3)
        return;
    painter->setPen(Qt::white);
    painter->setFont(style.titleFont);
    const double badge = (m_item.hasSubgraphs || m_item.isFunction) ? 14 : 0;
    painter->drawText(headerRect.adjusted(style.padding, 0, -style.padding - badge, 0),
        Qt::AlignVCenter | Qt::AlignLeft,
        elided(style.titleFont, m_item.title, headerRect.width() - 2 * style.padding - badge));
    if (badge > 0) {
        // A small "stack" glyph: this node has a body that can be opened.
        const QRectF g(headerRect.right() - style.padding - 10, headerRect.center().y() - 5, 10, 10);
        painter->setPen(QPen(Qt::white, 1.2));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(g.adjusted(0, 3, -3, 0));
        painter->drawLine(g.topLeft() + QPointF(3, 0), g.topRight());
        painter->drawLine(g.topRight(), g.bottomRight() - QPointF(0, 3));
    }
    if (lod < 0.5)
        return;
    double y = headerRect.bottom() + 4;
    painter->setFont(style.textFont);
    if (!m_item.subtitle.isEmpty()) {
        painter->setPen(style.mutedText);
        painter->drawText(QRectF(r.left() + style.padding, y, r.width() - 2 * style.padding, style.rowHeight),
            Qt::AlignVCenter | Qt::AlignLeft, elided(style.textFont, m_item.subtitle, r.width() - 2 * style.padding));
        y += style.rowHeight;
    }
    painter->setPen(style.textColour);
    for (const auto& row : m_item.rows) {
        painter->drawText(QRectF(r.left() + style.padding, y, r.width() - 2 * style.padding, style.rowHeight),
            Qt::AlignVCenter | Qt::AlignLeft, elided(style.textFont, row, r.width() - 2 * style.padding));
        y += style.rowHeight;
    }
}

void NodeItem::paintGroup(QPainter* painter, double lod) const
{
    const GraphStyle& style = GraphStyle::instance();
    const QRectF r = box();
    // Two offset sheets behind the box say "there is more inside".
    painter->setPen(QPen(QColor(0x9d, 0xb2, 0xcc), 1));
    painter->setBrush(QColor(0xe3, 0xea, 0xf3));
    painter->drawRoundedRect(r.translated(6, 6), 6, 6);
    painter->drawRoundedRect(r.translated(3, 3), 6, 6);
    painter->setBrush(!m_currentInside.isEmpty() ? kCurrentBody
            : m_hovered                          ? QColor(0xf3, 0xf7, 0xfc)
                                                 : QColor(0xee, 0xf3, 0xf9));
    if (!m_currentInside.isEmpty())
        painter->setPen(QPen(kCurrentBorder, 3, Qt::DashLine));
    else
        painter->setPen(m_compare.colour.isValid() ? QPen(m_compare.colour, 3) : QPen(QColor(0x6a, 0x8a, 0xb3), 1.2));
    painter->drawRoundedRect(r, 6, 6);
    if (lod < 0.3)
        return;
    painter->setPen(QColor(0x24, 0x3b, 0x5a));
    painter->setFont(style.titleFont);
    const QRectF title(r.left() + style.padding, r.top() + 2, r.width() - 2 * style.padding, style.headerHeight);
    painter->drawText(title, Qt::AlignVCenter | Qt::AlignLeft,
        elided(style.titleFont, QStringLiteral("\u25b8 ") + m_item.title, title.width()));
    if (lod < 0.5)
        return;
    painter->setFont(style.textFont);
    double y = title.bottom();
    painter->setPen(style.mutedText);
    painter->drawText(
        QRectF(title.left(), y, title.width(), style.rowHeight), Qt::AlignVCenter | Qt::AlignLeft, m_item.subtitle);
    y += style.rowHeight;
    painter->setPen(style.textColour);
    for (const auto& row : m_item.rows) {
        painter->drawText(QRectF(title.left(), y, title.width(), style.rowHeight), Qt::AlignVCenter | Qt::AlignLeft,
            elided(style.textFont, row, title.width()));
        y += style.rowHeight;
    }
}

void NodeItem::paintTerminal(QPainter* painter, double lod) const
{
    const GraphStyle& style = GraphStyle::instance();
    const QRectF r = box();
    const double radius = r.height() / 2;
    const bool input = m_item.kind == ViewItem::Kind::Input;
    painter->setBrush(
        input ? (m_item.outerScope ? QColor(0xf4, 0xf0, 0xfa) : QColor(0xee, 0xf2, 0xf6)) : QColor(0xf1, 0xf5, 0xee));
    QPen pen(input ? QColor(0x8a, 0x94, 0xa6) : QColor(0x7d, 0x96, 0x6e), 1.2);
    if (m_item.outerScope)
        pen.setStyle(Qt::DashLine);
    if (m_compare.colour.isValid() && !m_compare.unmatched)
        pen = QPen(m_compare.colour, 2.5);
    painter->setPen(pen);
    painter->drawRoundedRect(r, radius, radius);
    if (lod < 0.3)
        return;
    const QRectF inner = terminalText();
    painter->setFont(style.titleFont);
    painter->setPen(style.textColour);
    painter->drawText(QRectF(inner.left(), inner.top(), inner.width(), inner.height() / 2 + 1), Qt::AlignCenter,
        elided(style.titleFont, m_item.title, inner.width()));
    painter->setFont(style.textFont);
    painter->setPen(m_actualSubtitle.isEmpty() ? style.mutedText : style.actualText);
    painter->drawText(
        QRectF(inner.left(), inner.center().y(), inner.width(), inner.height() / 2), Qt::AlignCenter, shownSubtitle());
}

QRectF NodeItem::terminalText() const
{
    const QRectF r = box();
    const double radius = r.height() / 2;
    return r.adjusted(radius * 0.6, 3, -radius * 0.6, -3);
}

QString NodeItem::shownSubtitle() const
{
    const QString text = m_actualSubtitle.isEmpty() ? m_item.subtitle : m_actualSubtitle;
    const QFont& font = GraphStyle::instance().textFont;
    const double width = terminalText().width();
    if (QFontMetricsF(font).horizontalAdvance(text) <= width)
        return text;
    // "float 1×3×48×320" in a box drawn for "float ?×3×48×?": the shape, which the run chose, before the type.
    const qsizetype space = text.indexOf(QLatin1Char(' '));
    return elided(font, space > 0 ? text.mid(space + 1) : text, width);
}

void NodeItem::paintFrame(QPainter* painter) const
{
    const GraphStyle& style = GraphStyle::instance();
    const QRectF r = box();
    const double radius
        = m_item.kind == ViewItem::Kind::Input || m_item.kind == ViewItem::Kind::Output ? r.height() / 2 : 5;
    painter->setBrush(Qt::NoBrush);
    if (m_item.kind == ViewItem::Kind::Node) {
        QColor border(0x9a, 0xa3, 0xaf);
        double width = 0.8;
        switch (m_state) {
        case NodeState::Done:
            border = QColor(0x2e, 0x7d, 0x32);
            width = 1.6;
            break;
        case NodeState::Current:
            border = kCurrentBorder;
            width = 3;
            break;
        case NodeState::Failed:
            border = QColor(0xc6, 0x28, 0x28);
            width = 2.5;
            break;
        case NodeState::Tripped:
            border = QColor(0xd8, 0x43, 0x15);
            width = 3;
            break;
        default:
            if (!m_currentInside.isEmpty()) {
                border = kCurrentBorder;
                width = 3;
            }
            break;
        }
        if (m_risk.colour.isValid() && m_state != NodeState::Current && m_state != NodeState::Failed
            && m_currentInside.isEmpty()) {
            border = m_risk.colour;
            width = 3;
        }
        if (m_compare.colour.isValid() && m_state != NodeState::Current && m_state != NodeState::Failed
            && m_currentInside.isEmpty()) {
            border = m_compare.colour;
            width = m_compare.firstDivergence ? 3.5 : 2.5;
        }
        QPen pen(border, width);
        if (m_compare.unmatched || (m_state != NodeState::Current && !m_currentInside.isEmpty()))
            pen.setStyle(Qt::DashLine);
        painter->setPen(pen);
        painter->drawRoundedRect(r, radius, radius);
        if (m_state == NodeState::Current || !m_currentInside.isEmpty()) {
            // Around the box, where the selection's outline does not cover it.
            painter->setPen(QPen(kCurrentBorder, 2.5, pen.style()));
            painter->drawRoundedRect(r.adjusted(-4, -4, 4, 4), radius + 3, radius + 3);
        }
    }
    if (m_highlighted) {
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(QColor(0xf9, 0xa8, 0x25), 2.5, Qt::DotLine));
        painter->drawRoundedRect(r.adjusted(-3, -3, 3, 3), radius + 2, radius + 2);
    }
    if (isSelected()) {
        painter->setBrush(Qt::NoBrush);
        QColor glow = style.accent;
        glow.setAlpha(70);
        painter->setPen(QPen(glow, 6));
        painter->drawRoundedRect(r, radius, radius);
        painter->setPen(QPen(style.accent, 2));
        painter->drawRoundedRect(r, radius, radius);
    }
    // In the gutter, as an editor marks lines: a red disc for a breakpoint, an orange arrow where the run is paused.
    if (m_item.kind == ViewItem::Kind::Node
        && (m_state == NodeState::Breakpoint || m_state == NodeState::Failed || m_breakpointMarker)) {
        painter->setPen(QPen(Qt::white, 1.5));
        painter->setBrush(kBreakpointColour);
        painter->drawEllipse(breakpointMarkerCentre(), 6.5, 6.5);
    }
    if (showsPausedMarker()) {
        const QPointF c = pausedMarkerCentre();
        QPolygonF arrow;
        arrow << QPointF(c.x() - 6, c.y() - 7) << QPointF(c.x() + 7, c.y()) << QPointF(c.x() - 6, c.y() + 7);
        painter->setPen(QPen(Qt::white, 1.2));
        painter->setBrush(kCurrentBorder);
        painter->drawPolygon(arrow);
    }
}

ClusterItem::ClusterItem(int index, const ViewCluster& cluster, const QRectF& rect, int depth, QGraphicsItem* parent)
    : QGraphicsItem(parent)
    , m_index(index)
    , m_cluster(cluster)
    , m_rect(rect)
    , m_depth(depth)
{
    setZValue(0.1 * depth);
    setToolTip(
        QStringLiteral("%1 \u2014 %2 nodes (click the title to collapse)").arg(cluster.title).arg(cluster.nodeCount));
}

QRectF ClusterItem::boundingRect() const
{
    return m_rect.adjusted(-1, -1, 1, 1);
}

QRectF ClusterItem::headerRect() const
{
    return QRectF(m_rect.left(), m_rect.top(), m_rect.width(), 20);
}

void ClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const GraphStyle& style = GraphStyle::instance();
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    painter->setRenderHint(QPainter::Antialiasing, lod > 0.2);
    static const QColor fills[] = { QColor(0xf1, 0xf5, 0xfa), QColor(0xe9, 0xf0, 0xf7), QColor(0xe1, 0xea, 0xf4) };
    painter->setBrush(fills[m_depth % 3]);
    painter->setPen(QPen(QColor(0xb4, 0xc4, 0xd8), 1));
    painter->drawRoundedRect(m_rect, 8, 8);
    if (lod < 0.3)
        return;
    painter->setFont(style.textFont);
    painter->setPen(QColor(0x3d, 0x55, 0x75));
    const QRectF h = headerRect().adjusted(8, 2, -8, 0);
    painter->drawText(h, Qt::AlignVCenter | Qt::AlignLeft,
        QFontMetricsF(style.textFont)
            .elidedText(QStringLiteral("\u25be %1").arg(m_cluster.title), Qt::ElideMiddle, h.width()));
}

} // namespace onnxscope
