// SPDX-License-Identifier: MIT
// If / Loop / Scan under the debugger: frame paths, step into / over / out, breakpoints inside bodies,
// per-iteration values and their retention, iteration limits, deep nesting.
#include "engine/exec/debug/debugger.h"
#include "tests/common/test_models.h"

#include <onnx/onnx_pb.h>

#include <QtTest>

#include <thread>

using namespace onnxscope;
using onnxscope::testing::kLoopWithIf;

namespace {

std::map<std::string, Value> inputs()
{
    return { { "x", Tensor::vector1D<float>({ 2, 3 }) } };
}

std::shared_ptr<const Program> compile(const std::string& text)
{
    return std::make_shared<Program>(Model::fromText(text));
}

std::string where(const Debugger& d)
{
    const Node* next = d.session().nextNode();
    return d.session().framePath() + " | " + (next ? next->displayName() : std::string("<end>"));
}

std::vector<float> floats(const Value& v)
{
    auto d = v.tensor().data<float>();
    return { d.begin(), d.end() };
}

/// A model with `depth` nested Ifs (all conditions true); the innermost branch returns x + 1.
std::shared_ptr<Model> nestedIfs(int depth)
{
    auto model = std::make_unique<onnx::ModelProto>();
    model->set_ir_version(8);
    auto* opset = model->add_opset_import();
    opset->set_domain("");
    opset->set_version(17);
    auto* g = model->mutable_graph();
    g->set_name("main");
    auto addTensorInfo = [](onnx::ValueInfoProto* vi, const std::string& name, int type) {
        vi->set_name(name);
        vi->mutable_type()->mutable_tensor_type()->set_elem_type(type);
    };
    addTensorInfo(g->add_input(), "x", onnx::TensorProto::FLOAT);
    addTensorInfo(g->add_input(), "c", onnx::TensorProto::BOOL);
    addTensorInfo(g->add_output(), "y0", onnx::TensorProto::FLOAT);
    onnx::GraphProto* current = g;
    for (int level = 0; level < depth; ++level) {
        auto* node = current->add_node();
        node->set_op_type("If");
        node->set_name("if_" + std::to_string(level));
        node->add_input("c");
        node->add_output("y" + std::to_string(level));
        onnx::GraphProto* branches[2];
        for (int b = 0; b < 2; ++b) {
            auto* attr = node->add_attribute();
            attr->set_name(b == 0 ? "then_branch" : "else_branch");
            attr->set_type(onnx::AttributeProto::GRAPH);
            branches[b] = attr->mutable_g();
            branches[b]->set_name((b == 0 ? "then_" : "else_") + std::to_string(level));
            addTensorInfo(branches[b]->add_output(), "y" + std::to_string(level + 1), onnx::TensorProto::FLOAT);
        }
        auto* neg = branches[1]->add_node();
        neg->set_op_type("Sub");
        neg->add_input("x");
        neg->add_input("x");
        neg->add_output("y" + std::to_string(level + 1));
        current = branches[0];
    }
    auto* one = current->add_initializer();
    one->set_name("one");
    one->set_data_type(onnx::TensorProto::FLOAT);
    one->add_float_data(1.0f);
    auto* add = current->add_node();
    add->set_op_type("Add");
    add->add_input("x");
    add->add_input("one");
    add->add_output("y" + std::to_string(depth));
    return Model::fromProto(std::move(model), ".", "nested_ifs");
}

} // namespace

class TestControlFlow : public QObject {
    Q_OBJECT
private slots:
    void loopWithIfComputesTheRightValues()
    {
        Session session(compile(kLoopWithIf));
        auto out = session.run(inputs());
        // Independent arithmetic: x = [2, 3]; i=0: acc*x = [4, 9]; i=1: +x = [6, 12]; i=2: +x = [8, 15].
        QCOMPARE(floats(out.at("out")), (std::vector<float> { 8, 15 }));
        QCOMPARE(floats(out.at("trace")), (std::vector<float> { 4, 9, 6, 12, 8, 15 }));
        QCOMPARE(out.at("trace").tensor().shape(), (Shape { 3, 2 }));
    }

    void stepIntoWalksFramesInOrder()
    {
        DebuggerOptions options;
        options.stepConstants = true; // every node, Constants included
        Debugger dbg(compile(kLoopWithIf), options);
        dbg.start(inputs());
        std::vector<std::string> seen { where(dbg) };
        int guard = 0;
        while (!dbg.finished() && guard++ < 200) {
            const Node* next = dbg.session().nextNode();
            StopInfo s = next && !next->subgraphs.empty() ? dbg.stepInto() : dbg.step();
            QVERIFY2(s.reason == StopReason::Step || s.reason == StopReason::Finished, s.message.c_str());
            if (!dbg.finished())
                seen.push_back(where(dbg));
        }
        const std::string it0 = "main / Loop \"Loop_2\" iteration 0";
        const std::string it1 = "main / Loop \"Loop_2\" iteration 1";
        const std::string it2 = "main / Loop \"Loop_2\" iteration 2";
        std::vector<std::string> expected { "main | Constant_0", "main | Constant_1", "main | Loop_2" };
        for (const auto& [it, branch, op] : { std::tuple { it0, "else_branch", "Mul_0" },
                 std::tuple { it1, "then_branch", "Add_0" }, std::tuple { it2, "then_branch", "Add_0" } }) {
            const std::string inIf = it + " / If \"If_3\" " + branch;
            expected.insert(expected.end(),
                { it + " | Identity_0", it + " | Constant_1", it + " | Greater_2", it + " | If_3", inIf + " | " + op,
                    inIf + " | <end>", it + " | Identity_4", it + " | <end>" });
        }
        expected.push_back("main | <end>");
        if (seen != expected) {
            for (size_t i = 0; i < std::max(seen.size(), expected.size()); ++i)
                qWarning("%zu: got %-70s expected %s", i, i < seen.size() ? seen[i].c_str() : "-",
                    i < expected.size() ? expected[i].c_str() : "-");
        }
        QCOMPARE(seen, expected);
        QCOMPARE(floats(dbg.session().outputs().at("out")), (std::vector<float> { 8, 15 }));
    }

    void stepOverRunsALoopWhole()
    {
        Debugger dbg(compile(kLoopWithIf));
        dbg.start(inputs());
        dbg.step(); // the two Constants: stepping runs them without a stop
        QCOMPARE(dbg.session().nextNode()->opType, std::string("Loop"));
        StopInfo s = dbg.step(); // over the Loop
        QCOMPARE(s.lastNode->opType, std::string("Loop"));
        QCOMPARE(dbg.session().framePath(), std::string("main"));
        QVERIFY(dbg.findValue("out"));
    }

    void stepOutResumesAtTheParentNodesCompletion()
    {
        Debugger dbg(compile(kLoopWithIf));
        Breakpoint bp;
        bp.kind = Breakpoint::Kind::OpType;
        bp.pattern = "Add";
        dbg.addBreakpoint(bp);
        dbg.start(inputs());
        StopInfo s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::Breakpoint);
        QCOMPARE(where(dbg), std::string("main / Loop \"Loop_2\" iteration 1 / If \"If_3\" then_branch | Add_0"));
        s = dbg.stepOut();
        QCOMPARE(s.reason, StopReason::Step);
        QCOMPARE(s.lastNode->opType, std::string("If"));
        QCOMPARE(where(dbg), std::string("main / Loop \"Loop_2\" iteration 1 | Identity_4"));
        // The If's result is the iteration's acc: [4, 9] + [2, 3]
        QCOMPARE(floats(dbg.materialize(*dbg.findValue("acc_out"))), (std::vector<float> { 6, 12 }));
        dbg.setBreakpointEnabled(bp.id == 0 ? 1 : bp.id, false);
        s = dbg.stepOut(); // out of the loop body: the Loop node completes
        QCOMPARE(s.lastNode->opType, std::string("Loop"));
        QCOMPARE(where(dbg), std::string("main | <end>"));
        QCOMPARE(dbg.step().reason, StopReason::Finished);
    }

    void breakpointsInsideBodiesFireEveryIterationOrOnlyTheChosenOne()
    {
        Debugger dbg(compile(kLoopWithIf));
        Breakpoint bp;
        bp.kind = Breakpoint::Kind::Node;
        bp.pattern = "Identity_4";
        int id = dbg.addBreakpoint(bp);
        dbg.start(inputs());
        std::vector<std::string> hits;
        for (StopInfo s = dbg.continueRun(); s.reason == StopReason::Breakpoint; s = dbg.continueRun())
            hits.push_back(dbg.session().framePath());
        QCOMPARE(hits.size(), size_t(3));
        QCOMPARE(hits[2], std::string("main / Loop \"Loop_2\" iteration 2"));

        dbg.removeBreakpoint(id);
        bp.iteration = 1;
        dbg.addBreakpoint(bp);
        dbg.reset();
        StopInfo s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::Breakpoint);
        QCOMPARE(dbg.session().framePath(), std::string("main / Loop \"Loop_2\" iteration 1"));
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);

        // A node in the If inside the body is in the body's iteration too: "Add_0 at iteration 2" stops in the then
        // branch of iteration 2 (before, the If's own frame, which is no iteration, never matched).
        Debugger nested(compile(kLoopWithIf));
        Breakpoint add;
        add.kind = Breakpoint::Kind::Node;
        add.pattern = "Add_0";
        add.iteration = 2;
        nested.addBreakpoint(add);
        nested.start(inputs());
        s = nested.continueRun();
        QCOMPARE(s.reason, StopReason::Breakpoint);
        QCOMPARE(
            nested.session().framePath(), std::string("main / Loop \"Loop_2\" iteration 2 / If \"If_3\" then_branch"));
        QCOMPARE(nested.continueRun().reason, StopReason::Finished);
    }

    void everyBreakpointKindReadsTheIterationTheSameWay()
    {
        // The one iteration rule (engine/exec/debug/breakpoint.h): a node in the If inside the body is in the body's
        // iteration, for after-node breakpoints (a condition, a value) as for before-node ones. x = [2, 3]: the then
        // branch (iterations 1 and 2) makes t = acc + x.
        using Kind = Breakpoint::Kind;
        for (const Breakpoint& b : { makeBreakpoint(Kind::Condition, "Add_0", "all x > 0", -1, 2),
                 makeBreakpoint(Kind::Condition, "", "any x > 0", 0, 2), makeBreakpoint(Kind::Value, "t", "", -1, 2),
                 makeBreakpoint(Kind::Value, "t", "max > 0", -1, 2), makeBreakpoint(Kind::OpType, "Add", "", -1, 2) }) {
            Debugger dbg(compile(kLoopWithIf));
            dbg.addBreakpoint(b);
            dbg.start(inputs());
            StopInfo s = dbg.continueRun();
            QVERIFY2(s.reason == StopReason::Breakpoint, b.pattern.c_str());
            // Every stop (the any-node condition stops after each node of the iteration) is in iteration 2.
            for (; s.reason == StopReason::Breakpoint; s = dbg.continueRun())
                QVERIFY2(s.framePath.starts_with("main / Loop \"Loop_2\" iteration 2"), s.framePath.c_str());
            QCOMPARE(s.reason, StopReason::Finished);
        }
        // Iteration 0 runs the else branch: nothing named t, no Add.
        for (const Breakpoint& b : { makeBreakpoint(Kind::Value, "t", "", -1, 0),
                 makeBreakpoint(Kind::Condition, "Add_0", "all x > 0", -1, 0) }) {
            Debugger dbg(compile(kLoopWithIf));
            dbg.addBreakpoint(b);
            dbg.start(inputs());
            QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        }
        QVERIFY_THROWS_EXCEPTION(Error, makeBreakpoint(Kind::Condition, "Add_0", ""));
        QVERIFY_THROWS_EXCEPTION(Error, makeBreakpoint(Kind::Value, "", ""));
        QVERIFY_THROWS_EXCEPTION(Error, makeBreakpoint(Kind::Node, "Add_0", "max > 1"));
        QVERIFY_THROWS_EXCEPTION(Error, parseBreakpointSpec("Add_0: max >>> 1"));
        const Breakpoint spec = parseBreakpointSpec("a:b: any |x| > 3");
        QCOMPARE(spec.pattern, std::string("a:b"));
        QCOMPARE(spec.when->text(), std::string("any |x| > 3"));
    }

    void nonFiniteBreakFiresInsideSubgraphs()
    {
        Debugger dbg(compile(kLoopWithIf));
        Breakpoint nan;
        nan.kind = Breakpoint::Kind::NonFinite;
        dbg.addBreakpoint(nan);
        dbg.start({ { "x", Tensor::vector1D<float>({ 2, std::numeric_limits<float>::infinity() }) } });
        StopInfo s = dbg.continueRun();
        QCOMPARE(s.reason, StopReason::NonFinite);
        QCOMPARE(s.lastNode->opType, std::string("Mul"));
        QCOMPARE(s.framePath, std::string("main / Loop \"Loop_2\" iteration 0 / If \"If_3\" else_branch"));
    }

    void valuesStayInspectablePerIteration()
    {
        Debugger dbg(compile(kLoopWithIf));
        dbg.start(inputs());
        dbg.continueRun();
        std::map<int64_t, std::vector<float>> accByIteration;
        for (const auto& v : dbg.values())
            if (v.name == "acc_out")
                accByIteration[v.iteration] = floats(dbg.materialize(v));
        QCOMPARE(accByIteration.size(), size_t(3));
        QCOMPARE(accByIteration[0], (std::vector<float> { 4, 9 }));
        QCOMPARE(accByIteration[1], (std::vector<float> { 6, 12 }));
        QCOMPARE(accByIteration[2], (std::vector<float> { 8, 15 }));
    }

    void everyRecordedValueNamesTheFrameThatMadeIt()
    {
        // The debugger keeps the last frame's path at hand between nodes: values made in a body, in the If inside it,
        // back in the body and in the main graph must each still name their own frame, in the first run and after a
        // restart (which clears the frames it knew).
        Debugger dbg(compile(kLoopWithIf));
        for (int run = 0; run < 2; ++run) {
            dbg.start(inputs());
            dbg.continueRun();
            QVERIFY(dbg.finished());
            size_t inMain = 0, inBody = 0;
            std::vector<std::string> branchPaths;
            for (const auto& v : dbg.values()) {
                const std::string& path = v.framePath;
                if (v.graph->name() == "agraph") {
                    QCOMPARE(path, std::string("main"));
                    ++inMain;
                } else if (v.graph->name() == "loop_body") {
                    QCOMPARE(path, "main / Loop \"Loop_2\" iteration " + std::to_string(v.iteration));
                    ++inBody;
                } else {
                    // An If's frame is no iteration of its own, but it runs inside one: its values carry that one.
                    QCOMPARE(path.rfind("main / Loop \"Loop_2\" iteration " + std::to_string(v.iteration) + " / If", 0),
                        size_t(0));
                    branchPaths.push_back(path);
                }
            }
            // main: x and the outputs of two Constants and the Loop; each body: its 3 inputs and 5 nodes' outputs; each
            // branch: its one node's output.
            QCOMPARE(inMain, size_t(1 + 2 + 2));
            QCOMPARE(inBody, size_t(3 * (3 + 5)));
            QCOMPARE(branchPaths,
                (std::vector<std::string> { "main / Loop \"Loop_2\" iteration 0 / If \"If_3\" else_branch",
                    "main / Loop \"Loop_2\" iteration 1 / If \"If_3\" then_branch",
                    "main / Loop \"Loop_2\" iteration 2 / If \"If_3\" then_branch" }));
        }
    }

    void iterationRetentionBoundsMemory()
    {
        const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[4] x) => (float[4] out) {
    trip = Constant <value = int64 {1000}> ()
    out = Loop (trip, , x) <body = b (int64 i, bool c, float[4] acc) => (bool c_out, float[4] acc_out) {
        c_out = Identity(c)
        acc_out = Add(acc, acc)
    }>
})";
        auto program = compile(text);
        auto countIn = [](const Debugger& d) {
            size_t n = 0;
            for (const auto& v : d.values())
                n += v.iteration >= 0 ? 1 : 0;
            return n;
        };
        std::map<std::string, Value> in { { "x", Tensor::vector1D<float>({ 1, 0, 0, 0 }) } };
        Debugger all(program);
        all.start(in);
        all.continueRun();
        QVERIFY(countIn(all) >= 1000 * 3);

        DebuggerOptions lastN;
        lastN.iterationRetention = IterationRetention::LastN;
        lastN.keepIterations = 5;
        Debugger some(program, lastN);
        some.start(in);
        some.continueRun();
        QVERIFY(some.finished());
        QVERIFY2(countIn(some) <= 5 * 5, std::to_string(countIn(some)).c_str());
        std::set<int64_t> kept;
        for (const auto& v : some.values())
            if (v.iteration >= 0)
                kept.insert(v.iteration);
        QCOMPARE(kept, (std::set<int64_t> { 995, 996, 997, 998, 999 }));

        DebuggerOptions none;
        none.iterationRetention = IterationRetention::None;
        Debugger few(program, none);
        few.start(in);
        few.continueRun();
        std::set<int64_t> last;
        for (const auto& v : few.values())
            if (v.iteration >= 0)
                last.insert(v.iteration);
        QVERIFY(last.size() <= 1);
        // Same result whatever is kept: 2^1000 overflows float to +Inf in element 0.
        QVERIFY(std::isinf(floats(few.session().outputs().at("out"))[0]));
    }

    void loopIterationLimitIsAnError()
    {
        const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (bool c) => (int64 n) {
    n0 = Constant <value = int64 {0}> ()
    huge = Constant <value = int64 {9223372036854775807}> ()
    n = Loop (huge, c, n0) <body = b (int64 i, bool ci, int64 k) => (bool co, int64 ko) {
        co = Identity(ci)
        ko = Identity(i)
    }>
})";
        SessionOptions options;
        options.limits.maxLoopIterations = 50;
        Session session(compile(text), options);
        try {
            session.run({ { "c", Tensor::scalar<bool>(true) } });
            QFAIL("expected the iteration limit to stop the loop");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("iteration limit of 50") != std::string::npos, e.what());
        }
        // The debugger can step through an endless loop, and a pause request from another thread stops it.
        DebuggerOptions bounded;
        bounded.iterationRetention = IterationRetention::LastN;
        bounded.keepIterations = 2;
        Debugger dbg(compile(text), bounded);
        dbg.start({ { "c", Tensor::scalar<bool>(true) } });
        for (int i = 0; i < 100; ++i) {
            const Node* next = dbg.session().nextNode();
            next && !next->subgraphs.empty() ? dbg.stepInto() : dbg.step();
        }
        QCOMPARE(dbg.session().depth(), size_t(2));
        QVERIFY(!dbg.finished());
        std::thread pauser([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            dbg.requestPause();
        });
        StopInfo s = dbg.continueRun();
        pauser.join();
        QCOMPARE(s.reason, StopReason::Paused);
        int64_t reached = -1;
        for (const auto& v : dbg.values())
            reached = std::max(reached, v.iteration);
        QVERIFY2(reached > 30, dbg.session().framePath().c_str());
        QVERIFY(!dbg.finished());
    }

    void scanStepsAreFrames()
    {
        const std::string text = R"(<ir_version: 8, opset_import: ["" : 16]>
agraph (float[2] init, float[3, 2] xs) => (float[2] sum, float[3, 2] partial) {
    sum, partial = Scan (init, xs) <num_scan_inputs = 1, body = b (float[2] acc, float[2] x) => (float[2] acc_out, float[2] p) {
        acc_out = Add(acc, x)
        p = Identity(acc_out)
    }>
})";
        Debugger dbg(compile(text));
        dbg.start({ { "init", Tensor::vector1D<float>({ 0, 0 }) },
            { "xs", Tensor::fromVector<float>({ 1, 2, 3, 4, 5, 6 }, { 3, 2 }) } });
        dbg.step(); // nothing before Scan: stepInto from start
        dbg.reset();
        StopInfo s = dbg.stepInto();
        QCOMPARE(dbg.session().framePath(), std::string("main / Scan \"Scan_0\" step 0"));
        QVERIFY(s.reason == StopReason::Step);
        dbg.continueRun();
        QCOMPARE(floats(dbg.session().outputs().at("sum")), (std::vector<float> { 9, 12 }));
        QCOMPARE(floats(dbg.session().outputs().at("partial")), (std::vector<float> { 1, 2, 4, 6, 9, 12 }));
    }

    void schemaFunctionBodiesRunAsFramesWhenAKernelIsMissing()
    {
        // HardSwish is defined by onnx as a function (HardSigmoid, Mul); without its kernel the body runs.
        KernelRegistry registry = KernelRegistry::builtin();
        registry.remove("", "HardSwish");
        registry.remove("", "MeanVarianceNormalization");
        auto model = Model::fromText(R"(<ir_version: 8, opset_import: ["" : 14]>
agraph (float[3] x) => (float[3] y) { y = HardSwish (x) })");
        auto program = std::make_shared<Program>(model, registry);
        Debugger dbg(program);
        dbg.start({ { "x", Tensor::vector1D<float>({ -4.0f, 0.5f, 2.0f }) } });
        StopInfo s = dbg.stepInto();
        QCOMPARE(s.reason, StopReason::Step);
        QVERIFY2(dbg.session().framePath().find("function \"HardSwish\"") != std::string::npos,
            dbg.session().framePath().c_str());
        dbg.continueRun();
        QVERIFY(dbg.finished());
        // hardswish(x) = x * max(0, min(1, x / 6 + 0.5))
        auto y = floats(dbg.session().outputs().at("y"));
        const float x[] = { -4.0f, 0.5f, 2.0f };
        for (int i = 0; i < 3; ++i) {
            float expected = x[i] * std::max(0.0f, std::min(1.0f, x[i] / 6.0f + 0.5f));
            QVERIFY2(std::abs(y[i] - expected) < 1e-6f, std::to_string(y[i]).c_str());
        }
        // Attribute defaults come from the schema: MeanVarianceNormalization's axes = [0, 2, 3].
        auto mvn = Model::fromText(R"(<ir_version: 8, opset_import: ["" : 13]>
agraph (float[1, 1, 1, 4] x) => (float[1, 1, 1, 4] y) { y = MeanVarianceNormalization (x) })");
        QVERIFY(Program::unsupportedNodes(*mvn, registry).empty());
        Session session(std::make_shared<Program>(mvn, registry));
        auto out = session.run({ { "x", Tensor::fromVector<float>({ 1, 2, 3, 6 }, { 1, 1, 1, 4 }) } });
        // mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5
        const float values[] = { 1, 2, 3, 6 };
        auto got = floats(out.at("y"));
        for (int i = 0; i < 4; ++i)
            QVERIFY2(std::abs(got[i] - (values[i] - 3.0f) / std::sqrt(3.5f)) < 1e-4f, std::to_string(got[i]).c_str());
    }

    void deepNestingRunsWithoutOverflowingTheStack()
    {
        auto model = nestedIfs(200);
        Session session(std::make_shared<Program>(model));
        auto out = session.run({ { "x", Tensor::vector1D<float>({ 1.5f }) }, { "c", Tensor::scalar<bool>(true) } });
        QCOMPARE(floats(out.at("y0")), (std::vector<float> { 2.5f }));

        Debugger dbg(std::make_shared<Program>(model));
        dbg.start({ { "x", Tensor::vector1D<float>({ 1.5f }) }, { "c", Tensor::scalar<bool>(true) } });
        for (int i = 0; i < 200; ++i)
            dbg.stepInto();
        QCOMPARE(dbg.session().depth(), size_t(201));
        dbg.continueRun();
        QVERIFY(dbg.finished());

        try {
            nestedIfs(300);
            QFAIL("expected a nesting error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("nested more than") != std::string::npos, e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestControlFlow)
#include "test_control_flow.moc"
