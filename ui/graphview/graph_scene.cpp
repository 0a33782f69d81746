// SPDX-License-Identifier: MIT
#include "ui/graphview/graph_scene.h"

#include "ui/common/graph_style.h"

#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneMouseEvent>

#include <QTimer>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace onnxscope {

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent)
{
    setBackgroundBrush(GraphStyle::instance().background);
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::updateEmphasis);
}

GraphScene::~GraphScene()
{
    // QGraphicsScene's destructor deletes the items and may report selection changes: nothing may reach our slots.
    blockSignals(true);
    m_emphasised.clear();
    m_nodes.clear();
    m_edges.clear();
    m_clusters.clear();
}

void GraphScene::clearGraph()
{
    m_placeScheduled = false;
    m_emphasised.clear();
    m_nodes.clear();
    m_edges.clear();
    m_clusters.clear();
    clear();
    m_view = ViewGraph();
}

void GraphScene::populate(const ViewGraph& view, const LayoutResult& layout)
{
    clearGraph();
    m_view = view;
    std::vector<int> depth(view.clusters.size(), 0);
    for (size_t i = 0; i < view.clusters.size(); ++i)
        for (int p = view.clusters[i].parent; p >= 0; p = view.clusters[static_cast<size_t>(p)].parent)
            ++depth[i];
    for (size_t i = 0; i < view.clusters.size() && i < layout.clusterRects.size(); ++i) {
        if (layout.clusterRects[i].isEmpty())
            continue;
        auto* item = new ClusterItem(static_cast<int>(i), view.clusters[i], layout.clusterRects[i], depth[i]);
        addItem(item);
        m_clusters.push_back(item);
    }
    m_nodes.reserve(view.items.size());
    for (size_t i = 0; i < view.items.size(); ++i) {
        auto* item = new NodeItem(static_cast<int>(i), view.items[i]);
        if (i < layout.centres.size())
            item->setPos(layout.centres[i]);
        addItem(item);
        m_nodes.push_back(item);
    }
    m_edges.reserve(view.edges.size());
    for (size_t i = 0; i < view.edges.size(); ++i) {
        std::vector<QPointF> points;
        if (i < layout.edgePaths.size())
            points = layout.edgePaths[i];
        if (points.size() < 2) {
            const auto& e = view.edges[i];
            points = { m_nodes[static_cast<size_t>(e.from)]->pos(), m_nodes[static_cast<size_t>(e.to)]->pos() };
        }
        auto* item = new EdgeItem(static_cast<int>(i), view.edges[i], points);
        addItem(item);
        m_edges.push_back(item);
    }
    placeEdgeLabels();
    setSceneRect(itemsBoundingRect().adjusted(-40, -40, 40, 40));
}

void GraphScene::placeEdgeLabels()
{
    m_placeScheduled = false;
    // Rectangles taken so far, in a grid of cells so that each label is tested against its neighbours only.
    constexpr double kCell = 160;
    std::unordered_map<int64_t, std::vector<QRectF>> cells;
    const auto cellsOf = [&](const QRectF& r, const auto& visit) {
        for (auto x = static_cast<int64_t>(std::floor(r.left() / kCell)); x <= std::floor(r.right() / kCell); ++x)
            for (auto y = static_cast<int64_t>(std::floor(r.top() / kCell)); y <= std::floor(r.bottom() / kCell); ++y)
                if (!visit(x * 1'000'003 + y))
                    return false;
        return true;
    };
    const auto take = [&](const QRectF& r) {
        cellsOf(r, [&](int64_t key) {
            cells[key].push_back(r);
            return true;
        });
    };
    // A group's title strip too: a label there reads as part of the title.
    for (const ClusterItem* cluster : m_clusters)
        take(cluster->headerRect());
    for (const NodeItem* node : m_nodes) {
        take(node->sceneBox());
        if (const QRectF tag = node->compareTagRect(); !tag.isNull())
            take(tag);
    }
    for (EdgeItem* edge : m_edges) {
        edge->placeLabel([&](const QRectF& r) {
            return cellsOf(r, [&](int64_t key) {
                const auto it = cells.find(key);
                return it == cells.end() || std::none_of(it->second.begin(), it->second.end(), [&](const QRectF& o) {
                    return o.intersects(r);
                });
            });
        });
        if (const QRectF r = edge->labelRect(); !r.isNull())
            take(r);
    }
}

void GraphScene::schedulePlaceEdgeLabels()
{
    if (m_placeScheduled)
        return;
    m_placeScheduled = true;
    QTimer::singleShot(0, this, [this] {
        if (m_placeScheduled)
            placeEdgeLabels();
    });
}

NodeItem* GraphScene::itemForNode(NodeId node) const
{
    if (node < 0 || static_cast<size_t>(node) >= m_view.itemOfNode.size())
        return nullptr;
    const int index = m_view.itemOfNode[static_cast<size_t>(node)];
    return index >= 0 && static_cast<size_t>(index) < m_nodes.size() ? m_nodes[static_cast<size_t>(index)] : nullptr;
}

EdgeItem* GraphScene::edgeForValue(ValueId value) const
{
    const int producer = m_view.itemOfValueProducer(value);
    EdgeItem* any = nullptr;
    for (EdgeItem* edge : m_edges) {
        const auto& values = edge->viewEdge().values;
        if (std::find(values.begin(), values.end(), value) == values.end())
            continue;
        if (edge->viewEdge().from == producer)
            return edge;
        if (!any)
            any = edge;
    }
    return any;
}

int GraphScene::operatorItemCount() const
{
    return m_view.nodeItemCount();
}

std::vector<NodeItem*> GraphScene::neighbours(const NodeItem* item, bool downstream) const
{
    std::vector<NodeItem*> out;
    if (!item)
        return out;
    for (const EdgeItem* edge : m_edges) {
        const auto& e = edge->viewEdge();
        const int other = downstream ? (e.from == item->index() ? e.to : -1) : (e.to == item->index() ? e.from : -1);
        if (other >= 0) {
            NodeItem* n = m_nodes[static_cast<size_t>(other)];
            if (std::find(out.begin(), out.end(), n) == out.end())
                out.push_back(n);
        }
    }
    std::sort(out.begin(), out.end(), [](const NodeItem* a, const NodeItem* b) { return a->pos().x() < b->pos().x(); });
    return out;
}

NodeItem* GraphScene::sideNeighbour(const NodeItem* item, bool right) const
{
    if (!item)
        return nullptr;
    NodeItem* best = nullptr;
    double bestScore = 0;
    const QPointF p = item->pos();
    for (NodeItem* other : m_nodes) {
        if (other == item)
            continue;
        const double dx = other->pos().x() - p.x();
        const double dy = std::abs(other->pos().y() - p.y());
        if ((right && dx <= 1) || (!right && dx >= -1))
            continue;
        if (dy > std::abs(dx) * 1.5 + 30)
            continue;
        const double score = std::abs(dx) + 3 * dy;
        if (!best || score < bestScore) {
            best = other;
            bestScore = score;
        }
    }
    return best;
}

NodeItem* GraphScene::selectedNode() const
{
    for (QGraphicsItem* item : selectedItems())
        if (item->type() == NodeItem::Type)
            return static_cast<NodeItem*>(item);
    return nullptr;
}

EdgeItem* GraphScene::selectedEdge() const
{
    for (QGraphicsItem* item : selectedItems())
        if (item->type() == EdgeItem::Type)
            return static_cast<EdgeItem*>(item);
    return nullptr;
}

void GraphScene::updateEmphasis()
{
    for (EdgeItem* edge : m_emphasised)
        edge->setEmphasised(false);
    m_emphasised.clear();
    if (NodeItem* node = selectedNode()) {
        for (EdgeItem* edge : m_edges)
            if (edge->viewEdge().from == node->index() || edge->viewEdge().to == node->index()) {
                edge->setEmphasised(true);
                m_emphasised.push_back(edge);
            }
    }
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event)
{
    for (QGraphicsItem* item : items(event->scenePos())) {
        if (item->type() == NodeItem::Type) {
            emit itemActivated(static_cast<NodeItem*>(item)->index());
            event->accept();
            return;
        }
    }
    QGraphicsScene::mouseDoubleClickEvent(event);
}

void GraphScene::mousePressEvent(QGraphicsSceneMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        for (QGraphicsItem* item : items(event->scenePos())) {
            if (item->type() == NodeItem::Type || item->type() == EdgeItem::Type)
                break;
            if (item->type() == ClusterItem::Type) {
                auto* cluster = static_cast<ClusterItem*>(item);
                if (cluster->headerRect().contains(event->scenePos())) {
                    emit clusterActivated(cluster->index());
                    event->accept();
                    return;
                }
            }
        }
    }
    QGraphicsScene::mousePressEvent(event);
}

void GraphScene::contextMenuEvent(QGraphicsSceneContextMenuEvent* event)
{
    for (QGraphicsItem* item : items(event->scenePos())) {
        if (item->type() == NodeItem::Type) {
            clearSelection();
            item->setSelected(true);
            emit contextMenuRequested(static_cast<NodeItem*>(item)->index(), -1, event->screenPos());
            return;
        }
        if (item->type() == EdgeItem::Type) {
            clearSelection();
            item->setSelected(true);
            emit contextMenuRequested(-1, static_cast<EdgeItem*>(item)->index(), event->screenPos());
            return;
        }
    }
}

} // namespace onnxscope
