// SPDX-License-Identifier: MIT
// The debugger through its public API: stepping order, breakpoints, hooks, DEBUG/YieldOp, runTo, reset, failures.
#include "engine/exec/debug/debugger.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <QtTest>

#include <chrono>
#include <thread>

using namespace onnxscope;

namespace {

// x -> a = x + y -> b = a * x -> d = DEBUG(b) -> c = b - y -> out = c / y
const char* kChain = R"(<ir_version: 8, opset_import: ["" : 17, "mlprodict" : 1]>
agraph (float[3] x, float[3] y) => (float[3] out) {
    a = Add(x, y)
    b = Mul(a, x)
    d = mlprodict.DEBUG(b)
    c = Sub(d, y)
    out = Div(c, y)
})";

std::map<std::string, Value> chainInputs()
{
    return { { "x", Tensor::vector1D<float>({ 1, 2, 3 }) }, { "y", Tensor::vector1D<float>({ 2, 4, 0.5f }) } };
}

std::vector<float> values(const Value& v)
{
    auto d = v.tensor().data<float>();
    return { d.begin(), d.end() };
}

std::shared_ptr<const Program> compile(const char* text)
{
    return std::make_shared<Program>(Model::fromText(text));
}

struct Recorder : SessionObserver {
    std::vector<std::string> after;
    std::vector<std::string> paths;
    std::vector<long long> elapsed;
    std::vector<size_t> inputCounts, outputCounts;
    void afterNode(const NodeEvent& e) override
    {
        after.push_back(e.node.displayName());
        paths.push_back(e.nodePath());
        elapsed.push_back(e.elapsed.count());
        inputCounts.push_back(e.inputs.size());
        outputCounts.push_back(e.outputs.size());
    }
};

} // namespace

class TestDebugger : public QObject {
    Q_OBJECT
private slots:
    void stepsInTopologicalOrder()
    {
        Debugger dbg(compile(kChain));
        dbg.start(chainInputs());
        QCOMPARE(dbg.lastStop().nextNode->opType, std::string("Add"));
        std::vector<std::string> ops;
        while (!dbg.finished()) {
            StopInfo s = dbg.step();
            if (s.lastNode)
                ops.push_back(s.lastNode->opType);
        }
        QCOMPARE(ops, (std::vector<std::string> { "Add", "Mul", "DEBUG", "Sub", "Div" }));
        // out = ((x + y) * x - y) / y, computed independently here
        auto out = values(dbg.session().outputs().at("out"));
        const float x[] = { 1, 2, 3 }, y[] = { 2, 4, 0.5f };
        for (int i = 0; i < 3; ++i)
            QCOMPARE(out[i], ((x[i] + y[i]) * x[i] - y[i]) / y[i]);
    }

    void everyValueIsKeptForInspection()
    {
        // Keeping the data of every value (the default keeps summaries; test_memory_budget covers it).
        DebuggerOptions keep;
        keep.retention = ValueRetention::Values;
        Debugger dbg(compile(kChain), keep);
        dbg.start(chainInputs());
        dbg.continueRun();
        QVERIFY(dbg.finished());
        for (const char* name : { "x", "y", "a", "b", "d", "c", "out" }) {
            const RecordedValue* v = dbg.findValue(name);
            QVERIFY2(v, name);
            QVERIFY(!v->dropped);
        }
        QCOMPARE(values(dbg.materialize(*dbg.findValue("a"))), (std::vector<float> { 3, 6, 3.5f }));
        QCOMPARE(values(dbg.materialize(*dbg.findValue("b"))), (std::vector<float> { 3, 12, 10.5f }));
        QCOMPARE(dbg.findValue("b")->framePath, std::string("main"));
    }

    void nodeAndOpTypeBreakpointsStopBeforeTheNode()
    {
        Debugger dbg(compile(kChain));
        Breakpoint byOp;
        byOp.kind = Breakpoint::Kind::OpType;
        byOp.pattern = "Sub";
        int subId = dbg.addBreakpoint(byOp);
        dbg.start(chainInputs());
        StopInfo s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::Breakpoint);
        QCOMPARE(s.breakpointId, subId);
        QVERIFY(s.nextNode);
        QCOMPARE(s.nextNode->opType, std::string("Sub"));
        QVERIFY(dbg.findValue("d"));
        QVERIFY(!dbg.findValue("c")); // not run yet
        // Continuing does not stop again at the same node.
        s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::Finished);

        // A disabled breakpoint does not stop; a node-name breakpoint on the first node stops right away.
        dbg.setBreakpointEnabled(subId, false);
        Breakpoint byName;
        byName.kind = Breakpoint::Kind::Node;
        byName.pattern = "Add_0";
        dbg.addBreakpoint(byName);
        dbg.reset();
        s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::Breakpoint);
        QCOMPARE(s.nextNode->displayName(), std::string("Add_0"));
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        QVERIFY(dbg.removeBreakpoint(subId));
        QVERIFY(!dbg.removeBreakpoint(subId));
    }

    void breakOnFirstNonFinite()
    {
        Debugger dbg(compile(kChain));
        Breakpoint nan;
        nan.kind = Breakpoint::Kind::NonFinite;
        dbg.addBreakpoint(nan);
        // y[1] = 0 makes out[1] = c / 0 = +-Inf (c = (x+0)*x - 0 = 4 > 0 -> +Inf); earlier values are finite.
        dbg.start({ { "x", Tensor::vector1D<float>({ 1, 2, 3 }) }, { "y", Tensor::vector1D<float>({ 1, 0, 1 }) } });
        StopInfo s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::NonFinite);
        QVERIFY(s.lastNode);
        QCOMPARE(s.lastNode->opType, std::string("Div"));
        QVERIFY2(s.message.find("+Inf at index [1]") != std::string::npos, s.message.c_str());
        QVERIFY2(s.message.find("Div_4") != std::string::npos, s.message.c_str());
    }

    void debugNodesAreTracePointsAndCanPause()
    {
        Debugger dbg(compile(kChain));
        Breakpoint b;
        b.kind = Breakpoint::Kind::DebugNodes;
        dbg.addBreakpoint(b);
        dbg.start(chainInputs());
        StopInfo s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::DebugNode);
        QCOMPARE(s.lastNode->opType, std::string("DEBUG"));
        auto traces = dbg.tracePoints();
        QCOMPARE(traces.size(), size_t(1));
        QVERIFY(traces[0]->tracePoint);
        QCOMPARE(traces[0]->tracePoint->displayName(), std::string("DEBUG_2"));
        QCOMPARE(values(dbg.materialize(*traces[0])), (std::vector<float> { 3, 12, 10.5f }));
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
    }

    void runToStopsBeforeTheNamedNode()
    {
        Debugger dbg(compile(kChain));
        dbg.start(chainInputs());
        StopInfo s = dbg.runTo("Sub_3");
        QCOMPARE(s.reason, StopReason::RunToReached);
        QCOMPARE(s.nextNode->displayName(), std::string("Sub_3"));
        QVERIFY(dbg.findValue("d"));
        QVERIFY(!dbg.findValue("c"));
    }

    void resetStartsOverWithTheSameInputs()
    {
        Debugger dbg(compile(kChain));
        dbg.start(chainInputs());
        dbg.step();
        dbg.step();
        dbg.reset();
        QCOMPARE(dbg.lastStop().nextNode->opType, std::string("Add"));
        QVERIFY(!dbg.findValue("a"));
        dbg.continueRun();
        QVERIFY(dbg.finished());
        QCOMPARE(dbg.session().outputs().size(), size_t(1));
    }

    void hooksSeeEveryNodeWithInputsOutputsAndTime()
    {
        Debugger dbg(compile(kChain));
        Recorder rec;
        dbg.addObserver(&rec);
        dbg.start(chainInputs());
        dbg.continueRun();
        QCOMPARE(rec.after, (std::vector<std::string> { "Add_0", "Mul_1", "DEBUG_2", "Sub_3", "Div_4" }));
        QCOMPARE(rec.paths[0], std::string("main / Add_0"));
        for (size_t i = 0; i < rec.after.size(); ++i) {
            QVERIFY(rec.elapsed[i] >= 0);
            QCOMPARE(rec.outputCounts[i], size_t(1));
        }
        QCOMPARE(rec.inputCounts[0], size_t(2));
        QCOMPARE(rec.inputCounts[2], size_t(1));
        dbg.removeObserver(&rec);
    }

    void hooksSeeEveryOutputOfNodesWithSeveral()
    {
        // Split's three outputs are consecutive values of the frame, which events view in place; TopK's first output is
        // left out (""), so its event copies the outputs it has and shows none for the other.
        auto proto = std::make_unique<onnx::ModelProto>();
        const char* text = R"(<ir_version: 8, opset_import: ["" : 18]>
agraph (float[6] x) => (float[2] a, float[2] b, float[2] c, int64[2] idx) {
    a, b, c = Split <num_outputs = 3> (x)
    k = Constant <value = int64[1] {2}> ()
    top, idx = TopK(x, k)
})";
        QVERIFY(onnx::OnnxParser::Parse(*proto, text).IsOK());
        proto->mutable_graph()->mutable_node(2)->set_output(0, "");
        Debugger dbg(std::make_shared<Program>(Model::fromProto(std::move(proto), {}, "multi")));
        struct Outputs : SessionObserver {
            std::map<std::string, std::vector<std::optional<std::vector<float>>>> byOp;
            void afterNode(const NodeEvent& e) override
            {
                auto& outs = byOp[e.node.opType];
                for (const Value& v : e.outputs) {
                    if (v.isNone())
                        outs.push_back(std::nullopt);
                    else if (v.tensor().dtype() == DataType::Int64)
                        outs.push_back(
                            std::vector<float>(v.tensor().data<int64_t>().begin(), v.tensor().data<int64_t>().end()));
                    else
                        outs.push_back(values(v));
                }
            }
        } seen;
        dbg.addObserver(&seen);
        dbg.start({ { "x", Tensor::vector1D<float>({ 5, 1, 4, 2, 6, 3 }) } });
        dbg.continueRun();
        QVERIFY(dbg.finished());
        using Floats = std::vector<float>;
        QCOMPARE(seen.byOp["Split"].size(), size_t(3));
        QCOMPARE(seen.byOp["Split"][0], std::optional<Floats>(Floats { 5, 1 }));
        QCOMPARE(seen.byOp["Split"][1], std::optional<Floats>(Floats { 4, 2 }));
        QCOMPARE(seen.byOp["Split"][2], std::optional<Floats>(Floats { 6, 3 }));
        QCOMPARE(seen.byOp["TopK"].size(), size_t(2));
        QVERIFY(!seen.byOp["TopK"][0]);
        QCOMPARE(seen.byOp["TopK"][1], std::optional<Floats>(Floats { 4, 0 })); // the indices of 6 and 5
        QCOMPARE(values(dbg.materialize(*dbg.findValue("b"))), (Floats { 4, 2 }));
        dbg.removeObserver(&seen);
    }

    void steppingRunsConstantsWithoutStopping()
    {
        // Constants only make a value: Step and the stop after start land on the nodes that compute something, unless
        // the options ask to step them too. A breakpoint on a Constant still stops there.
        const char* text = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[3] x) => (float[3] out) {
    c1 = Constant <value = float[1] {2}> ()
    c2 = Constant <value = float[1] {3}> ()
    a = Mul(x, c1)
    c3 = Constant <value = float[1] {1}> ()
    b = Add(a, c2)
    out = Sub(b, c3)
})";
        const auto program = compile(text);
        const std::map<std::string, Value> in { { "x", Tensor::vector1D<float>({ 1, 2, 3 }) } };
        auto stopsOf = [&](bool stepConstants) {
            DebuggerOptions options;
            options.stepConstants = stepConstants;
            Debugger dbg(program, options);
            dbg.start(in);
            std::vector<std::string> before { dbg.skipConstantsAhead().nextNode->opType };
            while (!dbg.finished()) {
                StopInfo s = dbg.step();
                if (s.nextNode)
                    before.push_back(s.nextNode->opType);
            }
            return before;
        };
        QCOMPARE(stopsOf(false), (std::vector<std::string> { "Mul", "Add", "Sub" }));
        QCOMPARE(stopsOf(true), (std::vector<std::string> { "Constant", "Constant", "Mul", "Constant", "Add", "Sub" }));

        Debugger dbg(program);
        Breakpoint b;
        b.kind = Breakpoint::Kind::OpType;
        b.pattern = "Constant";
        dbg.addBreakpoint(b);
        dbg.start(in);
        const StopInfo atBreakpoint = dbg.skipConstantsAhead();
        QCOMPARE(atBreakpoint.reason, StopReason::Breakpoint);
        const std::string first = atBreakpoint.nextNode->displayName();
        dbg.removeBreakpoint(1);
        StopInfo s = dbg.step();
        QCOMPARE(s.lastNode->opType, std::string("Constant"));
        QVERIFY(s.lastNode->displayName() != first);
        QCOMPARE(s.nextNode->opType, std::string("Mul"));
        QCOMPARE(s.message, "stepped over " + first);
    }

    void timeSpentPausedInsideANodeIsNotItsTime()
    {
        // Paused inside an If's branch, the If has started; the pause must not count as its time.
        const char* text = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (bool c, float[2] x) => (float[2] out) {
    out = If (c) <then_branch = g1 () => (float[2] t) { t = Relu(x) },
                  else_branch = g2 () => (float[2] e) { e = Neg(x) }>
})";
        Debugger dbg(compile(text));
        Recorder timed;
        dbg.addObserver(&timed);
        dbg.start({ { "c", Tensor::scalar<bool>(true) }, { "x", Tensor::vector1D<float>({ 1, -2 }) } });
        dbg.stepInto();
        QCOMPARE(dbg.session().depth(), size_t(2));
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        dbg.continueRun();
        QVERIFY(dbg.finished());
        QCOMPARE(timed.after, (std::vector<std::string> { "Relu_0", "If_0" }));
        QVERIFY2(timed.elapsed[1] < 100'000'000, std::to_string(timed.elapsed[1]).c_str());
        dbg.removeObserver(&timed);
    }

    void nodesAreTimedOnlyForObserversThatReadTheTime()
    {
        // The Debugger records values without reading NodeEvent::elapsed, so a debug run alone reads no clock per node
        // (a system call on some VMs); an observer that wants the time gets it for every node.
        struct Untimed : Recorder {
            bool wantsTiming() const override { return false; }
        };
        Debugger dbg(compile(kChain));
        Untimed untimed;
        dbg.addObserver(&untimed);
        dbg.start(chainInputs());
        dbg.continueRun();
        QCOMPARE(untimed.elapsed, std::vector<long long>(5, 0));
        Recorder timed;
        dbg.addObserver(&timed);
        dbg.reset();
        dbg.continueRun();
        QCOMPARE(timed.elapsed.size(), size_t(5));
        for (long long ns : timed.elapsed)
            QVERIFY(ns > 0);
        QCOMPARE(untimed.elapsed.size(), size_t(10)); // the untimed observer sees the times once they are read
        QVERIFY(untimed.elapsed[5] > 0);
        dbg.removeObserver(&timed);
        dbg.removeObserver(&untimed);
    }

    void yieldOpPausesAndTakesCallerOutputs()
    {
        const char* text = R"(<ir_version: 8, opset_import: ["" : 17, "mlprodict" : 1]>
agraph (float[2] x) => (float[2] out) {
    y = Add(x, x)
    z = mlprodict.YieldOp(y)
    out = Mul(z, x)
})";
        Debugger dbg(compile(text));
        dbg.start({ { "x", Tensor::vector1D<float>({ 1, 2 }) } });
        StopInfo s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::YieldOp);
        QCOMPARE(s.nextNode->opType, std::string("YieldOp"));
        dbg.setYieldOutputs({ { "z", Tensor::vector1D<float>({ 10, 20 }) } });
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        QCOMPARE(values(dbg.session().outputs().at("out")), (std::vector<float> { 10, 40 }));

        // Without an override YieldOp is an identity.
        Debugger plain(compile(text));
        plain.start({ { "x", Tensor::vector1D<float>({ 1, 2 }) } });
        QCOMPARE(plain.continueRun().reason, StopReason::YieldOp);
        QCOMPARE(plain.continueRun().reason, StopReason::Finished);
        QCOMPARE(values(plain.session().outputs().at("out")), (std::vector<float> { 2, 8 }));

        // A required override that is missing is an error naming the output.
        SessionOptions options;
        options.requireYieldOutputs = true;
        Session session(compile(text), options);
        try {
            session.run({ { "x", Tensor::vector1D<float>({ 1, 2 }) } });
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("\"z\"") != std::string::npos, e.what());
        }
    }

    void failingNodeStopsInFailedStateAndKeepsEarlierValues()
    {
        const char* text = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[3] x, float[2] y) => (float[3] out) {
    a = Add(x, x)
    out = Mul(a, y)
})";
        Debugger dbg(compile(text));
        dbg.start({ { "x", Tensor::vector1D<float>({ 1, 2, 3 }) }, { "y", Tensor::vector1D<float>({ 1, 2 }) } });
        StopInfo s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::Failed);
        QVERIFY(dbg.failed());
        QVERIFY2(s.message.find("Mul_1") != std::string::npos, s.message.c_str());
        QVERIFY2(s.message.find("cannot be broadcast") != std::string::npos, s.message.c_str());
        QVERIFY(dbg.findValue("a"));
        QCOMPARE(dbg.session().failure().node->displayName(), std::string("Mul_1"));
        // Further commands report the failure instead of crashing.
        QCOMPARE(dbg.step().reason, StopReason::Failed);
    }

    void inputsAreValidated()
    {
        Debugger dbg(compile(kChain));
        auto expectError = [&](std::map<std::string, Value> inputs, const char* fragment) {
            try {
                dbg.start(inputs);
                QFAIL("expected an error");
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(fragment) != std::string::npos, e.what());
            }
        };
        expectError({ { "x", Tensor::vector1D<float>({ 1, 2, 3 }) } }, "input \"y\"");
        expectError({ { "x", Tensor::vector1D<float>({ 1, 2 }) }, { "y", Tensor::vector1D<float>({ 1, 2, 3 }) } },
            "dimension 0 must be 3");
        expectError({ { "x", Tensor::vector1D<double>({ 1, 2, 3 }) }, { "y", Tensor::vector1D<float>({ 1, 2, 3 }) } },
            "expected element type float");
        expectError({ { "z", Tensor::vector1D<float>({ 1 }) } }, "no input \"z\"");
    }

    void memoryBudgetDropsOldValuesVisibly()
    {
        DebuggerOptions options;
        options.memoryBudget = 3 * 3 * sizeof(float); // room for three of the 3-element values
        options.retention = ValueRetention::Values;
        Debugger dbg(compile(kChain), options);
        dbg.start(chainInputs());
        dbg.continueRun();
        QVERIFY(dbg.finished());
        QVERIFY(dbg.recordedBytes() <= options.memoryBudget);
        int dropped = 0;
        for (const auto& v : dbg.values())
            dropped += v.dropped ? 1 : 0;
        QVERIFY(dropped >= 2);
        QVERIFY(dbg.findValue("a")->dropped);
        // The caller's inputs are held by the caller anyway: never dropped, not counted.
        QVERIFY(!dbg.findValue("x")->dropped);
        QVERIFY(!dbg.findValue("out")->dropped);
    }

    void plainRunFreesDeadValuesButKeepsOutputs()
    {
        auto program = compile(kChain);
        Session session(program);
        session.start(chainInputs());
        while (session.state() == Session::State::Running) {
            session.advance();
            if (session.state() != Session::State::Running)
                break;
            const Frame& f = session.frame(0);
            // After Mul_1 ran, "a" (last used by Mul_1) must have been released.
            if (f.pc == 2)
                QVERIFY(f.values[static_cast<size_t>(f.graph().findValue("a"))].isNone());
        }
        QCOMPARE(session.state(), Session::State::Finished);
        QVERIFY(session.outputs().at("out").isTensor());
    }
};

QTEST_APPLESS_MAIN(TestDebugger)
#include "test_debugger.moc"
