// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"

#include <QColor>
#include <QString>

#include <vector>

namespace onnxscope {

/// How a run marks a node. Tripped: ran, and its output stopped the run (NaN/Inf, a value condition).
enum class NodeState { NotRun, Done, Current, Breakpoint, Failed, Tripped };

/// A comparison's mark on a box: the error colour (invalid for none) as border and tint, hatched when the node's values
/// have no counterpart on the other side, a "1st ≠" tag on the first divergent node (a "≠" tag on other roots of a
/// difference), and a tooltip note.
struct CompareMark {
    QColor colour;
    bool unmatched = false;
    bool firstDivergence = false;
    bool root = false;
    QString note;
};

/// A precision check's mark on a box (check-precision's risk): a tint and a thick border of `colour` (invalid for
/// none), and a tooltip note with the evidence. Drawn under a comparison's and the debugger's current-node marks.
struct RiskMark {
    QColor colour;
    QString note;
};

/// The drawn graph as other features mark it: the graph view implements it; the debugger (run state, breakpoint dots,
/// times, actual types) and the comparison (error colours) write to it without knowing the view. The main window
/// hands the one to the others.
///
/// The drawing shows one graph (drawnGraph()) as boxes and edges numbered for this drawing only. A new layout replaces
/// them and drops their marks: writers mark the drawing again when the view reports a finished layout. Node states
/// are kept per graph of the model and survive relayouts and switching graphs.
class GraphDecorations {
public:
    /// A box of the drawing, in the model's terms.
    struct Box {
        enum class Kind { Node, Group, Input, Output };
        Kind kind = Kind::Node;
        NodeId node = -1; // Node: the node the box is drawn for (constants folded into it are drawn inside)
        ValueId value = kNoValue; // Input, Output: the graph's input or output
        QString declaredType; // Input, Output: the type and shape drawn under the name
        NodeState state = NodeState::NotRun;
    };

    virtual ~GraphDecorations() = default;

    /// The graph drawn, null if none.
    virtual const Graph* drawnGraph() const = 0;
    virtual int boxCount() const = 0;
    virtual Box box(int index) const = 0;
    /// The box showing `node` of the drawn graph (its own, its collapsed group's, or its consumer's for a folded
    /// constant), -1 if none.
    virtual int boxOfNode(NodeId node) const = 0;
    virtual int edgeCount() const = 0;
    /// The values an edge carries: one, or several when a collapsed group hides where they go.
    virtual std::vector<ValueId> edgeValues(int edge) const = 0;

    /// Marks a node of any graph of the model (NotRun clears it).
    virtual void setNodeState(const Graph* graph, NodeId node, NodeState state) = 0;
    virtual void clearNodeStates() = 0;

    /// The run's marks on a box: a breakpoint dot, a body tint (invalid for none), and a note appended to the tooltip.
    virtual void setBreakpointMarker(int box, bool marker) = 0;
    virtual void setHeatColour(int box, const QColor& colour) = 0;
    virtual void setRunNote(int box, const QString& note) = 0;
    /// An input's or output's type and shape in the run, drawn in place of the declared one; empty restores it.
    virtual void setActualType(int box, const QString& type) = 0;
    /// An executed edge's actual type and shape, drawn in place of the declared one; empty restores it.
    virtual void setEdgeActualType(int edge, const QString& type) = 0;

    virtual void setCompareMark(int box, const CompareMark& mark) = 0;
    virtual CompareMark compareMark(int box) const = 0;

    virtual void setRiskMark(int box, const RiskMark& mark) = 0;
    virtual RiskMark riskMark(int box) const = 0;
};

} // namespace onnxscope
