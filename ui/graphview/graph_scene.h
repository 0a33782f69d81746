// SPDX-License-Identifier: MIT
#pragma once

#include "ui/graphview/edge_item.h"
#include "ui/graphview/node_item.h"
#include "ui/graphview/view_graph.h"

#include <QGraphicsScene>

#include <vector>

namespace onnxscope {

/// The drawn graph: one NodeItem per box, one EdgeItem per arrow, one ClusterItem per expanded scope, placed by a
/// finished layout. Rebuilt whenever the layout changes; items are looked up by their ViewGraph index.
class GraphScene : public QGraphicsScene {
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);
    ~GraphScene() override;

    void populate(const ViewGraph& view, const LayoutResult& layout);
    void clearGraph();

    const ViewGraph& viewGraph() const { return m_view; }
    const std::vector<NodeItem*>& nodeItems() const { return m_nodes; }
    const std::vector<EdgeItem*>& edgeItems() const { return m_edges; }
    const std::vector<ClusterItem*>& clusterItems() const { return m_clusters; }
    /// The box showing `node` (its own, its collapsed group's, or its consumer's for a folded constant).
    NodeItem* itemForNode(NodeId node) const;
    /// An edge carrying `value`, preferring one from its producer's box.
    EdgeItem* edgeForValue(ValueId value) const;
    int operatorItemCount() const;

    /// Boxes the selected box feeds (`downstream`) or is fed by, left to right.
    std::vector<NodeItem*> neighbours(const NodeItem* item, bool downstream) const;
    /// The nearest box to the left or right at about the same height.
    NodeItem* sideNeighbour(const NodeItem* item, bool right) const;

    NodeItem* selectedNode() const;
    EdgeItem* selectedEdge() const;

    /// Places the edges' labels so that none overlaps another, a box, a group's title or a comparison tag (each along
    /// its edge, from the middle outwards); done when the graph is populated, and again soon after labels or tags
    /// change.
    void placeEdgeLabels();
    void schedulePlaceEdgeLabels();

signals:
    /// Double-click on a box (open a subgraph, expand a group).
    void itemActivated(int itemIndex);
    /// Click on an expanded scope's title.
    void clusterActivated(int clusterIndex);
    void contextMenuRequested(int itemIndex, int edgeIndex, const QPoint& screenPos);

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;

private:
    void updateEmphasis();

    ViewGraph m_view;
    std::vector<NodeItem*> m_nodes;
    std::vector<EdgeItem*> m_edges;
    std::vector<ClusterItem*> m_clusters;
    std::vector<EdgeItem*> m_emphasised;
    bool m_placeScheduled = false;
};

} // namespace onnxscope
