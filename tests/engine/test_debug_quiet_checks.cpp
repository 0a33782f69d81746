// SPDX-License-Identifier: MIT
// Quiet stretches with breakpoints tested after every node (engine/exec/debug/quiet_run.cpp,
// Session::setAfterNodeCheck): a NaN/Inf breakpoint and a condition on any node. Each run stops where a run node by
// node stops (the truth here: a debugger with an observer, which runs node by node and summarises every value as it is
// made), with the same message, position, frame and iteration, and the log filled in after the stop is that run's log.
#include "engine/exec/debug/debugger.h"
#include "engine/exec/value_checks.h"
#include "engine/exec/value_digest.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace onnxscope;

namespace {

/// Log of a negative number, then 0/0 (Sub of NaN from itself), then Relu.
const char* kMidGraph = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[4] x) => (float[4] y) {
    a = Add(x, x)
    l = Log(a)
    z = Sub(l, l)
    y = Relu(z)
})";

/// 0/0 inside a Loop body at iteration 2 only: (i - 2) / (i - 2).
const char* kLoop = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[3] x) => (float[3] out) {
    trip = Constant <value = int64 {4}> ()
    cond = Constant <value = bool {1}> ()
    out = Loop (trip, cond, x) <body = body (int64 i, bool ci, float[3] acc) => (bool co, float[3] acc_out) {
        co = Identity(ci)
        fi = Cast <to = 1> (i)
        two = Constant <value = float {2}> ()
        d = Sub(fi, two)
        q = Div(d, d)
        acc_out = Mul(acc, q)
    }>
})";

/// Log of a negative number in the then branch of an If inside a Loop (iteration 1 takes the then branch).
const char* kIfInLoop = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[3] x) => (float[3] out) {
    trip = Constant <value = int64 {3}> ()
    cond = Constant <value = bool {1}> ()
    out = Loop (trip, cond, x) <body = body (int64 i, bool ci, float[3] acc) => (bool co, float[3] acc_out) {
        co = Identity(ci)
        one = Constant <value = int64 {1}> ()
        now = Equal(i, one)
        acc_out = If (now) <then_branch = then_g () => (float[3] t) { t = Log(acc) }, else_branch = else_g () => (float[3] e) { e = Neg(acc) }>
    }>
})";

/// The NaN made inside a model-local function's body.
const char* kFunction = R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
agraph (float[3] x) => (float[3] y) {
    h = Abs(x)
    f = local.logneg(h)
    y = Add(f, h)
}
<domain: "local", opset_import: ["" : 17]>
logneg (X) => (Y) {
    N = Neg(X)
    Y = Log(N)
})";

/// Conv then Relu, which a plain run fuses: +Inf and -Inf summed by the Conv make NaN, which the fused Relu may turn
/// into 0; a run node by node stops after the Conv.
const char* kConvRelu = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[1, 2, 2, 2] x) => (float[1, 1, 2, 2] y) <float[1, 2, 1, 1] w = {1.0, 1.0}, float[1] b = {0.5}> {
    c = Conv(x, w, b)
    r = Relu(c)
    y = Add(r, r)
})";

/// Grows by 3x per iteration: max > 100 first holds inside the Loop body; and a Split whose second output alone has
/// max > 100.
const char* kGrowing = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[4] x) => (float[4] out, float[2] s1) {
    sp = Constant <value = int64[2] {2, 2}> ()
    s0, s1 = Split <axis = 0> (x, sp)
    trip = Constant <value = int64 {4}> ()
    cond = Constant <value = bool {1}> ()
    out = Loop (trip, cond, x) <body = body (int64 i, bool ci, float[4] acc) => (bool co, float[4] acc_out) {
        co = Identity(ci)
        three = Constant <value = float {3}> ()
        acc_out = Mul(acc, three)
    }>
})";

std::map<std::string, Value> input(const std::string& name, Tensor t)
{
    return { { name, Value(std::move(t)) } };
}

/// An observer that does nothing: a debugger with it runs node by node (no quiet stretch).
struct NodeByNode : SessionObserver {
    bool wantsTiming() const override { return false; }
};

/// What a stop says, with the debugger's position and iteration there.
struct StopRecord {
    StopReason reason = StopReason::None;
    int breakpointId = 0;
    std::string message;
    std::string framePath;
    std::string lastNode;
    std::string nextNode;
    uint64_t position = 0;
    int64_t iteration = -1;
};

StopRecord recordOf(const Debugger& d, const StopInfo& s)
{
    return { s.reason, s.breakpointId, s.message, s.framePath, s.lastNode ? s.lastNode->displayName() : "",
        s.nextNode ? s.nextNode->displayName() : "", d.position(), d.currentIteration() };
}

void compareStops(const StopRecord& quiet, const StopRecord& slow, const std::string& where)
{
    const std::string what = where + ": quiet \"" + quiet.message + "\" at " + std::to_string(quiet.position)
        + ", node by node \"" + slow.message + "\" at " + std::to_string(slow.position);
    QVERIFY2(quiet.reason == slow.reason, what.c_str());
    QVERIFY2(quiet.breakpointId == slow.breakpointId, what.c_str());
    QVERIFY2(quiet.message == slow.message, what.c_str());
    QVERIFY2(quiet.framePath == slow.framePath, what.c_str());
    QVERIFY2(quiet.lastNode == slow.lastNode, what.c_str());
    QVERIFY2(quiet.nextNode == slow.nextNode, what.c_str());
    QVERIFY2(quiet.position == slow.position, what.c_str());
    QVERIFY2(quiet.iteration == slow.iteration, what.c_str());
}

bool sameStat(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

/// The two logs hold the same values, in the same order and frames, with the same summaries.
void compareLogs(Debugger& quiet, Debugger& slow)
{
    const auto& q = quiet.values();
    const auto& s = slow.values();
    QCOMPARE(q.size(), s.size());
    for (size_t i = 0; i < q.size(); ++i) {
        const std::string where
            = "value " + std::to_string(i) + " \"" + s[i].name.str() + "\" in " + s[i].framePath.str();
        QVERIFY2(q[i].name.str() == s[i].name.str() && q[i].framePath.str() == s[i].framePath.str(), where.c_str());
        QVERIFY2(q[i].iteration == s[i].iteration && q[i].producer == s[i].producer, where.c_str());
        QVERIFY2(q[i].summary.valid == s[i].summary.valid, where.c_str());
        if (!s[i].summary.valid || !s[i].summary.stats)
            continue;
        QVERIFY2(q[i].summary.stats, where.c_str());
        const TensorStats& a = *q[i].summary.stats;
        const TensorStats& b = *s[i].summary.stats;
        QVERIFY2(a.count == b.count && a.nan == b.nan && a.posInf == b.posInf && a.negInf == b.negInf
                && sameStat(a.min, b.min) && sameStat(a.max, b.max) && sameStat(a.mean, b.mean),
            where.c_str());
    }
}

/// Runs `text` on `inputs` with `breakpoints`, quietly and node by node: the first stop, then the log there, then every
/// later stop to the end, then the whole log. Returns the first stop of the quiet run.
StopRecord checkAgainstNodeByNode(const char* text, const std::map<std::string, Value>& inputs,
    const std::vector<Breakpoint>& breakpoints, bool* fused = nullptr)
{
    const auto program = std::make_shared<Program>(Model::fromText(text));
    // Before the debuggers: a Debugger's destructor asks the session's remaining observers whether they want timing.
    NodeByNode observer;
    Debugger quiet(program);
    Debugger slow(program);
    slow.addObserver(&observer);
    for (const Breakpoint& b : breakpoints) {
        quiet.addBreakpoint(b);
        slow.addBreakpoint(b);
    }
    quiet.start(inputs);
    slow.start(inputs);
    const StopRecord first = recordOf(quiet, quiet.continueRun());
    // Reached quietly: one stretch, its log not made yet, no fused step.
    if (quiet.quietStretches() != 1 || quiet.logComplete() || quiet.session().fusedSteps() != 0) {
        qWarning("not reached quietly: %zu stretches, log complete %d, %zu fused steps", quiet.quietStretches(),
            int(quiet.logComplete()), quiet.session().fusedSteps());
        return {};
    }
    compareStops(first, recordOf(slow, slow.continueRun()), "the first stop");
    compareLogs(quiet, slow);

    quiet.reset();
    slow.reset();
    std::vector<StopRecord> quietStops, slowStops;
    for (int i = 0; i < 64 && !quiet.finished() && !quiet.failed(); ++i)
        quietStops.push_back(recordOf(quiet, quiet.continueRun()));
    for (int i = 0; i < 64 && !slow.finished() && !slow.failed(); ++i)
        slowStops.push_back(recordOf(slow, slow.continueRun()));
    if (quietStops.size() != slowStops.size()) {
        qWarning("%zu stops quietly, %zu node by node", quietStops.size(), slowStops.size());
        return {};
    }
    for (size_t i = 0; i < quietStops.size(); ++i)
        compareStops(quietStops[i], slowStops[i], "stop " + std::to_string(i));
    compareLogs(quiet, slow);
    if (slow.quietStretches() != 0) {
        qWarning("the node-by-node run ran quiet stretches");
        return {};
    }
    if (fused) {
        Session plain(program);
        plain.run(inputs);
        *fused = plain.fusedSteps() > 0;
    }
    return first;
}

constexpr float kInf = std::numeric_limits<float>::infinity();

} // namespace

class TestDebugQuietChecks : public QObject {
    Q_OBJECT
private slots:
    void hasNonFiniteAgreesWithTheElementScan()
    {
        // Every length up to a few vectors past the unrolled loop, a NaN, +Inf or -Inf at every position (the tail
        // included), against firstNonFinite's element-by-element scan; extreme finite values never count.
        const float special[] = { std::numeric_limits<float>::quiet_NaN(), kInf, -kInf };
        for (int64_t n = 0; n <= 150; ++n) {
            Tensor t(DataType::Float, { n });
            auto d = t.data<float>();
            for (int64_t i = 0; i < n; ++i)
                d[i] = i % 3 == 0 ? std::numeric_limits<float>::max()
                                  : (i % 3 == 1 ? -std::numeric_limits<float>::denorm_min() : -0.0f);
            QVERIFY(!hasNonFinite(Value(t)));
            for (int64_t at = 0; at < n; ++at)
                for (float v : special) {
                    const float kept = d[at];
                    d[at] = v;
                    QVERIFY2(hasNonFinite(Value(t)) && firstNonFinite(Value(t))->index == at,
                        (std::to_string(v) + " at " + std::to_string(at) + " of " + std::to_string(n)).c_str());
                    d[at] = kept;
                }
        }
        // Other types go through firstNonFinite.
        QVERIFY(hasNonFinite(Value(Tensor::vector1D<double>({ 1.0, std::numeric_limits<double>::infinity() }))));
        QVERIFY(!hasNonFinite(Value(Tensor::vector1D<int32_t>({ 1, 2 }))));
    }

    void nonFiniteMidGraph()
    {
        const StopRecord s = checkAgainstNodeByNode(kMidGraph, input("x", Tensor::vector1D<float>({ 1, -2, 3, 4 })),
            { makeBreakpoint(Breakpoint::Kind::NonFinite, {}) });
        QCOMPARE(s.reason, StopReason::NonFinite);
        QCOMPARE(s.lastNode, std::string("Log_1"));
        QVERIFY2(s.message.find("NaN at index [1]") != std::string::npos, s.message.c_str());
    }

    void nonFiniteInsideALoopBody()
    {
        const StopRecord s = checkAgainstNodeByNode(kLoop, input("x", Tensor::vector1D<float>({ 1, 2, 3 })),
            { makeBreakpoint(Breakpoint::Kind::NonFinite, {}) });
        QCOMPARE(s.reason, StopReason::NonFinite);
        QCOMPARE(s.lastNode, std::string("Div_4"));
        QCOMPARE(s.iteration, int64_t(2));
        QVERIFY2(s.framePath.find("iteration 2") != std::string::npos, s.framePath.c_str());
    }

    void nonFiniteInsideAnIfBranchInsideALoop()
    {
        // Iteration 0 negates (-1, 2, -3 become 1, -2, 3); iteration 1 takes the log: NaN at index 1.
        const StopRecord s = checkAgainstNodeByNode(kIfInLoop, input("x", Tensor::vector1D<float>({ -1, 2, -3 })),
            { makeBreakpoint(Breakpoint::Kind::NonFinite, {}) });
        QCOMPARE(s.reason, StopReason::NonFinite);
        QCOMPARE(s.lastNode, std::string("Log_0"));
        QCOMPARE(s.iteration, int64_t(1));
        QVERIFY2(s.framePath.find("then_branch") != std::string::npos, s.framePath.c_str());
        // The iteration rule holds in a quiet stretch too: iteration 2 only (the log's NaN flows on to iteration 2's
        // Neg).
        const StopRecord later = checkAgainstNodeByNode(kIfInLoop, input("x", Tensor::vector1D<float>({ -1, 2, -3 })),
            { makeBreakpoint(Breakpoint::Kind::NonFinite, {}, {}, -1, 2) });
        QCOMPARE(later.lastNode, std::string("Neg_0"));
        QCOMPARE(later.iteration, int64_t(2));
    }

    void nonFiniteInsideAFunctionBody()
    {
        const StopRecord s = checkAgainstNodeByNode(kFunction, input("x", Tensor::vector1D<float>({ 0, 2, -3 })),
            { makeBreakpoint(Breakpoint::Kind::NonFinite, {}) });
        QCOMPARE(s.reason, StopReason::NonFinite);
        QVERIFY2(s.lastNode.find("Log") != std::string::npos, s.lastNode.c_str());
        QVERIFY2(s.framePath.find("logneg") != std::string::npos, s.framePath.c_str());
        // Log(-0) is -Inf: the first non-finite element.
        QVERIFY2(s.message.find("-Inf at index [0]") != std::string::npos, s.message.c_str());
    }

    void nonFiniteHiddenByAFusedRelu()
    {
        Tensor x(DataType::Float, { 1, 2, 2, 2 });
        auto d = x.data<float>();
        for (size_t i = 0; i < d.size(); ++i)
            d[i] = static_cast<float>(i) - 3.0f;
        d[1] = kInf; // channel 0, pixel 1
        d[5] = -kInf; // channel 1, pixel 1: the Conv sums them to NaN
        bool fused = false;
        const StopRecord s = checkAgainstNodeByNode(
            kConvRelu, input("x", x), { makeBreakpoint(Breakpoint::Kind::NonFinite, {}) }, &fused);
        QVERIFY(fused); // without the breakpoint, a plain run fuses the Conv and the Relu
        QCOMPARE(s.reason, StopReason::NonFinite);
        QCOMPARE(s.lastNode, std::string("Conv_0"));
        QVERIFY2(s.message.find("NaN at index [0, 0, 0, 1]") != std::string::npos, s.message.c_str());
    }

    void noNonFiniteRunsToTheEnd()
    {
        const StopRecord s = checkAgainstNodeByNode(kMidGraph, input("x", Tensor::vector1D<float>({ 1, 2, 3, 4 })),
            { makeBreakpoint(Breakpoint::Kind::NonFinite, {}) });
        QCOMPARE(s.reason, StopReason::Finished);
    }

    void conditionOnAnyNode()
    {
        // 1, 2, 5, 7 times 3 per iteration: 7 * 27 = 189 in iteration 2 is the first max above 100.
        const auto x = input("x", Tensor::vector1D<float>({ 1, 2, 5, 7 }));
        const StopRecord s
            = checkAgainstNodeByNode(kGrowing, x, { makeBreakpoint(Breakpoint::Kind::Condition, {}, "max > 100") });
        QCOMPARE(s.reason, StopReason::Breakpoint);
        QCOMPARE(s.lastNode, std::string("Mul_2"));
        QCOMPARE(s.iteration, int64_t(2));
        // Only output 1: the Split's second half (5, 7 * 30 = 210) before any other node.
        const auto y = input("x", Tensor::vector1D<float>({ 1, 2, 5, 210 }));
        const StopRecord split
            = checkAgainstNodeByNode(kGrowing, y, { makeBreakpoint(Breakpoint::Kind::Condition, {}, "max > 100", 1) });
        QCOMPARE(split.lastNode, std::string("Split_1"));
        // With output 0, the Split's first half never meets it: the Loop body does, in iteration 0 (210 * 3).
        const StopRecord first
            = checkAgainstNodeByNode(kGrowing, y, { makeBreakpoint(Breakpoint::Kind::Condition, {}, "max > 100", 0) });
        QCOMPARE(first.lastNode, std::string("Mul_2"));
        QCOMPARE(first.iteration, int64_t(0));
        // Beside a named-node condition and a NaN breakpoint: all tested on the same pass.
        const StopRecord mixed
            = checkAgainstNodeByNode(kMidGraph, input("x", Tensor::vector1D<float>({ 1, -2, 3, 60 })),
                { makeBreakpoint(Breakpoint::Kind::Condition, "Add_0", "max > 100"),
                    makeBreakpoint(Breakpoint::Kind::NonFinite, {}) });
        QCOMPARE(mixed.lastNode, std::string("Add_0"));
        QCOMPARE(mixed.breakpointId, 1);
    }

    void callableOnAnyNodeSeesTheInputs()
    {
        // A closure (what a Python callable becomes) reads the node's inputs: the nodes it tests run on their own and
        // not in place. Log's input `a` (300 at index 0) dies there, so an in-place Log would have written over it.
        Breakpoint b;
        b.kind = Breakpoint::Kind::Condition;
        b.condition = [](const NodeEvent& e) {
            if (e.inputs.empty() || !e.inputs[0] || !e.inputs[0]->isTensor())
                return false;
            const Tensor& t = e.inputs[0]->tensor();
            return t.dtype() == DataType::Float && t.size() > 0 && t.data<float>()[0] > 200;
        };
        const StopRecord s = checkAgainstNodeByNode(kMidGraph, input("x", Tensor::vector1D<float>({ 150, 1, 2, 3 })),
            { b, makeBreakpoint(Breakpoint::Kind::NonFinite, {}) });
        QCOMPARE(s.reason, StopReason::Breakpoint);
        QCOMPARE(s.lastNode, std::string("Log_1"));
    }
};

QTEST_APPLESS_MAIN(TestDebugQuietChecks)
#include "test_debug_quiet_checks.moc"
