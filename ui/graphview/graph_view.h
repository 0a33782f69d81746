// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/model.h"
#include "ui/common/graph_decorations.h"
#include "ui/graphview/node_item.h"
#include "ui/graphview/view_graph.h"

#include <QPointer>
#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <set>

class QFrame;
class QLabel;
class QPushButton;
class QAction;
class QTimer;

namespace onnxscope {

class BreadcrumbBar;
class GraphCanvas;
class GraphOverview;
class GraphScene;
class ModelDocument;

/// The graph panel: breadcrumb bar, zoomable canvas, overview, and a progress overlay while `dot` runs.
///
/// It shows one graph of the model at a time (the main graph, an If/Loop/Scan body or a function body), grouped by
/// name scope; collapsed groups are one box, so `dot` only lays out what is expanded. Layout runs on a worker thread
/// and can be cancelled (the result is discarded; Graphviz itself cannot be interrupted).
///
/// Other features mark the drawing through its GraphDecorations interface (run state, breakpoint dots, actual types,
/// comparison colours); centerOnNode() reveals any node of any graph of the model, and nodeSelected() reports the
/// user's selection as (graph, node).
class GraphView : public QWidget, public GraphDecorations {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    /// Shows the model's main graph. `document` supplies inferred types; it may be null.
    void setModel(std::shared_ptr<const Model> model, const ModelDocument* document);
    void clear();
    std::shared_ptr<const Model> model() const { return m_model; }

    const Graph* currentGraph() const { return m_graph; }
    /// Shows any graph of the model; the breadcrumb follows its chain of owners.
    void showGraph(const Graph* graph);
    /// Opens a subgraph (`attribute`, e.g. "then_branch") or, with an empty attribute, the function body or the
    /// first subgraph of `node` in the current graph. False if it has none.
    bool enterSubgraph(NodeId node, const std::string& attribute = {});
    /// Back to the enclosing graph; false at the main graph.
    bool leaveSubgraph();

    /// Shows `graph` if needed, expands the groups hiding `node`, then centres on it (after a relayout if one is
    /// needed) and selects it if `select`. Groups opened for a node that is not selected (where the debugger paused)
    /// close again when a later such call no longer needs them, so that stepping through 30 layers leaves one open;
    /// groups the user opened stay open.
    void centerOnNode(const Graph* graph, NodeId node, bool select = true);
    /// Like centerOnNode for a tensor: selects its edge, or its producer when it has no visible edge.
    void centerOnValue(const Graph* graph, ValueId value);

    /// Marks nodes (search matches) with a dotted outline; replaces the previous set.
    void setHighlightedNodes(std::vector<std::pair<const Graph*, NodeId>> nodes);

    // GraphDecorations
    const Graph* drawnGraph() const override;
    int boxCount() const override;
    Box box(int index) const override;
    int boxOfNode(NodeId node) const override;
    int edgeCount() const override;
    std::vector<ValueId> edgeValues(int edge) const override;
    void setNodeState(const Graph* graph, NodeId node, NodeState state) override;
    void clearNodeStates() override;
    void setBreakpointMarker(int box, bool marker) override;
    void setHeatColour(int box, const QColor& colour) override;
    void setRunNote(int box, const QString& note) override;
    void setActualType(int box, const QString& type) override;
    void setEdgeActualType(int edge, const QString& type) override;
    void setCompareMark(int box, const CompareMark& mark) override;
    CompareMark compareMark(int box) const override;
    void setRiskMark(int box, const RiskMark& mark) override;
    RiskMark riskMark(int box) const override;

    /// Expands or collapses a name scope of the current graph (index into the graph's ScopeTree).
    void setScopeExpanded(int scope, bool expanded);
    void expandAll();
    void collapseAll();
    const ScopeTree* scopeTree() const;
    /// Scopes currently expanded in the current graph.
    std::set<int> expandedScopes() const;

    void zoomIn();
    void zoomOut();
    void zoomToFit();
    void zoomToActualSize();
    void setOverviewVisible(bool visible);
    /// Actions added to an operator node's context menu (the debugger's Run to, Toggle Breakpoint, ...). The node is
    /// selected, and nodeSelected() emitted, before the menu opens, so they act on the selection.
    void setNodeActions(const QList<QAction*>& actions) { m_nodeActions = actions; }
    const QList<QAction*>& nodeActions() const { return m_nodeActions; }
    /// An action of another feature for the node context menu, below the debugger's (setNodeActions()); it reads the
    /// node from selectedNode().
    void addNodeAction(QAction* action) { m_extraNodeActions.append(action); }
    const QList<QAction*>& extraNodeActions() const { return m_extraNodeActions; }
    bool isOverviewVisible() const;

    /// Draws each Constant inside its consumers' boxes (the default) or as a box of its own, so that a debugger that
    /// stops before Constants highlights the node it stopped at.
    void setFoldConstants(bool fold);
    bool foldsConstants() const { return m_foldConstants; }

    bool isLayoutRunning() const { return m_layoutRunning; }
    void cancelLayout();

    /// The selected node (-1), tensor (kNoValue) or group, if any; "name" is what Copy puts on the clipboard.
    NodeId selectedNode() const;
    ValueId selectedValue() const;
    QString selectedName() const;

    GraphScene* scene() const { return m_scene; }
    GraphCanvas* canvas() const { return m_canvas; }
    BreadcrumbBar* breadcrumbBar() const { return m_breadcrumb; }

signals:
    void nodeSelected(const Graph* graph, NodeId node);
    void valueSelected(const Graph* graph, ValueId value);
    void groupSelected(const Graph* graph, int scope);
    void selectionCleared();
    /// Double-click or Enter on a node without a body (the debugger may use it for "run to").
    void nodeActivated(const Graph* graph, NodeId node);
    void currentGraphChanged(const Graph* graph);
    void layoutStarted(int boxes);
    void layoutFinished(bool ok, double milliseconds);
    /// The first paint of the canvas after a layout was placed in the scene.
    void graphDrawn();

private:
    struct GraphState {
        GraphOutline outline;
        std::set<int> expanded;
        std::set<int> laidOut; // the expansion of the scene on screen
        std::set<int> opened; // expanded only to show a node centred without selecting it (a debugger pause)
    };
    struct Focus {
        enum class Kind { Fit, Keep, Node, Value, Scope } kind = Kind::Fit;
        NodeId node = -1;
        ValueId value = kNoValue;
        int scope = -1;
        bool select = true;
        QPointF anchorScene; // Keep: the scene point under the view centre
        bool hadScene = false;
    };

    GraphState& stateFor(const Graph* graph);
    void relayout(Focus focus);
    void onLayoutDone(quint64 generation, std::shared_ptr<ViewGraph> view, const LayoutResult& result, Focus focus);
    void applyFocus(const Focus& focus);
    /// Scene x to centre a readable start view of a large drawing on: its first row of boxes.
    double topNodesCenterX(double visibleWidth) const;
    void applyStates();
    /// Marks the boxes that stand for a current node without being it (its consumer when folded, its collapsed group).
    void applyCurrentInside();
    void updateBreadcrumb();
    void onSelectionChanged();
    void onItemActivated(int index);
    void onClusterActivated(int index);
    void onContextMenu(int itemIndex, int edgeIndex, const QPoint& screenPos);
    void navigate(int key);
    bool revealNode(NodeId node, std::set<int>* opened = nullptr);
    void showOverlay(const QString& text, bool cancellable);
    void positionOverlays();

protected:
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    std::shared_ptr<const Model> m_model;
    const ModelDocument* m_document = nullptr;
    const Graph* m_graph = nullptr;
    std::map<const Graph*, std::unique_ptr<GraphState>> m_states;
    std::map<const Graph*, std::map<NodeId, NodeState>> m_nodeStates;

    BreadcrumbBar* m_breadcrumb;
    GraphCanvas* m_canvas;
    GraphScene* m_scene;
    GraphOverview* m_overview;
    QFrame* m_overlay;
    QLabel* m_overlayLabel;
    QPushButton* m_overlayCancel;
    QPushButton* m_overlayRetry;
    QTimer* m_overlayTimer;
    QList<QAction*> m_nodeActions;
    QList<QAction*> m_extraNodeActions;
    QTimer* m_overviewResize; // refits the overview to a resized viewport, once the resizing pauses
    bool m_overviewWanted = true;
    bool m_foldConstants = true;

    quint64 m_generation = 0;
    bool m_layoutRunning = false;
    bool m_awaitingPaint = false;
    bool m_relayoutPending = false;
    std::vector<std::pair<const Graph*, NodeId>> m_highlighted;
    void applyHighlights();
};

} // namespace onnxscope
