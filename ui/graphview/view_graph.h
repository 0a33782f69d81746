// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"
#include "ui/graphview/graphviz_layout.h"

#include <QColor>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <functional>
#include <set>
#include <vector>

namespace onnxscope {

/// Name scopes of one graph, from node names as exporters write them (`/encoder/layer.3/attn/MatMul` is in scope
/// `encoder/layer.3/attn`), or for a dynamo export from the PyTorch modules its nodes' metadata names (torch_origin.h:
/// `model` › `layers.0` › `self_attn`, each with its class). Chains of single-child scopes are merged and one-node
/// scopes dissolved.
///
/// Nodes that no scope groups are grouped by the graph's own shape when there are too many to read at once: a scope
/// whose direct nodes span more than `maxRanks` ranks (a long chain, as in CNN backbones: ocr_det's 330 boxes are 276
/// ranks deep) is cut into consecutive stretches of ranks, at the narrowest places (the fewest tensors crossing), each
/// stretch a group that starts collapsed; a stretch still too deep is cut again inside. A scope with more direct nodes
/// than `flatLimit` that is not deep is split into consecutive blocks of its nodes.
struct ScopeTree {
    struct Scope {
        QString name; // this level's name ("layer.3"), merged chains keep their slashes ("model/encoder")
        /// A PyTorch module (dynamo exports): its full path ("model.layers.0.self_attn") and class ("Gemma3Attention").
        /// Empty for name scopes and the groups the builder makes.
        QString modulePath;
        QString className;
        int parent = -1;
        std::vector<int> children;
        std::vector<NodeId> nodes; // nodes directly in this scope
        int total = 0; // nodes in this scope and below
        int depth = 0;
        /// Closed in the default view: a stretch of a long chain, or one of many numbered siblings (`layers.0` …
        /// `layers.27`) in a graph too big to show whole.
        bool collapsedByDefault = false;
        bool isChain = false; // a stretch of a long chain, not a name scope
        /// What groups and frames show: the name, and the module's class when it is one ("layers.0 · DecoderLayer").
        QString title() const;
    };
    std::vector<Scope> scopes; // [0] is the root (the whole graph)
    std::vector<int> scopeOfNode; // per NodeId, -1 for hidden (folded) nodes

    /// `hidden[node]` marks nodes that are not drawn (folded constants); they belong to no scope. More than
    /// `maxChildren` sub-scopes are bucketed.
    static ScopeTree build(const Graph& graph, const std::vector<bool>& hidden, int flatLimit = 1500,
        int blockSize = 250, int maxChildren = 60, int maxRanks = 40);
    /// Full path from the root, "encoder/layer.3/attn"; for a PyTorch module its module path.
    QString path(int scope) const;
    bool isAncestor(int ancestor, int scope) const;
    /// Scopes to expand so that about `budget` boxes are visible: breadth first, while they fit, leaving closed the
    /// scopes that are collapsedByDefault.
    std::set<int> defaultExpansion(int budget) const;
    /// Numbered siblings (`layers.0`, `layers.1`, … at least this many) are collapsedByDefault when the graph has
    /// more than this many nodes.
    static constexpr int kRepeatedSiblings = 3;
    static constexpr int kRepeatedGraphNodes = 320;
};

/// A box of the drawn graph: an operator node, a collapsed scope, or a graph input or output.
struct ViewItem {
    enum class Kind { Node, Group, Input, Output };
    Kind kind = Kind::Node;
    NodeId node = -1; // Node
    ValueId value = kNoValue; // Input, Output
    int scope = -1; // Group: the collapsed scope
    int cluster = -1; // index into ViewGraph::clusters of the expanded scope drawn around it, -1 for none
    QString title;
    QString subtitle;
    QStringList rows; // folded constants and initializers: "W ⟨64×3×3×3⟩"
    QColor colour;
    bool hasSubgraphs = false; // If/Loop/Scan
    bool isFunction = false; // a call of a model-local function
    bool outerScope = false; // Input: a value of an enclosing graph
    int nodeCount = 0; // Group
    QSizeF size;
};

/// An arrow between two boxes: one tensor, or several when a collapsed group hides where they go.
struct ViewEdge {
    int from = -1;
    int to = -1;
    std::vector<ValueId> values;
    QString label;
    bool implicit = false; // an outer-scope value a subgraph reads (drawn dashed)
};

/// An expanded scope drawn as a frame around its members.
struct ViewCluster {
    int scope = -1;
    int parent = -1;
    QString title;
    int nodeCount = 0;
};

/// What the graph view draws for one graph and one expansion state, before layout. Built on the UI thread
/// (measuring text needs fonts), laid out on a worker from layoutRequest().
struct ViewGraph {
    const Graph* graph = nullptr;
    std::vector<ViewItem> items;
    std::vector<ViewEdge> edges;
    std::vector<ViewCluster> clusters;
    std::vector<int> itemOfNode; // per NodeId: the box showing it (its own, its group's, or for a folded constant its
                                 // first consumer's), -1 if none
    int nodeItemCount() const;
    int itemOfValueProducer(ValueId value) const;
    LayoutRequest layoutRequest() const;
};

/// Everything the builder needs to know about a graph besides its expansion state; computed once per graph.
struct GraphOutline {
    const Graph* graph = nullptr;
    std::vector<bool> folded; // per NodeId: a Constant drawn inside its consumers
    ScopeTree scopes;
    /// With `foldConstants` off, every Constant is a box of its own.
    static GraphOutline build(const Graph& graph, bool foldConstants = true);
};

using ValueTypeFunction = std::function<ValueType(const Graph&, ValueId)>;

/// Builds the drawn graph for `expanded` scopes (scope 0, the root, is always expanded).
ViewGraph buildViewGraph(const GraphOutline& outline, const std::set<int>& expanded, const ValueTypeFunction& typeOf);

/// The node name when it says more than the op type: "/enc/layer.0/attn/MatMul_3" adds nothing to "MatMul".
QString informativeNodeName(const Node& node);

} // namespace onnxscope
