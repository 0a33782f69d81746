// SPDX-License-Identifier: MIT
// The layout function and the graph description it is fed, tested without a scene or a window.
#include "engine/model/model.h"
#include "ui/graphview/graphviz_layout.h"
#include "ui/graphview/view_graph.h"

#include <onnx/onnx_pb.h>

#include <QtConcurrent/QtConcurrentRun>
#include <QtTest>

using namespace onnxscope;

namespace {

QRectF boxOf(const LayoutRequest& request, const LayoutResult& result, size_t i)
{
    const auto& n = request.nodes[i];
    return QRectF(result.centres[i].x() - n.width / 2, result.centres[i].y() - n.height / 2, n.width, n.height);
}

void verifyNoOverlap(const LayoutRequest& request, const LayoutResult& result)
{
    QCOMPARE(result.centres.size(), request.nodes.size());
    for (size_t i = 0; i < request.nodes.size(); ++i) {
        const QRectF a = boxOf(request, result, i);
        QVERIFY2(result.bounds.adjusted(-1, -1, 1, 1).contains(a),
            qPrintable(QStringLiteral("box %1 outside the bounds").arg(i)));
        for (size_t j = i + 1; j < request.nodes.size(); ++j) {
            const QRectF b = boxOf(request, result, j);
            QVERIFY2(!a.adjusted(0.5, 0.5, -0.5, -0.5).intersects(b.adjusted(0.5, 0.5, -0.5, -0.5)),
                qPrintable(QStringLiteral("boxes %1 and %2 overlap").arg(i).arg(j)));
        }
    }
}

// An edge's path starts at its source box and ends at its target box.
void verifyEdgeEnds(const LayoutRequest& request, const LayoutResult& result)
{
    QCOMPARE(result.edgePaths.size(), request.edges.size());
    for (size_t e = 0; e < request.edges.size(); ++e) {
        const auto& path = result.edgePaths[e];
        QVERIFY2(path.size() >= 4 && (path.size() - 1) % 3 == 0,
            qPrintable(QStringLiteral("edge %1 has %2 points").arg(e).arg(path.size())));
        const QRectF from = boxOf(request, result, static_cast<size_t>(request.edges[e].from)).adjusted(-3, -3, 3, 3);
        const QRectF to = boxOf(request, result, static_cast<size_t>(request.edges[e].to)).adjusted(-3, -3, 3, 3);
        QVERIFY2(
            from.contains(path.front()), qPrintable(QStringLiteral("edge %1 does not start at its source").arg(e)));
        QVERIFY2(to.contains(path.back()), qPrintable(QStringLiteral("edge %1 does not end at its target").arg(e)));
    }
}

} // namespace

class TestGraphLayout : public QObject {
    Q_OBJECT
private slots:
    void chainIsTopToBottom()
    {
        LayoutRequest request;
        for (int i = 0; i < 5; ++i)
            request.nodes.push_back({ 80.0 + 10 * i, 30, -1 });
        for (int i = 0; i + 1 < 5; ++i)
            request.edges.push_back({ i, i + 1, true });
        const LayoutResult result = computeLayout(request);
        QVERIFY2(result.ok, qPrintable(result.error));
        verifyNoOverlap(request, result);
        verifyEdgeEnds(request, result);
        for (int i = 0; i + 1 < 5; ++i)
            QVERIFY(result.centres[static_cast<size_t>(i)].y() + 30 <= result.centres[static_cast<size_t>(i) + 1].y());
    }

    void wideGraphWithClustersHasNoOverlaps()
    {
        // Two clusters side by side (a nested one inside the first) fed by one source and joined at the end.
        LayoutRequest request;
        request.clusters = { { -1, 18 }, { -1, 18 }, { 0, 18 } };
        request.nodes.push_back({ 90, 34, -1 }); // 0 source
        for (int i = 0; i < 12; ++i)
            request.nodes.push_back({ 60.0 + 7 * (i % 5), 22.0 + 14 * (i % 3), i < 4 ? 0 : i < 8 ? 1 : 2 });
        request.nodes.push_back({ 90, 34, -1 }); // 13 sink
        for (int i = 1; i <= 12; ++i)
            request.edges.push_back({ (i == 1 || i == 5 || i == 9) ? 0 : i - 1, i, true });
        request.edges.push_back({ 4, 13, true });
        request.edges.push_back({ 8, 13, true });
        request.edges.push_back({ 12, 13, true });
        request.edges.push_back({ 2, 7, true });
        const LayoutResult result = computeLayout(request);
        QVERIFY2(result.ok, qPrintable(result.error));
        verifyNoOverlap(request, result);
        verifyEdgeEnds(request, result);
        QCOMPARE(result.clusterRects.size(), size_t(3));
        // Every member lies inside its cluster's frame, and the nested cluster inside its parent.
        for (size_t i = 0; i < request.nodes.size(); ++i) {
            const int c = request.nodes[i].cluster;
            if (c >= 0)
                QVERIFY(result.clusterRects[static_cast<size_t>(c)]
                            .adjusted(-1, -1, 1, 1)
                            .contains(boxOf(request, result, i)));
        }
        QVERIFY(result.clusterRects[0].adjusted(-1, -1, 1, 1).contains(result.clusterRects[2]));
        QVERIFY(!result.clusterRects[0].intersects(result.clusterRects[1]));
    }

    void emptyGraph()
    {
        const LayoutResult result = computeLayout({});
        QVERIFY(result.ok);
        QVERIFY(result.centres.empty());
    }

    void concurrentCallsAreSerialised()
    {
        // Graphviz is not thread-safe: several workers at once must still all get correct layouts.
        LayoutRequest request;
        for (int i = 0; i < 40; ++i)
            request.nodes.push_back({ 70, 26, -1 });
        for (int i = 1; i < 40; ++i)
            request.edges.push_back({ (i - 1) / 2, i, true });
        QList<QFuture<LayoutResult>> futures;
        for (int k = 0; k < 4; ++k)
            futures << QtConcurrent::run(computeLayout, request);
        for (auto& f : futures) {
            const LayoutResult r = f.result();
            QVERIFY(r.ok);
            verifyNoOverlap(request, r);
        }
    }

    void scopeTreeGroupsByNamePrefix()
    {
        // /enc/layer.0/{a,b}, /enc/layer.1/{a,b}, /head/Gemm (one-node scope dissolves), "lonely" at the root.
        auto model = Model::fromText(R"(
            <ir_version: 8, opset_import: ["" : 17]>
            g (float[4] x) => (float[4] y) {
                a0 = Relu (x)
                b0 = Neg (a0)
                a1 = Relu (b0)
                b1 = Neg (a1)
                h = Abs (b1)
                y = Identity (h)
            })");
        // The text format cannot name nodes; rebuild the names through the proto.
        auto proto = std::make_unique<onnx::ModelProto>(model->proto());
        const char* names[] = { "/enc/layer.0/Relu", "/enc/layer.0/Neg", "/enc/layer.1/Relu", "/enc/layer.1/Neg",
            "/head/Abs", "lonely" };
        for (int i = 0; i < proto->graph().node_size(); ++i)
            proto->mutable_graph()->mutable_node(i)->set_name(names[i]);
        auto named = Model::fromProto(std::move(proto), {}, "scopes");
        const GraphOutline outline = GraphOutline::build(named->graph());
        const ScopeTree& tree = outline.scopes;
        // root -> "enc" -> {layer.0, layer.1}; "head" had one node and was dissolved into the root.
        QCOMPARE(tree.scopes[0].nodes.size(), size_t(2));
        QCOMPARE(tree.scopes[0].children.size(), size_t(1));
        const int enc = tree.scopes[0].children[0];
        QCOMPARE(tree.scopes[static_cast<size_t>(enc)].name, QStringLiteral("enc"));
        QCOMPARE(tree.scopes[static_cast<size_t>(enc)].total, 4);
        QCOMPARE(tree.scopes[static_cast<size_t>(enc)].children.size(), size_t(2));
        QCOMPARE(tree.path(tree.scopes[static_cast<size_t>(enc)].children[1]), QStringLiteral("enc/layer.1"));

        // All collapsed: the root's 2 nodes + one box for "enc", plus input and output.
        ViewGraph collapsed = buildViewGraph(outline, { 0 }, {});
        QCOMPARE(collapsed.items.size(), size_t(5));
        QCOMPARE(collapsed.nodeItemCount(), 2);
        QVERIFY(collapsed.clusters.empty());
        const int encItem = collapsed.itemOfNode[0];
        QCOMPARE(collapsed.items[static_cast<size_t>(encItem)].kind, ViewItem::Kind::Group);
        QCOMPARE(collapsed.items[static_cast<size_t>(encItem)].nodeCount, 4);
        for (NodeId n = 0; n < 4; ++n)
            QCOMPARE(collapsed.itemOfNode[static_cast<size_t>(n)], encItem);
        // x -> enc -> Abs -> Identity -> y
        QCOMPARE(collapsed.edges.size(), size_t(4));

        // Everything expanded: 6 nodes, 2 io, 3 clusters (enc, layer.0, layer.1), edges x->...->y = 7.
        ViewGraph expanded = buildViewGraph(outline, tree.defaultExpansion(1000), {});
        QCOMPARE(expanded.nodeItemCount(), 6);
        QCOMPARE(expanded.clusters.size(), size_t(3));
        QCOMPARE(expanded.edges.size(), size_t(7));
        const LayoutRequest request = expanded.layoutRequest();
        const LayoutResult result = computeLayout(request);
        QVERIFY(result.ok);
        verifyNoOverlap(request, result);
        verifyEdgeEnds(request, result);
    }

    void manySiblingScopesAreBucketed()
    {
        // 130 layers of 2 nodes: /model/layers.i/Relu, /model/layers.i/Neg.
        std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[4] v0) => (float[4] v260) {\n";
        for (int i = 0; i < 260; ++i)
            text += "v" + std::to_string(i + 1) + (i % 2 ? " = Neg (v" : " = Relu (v") + std::to_string(i) + ")\n";
        text += "}";
        auto proto = std::make_unique<onnx::ModelProto>(Model::fromText(text)->proto());
        for (int i = 0; i < proto->graph().node_size(); ++i)
            proto->mutable_graph()->mutable_node(i)->set_name(
                "/model/layers." + std::to_string(i / 2) + (i % 2 ? "/Neg" : "/Relu"));
        auto model = Model::fromProto(std::move(proto), {}, "layers");
        const ScopeTree tree = GraphOutline::build(model->graph()).scopes;
        QCOMPARE(tree.scopes[0].children.size(), size_t(1));
        const auto& layers = tree.scopes[static_cast<size_t>(tree.scopes[0].children[0])];
        QCOMPARE(layers.name, QStringLiteral("model"));
        QCOMPARE(layers.children.size(), size_t(3)); // 50 + 50 + 30 layers
        QCOMPARE(
            tree.scopes[static_cast<size_t>(layers.children[0])].name, QStringLiteral("layers.0 \u2026 layers.49"));
        QCOMPARE(tree.scopes[static_cast<size_t>(layers.children[2])].total, 60);
        QCOMPARE(tree.path(tree.scopeOfNode[259]), QStringLiteral("model/layers.100 \u2026 layers.129/layers.129"));
        // The default view opens levels while they fit the budget.
        const std::set<int> expanded = tree.defaultExpansion(120);
        QVERIFY(expanded.count(tree.scopes[0].children[0]));
        QVERIFY(expanded.count(layers.children[0]));
        QVERIFY(!expanded.count(layers.children[2]));
    }

    void hugeFlatGraphIsSplitIntoBlocks()
    {
        // 3000 nodes side by side (a long chain would be cut into stretches of ranks instead).
        std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[4] v0) => (float[4] v3000) {\n";
        for (int i = 0; i < 3000; ++i)
            text += "v" + std::to_string(i + 1) + " = Relu (v0)\n";
        text += "}";
        auto model = Model::fromText(text);
        const GraphOutline outline = GraphOutline::build(model->graph());
        QCOMPARE(outline.scopes.scopes[0].nodes.size(), size_t(0));
        QCOMPARE(outline.scopes.scopes[0].children.size(), size_t(12)); // 3000 / 250
        const ViewGraph view = buildViewGraph(outline, outline.scopes.defaultExpansion(320), {});
        QVERIFY(view.items.size() <= 330);
        QVERIFY(view.items.size() >= 12);
    }

    void constantsAndInitializersAreFolded()
    {
        std::string zeros;
        for (int i = 0; i < 108; ++i)
            zeros += i ? ",0" : "0";
        auto model = Model::fromText("<ir_version: 8, opset_import: [\"\" : 17]>\n"
                                     "g (float[1,3,8,8] x) => (float[1,4,6,6] y) <float[4,3,3,3] W = {"
            + zeros
            + "}> {\n"
              "  c = Conv <kernel_shape = [3, 3]> (x, W)\n"
              "  k = Constant <value = float {0.5}> ()\n"
              "  y = Mul (c, k)\n"
              "}");
        const GraphOutline outline = GraphOutline::build(model->graph());
        QVERIFY(outline.folded[1]);
        const ViewGraph view = buildViewGraph(outline, { 0 }, {});
        QCOMPARE(view.nodeItemCount(), 2); // Conv, Mul; the Constant is drawn inside Mul
        const ViewItem& conv = view.items[static_cast<size_t>(view.itemOfNode[0])];
        QCOMPARE(conv.rows, QStringList { QStringLiteral("W \u27e84\u00d73\u00d73\u00d73\u27e9") });
        const ViewItem& mul = view.items[static_cast<size_t>(view.itemOfNode[2])];
        QCOMPARE(mul.rows, QStringList { QStringLiteral("B = 0.5") });
        QCOMPARE(view.itemOfNode[1], view.itemOfNode[2]); // search for the Constant lands on Mul
        QCOMPARE(view.edges.size(), size_t(3)); // x->Conv, Conv->Mul, Mul->y
    }
};

QTEST_MAIN(TestGraphLayout)
#include "test_graph_layout.moc"
