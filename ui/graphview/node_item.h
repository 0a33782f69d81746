// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/graph_decorations.h"
#include "ui/graphview/view_graph.h"

#include <QGraphicsItem>

namespace onnxscope {

/// A box of the drawn graph: operator node, collapsed group, or graph input/output. Positioned by its centre.
class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    NodeItem(int index, const ViewItem& item, QGraphicsItem* parent = nullptr);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    int index() const { return m_index; }
    const ViewItem& viewItem() const { return m_item; }
    NodeState state() const { return m_state; }
    void setState(NodeState state);
    /// Drawn with a marker when a search result; cleared by passing false.
    void setHighlighted(bool highlighted);
    bool isHighlighted() const { return m_highlighted; }
    /// Debugger decorations, independent of the state: a breakpoint dot, a body tint (profile "colour by time",
    /// invalid for none), and a note appended to the tooltip (a failure message, a time).
    void setBreakpointMarker(bool marker);
    bool hasBreakpointMarker() const { return m_breakpointMarker; }
    /// Where the breakpoint disc and the "paused here" arrow are drawn, left of the box (item coordinates).
    QPointF breakpointMarkerCentre() const;
    QPointF pausedMarkerCentre() const;
    /// The run is paused before this node, or before a constant drawn inside it.
    bool showsPausedMarker() const;
    void setHeatColour(const QColor& colour);
    QColor heatColour() const { return m_heat; }
    void setDebugNote(const QString& note);
    /// The debugger is paused before `nodeName`, a node this box stands for without being it (a constant folded into
    /// it, a member of a collapsed group): drawn with the current node's colours and a dashed border, and named in the
    /// tooltip. Empty clears it.
    void setCurrentInside(const QString& nodeName);
    /// A graph input or output: the type and shape of the value it had in the run ("float 1×3×48×320"), drawn in
    /// place of the declared one (green, like an executed edge's); empty shows the declared one again.
    void setActualSubtitle(const QString& subtitle);
    const QString& actualSubtitle() const { return m_actualSubtitle; }
    /// An input's or output's subtitle as drawn: whole if it fits, else its shape without the element type, cut in
    /// the middle if it still does not fit (the tooltip has all of it).
    QString shownSubtitle() const;
    const QString& currentInside() const { return m_currentInside; }

    /// Comparison decorations (Debug › Compare…), independent of the state and the debugger's.
    void setCompareMark(const CompareMark& mark);
    void clearCompareMark() { setCompareMark({}); }
    const CompareMark& compareMark() const { return m_compare; }
    bool hasCompareMark() const { return m_compare.colour.isValid(); }
    void setRiskMark(const RiskMark& mark);
    const RiskMark& riskMark() const { return m_risk; }
    /// The "1st ≠" or "≠" tag above the box, in scene coordinates; null when there is none.
    QRectF compareTagRect() const;
    /// The box, in scene coordinates.
    QRectF sceneBox() const { return mapRectToScene(box()); }

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    QRectF box() const;
    void paintNode(QPainter* painter, double lod) const;
    void paintGroup(QPainter* painter, double lod) const;
    void paintTerminal(QPainter* painter, double lod) const;
    void paintFrame(QPainter* painter) const;
    void paintCompareTag(QPainter* painter) const;
    QRectF terminalText() const;
    QRectF compareTag() const;
    void updateToolTip();

    int m_index;
    ViewItem m_item;
    NodeState m_state = NodeState::NotRun;
    bool m_hovered = false;
    bool m_highlighted = false;
    bool m_breakpointMarker = false;
    QColor m_heat;
    QString m_baseToolTip;
    QString m_debugNote;
    QString m_currentInside;
    QString m_actualSubtitle;
    CompareMark m_compare;
    RiskMark m_risk;
};

/// The frame drawn around an expanded scope; its header collapses it.
class ClusterItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };
    ClusterItem(int index, const ViewCluster& cluster, const QRectF& rect, int depth, QGraphicsItem* parent = nullptr);
    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    int index() const { return m_index; }
    const ViewCluster& cluster() const { return m_cluster; }
    /// The clickable title strip at the top.
    QRectF headerRect() const;

private:
    int m_index;
    ViewCluster m_cluster;
    QRectF m_rect;
    int m_depth;
};

} // namespace onnxscope
