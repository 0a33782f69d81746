// SPDX-License-Identifier: MIT
// Value conditions (the GUI's conditional breakpoints and `run --break-when`) through the public API: the syntax,
// what matches and where, and the ConditionWatch observer and the debugger's condition breakpoint that use them.
#include "engine/exec/debug/debugger.h"
#include "engine/exec/observers/output_watch.h"
#include "engine/exec/value_condition.h"

#include <QtTest>

#include <cmath>

using namespace onnxscope;

namespace {

template <class F> std::string errorOf(F&& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

// a = x * w; b = a + w (two outputs through Split); y = b0 / x
const char* kModel = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2, 2] x, float[2, 2] w) => (float[1, 2] y, float[1, 2] b1) {
    a = Mul(x, w)
    s = Add(a, w)
    b0, b1 = Split <axis = 0, num_outputs = 2> (s)
    y = Div(b0, x)
})";

std::map<std::string, Value> inputs()
{
    // a = [[2, -8], [30, 0]], s = [[3, -10], [40, -1]]
    return { { "x", Tensor::fromVector<float>({ 2, 4, 3, 0 }, { 2, 2 }) },
        { "w", Tensor::fromVector<float>({ 1, -2, 10, -1 }, { 2, 2 }) } };
}

std::shared_ptr<const Program> compile()
{
    return std::make_shared<Program>(Model::fromText(kModel));
}

} // namespace

class TestValueCondition : public QObject {
    Q_OBJECT
private slots:
    void syntaxAndMatches()
    {
        const Value v = Tensor::vector1D<float>({ -2e4f, 1, 3 });
        QVERIFY(ValueCondition::parse("any |x| > 1e4").matches(v));
        QVERIFY(ValueCondition::parse("any abs(x) > 1e4").matches(v));
        QVERIFY(!ValueCondition::parse("any x > 1e4").matches(v));
        QVERIFY(ValueCondition::parse("all x < 5").matches(v));
        QVERIFY(!ValueCondition::parse("all x >= 0").matches(v));
        QVERIFY(ValueCondition::parse("  min<-1000 ").matches(v));
        QVERIFY(ValueCondition::parse("max == 3").matches(v));
        QVERIFY(ValueCondition::parse("max = 3").matches(v));
        QVERIFY(ValueCondition::parse("absmax >= 2e4").matches(v));
        QVERIFY(ValueCondition::parse("count != 2").matches(v));
        QVERIFY(ValueCondition::parse("sum < 0").matches(v));
        QVERIFY(!ValueCondition::parse("nan").matches(v));
        QVERIFY(ValueCondition::parse("nonfinite").matches(Value(Tensor::vector1D<float>({ 1, INFINITY }))));
        QVERIFY(!ValueCondition::parse("nan").matches(Value(Tensor::vector1D<float>({ 1, INFINITY }))));
        QCOMPARE(ValueCondition::parse("any |x| > 1e4").text(), std::string("any |x| > 1e4"));
        // Strings, sequences and empty optionals never match; an optional is tested through its tensor.
        QVERIFY(!ValueCondition::parse("any |x| > 0").matches(Value(Tensor::vector1D<std::string>({ "a" }))));
        QVERIFY(!ValueCondition::parse("all x > 0").matches(Value(Tensor::vector1D<std::string>({ "a" }))));
        Sequence seq;
        seq.items.push_back(v);
        QVERIFY(!ValueCondition::parse("any |x| > 1").matches(Value(std::move(seq))));
        QVERIFY(!ValueCondition::parse("any |x| > 1").matches(Value::optional(std::nullopt)));
        QVERIFY(ValueCondition::parse("any |x| > 1").matches(Value::optional(v)));
    }

    void matchSaysWhere()
    {
        const Value v = Tensor::fromVector<float>({ 1, -2e4f, 3, NAN, 5e4f, -INFINITY }, { 2, 3 });
        auto m = ValueCondition::parse("any |x| > 1e4").match(v);
        QVERIFY(m.has_value());
        QCOMPARE(m->index, int64_t(1));
        QCOMPARE(m->description, std::string("-20000 at index [0, 1]"));
        m = ValueCondition::parse("nan").match(v);
        QVERIFY(m && m->index == 3);
        QCOMPARE(m->description, std::string("NaN at index [1, 0]"));
        m = ValueCondition::parse("inf").match(v);
        QVERIFY(m && m->index == 5);
        QCOMPARE(m->description, std::string("-Inf at index [1, 2]"));
        m = ValueCondition::parse("max > 4e4").match(v);
        QVERIFY(m && m->index == -1);
        QCOMPARE(m->description, std::string("max = 50000"));
        m = ValueCondition::parse("all x > 0").match(Value(Tensor::vector1D<float>({ 1, 2 })));
        QVERIFY(m && m->index == -1);
        QCOMPARE(m->description, std::string("all 2 elements"));
    }

    void parseErrorsSayWhatWasExpected()
    {
        const std::string unknown = errorOf([] { ValueCondition::parse("x is big"); });
        QVERIFY2(
            unknown.find("condition \"x is big\" not understood; write e.g. \"any |x| > 1e4\"") != std::string::npos,
            unknown.c_str());
        const std::string number = errorOf([] { ValueCondition::parse("max > 1e4e"); });
        QVERIFY2(number.find("\"1e4e\" is not a number") != std::string::npos, number.c_str());
    }

    void watchStopsOnTheFirstOutputMet()
    {
        ConditionWatch watch;
        watch.add("Add_1: any x < -3");
        watch.add("  Split_2 :  max > 35 ");
        QCOMPARE(watch.nodeNames(), (std::vector<std::string> { "Add_1", "Split_2" }));
        Session session(compile());
        session.addObserver(&watch);
        session.start(inputs());
        while (session.state() == Session::State::Running && !watch.hit())
            session.advance();
        QVERIFY(watch.hit().has_value());
        const OutputHit& hit = *watch.hit();
        QCOMPARE(hit.node, std::string("node \"Add_1\" (Add)"));
        QCOMPARE(hit.nodePath, std::string("main / Add_1"));
        QCOMPARE(hit.valueName, std::string("s"));
        QCOMPARE(hit.valueType, std::string("float[2, 2]"));
        QCOMPARE(hit.index, int64_t(1));
        QCOMPARE(hit.description, std::string("-10 at index [0, 1]"));
        QCOMPARE(watch.metCondition(), std::string("any x < -3"));
        // It stopped there: Split has not run.
        QVERIFY(session.nextNode() && session.nextNode()->opType == "Split");
    }

    void watchTestsEveryOutputAndEveryNodeWithoutAName()
    {
        ConditionWatch split;
        split.add("Split_2: max > 35");
        ConditionWatch anyNode;
        anyNode.add("any |x| >= 30");
        ConditionWatch never;
        never.add("Mul_0: nan");
        QVERIFY_THROWS_EXCEPTION(Error, never.add("Mul_0: x is big"));
        Session session(compile());
        session.addObserver(&split);
        session.addObserver(&anyNode);
        session.addObserver(&never);
        session.run(inputs());
        QVERIFY(split.hit() && split.hit()->output == 1 && split.hit()->valueName == "b1");
        QCOMPARE(split.hit()->description, std::string("max = 40"));
        QVERIFY(anyNode.hit() && anyNode.hit()->nodePath == "main / Mul_0");
        QCOMPARE(anyNode.hit()->description, std::string("30 at index [1, 0]"));
        QVERIFY(!never.hit());
    }

    void debuggerConditionBreakpointOnOneOutput()
    {
        // As the GUI, the CLI and Python build it (makeBreakpoint): a condition on output 1 of Split only.
        for (const int output : { 0, 1 }) {
            Debugger dbg(compile());
            dbg.addBreakpoint(makeBreakpoint(Breakpoint::Kind::Condition, "Split_2", "any x > 35", output));
            dbg.start(inputs());
            const StopInfo stop = dbg.continueRun();
            if (output == 1) {
                QCOMPARE(stop.reason, StopReason::Breakpoint);
                QCOMPARE(stop.lastNode->opType, std::string("Split"));
                QCOMPARE(stop.message, std::string("breakpoint 1 (condition on Split_2) after main / Split_2"));
            } else {
                QCOMPARE(stop.reason, StopReason::Finished);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestValueCondition)
#include "test_value_condition.moc"
