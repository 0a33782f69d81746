// SPDX-License-Identifier: MIT
// What a debug run costs beyond the outputs themselves (the hook path allocates nothing per node beyond
// the outputs). Every operator new of the process is counted; a 300-node chain is run plain and through the
// Debugger (every value kept), in the main graph and inside an If branch, and the allocations per node are compared
// with the allocations an output costs (its storage, which shares a block with its shared_ptr's control block and its
// shape, and the shape's elements).
#include "engine/core/sanitizer.h"
#include "engine/exec/debug/debugger.h"
#include "engine/exec/session.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> g_allocations { 0 };
}

void* operator new(std::size_t size)
{
    ++g_allocations;
    if (void* p = std::malloc(size ? size : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}

using namespace onnxscope;

namespace {

constexpr int kNodes = 300;

/// A chain of kNodes Add nodes over float[8] values, with node and value names like exported ones
/// ("encoder/layer_17/add", "layer_17_add_output": past the short-string buffer), as a main graph or inside the
/// then-branch of an If.
std::shared_ptr<Program> chain(bool inIf)
{
    std::string body;
    std::string prev = "x";
    for (int i = 0; i < kNodes; ++i) {
        const std::string out = i + 1 == kNodes ? (inIf ? "t_out" : "y") : "layer_" + std::to_string(i) + "_add_output";
        body += "  " + out + " = Add(" + prev + ", c)\n";
        prev = out;
    }
    std::string text
        = "<ir_version: 8, opset_import: [\"\" : 14]>\nagraph (float[8] x, float[8] c, bool b) => (float[8] y) {\n";
    if (inIf)
        text += "  y = If(b) <then_branch = then_graph () => (float[8] t_out) {\n" + body
            + "  }, else_branch = else_graph () => (float[8] e_out) {\n  e_out = Identity(x)\n  }>\n}";
    else
        text += body + "}";
    auto proto = std::make_unique<onnx::ModelProto>();
    if (!onnx::OnnxParser::Parse(*proto, text.c_str()).IsOK())
        throw Error("the chain does not parse");
    onnx::GraphProto* graph = proto->mutable_graph();
    if (inIf)
        graph = graph->mutable_node(0)->mutable_attribute(0)->mutable_g();
    for (int i = 0; i < graph->node_size(); ++i)
        graph->mutable_node(i)->set_name("encoder/layer_" + std::to_string(i) + "/add");
    return std::make_shared<Program>(Model::fromProto(std::move(proto), {}, "chain"));
}

std::map<std::string, Value> inputs()
{
    return { { "x", Value(Tensor::fromVector<float>({ 1, 2, 3, 4, 5, 6, 7, 8 }, { 8 })) },
        { "c", Value(Tensor::fromVector<float>({ 1, 1, 1, 1, 1, 1, 1, 1 }, { 8 })) },
        { "b", Value(Tensor::scalar<bool>(true)) } };
}

/// Allocations per node of a plain run and of a debug run (second run of each, so that buffers have grown).
std::pair<double, double> allocationsPerNode(const std::shared_ptr<Program>& program)
{
    const auto in = inputs();
    Session session(program);
    session.run(in);
    long before = g_allocations;
    session.run(in);
    const double plain = double(g_allocations - before) / kNodes;

    // Breakpoints that every node is checked against and none matches.
    Debugger debugger(program);
    debugger.addBreakpoint({ 0, Breakpoint::Kind::Node, "encoder/layer_9999/add" });
    debugger.addBreakpoint({ 0, Breakpoint::Kind::OpType, "Conv" });
    debugger.addBreakpoint({ 0, Breakpoint::Kind::NonFinite });
    debugger.start(in);
    debugger.continueRun();
    debugger.start(in);
    before = g_allocations;
    debugger.continueRun();
    const double debug = double(g_allocations - before) / kNodes;
    if (!debugger.finished())
        qWarning("debug run did not finish: %s", debugger.lastStop().message.c_str());
    return { plain, debug };
}

} // namespace

class TestDebugOverhead : public QObject {
    Q_OBJECT

private slots:
    void debugRunsAllocateOnlyTheOutputs()
    {
        for (bool inIf : { false, true }) {
            std::pair<double, double> counts;
            try {
                counts = allocationsPerNode(chain(inIf));
            } catch (const Error& e) {
                QFAIL(e.what());
            }
            const auto [plain, debug] = counts;
            qInfo("%s: %.2f allocations per node in a plain run, %.2f in a debug run",
                inIf ? "If branch" : "main graph", plain, debug);
            // A plain run writes each Add over its dying input; a debug run keeps every output, so it allocates each
            // one: its storage (one block with the shared_ptr's control block and the shape) and the shape's elements,
            // 2. Outside sanitized builds the block comes from the ones the previous run's values left in the
            // thread's small-block cache, so only the shape's elements, which a plain run frees node by node, are
            // new: 1. Nothing else per node:
            // the recorded value's name is a view of the graph's and its frame path is shared by the frame's values
            // (both past the short-string buffer here), there are no path strings for events and no per-node vectors,
            // and the recorded values and frames take blocks kept from earlier runs (SpareVectors).
            const double allowed = ONNXSCOPE_ASAN ? 2.05 : 1.05;
            QVERIFY2(debug <= plain + allowed,
                qPrintable(QString("debug: %1 allocations per node, plain %2").arg(debug).arg(plain)));
        }
    }
};

QTEST_APPLESS_MAIN(TestDebugOverhead)
#include "test_debug_overhead.moc"
