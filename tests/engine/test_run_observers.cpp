// SPDX-License-Identifier: MIT
// The engine's run observers through their public API: trace lines, profile (calls, self time, the report), the
// NaN/Inf watch shared with the debugger's non-finite breakpoint, node counting and value keeping.
#include "engine/exec/debug/debugger.h"
#include "engine/exec/observers/count_observer.h"
#include "engine/exec/observers/keep_observer.h"
#include "engine/exec/observers/output_watch.h"
#include "engine/exec/observers/profile_observer.h"
#include "engine/exec/observers/trace_observer.h"
#include "tests/common/test_models.h"

#include <QtTest>

#include <regex>
#include <sstream>

using namespace onnxscope;
using onnxscope::testing::kLoopWithIf;

namespace {

// zero = a - a; ratio = zero / b (NaN where b is 0, Inf nowhere); e = ratio + a
const char* kNan = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2, 2] a, float[2, 2] b) => (float[2, 2] e) {
    zero = Sub(a, a)
    ratio = Div(zero, b)
    e = Add(ratio, a)
})";

std::shared_ptr<const Program> compile(const char* text)
{
    return std::make_shared<Program>(Model::fromText(text));
}

std::map<std::string, Value> loopInputs()
{
    return { { "x", Tensor::vector1D<float>({ 2, 3 }) } };
}

std::map<std::string, Value> nanInputs()
{
    Tensor a = Tensor::vector1D<float>({ 1, 2, 3, 4 }).reshaped({ 2, 2 });
    Tensor b = Tensor::vector1D<float>({ 1, 2, 0, 4 }).reshaped({ 2, 2 });
    return { { "a", a }, { "b", b } };
}

const NodeTiming* find(const std::vector<NodeTiming>& timings, const std::string& opType)
{
    for (const NodeTiming& t : timings)
        if (t.graph->node(t.node).opType == opType)
            return &t;
    return nullptr;
}

} // namespace

class TestRunObservers : public QObject {
    Q_OBJECT
private slots:
    void traceWritesOneLinePerNode()
    {
        std::ostringstream out;
        TraceObserver trace(out);
        CountObserver count;
        Session session(compile(kLoopWithIf));
        session.addObserver(&trace);
        session.addObserver(&count);
        session.run(loopInputs());
        // 3 main nodes, 5 per iteration (Identity, Constant, Greater, If, Identity) and the If's branch node.
        QCOMPARE(count.nodes(), size_t(3 + 3 * 6));
        QCOMPARE(trace.lines(), count.nodes());
        std::vector<std::string> lines;
        std::istringstream in(out.str());
        for (std::string line; std::getline(in, line);)
            lines.push_back(line);
        QCOMPARE(lines.size(), count.nodes());
        const std::regex format(R"(\[trace\] main( / .+)? \| \w+ \| \w+ \| [^|]+ \| \d+\.\d{3} ms)");
        for (const auto& line : lines)
            QVERIFY2(std::regex_match(line, format), line.c_str());
        QVERIFY(std::regex_match(
            lines.front(), std::regex(R"(\[trace\] main \| Constant \| Constant_0 \| int64\[\] \| .*)")));
        QVERIFY(std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
            return l.rfind("[trace] main / Loop \"Loop_2\" iteration 1 / If \"If_3\" then_branch | Add | ", 0) == 0;
        }) != lines.end());
        QVERIFY(lines.back().rfind("[trace] main | Loop | Loop_2 | float[2]; float[3, 2] | ", 0) == 0);
    }

    void traceMarksTheFailedNode()
    {
        std::ostringstream out;
        TraceObserver trace(out);
        Session session(compile(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2] x, int64[1] shape) => (float[3] y) {
    y = Reshape(x, shape)
})"));
        session.addObserver(&trace);
        QVERIFY_THROWS_EXCEPTION(Error,
            session.run({ { "x", Tensor::vector1D<float>({ 1, 2 }) }, { "shape", Tensor::vector1D<int64_t>({ 3 }) } }));
        QCOMPARE(out.str(), std::string("[trace] main | Reshape | Reshape_0 | FAILED | -\n"));
        QCOMPARE(trace.lines(), size_t(1));
    }

    void profileCountsCallsAndSelfTime()
    {
        ProfileObserver profile(true);
        Session session(compile(kLoopWithIf));
        session.addObserver(&profile);
        session.run(loopInputs());
        session.run(loopInputs());
        const auto timings = profile.timings();
        QCOMPARE(timings.size(), size_t(3 + 5 + 2)); // main, body, then and else branch nodes
        const NodeTiming* loop = find(timings, "Loop");
        const NodeTiming* greater = find(timings, "Greater");
        const NodeTiming* add = find(timings, "Add");
        const NodeTiming* mul = find(timings, "Mul");
        QVERIFY(loop && greater && add && mul);
        QCOMPARE(loop->calls, int64_t(2));
        QCOMPARE(greater->calls, int64_t(6));
        QCOMPARE(add->calls, int64_t(4)); // iterations 1 and 2 of both runs
        QCOMPARE(mul->calls, int64_t(2));
        QCOMPARE(greater->self, greater->total);
        // The Loop's self time is its total without its body's nodes (which hold the If's, in turn).
        std::chrono::nanoseconds body { 0 };
        for (const NodeTiming& t : timings)
            if (t.graph == greater->graph)
                body += t.total;
        QVERIFY(loop->self.count() >= 0);
        QVERIFY(loop->self == std::chrono::nanoseconds(0) || loop->self + body == loop->total);
        // The main graph's time is its nodes' total.
        std::chrono::nanoseconds main { 0 };
        for (const NodeTiming& t : timings)
            if (t.graph == loop->graph)
                main += t.total;
        QCOMPARE(profile.mainGraphTime(), main);
        // First-run order: the main graph's constants, then the body as it ran, the Loop when it completed.
        QCOMPARE(timings.front().graph->node(timings.front().node).opType, std::string("Constant"));
        QCOMPARE(timings.back().graph->node(timings.back().node).opType, std::string("Loop"));

        std::ostringstream report;
        profile.printReport(report, 2);
        const std::string text = report.str();
        QVERIFY2(text.rfind("profile over 2 runs, ", 0) == 0, text.c_str());
        QVERIFY2(text.find("  Add  main / Loop \"Loop_2\" iteration * / If \"If_3\" then_branch / Add_0\n")
                != std::string::npos,
            text.c_str());
        QVERIFY2(text.find("per op type (self time):\n") != std::string::npos, text.c_str());
        QVERIFY2(std::regex_search(text, std::regex(R"(\n +\d+\.\d{3} +\d+\.\d +6  Greater\n)")), text.c_str());

        profile.clear();
        QVERIFY(profile.timings().empty());
        QCOMPARE(profile.mainGraphTime(), std::chrono::nanoseconds(0));
    }

    void nonFiniteWatchNamesNodeOutputAndIndex()
    {
        NonFiniteWatch watch;
        Session session(compile(kNan));
        session.addObserver(&watch);
        session.run(nanInputs());
        QVERIFY(watch.hit().has_value());
        const OutputHit& hit = *watch.hit();
        QCOMPARE(hit.node, std::string("node \"Div_1\" (Div)"));
        QCOMPARE(hit.nodePath, std::string("main / Div_1"));
        QCOMPARE(hit.output, size_t(0));
        QCOMPARE(hit.valueName, std::string("ratio"));
        QCOMPARE(hit.valueType, std::string("float[2, 2]"));
        QCOMPARE(hit.index, int64_t(2));
        QCOMPARE(hit.description, std::string("NaN at index [1, 0]"));

        // The debugger's non-finite breakpoint stops on the same output, with its own message.
        Debugger dbg(compile(kNan));
        Breakpoint b;
        b.kind = Breakpoint::Kind::NonFinite;
        dbg.addBreakpoint(b);
        dbg.start(nanInputs());
        const StopInfo stop = dbg.continueRun();
        QCOMPARE(stop.reason, StopReason::NonFinite);
        QCOMPARE(stop.message, std::string("main / Div_1 produced NaN at index [1, 0] in output 0 (\"ratio\")"));
        QCOMPARE(stop.lastNode->opType, std::string("Div"));
    }

    void nonFiniteWatchStaysQuietOnFiniteRuns()
    {
        NonFiniteWatch watch;
        Session session(compile(kLoopWithIf));
        session.addObserver(&watch);
        session.run(loopInputs());
        QVERIFY(!watch.hit().has_value());
    }

    void keepObserverHoldsEveryOutput()
    {
        KeepObserver keep;
        Session session(compile(kNan));
        session.addObserver(&keep);
        session.run(nanInputs());
        QCOMPARE(keep.count(), size_t(3));
        keep.clear();
        QCOMPARE(keep.count(), size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestRunObservers)
#include "test_run_observers.moc"
