// SPDX-License-Identifier: MIT
// Comparison runs: pair statistics against hand-computed numbers, a model against itself, a perturbed initializer,
// two input sets, renamed tensors, per-iteration values in Loop/If bodies, reference values from an .npz, and a side
// that fails.
#include "engine/compare/run_comparison.h"
#include "engine/core/half.h"
#include "engine/io/npy.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace onnxscope;

namespace {

std::shared_ptr<const Program> compile(const std::string& text)
{
    return std::make_shared<Program>(Model::fromText(text));
}

// x -> MatMul(w1) -> Relu -> Add(b) -> Mul(w2) -> Sigmoid; `w2` is the weight the perturbed copy changes.
std::string mlp(const std::string& w2)
{
    return R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[1, 3] x) => (float[1, 2] y)
<float[3, 2] w1 = {0.5, -1.0, 0.25, 2.0, -0.75, 1.5}, float[2] b = {0.1, -0.2}, float[2] w2 = {)"
        + w2 + R"(}>
{
    h = MatMul(x, w1)
    r = Relu(h)
    a = Add(r, b)
    m = Mul(a, w2)
    y = Sigmoid(m)
})";
}

std::map<std::string, Value> mlpInputs(float scale = 1)
{
    return { { "x", Tensor::fromVector<float>({ 1 * scale, 2 * scale, -0.5f * scale }, { 1, 3 }) } };
}

const NodeCompare& first(const ComparisonResult& r)
{
    if (!r.firstDivergence)
        throw std::runtime_error("no first divergence");
    return r.nodes.at(*r.firstDivergence);
}

const CompareRow* findRow(const ComparisonResult& r, const std::string& frame, const std::string& name)
{
    for (const auto& row : r.rows)
        if (row.framePath == frame && row.name == name)
            return &row;
    return nullptr;
}

// A Loop of 3 iterations; iterations 0 and 1 take the else branch (acc * x), iteration 2 the then branch, which adds
// a constant `k`. The perturbed copy only changes `k`, so only iteration 2 can diverge.
std::string loopModel(const std::string& k)
{
    return R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2] x) => (float[2] out, float[3, 2] trace) {
    trip = Constant <value = int64 {3}> ()
    cond = Constant <value = bool {1}> ()
    out, trace = Loop (trip, cond, x) <body = loop_body (int64 i, bool c, float[2] acc) => (bool c_out, float[2] acc_out, float[2] s) {
        c_out = Identity(c)
        two = Constant <value = int64 {2}> ()
        late = Equal(i, two)
        acc_out = If (late) <then_branch = then_g () => (float[2] t) { k = Constant <value = float[2] {)"
        + k + R"(}> () t = Add(acc, k) }, else_branch = else_g () => (float[2] e) { e = Mul(acc, x) }>
        s = Identity(acc_out)
    }>
})";
}

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
private slots:
    void pairStatisticsAreExact()
    {
        // Independent numbers: a = [1, 2, 3, 4], b = [1, 2.5, 3, 2].
        Value a(Tensor::vector1D<float>({ 1, 2, 3, 4 }));
        Value b(Tensor::vector1D<float>({ 1, 2.5f, 3, 2 }));
        PairComparison c = compareValuePair(a, b, { 1e-3, 1e-6 });
        QCOMPARE(c.status, CompareStatus::Mismatch);
        QCOMPARE(c.stats.elements, int64_t(4));
        QCOMPARE(c.stats.mismatches, int64_t(2));
        QCOMPARE(c.stats.maxAbsError, 2.0);
        QCOMPARE(c.stats.maxRelError, 1.0); // |4 - 2| / 2
        QCOMPARE(c.stats.worstIndex, int64_t(3));
        QCOMPARE(c.stats.meanAbsError, 2.5 / 4);
        const double cosine = (1 + 5 + 9 + 8) / (std::sqrt(30.0) * std::sqrt(1 + 6.25 + 9 + 4));
        QVERIFY(std::abs(c.stats.cosine - cosine) < 1e-12);
        QVERIFY(std::abs(c.stats.toleranceRatio - 2.0 / (1e-6 + 1e-3 * 2)) < 1e-6);

        // Within tolerance: a match, with the error still reported.
        PairComparison close = compareValuePair(
            Value(Tensor::vector1D<float>({ 1.0005f })), Value(Tensor::vector1D<float>({ 1.0f })), { 1e-3, 0 });
        QCOMPARE(close.status, CompareStatus::Match);
        QVERIFY(close.stats.maxAbsError > 4e-4 && close.stats.maxAbsError < 6e-4);
    }

    void float16AgainstFloat32IsComparedInFloat64()
    {
        // half(0.1) is 0.0999755859375 exactly; float(0.1) is 0.100000001490116...
        Tensor h(DataType::Float16, { 1 });
        h.data<Float16>()[0] = Float16(0.1f);
        PairComparison c = compareValuePair(Value(h), Value(Tensor::vector1D<float>({ 0.1f })), { 1e-3, 0 });
        QCOMPARE(c.status, CompareStatus::Match);
        const double expected = static_cast<double>(0.1f) - 0.0999755859375;
        QVERIFY2(std::abs(c.stats.maxAbsError - expected) < 1e-15,
            qPrintable(QString::number(c.stats.maxAbsError, 'g', 17)));
        QCOMPARE(compareValuePair(Value(h), Value(Tensor::vector1D<float>({ 0.1f })), { 1e-5, 0 }).status,
            CompareStatus::Mismatch);
    }

    void nanInfShapeKindAndIntegers()
    {
        const double nan = std::nan("");
        const double inf = INFINITY;
        PairComparison c = compareValuePair(Value(Tensor::vector1D<double>({ nan, 1, inf, nan, -inf })),
            Value(Tensor::vector1D<double>({ nan, nan, inf, 2, inf })), {});
        QCOMPARE(c.status, CompareStatus::Mismatch);
        QCOMPARE(c.stats.nanA, int64_t(2));
        QCOMPARE(c.stats.nanB, int64_t(2));
        QCOMPARE(c.stats.infA, int64_t(2));
        QCOMPARE(c.stats.infB, int64_t(2));
        QCOMPARE(c.stats.nonFiniteMismatches, int64_t(3)); // 1 vs NaN, NaN vs 2, -inf vs inf
        QCOMPARE(c.stats.mismatches, int64_t(3));
        QVERIFY(std::isinf(c.stats.toleranceRatio));

        PairComparison same = compareValuePair(
            Value(Tensor::vector1D<float>({ NAN, INFINITY })), Value(Tensor::vector1D<float>({ NAN, INFINITY })), {});
        QCOMPARE(same.status, CompareStatus::Match);

        PairComparison shape = compareValuePair(Value(Tensor::fromVector<float>({ 1, 2 }, { 1, 2 })),
            Value(Tensor::fromVector<float>({ 1, 2 }, { 2, 1 })), {});
        QCOMPARE(shape.status, CompareStatus::ShapeMismatch);
        QVERIFY(!shape.note.empty());

        Sequence seq;
        seq.elementType = DataType::Float;
        seq.items.push_back(Value(Tensor::vector1D<float>({ 1 })));
        QCOMPARE(compareValuePair(Value(seq), Value(Tensor::vector1D<float>({ 1 })), {}).status,
            CompareStatus::KindMismatch);

        // Integers compare exactly, whatever the tolerance; 2^53 + 1 vs 2^53 is told apart.
        PairComparison ints = compareValuePair(Value(Tensor::vector1D<int64_t>({ 1000, (int64_t(1) << 53) + 1 })),
            Value(Tensor::vector1D<int64_t>({ 1001, int64_t(1) << 53 })), { 0.5, 10 });
        QCOMPARE(ints.status, CompareStatus::Mismatch);
        QCOMPARE(ints.stats.mismatches, int64_t(2));
    }

    void modelAgainstItselfMatchesEverywhere()
    {
        auto program = compile(mlp("1.0, -2.0"));
        ComparisonResult r = compareRuns({ program, mlpInputs() }, { program, mlpInputs() });
        QVERIFY(r.errorA.empty() && r.errorB.empty());
        QVERIFY(r.allMatch());
        QVERIFY(!r.hasDivergence());
        QVERIFY(!r.firstDivergence);
        // 1 input + 3 initializers + 5 node outputs, all matched.
        QCOMPARE(r.rows.size(), size_t(9));
        QCOMPARE(r.count(CompareStatus::Match), size_t(9));
        QCOMPARE(r.nodes.size(), size_t(5));
        std::vector<std::string> order;
        for (const auto& n : r.nodes) {
            order.push_back(n.opType);
            QCOMPARE(n.status, CompareStatus::Match);
            QCOMPARE(n.maxAbsError, 0.0);
        }
        QCOMPARE(order, (std::vector<std::string> { "MatMul", "Relu", "Add", "Mul", "Sigmoid" }));
        QCOMPARE(r.rows.front().origin, ValueOrigin::GraphInput);
    }

    void perturbedInitializerDivergesAtItsConsumer()
    {
        ComparisonResult r
            = compareRuns({ compile(mlp("1.0, -2.0")), mlpInputs() }, { compile(mlp("1.0, -2.5")), mlpInputs() });
        QVERIFY(r.hasDivergence());
        const NodeCompare& n = first(r);
        QCOMPARE(n.opType, std::string("Mul"));
        QCOMPARE(n.framePath, std::string("main"));
        QVERIFY(n.root);
        QCOMPARE(r.differingSources.size(), size_t(1));
        const CompareRow& w2 = r.rows[r.differingSources[0]];
        QCOMPARE(w2.name, std::string("w2"));
        QCOMPARE(w2.origin, ValueOrigin::Initializer);
        QCOMPARE(w2.stats.maxAbsError, 0.5);
        // Before the consumer everything matches; after it, values diverge but are not roots.
        for (const auto& node : r.nodes) {
            if (node.sequence < n.sequence)
                QCOMPARE(node.status, CompareStatus::Match);
            if (node.opType == "Sigmoid") {
                QCOMPARE(node.status, CompareStatus::Mismatch);
                QVERIFY(!node.root);
            }
        }
        // m = (relu(x w1) + b) * w2: the second element differs by 0.5 * a[1]. x w1 = [1 * .5 + 2 * .25 + -.5 * -.75,
        // 1 * -1 + 2 * 2 + -.5 * 1.5] = [1.375, 2.25]; a = [1.475, 2.05]; error 0.5 * 2.05.
        const CompareRow* m = findRow(r, "main", "m");
        QVERIFY(m);
        QVERIFY(std::abs(m->stats.maxAbsError - 0.5 * 2.05) < 1e-5);
        QCOMPARE(m->stats.mismatches, int64_t(1));
    }

    void twoInputSetsDivergeAtTheFirstConsumer()
    {
        auto program = compile(mlp("1.0, -2.0"));
        ComparisonResult r = compareRuns({ program, mlpInputs(1) }, { program, mlpInputs(3) });
        const NodeCompare& n = first(r);
        QCOMPARE(n.opType, std::string("MatMul"));
        QCOMPARE(r.differingSources.size(), size_t(1));
        QCOMPARE(r.rows[r.differingSources[0]].origin, ValueOrigin::GraphInput);
        size_t roots = 0;
        for (const auto& node : r.nodes)
            roots += node.root;
        QCOMPARE(roots, size_t(1));
    }

    void renamedTensorsAreListedOrMapped()
    {
        std::string text = mlp("1.0, -2.0");
        std::string renamed = text;
        for (auto [from, to] : { std::pair<std::string, std::string> { "r = Relu(h)", "r2 = Relu(h)" },
                 { "a = Add(r, b)", "a = Add(r2, b)" } })
            renamed.replace(renamed.find(from), from.size(), to);
        auto a = compile(text);
        auto b = compile(renamed);
        ComparisonResult unmapped = compareRuns({ a, mlpInputs() }, { b, mlpInputs() });
        QVERIFY(!unmapped.hasDivergence());
        QVERIFY(!unmapped.allMatch());
        QCOMPARE(unmapped.count(CompareStatus::OnlyA), size_t(1));
        QCOMPARE(unmapped.count(CompareStatus::OnlyB), size_t(1));
        QCOMPARE(findRow(unmapped, "main", "r")->status, CompareStatus::OnlyA);
        QCOMPARE(unmapped.rows.back().name, std::string("r2")); // B-only rows come last
        QCOMPARE(unmapped.rows.back().status, CompareStatus::OnlyB);
        QCOMPARE(unmapped.rows.back().opType, std::string("Relu"));

        CompareOptions options;
        options.nameMap["r"] = "r2";
        ComparisonResult mapped = compareRuns({ a, mlpInputs() }, { b, mlpInputs() }, options);
        QVERIFY(mapped.allMatch());
        QCOMPARE(findRow(mapped, "main", "r")->nameB, std::string("r2"));
    }

    void renamedAndFusedValuesAlignByContent()
    {
        // B: every name differs, Gemm stands for MatMul, and an Identity no-op sits after it.
        auto fused = [](const std::string& p3) {
            return R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[1, 3] q) => (float[1, 2] z)
<float[3, 2] p1 = {0.5, -1.0, 0.25, 2.0, -0.75, 1.5}, float[2] p2 = {0.1, -0.2}, float[2] p3 = {)"
                + p3 + R"(}>
{
    g = Gemm(q, p1)
    n = Identity(g)
    t = Relu(n)
    u = Add(t, p2)
    v = Mul(u, p3)
    z = Sigmoid(v)
})";
        };
        auto a = compile(mlp("1.0, -2.0"));
        auto b = compile(fused("1.0, -2.0"));
        RunSide sideB { b, { { "q", mlpInputs().at("x") } } };

        ComparisonResult byName = compareRuns({ a, mlpInputs() }, sideB);
        QCOMPARE(byName.align, AlignMode::Names);
        QCOMPARE(byName.count(CompareStatus::Match), size_t(0));

        CompareOptions options;
        options.align = AlignMode::Content;
        ComparisonResult r = compareRuns({ a, mlpInputs() }, sideB, options);
        QCOMPARE(r.align, AlignMode::Content);
        QVERIFY(r.alignmentBytes > 0);
        QVERIFY(!r.hasDivergence());
        const std::map<std::string, std::string> expected { { "r", "t" }, { "a", "u" }, { "m", "v" }, { "y", "z" } };
        for (const auto& [nameA, nameB] : expected) {
            const CompareRow* row = findRow(r, "main", nameA);
            QVERIFY(row);
            QCOMPARE(row->status, CompareStatus::Match);
            QCOMPARE(row->nameB, nameB);
            QCOMPARE(row->frameB, std::string("main"));
        }
        QCOMPARE(findRow(r, "main", "x")->nameB, std::string("q")); // graph inputs pair by position
        QCOMPARE(findRow(r, "main", "x")->pairedBy, PairedBy::Input);
        QCOMPARE(findRow(r, "main", "y")->pairedBy, PairedBy::Output);
        const CompareRow* h = findRow(r, "main", "h");
        QVERIFY(h->nameB == "g" || h->nameB == "n"); // equal values: either is h's counterpart
        QCOMPARE(h->pairedBy, PairedBy::Content);
        QCOMPARE(h->opTypeB, std::string(h->nameB == "g" ? "Gemm" : "Identity"));
        // Side B's nodes carry the errors of the values they made; the one left over has no counterpart.
        const auto nodesB = r.nodesOfB();
        int unpaired = 0, matched = 0;
        for (const auto& [key, n] : nodesB) {
            QCOMPARE(key.first, &b->model().graph());
            unpaired += n.status == CompareStatus::OnlyB;
            matched += n.status == CompareStatus::Match;
        }
        QCOMPARE(unpaired, 1); // g or n
        QCOMPARE(matched, 5);

        // A weight changed on side B: the first divergence is A's node using it, its counterpart B's Mul.
        auto perturbed = compile(fused("1.0, -2.5"));
        ComparisonResult d = compareRuns({ a, mlpInputs() }, { perturbed, sideB.inputs }, options);
        QCOMPARE(first(d).opType, std::string("Mul"));
        const CompareRow& out = d.rows[first(d).rows.front()];
        QCOMPARE(out.name, std::string("m"));
        QCOMPARE(out.status, CompareStatus::Mismatch);
        QCOMPARE(out.nameB, std::string("v"));
        QCOMPARE(out.opTypeB, std::string("Mul"));

        // Auto with the same names on both sides needs no alignment pass.
        options.align = AlignMode::Auto;
        ComparisonResult same = compareRuns({ a, mlpInputs() }, { a, mlpInputs() }, options);
        QCOMPARE(same.align, AlignMode::Names);
        QCOMPARE(same.alignmentBytes, size_t(0));
        QVERIFY(same.allMatch());
    }

    void subgraphValuesComparePerIteration()
    {
        ComparisonResult r
            = compareRuns({ compile(loopModel("1.0, 1.0")), { { "x", Tensor::vector1D<float>({ 2, 3 }) } } },
                { compile(loopModel("1.0, 1.5")), { { "x", Tensor::vector1D<float>({ 2, 3 }) } } });
        const std::string it = "main / Loop \"Loop_2\" iteration ";
        for (int i = 0; i < 3; ++i) {
            const CompareRow* s = findRow(r, it + std::to_string(i), "s");
            QVERIFY2(s, qPrintable(QString::number(i)));
            QCOMPARE(s->iteration, int64_t(i));
            QCOMPARE(s->status, i < 2 ? CompareStatus::Match : CompareStatus::Mismatch);
        }
        // acc: x, x*x = [4, 9], x*x*x = [8, 27], then + k: [9, 28] vs [9, 28.5].
        const CompareRow* s2 = findRow(r, it + "2", "s");
        QCOMPARE(s2->stats.maxAbsError, 0.5);
        const NodeCompare& n = first(r);
        QCOMPARE(n.framePath, it + "2 / If \"If_3\" then_branch");
        QCOMPARE(n.opType, std::string("Constant"));
        QCOMPARE(n.iteration, int64_t(2));
        for (const auto& node : r.nodes) {
            if (node.opType == "Loop" || node.opType == "If" || node.opType == "Add") {
                QCOMPARE(node.root, false);
                if (node.opType == "Loop")
                    QCOMPARE(node.status, CompareStatus::Mismatch);
            }
        }
        // The worst execution of each node of the graphs, for colouring: the Add of the then branch diverged.
        bool sawAdd = false;
        for (const auto& [key, worst] : r.worstByNode())
            if (worst->opType == "Add") {
                sawAdd = true;
                QCOMPARE(worst->status, CompareStatus::Mismatch);
            }
        QVERIFY(sawAdd);
    }

    void referenceValuesFromAnNpz()
    {
        auto program = compile(loopModel("1.0, 1.0"));
        std::map<std::string, Value> in { { "x", Tensor::vector1D<float>({ 2, 3 }) } };
        QTemporaryDir dir;
        const std::string file = dir.filePath("ref.npz").toStdString();
        // out = [9, 28]; iteration 1's s = [8, 27], written with a deliberate error in iteration 1; one extra array.
        writeNpz(file,
            { { "out", Tensor::vector1D<float>({ 9, 28 }) },
                { "main / Loop \"Loop_2\" iteration 1 / s", Tensor::vector1D<float>({ 8, 27.25f }) },
                { "not_in_model", Tensor::vector1D<float>({ 1 }) } });
        ReferenceValues ref = ReferenceValues::load(file);
        QCOMPARE(ref.entries().size(), size_t(3));
        ComparisonResult r = compareWithReference({ program, in }, ref);
        QCOMPARE(findRow(r, "main", "out")->status, CompareStatus::Match);
        const CompareRow* s1 = findRow(r, "main / Loop \"Loop_2\" iteration 1", "s");
        QCOMPARE(s1->status, CompareStatus::Mismatch);
        QCOMPARE(s1->stats.maxAbsError, 0.25);
        QCOMPARE(findRow(r, "main", "not_in_model")->status, CompareStatus::OnlyB);
        QCOMPARE(first(r).framePath, std::string("main / Loop \"Loop_2\" iteration 1"));
        QCOMPARE(first(r).opType, std::string("Identity"));
        // No input or initializer rows: the reference has none of them.
        for (const auto& row : r.rows)
            QCOMPARE(row.origin, ValueOrigin::NodeOutput);
    }

    void aFailingSideEndsTheComparison()
    {
        // B reshapes to an impossible shape: it fails at its second node; A's values from there on are OnlyA.
        auto a = compile(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[4] x) => (float[2, 2] y) { s = Constant <value = int64[2] {2, 2}> () y = Reshape(x, s) })");
        auto b = compile(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[4] x) => (float[2, 2] y) { s = Constant <value = int64[2] {3, 2}> () y = Reshape(x, s) })");
        std::map<std::string, Value> in { { "x", Tensor::vector1D<float>({ 1, 2, 3, 4 }) } };
        ComparisonResult r = compareRuns({ a, in }, { b, in });
        QVERIFY(r.errorA.empty());
        QVERIFY(!r.errorB.empty());
        QVERIFY(r.hasDivergence());
        QCOMPARE(findRow(r, "main", "s")->status, CompareStatus::Mismatch);
        QCOMPARE(findRow(r, "main", "y")->status, CompareStatus::OnlyA);
    }

    void valuesAreComparedAsTheyAreProduced()
    {
        // A chain of 20 nodes over 1 MiB tensors: at most one value waits for its counterpart at any time.
        std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[262144] x) => (float[262144] y) {
    v0 = Neg(x)
)";
        for (int i = 1; i < 20; ++i)
            text += "    v" + std::to_string(i) + " = Neg(v" + std::to_string(i - 1) + ")\n";
        text += "    y = Identity(v19)\n}";
        auto program = compile(text);
        std::map<std::string, Value> in { { "x", Tensor(DataType::Float, { 262144 }) } };
        ComparisonResult r = compareRuns({ program, in }, { program, in });
        QVERIFY(r.allMatch());
        QCOMPARE(r.nodes.size(), size_t(21));
        QVERIFY2(r.peakHeldBytes <= (size_t(1) << 20), qPrintable(QString::number(r.peakHeldBytes)));
        QVERIFY(r.peakHeldBytes > 0);
    }

    void cancelStopsEarly()
    {
        auto program = compile(mlp("1.0, -2.0"));
        std::atomic<bool> cancel { true };
        CompareOptions options;
        options.cancel = &cancel;
        ComparisonResult r = compareRuns({ program, mlpInputs() }, { program, mlpInputs() }, options);
        QVERIFY(r.cancelled);
        QVERIFY(r.hasDivergence());
        QVERIFY(r.nodes.empty());
    }
};

QTEST_APPLESS_MAIN(TestCompare)
#include "test_compare.moc"
