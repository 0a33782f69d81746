// SPDX-License-Identifier: MIT
#include "ui/compare/compare_decorations.h"

#include <QStringList>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

namespace onnxscope {

namespace {

/// The worse of two executions, as ComparisonResult::worstByNode ranks them.
bool worse(const NodeCompare& a, const NodeCompare& b)
{
    return std::make_tuple(isDivergent(a.status), a.toleranceRatio, a.maxAbsError)
        > std::make_tuple(isDivergent(b.status), b.toleranceRatio, b.maxAbsError);
}

/// "mismatch — max abs error …" for a tooltip.
QString errorText(const NodeCompare& n, int executions)
{
    QString text = CompareColours::statusLabel(n.status);
    if (n.status == CompareStatus::Match || n.status == CompareStatus::Mismatch)
        text += QStringLiteral(" \u2014 max abs error %1, max rel error %2, cosine %3, error \u00f7 tolerance %4")
                    .arg(CompareColours::errorText(n.maxAbsError), CompareColours::errorText(n.maxRelError),
                        CompareColours::errorText(n.minCosine), CompareColours::errorText(n.toleranceRatio));
    else if (n.status == CompareStatus::OnlyA)
        text += QStringLiteral(" \u2014 side B has none of its outputs");
    else if (n.status == CompareStatus::OnlyB)
        text += QStringLiteral(" \u2014 side A has none of its outputs");
    if (executions > 1)
        text += QStringLiteral(" (worst of %1 executions)").arg(executions);
    return text;
}

/// The counterparts of a node's values on the other side: "B: “t1” of n0 (LayerNormalization)".
QString counterparts(const NodeCompare& n, const ComparisonResult& r, CompareSide side)
{
    QStringList parts;
    for (size_t i : n.rows) {
        const CompareRow& row = r.rows[i];
        if (row.status == CompareStatus::OnlyA || row.status == CompareStatus::OnlyB || parts.size() >= 3)
            continue;
        const bool b = side == CompareSide::A;
        const std::string& name = b ? row.nameB : row.name;
        const std::string& node = b ? row.nodeB : row.node;
        const std::string& op = b ? row.opTypeB : row.opType;
        if (side == CompareSide::A && row.pairedBy == PairedBy::Name && name == row.name)
            continue; // the same name on both sides says it all
        QString part = QStringLiteral("\u201c%1\u201d").arg(QString::fromStdString(name));
        if (!node.empty())
            part += QStringLiteral(" of %1 (%2)").arg(QString::fromStdString(node), QString::fromStdString(op));
        if (row.pairedBy == PairedBy::Content)
            part += QStringLiteral(", by content");
        parts << part;
    }
    if (parts.isEmpty())
        return {};
    return QStringLiteral("\nCounterpart on side %1: %2")
        .arg(side == CompareSide::A ? QStringLiteral("B") : QStringLiteral("A"), parts.join(QStringLiteral("; ")));
}

QString nodeNote(const NodeCompare& n, int executions, const ComparisonResult& r, CompareSide side)
{
    return QStringLiteral("Compare%1: ").arg(side == CompareSide::B ? QStringLiteral(" (side B)") : QString())
        + errorText(n, executions) + counterparts(n, r, side);
}

} // namespace

void decorateComparison(GraphDecorations& graph, const ComparisonResult* result, ErrorMetric metric,
    const Graph* mainGraph, CompareSide side)
{
    const Graph* drawn = graph.drawnGraph();
    const int boxCount = graph.boxCount();
    for (int i = 0; i < boxCount; ++i)
        graph.setCompareMark(i, {});
    if (!result || !drawn)
        return;
    const ComparisonResult& r = *result;
    const NodeCompare* first = r.firstDivergence ? &r.nodes[*r.firstDivergence] : nullptr;
    std::vector<const NodeCompare*> executions;
    std::map<std::pair<const Graph*, NodeId>, NodeCompare> nodesB;
    if (side == CompareSide::A) {
        for (const NodeCompare& n : r.nodes)
            executions.push_back(&n);
    } else {
        nodesB = r.nodesOfB();
        for (const auto& [key, n] : nodesB)
            executions.push_back(&n);
        // Side B's first divergence: the producer of the counterpart of the first divergence's worst output.
        const CompareRow* worst = nullptr;
        if (first)
            for (size_t i : first->rows)
                if (isDivergent(r.rows[i].status)
                    && (!worst || r.rows[i].stats.toleranceRatio > worst->stats.toleranceRatio))
                    worst = &r.rows[i];
        first = nullptr;
        if (worst) {
            auto it = nodesB.find({ worst->graphB, worst->nodeIdB });
            if (it != nodesB.end())
                first = &it->second;
        }
    }
    struct Box {
        const NodeCompare* worst = nullptr;
        int executions = 0;
        int nodes = 0; // drawn in this box, folded Constants aside
        bool first = false;
        bool root = false;
        bool unmatched = true; // every node drawn in the box lacks a counterpart
        QStringList folded; // notes on folded Constants that differ
    };
    std::map<int, Box> boxes;
    std::map<NodeId, Box> perNode;
    for (const NodeCompare* e : executions) {
        const NodeCompare& n = *e;
        if (n.graph != drawn)
            continue;
        Box& b = perNode[n.nodeId];
        if (!b.worst || worse(n, *b.worst))
            b.worst = &n;
        ++b.executions;
        b.root = b.root || n.root;
        b.first = b.first || &n == first;
    }
    for (const auto& [node, b] : perNode) {
        const int index = graph.boxOfNode(node);
        if (index < 0)
            continue;
        const GraphDecorations::Box drawnBox = graph.box(index);
        // A folded Constant is drawn inside its consumer: it colours and tags that box when it differs, but a
        // Constant side B has as an initializer (no counterpart) says nothing about the consumer.
        const bool folded = drawnBox.kind == GraphDecorations::Box::Kind::Node && drawnBox.node != node;
        const bool unmatched = b.worst->status == CompareStatus::OnlyA || b.worst->status == CompareStatus::OnlyB;
        Box& box = boxes[index];
        if (!(folded && unmatched) && (!box.worst || worse(*b.worst, *box.worst)))
            box.worst = b.worst;
        if (!folded) {
            ++box.nodes;
            box.executions = std::max(box.executions, b.executions);
            box.unmatched = box.unmatched && unmatched;
        } else if (isDivergent(b.worst->status) || b.first || b.root) {
            box.folded << QStringLiteral("Its folded %1 \u201c%2\u201d differs (%3)%4.")
                              .arg(QString::fromStdString(b.worst->opType), QString::fromStdString(b.worst->node),
                                  errorText(*b.worst, b.executions),
                                  b.first ? QStringLiteral(": it is the first divergence") : QString());
        }
        box.first = box.first || b.first;
        box.root = box.root || b.root;
    }
    for (const auto& [index, box] : boxes) {
        if (!box.worst)
            continue;
        CompareMark mark;
        mark.colour = CompareColours::forNode(*box.worst, r, metric);
        mark.unmatched = box.nodes > 0 && box.unmatched;
        mark.firstDivergence = box.first;
        mark.root = box.root && !box.first;
        mark.note = nodeNote(*box.worst, box.executions, r, side);
        if (graph.box(index).kind == GraphDecorations::Box::Kind::Group)
            mark.note = QStringLiteral("Worst of %1 nodes in this group (%2 %3). ")
                            .arg(box.nodes)
                            .arg(QString::fromStdString(box.worst->node), QString::fromStdString(box.worst->opType))
                + mark.note;
        for (const QString& note : box.folded)
            mark.note += QLatin1Char('\n') + note;
        if (box.first && side == CompareSide::B)
            mark.note += QStringLiteral("\nFirst divergence: it made the counterpart of the first value of side A that "
                                        "differs while all its inputs match.");
        else if (box.first)
            mark.note += QStringLiteral("\nFirst divergence: its outputs differ while all its inputs match.");
        else if (box.root)
            mark.note += QStringLiteral("\nA root of a difference: its outputs differ while its inputs match.");
        graph.setCompareMark(index, mark);
    }
    // The main graph's inputs (other input sets) and initializers folded into their consumers.
    if (drawn != mainGraph)
        return;
    for (size_t i = 0; i < r.rows.size(); ++i) {
        const CompareRow& row = r.rows[i];
        if (row.origin == ValueOrigin::NodeOutput || row.status == CompareStatus::OnlyB
            || (side == CompareSide::B && row.status == CompareStatus::OnlyA))
            continue;
        const ValueId id = drawn->findValue(side == CompareSide::A ? row.name : row.nameB);
        if (id == kNoValue)
            continue;
        for (int index = 0; index < boxCount; ++index) {
            const GraphDecorations::Box box = graph.box(index);
            if (row.origin == ValueOrigin::GraphInput && box.kind == GraphDecorations::Box::Kind::Input
                && box.value == id) {
                CompareMark mark;
                mark.colour = CompareColours::forRow(row, metric);
                mark.note = QStringLiteral("Compare: %1 \u2014 max abs error %2")
                                .arg(CompareColours::statusLabel(row.status),
                                    CompareColours::errorText(row.stats.maxAbsError));
                graph.setCompareMark(index, mark);
            } else if (row.origin == ValueOrigin::Initializer && isDivergent(row.status)
                && box.kind == GraphDecorations::Box::Kind::Node && graph.compareMark(index).colour.isValid()
                && std::find(drawn->value(id).consumers.begin(), drawn->value(id).consumers.end(), box.node)
                    != drawn->value(id).consumers.end()) {
                CompareMark mark = graph.compareMark(index);
                mark.note
                    += QStringLiteral("\nIts initializer \u201c%1\u201d differs between the sides (max abs error %2).")
                           .arg(QString::fromStdString(row.name), CompareColours::errorText(row.stats.maxAbsError));
                graph.setCompareMark(index, mark);
            }
        }
    }
}

} // namespace onnxscope
