// SPDX-License-Identifier: MIT
#pragma once

#include <QPointF>
#include <QRectF>
#include <QString>

#include <vector>

namespace onnxscope {

/// A box to place. Sizes are in scene units (points).
struct LayoutNode {
    double width = 60;
    double height = 30;
    int cluster = -1; // index into LayoutRequest::clusters, -1 for none
};

struct LayoutEdge {
    int from = 0;
    int to = 0;
    bool constraint = true; // false: the edge does not pull ranks apart (implicit inputs)
};

/// A rectangle drawn around a set of nodes (an expanded name scope). Clusters nest through `parent`.
struct LayoutCluster {
    int parent = -1;
    double headerHeight = 18; // space reserved at the top for a title
};

/// The plain description of a graph to lay out: no engine types, no Qt items, so it can be built on any thread and
/// tested without a scene.
struct LayoutRequest {
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;
    std::vector<LayoutCluster> clusters;
    double nodeSeparation = 22;
    double rankSeparation = 34;
};

struct LayoutResult {
    bool ok = false;
    QString error;
    std::vector<QPointF> centres; // per node
    std::vector<std::vector<QPointF>> edgePaths; // per edge: cubic bezier control points (1 + 3n), top-left origin
    std::vector<QRectF> clusterRects; // per cluster
    QRectF bounds;
    double milliseconds = 0;
};

/// Lays out a graph top to bottom with Graphviz `dot`. A pure function: graph description in, positions out.
///
/// Graphviz keeps global state and is not thread-safe, so calls are serialised by a mutex: it is safe to call from
/// any worker thread, and two calls never run concurrently. `dot` cannot be interrupted once started; callers that
/// offer "cancel" discard the result instead. When clusters make `dot` fail, the layout is retried without them.
LayoutResult computeLayout(const LayoutRequest& request);

} // namespace onnxscope
