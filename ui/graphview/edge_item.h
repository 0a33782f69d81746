// SPDX-License-Identifier: MIT
#pragma once

#include "ui/graphview/view_graph.h"

#include <QGraphicsItem>
#include <QPainterPath>

#include <functional>

namespace onnxscope {

/// An arrow between two boxes, with its tensor's dtype and shape as a label. Selecting it selects the tensor.
class EdgeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    /// `points` are the bezier control points from the layout (1 + 3n), first at the source.
    EdgeItem(int index, const ViewEdge& edge, const std::vector<QPointF>& points, QGraphicsItem* parent = nullptr);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    int index() const { return m_index; }
    const ViewEdge& viewEdge() const { return m_edge; }
    /// Drawn in the accent colour: an edge of the selected node.
    void setEmphasised(bool emphasised);
    QPointF labelPosition() const { return m_labelPos; }
    /// The debugger's label for an executed edge (the actual dtype and shape), drawn instead of the declared one;
    /// empty restores the declared label.
    void setActualLabel(const QString& label);
    QString label() const { return m_actualLabel.isEmpty() ? m_edge.label : m_actualLabel; }
    /// Where the label is drawn (scene coordinates; null without a label).
    QRectF labelRect() const { return m_labelRect; }
    /// Moves the label to the first place along the edge, right of it from its middle outwards, then left of it, where
    /// `isFree` accepts its rectangle; keeps it at the middle if there is none.
    void placeLabel(const std::function<bool(const QRectF&)>& isFree);

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    /// The label's rectangle at `t` along the path, right (or left) of it.
    QRectF labelRectAt(double t, bool right) const;
    void setLabelRect(const QRectF& rect);

    int m_index;
    ViewEdge m_edge;
    QPainterPath m_path;
    QPainterPath m_shape;
    QPolygonF m_arrow;
    QPointF m_labelPos;
    QRectF m_labelRect;
    QRectF m_bounds;
    bool m_emphasised = false;
    bool m_hovered = false;
    QString m_actualLabel;
};

} // namespace onnxscope
