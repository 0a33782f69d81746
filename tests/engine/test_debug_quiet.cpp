// SPDX-License-Identifier: MIT
// The debugger's quiet stretches (engine/exec/debug/quiet_run.cpp): continueRun() and runTo() run as a plain run does
// between the places where they can stop, and the value log is filled in after the stop. Checked against a run node
// by node in a Session of its own that keeps every value (the truth here: the order, positions, data and summaries a
// debug run recorded before quiet stretches).
#include "engine/core/thread_pool.h"
#include "engine/exec/debug/debugger.h"
#include "engine/exec/value_digest.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

using namespace onnxscope;

namespace {

// Conv + Relu (fused in plain runs), a SiLU pair (fused), a Loop whose body runs an If, then a last Mul.
const char* kModel = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[1, 2, 3, 3] x) => (float[1, 2, 3, 3] y, float[4, 18] trace)
    <float[2, 2, 1, 1] w = {0.5, -1.25, 2.0, 0.75}, float[2] b = {0.1, -0.3}> {
    c = Conv(x, w, b)
    r = Relu(c)
    sg = Sigmoid(r)
    si = Mul(r, sg)
    trip = Constant <value = int64 {4}> ()
    cond = Constant <value = bool {1}> ()
    out, trace = Loop (trip, cond, si) <body = body (int64 i, bool ci, float[1, 2, 3, 3] acc) => (bool co, float[1, 2, 3, 3] acc_out, float[18] s) {
        co = Identity(ci)
        two = Constant <value = int64 {2}> ()
        late = Equal(i, two)
        acc_out = If (late) <then_branch = then_g () => (float[1, 2, 3, 3] t) { k = Constant <value = float {0.5}> () t = Sub(acc, k) }, else_branch = else_g () => (float[1, 2, 3, 3] e) { e = Mul(acc, si) }>
        flat = Constant <value = int64[1] {18}> ()
        s = Reshape(acc_out, flat)
    }>
    y = Mul(out, x)
})";

std::map<std::string, Value> modelInputs()
{
    Tensor x(DataType::Float, { 1, 2, 3, 3 });
    auto d = x.data<float>();
    for (size_t i = 0; i < d.size(); ++i)
        d[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.4f + 0.05f * static_cast<float>(i);
    return { { "x", Value(std::move(x)) } };
}

std::shared_ptr<const Program> program()
{
    static auto p = std::make_shared<Program>(Model::fromText(kModel));
    return p;
}

/// A run node by node that keeps every value, in the order a debug run records them: the main graph's inputs, then
/// each frame's inputs as it is entered and each node's outputs as it finishes. Counts the session steps.
struct Reference : SessionObserver {
    struct Entry {
        std::string name;
        std::string framePath;
        Value value;
    };
    std::vector<Entry> entries;
    uint64_t steps = 0;
    std::map<std::string, Value> outputs;

    void afterNode(const NodeEvent& e) override
    {
        for (size_t i = 0; i < e.node.outputs.size(); ++i)
            if (e.node.outputs[i] != kNoValue)
                entries.push_back({ e.frame.graph().value(e.node.outputs[i]).name, e.framePath, e.outputs[i] });
    }
    void frameEntered(const Frame& frame, const std::string& path) override
    {
        for (ValueId id : frame.graph().inputs())
            entries.push_back({ frame.graph().value(id).name, path, frame.values[static_cast<size_t>(id)] });
    }
    bool wantsTiming() const override { return false; }

    /// Runs to the end; `stopBefore` (if set): the steps done when a node of that name was next for the first time.
    explicit Reference(const std::string& stopBefore = {}, uint64_t* stepsThere = nullptr)
        : Reference(program(), modelInputs(), stopBefore, stepsThere)
    {
    }
    Reference(const std::shared_ptr<const Program>& prog, const std::map<std::string, Value>& inputs,
        const std::string& stopBefore = {}, uint64_t* stepsThere = nullptr)
    {
        SessionOptions options;
        options.freeDeadValues = false;
        Session s(prog, options);
        s.addObserver(this);
        s.start(inputs);
        const Graph& g = prog->model().graph();
        for (ValueId id : g.inputs())
            entries.push_back({ g.value(id).name, "main", s.frame(0).values[static_cast<size_t>(id)] });
        while (s.state() == Session::State::Running) {
            if (stepsThere && !stopBefore.empty() && s.nextNode() && s.nextNode()->displayName() == stopBefore) {
                *stepsThere = steps;
                stepsThere = nullptr;
            }
            s.advance();
            ++steps;
        }
        outputs = s.outputs();
        s.removeObserver(this);
    }
};

/// An observer that does nothing: a debugger with it runs node by node (no quiet stretch).
struct NodeByNode : SessionObserver {
    bool wantsTiming() const override { return false; }
};

bool sameBits(const Value& a, const Value& b)
{
    if (a.kind() != Value::Kind::Tensor || b.kind() != Value::Kind::Tensor)
        return false;
    const Tensor& ta = a.tensor();
    const Tensor& tb = b.tensor();
    return ta.dtype() == tb.dtype() && ta.shape() == tb.shape() && ta.byteSize() == tb.byteSize()
        && std::memcmp(ta.raw(), tb.raw(), ta.byteSize()) == 0;
}

/// Every value of the debugger's log against the reference: same order, names and frames; the summary is the
/// reference value's; the data (held or rebuilt from a checkpoint) has the same bits.
void compareLog(Debugger& dbg, const Reference& ref)
{
    const auto& values = dbg.values();
    QCOMPARE(values.size(), ref.entries.size());
    std::vector<const RecordedValue*> all;
    for (size_t i = 0; i < values.size(); ++i) {
        const RecordedValue& v = values[i];
        const auto& r = ref.entries[i];
        const std::string where = "value " + std::to_string(i) + " \"" + r.name + "\" in " + r.framePath;
        QVERIFY2(v.name.str() == r.name, (where + ": recorded as " + v.name.str()).c_str());
        QVERIFY2(v.framePath.str() == r.framePath, (where + ": frame " + v.framePath.str()).c_str());
        if (v.producer < 0 && v.frameId == values.front().frameId)
            continue; // the run's own inputs, pinned
        QVERIFY2(v.summary.valid, where.c_str());
        const ValueDigest truth = digest(r.value);
        QVERIFY2(truth.stats && v.summary.stats, where.c_str());
        QVERIFY2(v.summary.stats->min == truth.stats->min && v.summary.stats->max == truth.stats->max
                && v.summary.stats->mean == truth.stats->mean && v.summary.stats->count == truth.stats->count,
            where.c_str());
        all.push_back(&v);
    }
    size_t seen = 0;
    dbg.materialize(all, [&](const RecordedValue& v, const Value& data) {
        const auto it = std::find(all.begin(), all.end(), &v);
        const auto& r = ref.entries[static_cast<size_t>(&v - values.data())];
        QVERIFY2(it != all.end() && sameBits(data, r.value), ("rebuilt \"" + r.name + "\" differs").c_str());
        ++seen;
    });
    QCOMPARE(seen, all.size());
}

// No fused step (no Conv, no SiLU pair): a quiet stretch over it takes checkpoints, and completeLog() replays the
// segments between them in parallel. A function call, a Loop whose body runs an If, and work after it.
const char* kUnfused = R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
agraph (float[2, 8] x) => (float[2, 8] y, float[3, 16] trace) {
    a = Add(x, x)
    b = Mul(a, x)
    c = Sub(b, a)
    d = Tanh(c)
    f = local.scaled(d, x)
    g = Mul(f, d)
    h = Abs(g)
    trip = Constant <value = int64 {3}> ()
    cond = Constant <value = bool {1}> ()
    out, trace = Loop (trip, cond, h) <body = body (int64 i, bool ci, float[2, 8] acc) => (bool co, float[2, 8] acc_out, float[16] s) {
        co = Identity(ci)
        one = Constant <value = int64 {1}> ()
        late = Equal(i, one)
        acc_out = If (late) <then_branch = then_g () => (float[2, 8] t) { k = Constant <value = float {0.25}> () t = Sub(acc, k) }, else_branch = else_g () => (float[2, 8] e) { e = Mul(acc, d) }>
        flat = Constant <value = int64[1] {16}> ()
        s = Reshape(acc_out, flat)
    }>
    p = Add(out, x)
    q = Mul(p, d)
    r = Sub(q, a)
    u = Tanh(r)
    v = local.scaled(u, d)
    w = Abs(v)
    y = Add(w, x)
}
<domain: "local", opset_import: ["" : 17]>
scaled (m, n) => (o) {
    t = Mul(m, n)
    o = Add(t, m)
})";

std::map<std::string, Value> unfusedInputs()
{
    Tensor x(DataType::Float, { 2, 8 });
    auto d = x.data<float>();
    for (size_t i = 0; i < d.size(); ++i)
        d[i] = static_cast<float>(static_cast<int>(i % 5) - 2) * 0.3f + 0.01f * static_cast<float>(i);
    return { { "x", Value(std::move(x)) } };
}

/// Everything a log records about each value but its data: order, ordinal, name, frame, producer, iteration, summary.
void compareRecords(const Debugger& a, const Debugger& b)
{
    QCOMPARE(a.values().size(), b.values().size());
    for (size_t i = 0; i < a.values().size(); ++i) {
        const RecordedValue& u = a.values()[i];
        const RecordedValue& v = b.values()[i];
        const std::string where = "value " + std::to_string(i) + " \"" + u.name.str() + "\" in " + u.framePath.str();
        QVERIFY2(u.ordinal == v.ordinal && u.sequence == v.sequence && u.name.str() == v.name.str()
                && u.framePath.str() == v.framePath.str() && u.producer == v.producer && u.graph == v.graph
                && u.iteration == v.iteration && u.tracePoint == v.tracePoint && u.dropped == v.dropped,
            where.c_str());
        QVERIFY2(u.summary.valid == v.summary.valid, where.c_str());
        if (u.summary.valid && u.summary.stats) {
            QVERIFY2(v.summary.stats, where.c_str());
            QVERIFY2(u.summary.stats->min == v.summary.stats->min && u.summary.stats->max == v.summary.stats->max
                    && u.summary.stats->mean == v.summary.stats->mean && u.summary.stats->std == v.summary.stats->std
                    && u.summary.stats->count == v.summary.stats->count && u.summary.shape() == v.summary.shape()
                    && u.summary.histogram == v.summary.histogram,
                where.c_str());
        }
    }
}

/// A debug run of kModel to the end as one quiet stretch (checkpoints every 2 steps), into `dbg`, checked to fuse as
/// kModel's plain run does (Conv + Relu, the SiLU pair) and to give its output bit for bit.
void runToTheEndLikePlain(std::unique_ptr<Debugger>& dbg)
{
    Session plain(program());
    const auto plainOutputs = plain.run(modelInputs());
    QVERIFY(plain.fusedSteps() >= 2);
    DebuggerOptions options;
    options.checkpointInterval = 2;
    dbg = std::make_unique<Debugger>(program(), options);
    dbg->start(modelInputs());
    QCOMPARE(dbg->continueRun().reason, StopReason::Finished);
    QCOMPARE(dbg->session().fusedSteps(), plain.fusedSteps());
    QVERIFY(sameBits(dbg->session().outputs().at("y"), plainOutputs.at("y")));
}

} // namespace

class TestDebugQuiet : public QObject {
    Q_OBJECT
private slots:
    void runToTheEndIsPlainAndItsLogIsTheNodeByNodeRuns()
    {
        const Reference ref;
        // The plain run fuses here (Conv + Relu, the SiLU pair): a quiet stretch must too, and give its outputs.
        std::unique_ptr<Debugger> run;
        runToTheEndLikePlain(run);
        if (QTest::currentTestFailed())
            return;
        Debugger& dbg = *run;
        QCOMPARE(dbg.quietStretches(), size_t(1));
        QVERIFY(!dbg.logComplete());
        // Positions count as node by node: a fused step stands for the nodes it covers.
        QCOMPARE(dbg.position(), ref.steps);

        compareLog(dbg, ref);
        QVERIFY(dbg.logComplete());
        QCOMPARE(dbg.position(), ref.steps);
        QVERIFY(dbg.finished());
        QVERIFY(sameBits(dbg.session().outputs().at("y"), ref.outputs.at("y")));
        QVERIFY(dbg.memoryStats().checkpoints > 2);
        // Reverse moves work over the log filled in afterwards.
        const StopInfo back = dbg.runBackTo("Sigmoid_2");
        QCOMPARE(back.reason, StopReason::RunToReached);
        uint64_t atSigmoid = 0;
        const Reference toSigmoid("Sigmoid_2", &atSigmoid);
        QCOMPARE(dbg.position(), atSigmoid);
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        compareLog(dbg, ref);
    }

    void breakpointKnownBeforeTheRunStopsWhereNodeByNodeDid()
    {
        // Relu follows Conv, which a plain run fuses with it: the stretch must stop between them.
        uint64_t atRelu = 0;
        const Reference ref("Relu_1", &atRelu);
        Debugger dbg(program());
        const int id = dbg.addBreakpoint(makeBreakpoint(Breakpoint::Kind::Node, "Relu_1"));
        dbg.start(modelInputs());
        const StopInfo s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::Breakpoint);
        QCOMPARE(s.breakpointId, id);
        QVERIFY(s.nextNode);
        QCOMPARE(s.nextNode->displayName(), std::string("Relu_1"));
        QCOMPARE(dbg.position(), atRelu);
        QVERIFY(dbg.findValue("c"));
        QVERIFY(!dbg.findValue("r"));
        QVERIFY(sameBits(dbg.materialize(*dbg.findValue("c")), ref.entries[1].value));
        // On to the end: one log, as a run node by node recorded it.
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        compareLog(dbg, ref);

        // Run to a node inside the Loop body, and a node breakpoint with an iteration rule on a node of an If branch
        // inside it (the enclosing iteration counts): each stops in its iteration.
        dbg.removeBreakpoint(id);
        dbg.reset();
        QCOMPARE(dbg.runTo("Sub_1").reason, StopReason::RunToReached);
        QVERIFY2(dbg.session().framePath().find("iteration 2") != std::string::npos, dbg.session().framePath().c_str());
        QCOMPARE(dbg.currentIteration(), int64_t(2));
        QCOMPARE(dbg.findValue("acc")->iteration, int64_t(2));
        dbg.addBreakpoint(makeBreakpoint(Breakpoint::Kind::Node, "Mul_0", {}, -1, 3));
        dbg.reset();
        QCOMPARE(dbg.continueRun().reason, StopReason::Breakpoint);
        QVERIFY2(dbg.session().framePath().find("iteration 3") != std::string::npos, dbg.session().framePath().c_str());
        QCOMPARE(dbg.quietStretches(), size_t(1));
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        compareLog(dbg, ref);
    }

    void conditionBreakpointInsideALoopBodyFiresInTheRightIteration()
    {
        const Reference ref;
        // The condition holds in every iteration, the rule asks for iteration 1. A quiet stretch runs the Reshape (and
        // the Loop that holds it) on its own and tests it; the rest runs as a plain run.
        Debugger dbg(program());
        const int id
            = dbg.addBreakpoint(makeBreakpoint(Breakpoint::Kind::Condition, "Reshape_5", "any x > -1e30", -1, 1));
        dbg.start(modelInputs());
        const StopInfo s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::Breakpoint);
        QCOMPARE(s.breakpointId, id);
        QVERIFY2(dbg.session().framePath().find("iteration 1") != std::string::npos, dbg.session().framePath().c_str());
        QCOMPARE(dbg.findValue("s")->iteration, int64_t(1));
        QCOMPARE(dbg.quietStretches(), size_t(1));
        // Where a run node by node stops (an observer other than the debugger keeps it from quiet stretches).
        NodeByNode nodeByNode;
        Debugger slow(program());
        slow.addObserver(&nodeByNode);
        slow.addBreakpoint(makeBreakpoint(Breakpoint::Kind::Condition, "Reshape_5", "any x > -1e30", -1, 1));
        slow.start(modelInputs());
        QCOMPARE(slow.continueRun().message, s.message);
        QCOMPARE(slow.quietStretches(), size_t(0));
        QCOMPARE(dbg.position(), slow.position());
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        compareLog(dbg, ref);

        // A value breakpoint (the then branch's output, made in iteration 2 only): the same.
        dbg.removeBreakpoint(id);
        slow.removeBreakpoint(1);
        dbg.addBreakpoint(makeBreakpoint(Breakpoint::Kind::Value, "t"));
        slow.addBreakpoint(makeBreakpoint(Breakpoint::Kind::Value, "t"));
        dbg.reset();
        slow.reset();
        const StopInfo v = dbg.continueRun();
        QCOMPARE(v.reason, StopReason::Breakpoint);
        QCOMPARE(slow.continueRun().message, v.message);
        QCOMPARE(dbg.position(), slow.position());
        QVERIFY2(dbg.session().framePath().find("iteration 2") != std::string::npos, dbg.session().framePath().c_str());
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        QCOMPARE(dbg.quietStretches(), size_t(2));
        compareLog(dbg, ref);
    }

    void logFilledBySegmentsInParallelIsTheNodeByNodeLog()
    {
        qputenv("ONNXSCOPE_LOG_THREADS", "2"); // whatever the machine: two segments at once
        const auto prog = std::make_shared<Program>(Model::fromText(kUnfused));
        const Reference ref(prog, unfusedInputs());
        // The log of a run node by node: the debugger's own (an observer keeps it from quiet stretches).
        NodeByNode nodeByNode;
        Debugger slow(prog);
        slow.addObserver(&nodeByNode);
        slow.start(unfusedInputs());
        QCOMPARE(slow.continueRun().reason, StopReason::Finished);

        DebuggerOptions options;
        options.checkpointInterval = 3;
        Debugger dbg(prog, options);
        dbg.start(unfusedInputs());
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        QVERIFY(!dbg.logComplete());
        dbg.completeLog();
        QVERIFY2(dbg.memoryStats().logSegments >= 2, std::to_string(dbg.memoryStats().logSegments).c_str());
        QCOMPARE(dbg.position(), slow.position());
        compareRecords(dbg, slow);
        // Against a session of its own: names, frames, summaries, and every value rebuilt bit-identical.
        compareLog(dbg, ref);
        QVERIFY(sameBits(dbg.session().outputs().at("y"), ref.outputs.at("y")));

        // A stop inside the If inside the Loop (run to a node of the then branch), then step back and on.
        uint64_t atSub = 0;
        const Reference toSub(prog, unfusedInputs(), "Sub_1", &atSub);
        dbg.reset();
        slow.reset();
        QCOMPARE(dbg.runTo("Sub_1").reason, StopReason::RunToReached);
        QCOMPARE(slow.runTo("Sub_1").reason, StopReason::RunToReached);
        QCOMPARE(dbg.position(), atSub);
        dbg.completeLog();
        QVERIFY(dbg.memoryStats().logSegments >= 2);
        compareRecords(dbg, slow);
        QCOMPARE(dbg.session().framePath(), slow.session().framePath());
        // The values the frames of the stop hold are found there (the merged frame ids are the session's).
        const RecordedValue* acc = dbg.findValue("acc");
        QVERIFY(acc && acc->iteration == 1);
        QVERIFY(dbg.heldValue(*acc));
        QCOMPARE(dbg.stepBack().reason, StopReason::Step);
        QCOMPARE(slow.stepBack().reason, StopReason::Step);
        QCOMPARE(dbg.position(), slow.position());
        compareRecords(dbg, slow);
        QCOMPARE(dbg.step().reason, StopReason::Step);
        QCOMPARE(slow.step().reason, StopReason::Step);
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        QCOMPARE(slow.continueRun().reason, StopReason::Finished);
        compareRecords(dbg, slow);
        compareLog(dbg, ref);
        // Reverse moves over the merged checkpoints and call records.
        QCOMPARE(dbg.runBackTo("Reshape_5").reason, StopReason::RunToReached);
        QCOMPARE(slow.runBackTo("Reshape_5").reason, StopReason::RunToReached);
        QCOMPARE(dbg.position(), slow.position());
        compareRecords(dbg, slow);
        qunsetenv("ONNXSCOPE_LOG_THREADS");
    }

    void segmentedLogWithOneThreadAFailureAndASmallBudget()
    {
        const auto prog = std::make_shared<Program>(Model::fromText(kUnfused));
        NodeByNode nodeByNode;
        // One thread: the serial replay, the same log.
        qputenv("ONNXSCOPE_LOG_THREADS", "1");
        Debugger slow(prog);
        slow.addObserver(&nodeByNode);
        slow.start(unfusedInputs());
        slow.continueRun();
        Debugger one(prog);
        one.start(unfusedInputs());
        QCOMPARE(one.continueRun().reason, StopReason::Finished);
        one.completeLog();
        QCOMPARE(one.memoryStats().logSegments, size_t(0));
        compareRecords(one, slow);

        // A budget that holds few checkpoints (thinned as node by node): the same records, rebuilt values the same.
        qputenv("ONNXSCOPE_LOG_THREADS", "3");
        DebuggerOptions small;
        small.memoryBudget = 1024;
        small.checkpointInterval = 1;
        Debugger tight(prog, small), tightSlow(prog, small);
        tightSlow.addObserver(&nodeByNode);
        tight.start(unfusedInputs());
        tightSlow.start(unfusedInputs());
        QCOMPARE(tight.continueRun().reason, StopReason::Finished);
        tightSlow.continueRun();
        tight.completeLog();
        QVERIFY(tight.memoryStats().logSegments >= 2);
        compareRecords(tight, tightSlow);
        compareLog(tight, Reference(prog, unfusedInputs()));

        // A run that fails at its last node: the log up to the failure, as node by node (by the serial replay, which
        // leaves the session as a run node by node failing there).
        std::string text = kUnfused;
        const std::string last = "    y = Add(w, x)";
        text.replace(text.find(last), last.size(),
            "    z = Add(w, x)\n    bad = Constant <value = int64[2] {3, 5}> ()\n    y = Reshape(z, bad)");
        const auto failing = std::make_shared<Program>(Model::fromText(text));
        Debugger fails(failing), failsSlow(failing);
        failsSlow.addObserver(&nodeByNode);
        fails.start(unfusedInputs());
        failsSlow.start(unfusedInputs());
        const StopInfo f = fails.continueRun();
        QCOMPARE(f.reason, StopReason::Failed);
        QCOMPARE(failsSlow.continueRun().reason, StopReason::Failed);
        fails.completeLog();
        QCOMPARE(fails.memoryStats().logSegments, size_t(0));
        QVERIFY(fails.failed());
        QCOMPARE(fails.position(), failsSlow.position());
        compareRecords(fails, failsSlow);
        qunsetenv("ONNXSCOPE_LOG_THREADS");
    }

    void shadowFillAfterFusedStepsIsTheNodeByNodeLog()
    {
        // The replay that trails the stretches (log_shadow.cpp), started as each stretch begins; kModel's plain run
        // fuses (Conv + Relu, the SiLU pair), so no checkpoint is taken inside the stretches and no segment replays.
        qputenv("ONNXSCOPE_LOG_SHADOW", "1");
        qputenv("ONNXSCOPE_LOG_THREADS", "2");
        const Reference ref;
        std::unique_ptr<Debugger> run;
        runToTheEndLikePlain(run);
        if (QTest::currentTestFailed())
            return;
        Debugger& dbg = *run;
        QVERIFY(dbg.completeLog());
        QVERIFY(dbg.memoryStats().logShadow);
        QCOMPARE(dbg.memoryStats().logSegments, size_t(0));
        QCOMPARE(dbg.position(), ref.steps);
        compareLog(dbg, ref);
        // The stop holds the replay's values, as after the serial replay: the run node by node's.
        QVERIFY(sameBits(dbg.session().outputs().at("y"), ref.outputs.at("y")));

        // A stop inside the If inside the Loop, its fill given up, then on to the end: the shadow trails both
        // stretches, and the log is whole.
        uint64_t atSub = 0;
        const Reference toSub("Sub_1", &atSub);
        dbg.reset();
        QCOMPARE(dbg.runTo("Sub_1").reason, StopReason::RunToReached);
        QCOMPARE(dbg.position(), atSub);
        std::atomic<bool> cancel { true };
        QVERIFY(!dbg.completeLog(&cancel));
        QVERIFY(!dbg.logComplete());
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        QCOMPARE(dbg.quietStretches(), size_t(2));
        compareLog(dbg, ref);
        QVERIFY(dbg.memoryStats().logShadow);

        // Filled at a stop inside the subgraphs: the frames open there are the session's, and moves go on from it.
        dbg.reset();
        QCOMPARE(dbg.runTo("Sub_1").reason, StopReason::RunToReached);
        QVERIFY(dbg.completeLog());
        QVERIFY(dbg.memoryStats().logShadow);
        QCOMPARE(dbg.position(), atSub);
        QVERIFY2(dbg.session().framePath().find("iteration 2") != std::string::npos, dbg.session().framePath().c_str());
        const RecordedValue* acc = dbg.findValue("acc");
        QVERIFY(acc && acc->iteration == 2);
        QVERIFY(dbg.heldValue(*acc));
        QCOMPARE(dbg.stepBack().reason, StopReason::Step);
        QCOMPARE(dbg.step().reason, StopReason::Step);
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        compareLog(dbg, ref);
        QVERIFY(sameBits(dbg.session().outputs().at("y"), ref.outputs.at("y")));

        // Not beside a run on two threads (the replay runs on one): the serial replay, on the run's threads.
        ThreadPool pool(2);
        DebuggerOptions two;
        two.session.threadPool = &pool;
        Debugger wide(program(), two);
        wide.start(modelInputs());
        QCOMPARE(wide.continueRun().reason, StopReason::Finished);
        QVERIFY(wide.completeLog());
        QVERIFY(!wide.memoryStats().logShadow);
        compareLog(wide, ref);

        qunsetenv("ONNXSCOPE_LOG_THREADS");
        qunsetenv("ONNXSCOPE_LOG_SHADOW");
    }

    void aCancelledFillLeavesTheLogPendingAndLosesNothing()
    {
        qputenv("ONNXSCOPE_LOG_THREADS", "2");
        const auto prog = std::make_shared<Program>(Model::fromText(kUnfused));
        const Reference ref(prog, unfusedInputs());
        DebuggerOptions options;
        options.checkpointInterval = 3;
        Debugger dbg(prog, options);
        dbg.start(unfusedInputs());
        QCOMPARE(dbg.runTo("Sub_1").reason, StopReason::RunToReached);
        const uint64_t at = dbg.position();
        const std::string path = dbg.session().framePath();
        std::atomic<bool> cancel { true };
        QVERIFY(!dbg.completeLog(&cancel));
        QVERIFY(!dbg.logComplete());
        QCOMPARE(dbg.position(), at);
        QCOMPARE(dbg.session().framePath(), path);
        // On from the stop quietly, the log still pending; then the log of both stretches, whole.
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        QCOMPARE(dbg.quietStretches(), size_t(2));
        QVERIFY(!dbg.completeLog(&cancel));
        cancel = false;
        QVERIFY(dbg.completeLog(&cancel));
        QVERIFY(dbg.logComplete());
        QVERIFY(dbg.memoryStats().logSegments >= 2);
        QCOMPARE(dbg.position(), ref.steps);
        compareLog(dbg, ref);
        QVERIFY(sameBits(dbg.session().outputs().at("y"), ref.outputs.at("y")));

        // The serial replay moves the session: it is not cancelled.
        qputenv("ONNXSCOPE_LOG_THREADS", "1");
        Debugger one(prog, options);
        one.start(unfusedInputs());
        QCOMPARE(one.continueRun().reason, StopReason::Finished);
        cancel = true;
        QVERIFY(one.completeLog(&cancel));
        QCOMPARE(one.memoryStats().logSegments, size_t(0));
        compareLog(one, ref);
        qunsetenv("ONNXSCOPE_LOG_THREADS");
    }

    void pauseFromAnotherThreadStopsAQuietStretch()
    {
        // A Loop of 50 million iterations: far longer than the pause takes to come.
        const char* text = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[4] x) => (float[4] out) {
    trip = Constant <value = int64 {50000000}> ()
    cond = Constant <value = bool {1}> ()
    out = Loop (trip, cond, x) <body = long_body (int64 i, bool c, float[4] acc) => (bool c_out, float[4] acc_out) {
        c_out = Identity(c)
        acc_out = Add(acc, x)
    }>
})";
        DebuggerOptions options;
        options.iterationRetention = IterationRetention::LastN;
        options.keepIterations = 2;
        Debugger dbg(std::make_shared<Program>(Model::fromText(text)), options);
        dbg.start({ { "x", Tensor::vector1D<float>({ 1, 2, 3, 4 }) } });
        std::atomic<bool> started { false };
        std::thread pauser([&] {
            while (!started.load())
                std::this_thread::yield();
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            dbg.requestPause();
        });
        started = true;
        const StopInfo s = dbg.continueRun();
        pauser.join();
        QCOMPARE(s.reason, StopReason::Paused);
        QVERIFY(!dbg.finished());
        QCOMPARE(dbg.quietStretches(), size_t(1));
        // The log of the stretch is filled in where it stopped: the position stays, and the Loop's accumulator there
        // is x times the iterations run.
        const uint64_t at = dbg.position();
        dbg.completeLog();
        QCOMPARE(dbg.position(), at);
        const RecordedValue* acc = dbg.findValue("acc");
        QVERIFY(acc && acc->iteration >= 0);
        const Value data = dbg.materialize(*acc);
        const float n = static_cast<float>(acc->iteration + 1);
        QCOMPARE(data.tensor().data<float>()[1], 2.0f * n);
    }
};

QTEST_APPLESS_MAIN(TestDebugQuiet)
#include "test_debug_quiet.moc"
