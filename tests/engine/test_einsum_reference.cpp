// SPDX-License-Identifier: MIT
// Einsum against one naive loop per equation written here (matrix and batch products, transposes, diagonals,
// traces, ellipsis with broadcasting, implicit output, three operands, integers), plus Det against a cofactor
// expansion, and the errors that must name the node. Fixed seeds; a mismatch prints the equation, shapes, seed and
// the first bad index.
#include "engine/exec/session.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 777;

std::string decl(const std::string& elem, size_t rank, const std::string& prefix)
{
    std::string s = elem + "[";
    for (size_t i = 0; i < rank; ++i)
        s += (i ? "," : "") + prefix + std::to_string(i);
    return s + "]";
}

Tensor random(std::mt19937& rng, const Shape& shape, DataType type = DataType::Float)
{
    Tensor t(type, shape);
    for (int64_t i = 0; i < t.size(); ++i) {
        if (type == DataType::Int32)
            t.data<int32_t>()[size_t(i)] = std::uniform_int_distribution<int32_t>(-5, 5)(rng);
        else
            t.data<float>()[size_t(i)] = std::uniform_real_distribution<float>(-1, 1)(rng);
    }
    return t;
}

/// Runs Einsum(equation) on the operands.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& ops)
{
    std::string inputs, args;
    std::map<std::string, Value> values;
    const std::string elem = ops[0].dtype() == DataType::Int32 ? "int32" : "float";
    for (size_t k = 0; k < ops.size(); ++k) {
        const std::string name = "x" + std::to_string(k);
        inputs += (k ? ", " : "") + decl(elem, size_t(ops[k].rank()), "d" + std::to_string(k) + "_") + " " + name;
        args += (k ? ", " : "") + name;
        values[name] = Value(ops[k]);
    }
    const std::string text = "<ir_version: 8, opset_import: [\"\" : 12]>\nagraph (" + inputs + ") => (" + elem
        + "[?] y) {\n y = Einsum <equation = \"" + equation + "\"> (" + args + ")\n}";
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run(values).at("y").tensor();
}

/// Element of t at a multi-index, as double.
double at(const Tensor& t, const std::vector<int64_t>& idx)
{
    const auto s = stridesOf(t.shape());
    int64_t flat = 0;
    for (size_t d = 0; d < idx.size(); ++d)
        flat += idx[d] * s[d];
    return t.toDouble(flat);
}

/// Compares y (of shape `shape`) with want(index) element by element.
void expect(const std::string& what, const Tensor& y, const Shape& shape,
    const std::function<double(const std::vector<int64_t>&)>& want, double tol = 1e-5)
{
    QVERIFY2(y.shape() == shape,
        qPrintable(
            QString::fromStdString(what + ": shape " + shapeToString(y.shape()) + ", want " + shapeToString(shape))));
    std::vector<int64_t> idx(shape.size(), 0);
    for (int64_t i = 0; i < y.size(); ++i) {
        int64_t r = i;
        for (size_t d = shape.size(); d-- > 0;) {
            idx[d] = r % shape[d];
            r /= shape[d];
        }
        const double w = want(idx);
        const double g = y.toDouble(i);
        QVERIFY2(std::fabs(g - w) <= tol * (1 + std::fabs(w)),
            qPrintable(QString::fromStdString(what + ": first bad index " + std::to_string(i) + ": got "
                + std::to_string(g) + ", want " + std::to_string(w) + " (seed " + std::to_string(kSeed) + ")")));
    }
}

std::string shapes(const std::vector<Tensor>& ops)
{
    std::string s;
    for (const auto& t : ops)
        s += " " + shapeToString(t.shape());
    return s;
}

} // namespace

class TestEinsumReference : public QObject {
    Q_OBJECT
private slots:
    void matmulAndBatchMatmul()
    {
        std::mt19937 rng(kSeed);
        for (int trial = 0; trial < 8; ++trial) {
            const int64_t b = 1 + trial % 3, m = 2 + trial % 4, k = 1 + trial % 5, n = 3 + trial % 2;
            Tensor a = random(rng, { m, k }), c = random(rng, { k, n });
            expect("ij,jk->ik" + shapes({ a, c }), einsum("ij,jk->ik", { a, c }), { m, n }, [&](const auto& i) {
                double s = 0;
                for (int64_t j = 0; j < k; ++j)
                    s += at(a, { i[0], j }) * at(c, { j, i[1] });
                return s;
            });
            // Implicit output: the letters used once, alphabetically.
            expect("ij,jk" + shapes({ a, c }), einsum("ij,jk", { a, c }), { m, n }, [&](const auto& i) {
                double s = 0;
                for (int64_t j = 0; j < k; ++j)
                    s += at(a, { i[0], j }) * at(c, { j, i[1] });
                return s;
            });
            Tensor ba = random(rng, { b, m, k }), bc = random(rng, { b, k, n });
            expect("bij,bjk->bik" + shapes({ ba, bc }), einsum("bij,bjk->bik", { ba, bc }), { b, m, n },
                [&](const auto& i) {
                    double s = 0;
                    for (int64_t j = 0; j < k; ++j)
                        s += at(ba, { i[0], i[1], j }) * at(bc, { i[0], j, i[2] });
                    return s;
                });
            // Attention-style: bhid,bhjd->bhij.
            const int64_t h = 2, d = 3;
            Tensor q = random(rng, { b, h, m, d }), kk = random(rng, { b, h, n, d });
            expect("bhid,bhjd->bhij" + shapes({ q, kk }), einsum("bhid,bhjd->bhij", { q, kk }), { b, h, m, n },
                [&](const auto& i) {
                    double s = 0;
                    for (int64_t e = 0; e < d; ++e)
                        s += at(q, { i[0], i[1], i[2], e }) * at(kk, { i[0], i[1], i[3], e });
                    return s;
                });
        }
    }

    void batchedContractionsAtRandom()
    {
        // Two-operand contractions (the class that runs as batched products): random labels for batch (in both
        // operands and the output), rows (first operand and output), columns (second and output) and summed (both,
        // not the output) dimensions, each term and the output in a random order, sizes 1-7 (sometimes 0), against
        // the sum of products over every index. Larger sizes now and then, so that the GEMM's blocked paths run.
        std::mt19937 rng(kSeed + 42);
        const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        for (int trial = 0; trial < 120; ++trial) {
            std::string letters = "abcdefghijklmnopqrstuvwxyz";
            std::shuffle(letters.begin(), letters.end(), rng);
            std::vector<char> batch, rows, cols, depth;
            size_t next = 0;
            for (auto* cls : { &batch, &rows, &cols, &depth })
                for (int i = pick(0, 2); i > 0; --i)
                    cls->push_back(letters[next++]);
            std::map<char, int64_t> size;
            const bool large = trial % 10 == 9;
            for (size_t i = 0; i < next; ++i)
                size[letters[i]] = large ? pick(1, 40) : (pick(0, 30) == 0 ? 0 : pick(1, 7));
            std::string ta, tb, to;
            for (auto* cls : { &batch, &rows, &depth })
                ta.append(cls->begin(), cls->end());
            for (auto* cls : { &batch, &depth, &cols })
                tb.append(cls->begin(), cls->end());
            for (auto* cls : { &batch, &rows, &cols })
                to.append(cls->begin(), cls->end());
            // Half the time each term keeps its canonical order (read in place or transposed), else a random one.
            for (std::string* t : { &ta, &tb, &to })
                if (pick(0, 1))
                    std::shuffle(t->begin(), t->end(), rng);
            const std::string eq = ta + "," + tb + "->" + to;
            const auto shapeOf = [&](const std::string& t) {
                Shape sh;
                for (char c : t)
                    sh.push_back(size[c]);
                return sh;
            };
            Tensor a = random(rng, shapeOf(ta)), b = random(rng, shapeOf(tb));
            // The reference: every output index, summed over every index of the summed labels.
            int64_t depthCount = 1;
            for (char c : depth)
                depthCount *= size[c];
            expect(eq + shapes({ a, b }) + " (trial " + std::to_string(trial) + ")", einsum(eq, { a, b }), shapeOf(to),
                [&](const std::vector<int64_t>& i) {
                    std::map<char, int64_t> value;
                    for (size_t d = 0; d < to.size(); ++d)
                        value[to[d]] = i[d];
                    double s = 0;
                    for (int64_t r = 0; r < depthCount; ++r) {
                        int64_t rest = r;
                        for (char c : depth) {
                            value[c] = rest % size[c];
                            rest /= size[c];
                        }
                        std::vector<int64_t> ia, ib;
                        for (char c : ta)
                            ia.push_back(value[c]);
                        for (char c : tb)
                            ib.push_back(value[c]);
                        s += at(a, ia) * at(b, ib);
                    }
                    return s;
                });
        }
    }

    void transposesDiagonalsTraces()
    {
        std::mt19937 rng(kSeed + 1);
        Tensor x = random(rng, { 3, 4 });
        expect("ij->ji", einsum("ij->ji", { x }), { 4, 3 }, [&](const auto& i) { return at(x, { i[1], i[0] }); });
        // Implicit "ji" sorts the output to "ij": a transpose.
        expect("ji", einsum("ji", { x }), { 4, 3 }, [&](const auto& i) { return at(x, { i[1], i[0] }); });
        expect("ij->", einsum("ij->", { x }), {}, [&](const auto&) {
            double s = 0;
            for (int64_t i = 0; i < 3; ++i)
                for (int64_t j = 0; j < 4; ++j)
                    s += at(x, { i, j });
            return s;
        });
        expect("ij->j", einsum("ij->j", { x }), { 4 }, [&](const auto& i) {
            double s = 0;
            for (int64_t r = 0; r < 3; ++r)
                s += at(x, { r, i[0] });
            return s;
        });
        Tensor sq = random(rng, { 5, 5 });
        expect("ii->i", einsum("ii->i", { sq }), { 5 }, [&](const auto& i) { return at(sq, { i[0], i[0] }); });
        expect("ii (trace)", einsum("ii", { sq }), {}, [&](const auto&) {
            double s = 0;
            for (int64_t i = 0; i < 5; ++i)
                s += at(sq, { i, i });
            return s;
        });
        Tensor cube = random(rng, { 3, 3, 4 });
        expect("iij->j", einsum("iij->j", { cube }), { 4 }, [&](const auto& i) {
            double s = 0;
            for (int64_t r = 0; r < 3; ++r)
                s += at(cube, { r, r, i[0] });
            return s;
        });
        Tensor batch = random(rng, { 2, 4, 4 });
        expect("...ii->...i", einsum("...ii->...i", { batch }), { 2, 4 }, [&](const auto& i) {
            return at(batch, { i[0], i[1], i[1] });
        });
    }

    void ellipsisBroadcastAndOuterProducts()
    {
        std::mt19937 rng(kSeed + 2);
        Tensor a = random(rng, { 2, 1, 3, 4 }), b = random(rng, { 5, 4, 2 });
        expect("...ij,...jk->...ik" + shapes({ a, b }), einsum("...ij,...jk->...ik", { a, b }), { 2, 5, 3, 2 },
            [&](const auto& i) {
                double s = 0;
                for (int64_t j = 0; j < 4; ++j)
                    s += at(a, { i[0], 0, i[2], j }) * at(b, { i[1], j, i[3] });
                return s;
            });
        // Implicit with ellipsis: the ellipsis dimensions come first.
        expect("...ij,...jk" + shapes({ a, b }), einsum("...ij,...jk", { a, b }), { 2, 5, 3, 2 }, [&](const auto& i) {
            double s = 0;
            for (int64_t j = 0; j < 4; ++j)
                s += at(a, { i[0], 0, i[2], j }) * at(b, { i[1], j, i[3] });
            return s;
        });
        Tensor u = random(rng, { 4 }), v = random(rng, { 4 }), w = random(rng, { 3 });
        expect("i,i (inner)", einsum("i,i", { u, v }), {}, [&](const auto&) {
            double s = 0;
            for (int64_t i = 0; i < 4; ++i)
                s += at(u, { i }) * at(v, { i });
            return s;
        });
        expect("i,j->ij (outer)", einsum("i,j->ij", { u, w }), { 4, 3 },
            [&](const auto& i) { return at(u, { i[0] }) * at(w, { i[1] }); });
        // Upper case sorts before lower case in implicit mode: "Ab,bC" -> "AC".
        Tensor p = random(rng, { 2, 3 }), r = random(rng, { 3, 4 });
        expect("Ab,bC", einsum("Ab,bC", { p, r }), { 2, 4 }, [&](const auto& i) {
            double s = 0;
            for (int64_t j = 0; j < 3; ++j)
                s += at(p, { i[0], j }) * at(r, { j, i[1] });
            return s;
        });
        expect("bA,Cb (upper before lower)", einsum("bA,Cb", { r, p }), { 4, 2 }, [&](const auto& i) {
            double s = 0;
            for (int64_t j = 0; j < 3; ++j)
                s += at(r, { j, i[0] }) * at(p, { i[1], j });
            return s;
        });
    }

    void threeOperandsAndIntegers()
    {
        std::mt19937 rng(kSeed + 3);
        Tensor a = random(rng, { 2, 3 }), b = random(rng, { 3, 4 }), c = random(rng, { 4, 5 });
        expect("ij,jk,kl->il" + shapes({ a, b, c }), einsum("ij,jk,kl->il", { a, b, c }), { 2, 5 }, [&](const auto& i) {
            double s = 0;
            for (int64_t j = 0; j < 3; ++j)
                for (int64_t k = 0; k < 4; ++k)
                    s += at(a, { i[0], j }) * at(b, { j, k }) * at(c, { k, i[1] });
            return s;
        });
        Tensor ia = random(rng, { 3, 6 }, DataType::Int32), ib = random(rng, { 6, 2 }, DataType::Int32);
        Tensor y = einsum("ij,jk->ik", { ia, ib });
        QCOMPARE(y.dtype(), DataType::Int32);
        expect(
            "int32 ij,jk->ik", y, { 3, 2 },
            [&](const auto& i) {
                double s = 0;
                for (int64_t j = 0; j < 6; ++j)
                    s += at(ia, { i[0], j }) * at(ib, { j, i[1] });
                return s;
            },
            0);
    }

    void emptyDimensions()
    {
        Tensor a(DataType::Float, { 2, 0 }), b(DataType::Float, { 0, 3 });
        Tensor y = einsum("ij,jk->ik", { a, b });
        QCOMPARE(y.shape(), (Shape { 2, 3 }));
        for (int64_t i = 0; i < y.size(); ++i)
            QCOMPARE(y.toDouble(i), 0.0);
    }

    void errorsNameTheNode()
    {
        std::mt19937 rng(kSeed + 4);
        const auto error = [&](const std::string& eq, const std::vector<Tensor>& ops) -> std::string {
            try {
                einsum(eq, ops);
            } catch (const Error& e) {
                return e.what();
            }
            return {};
        };
        const std::string mismatch = error("ij,jk->ik", { random(rng, { 2, 3 }), random(rng, { 4, 5 }) });
        QVERIFY2(mismatch.find("(Einsum)") != std::string::npos, mismatch.c_str());
        const std::string rank = error("ijk->i", { random(rng, { 2, 3 }) });
        QVERIFY2(rank.find("(Einsum)") != std::string::npos, rank.c_str());
        const std::string syntax = error("i$->i", { random(rng, { 2, 3 }) });
        QVERIFY2(syntax.find("'equation'") != std::string::npos, syntax.c_str());
        const std::string unknown = error("ij->k", { random(rng, { 2, 3 }) });
        QVERIFY2(unknown.find("'equation'") != std::string::npos, unknown.c_str());
    }

    void detAgainstCofactorExpansion()
    {
        std::mt19937 rng(kSeed + 5);
        std::function<double(const std::vector<double>&, int64_t)> cofactor
            = [&](const std::vector<double>& m, int64_t n) -> double {
            if (n == 0)
                return 1;
            double s = 0;
            for (int64_t c = 0; c < n; ++c) {
                std::vector<double> minor;
                for (int64_t r = 1; r < n; ++r)
                    for (int64_t cc = 0; cc < n; ++cc)
                        if (cc != c)
                            minor.push_back(m[size_t(r * n + cc)]);
                s += (c % 2 ? -1 : 1) * m[size_t(c)] * cofactor(minor, n - 1);
            }
            return s;
        };
        for (int64_t n = 1; n <= 5; ++n) {
            Tensor x = random(rng, { 3, n, n });
            const std::string text = "<ir_version: 8, opset_import: [\"\" : 13]>\nagraph (float[a,b,c] x) => (float[?] "
                                     "y) {\n y = Det(x)\n}";
            Session session(std::make_shared<Program>(Model::fromText(text)));
            Tensor y = session.run({ { "x", Value(x) } }).at("y").tensor();
            expect("Det [3, " + std::to_string(n) + ", " + std::to_string(n) + "]", y, { 3 }, [&](const auto& i) {
                std::vector<double> m;
                for (int64_t e = 0; e < n * n; ++e)
                    m.push_back(x.toDouble(i[0] * n * n + e));
                return cofactor(m, n);
            });
        }
        // A singular matrix gives 0.
        Tensor s = Tensor::fromVector<float>({ 1, 2, 2, 4 }, { 2, 2 });
        const std::string text = "<ir_version: 8, opset_import: [\"\" : 13]>\nagraph (float[a,b] x) => (float[] y) {\n"
                                 " y = Det(x)\n}";
        Session session(std::make_shared<Program>(Model::fromText(text)));
        QCOMPARE(session.run({ { "x", Value(s) } }).at("y").tensor().toDouble(0), 0.0);
    }
};

QTEST_APPLESS_MAIN(TestEinsumReference)
#include "test_einsum_reference.moc"
