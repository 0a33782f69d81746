// SPDX-License-Identifier: MIT
// Model loading and planning: every defect is an Error that names the file, node, value or attribute.
#include "engine/exec/program.h"
#include "engine/exec/session.h"

#include <onnx/onnx_pb.h>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <random>

using namespace onnxscope;

namespace {

std::string errorOf(const std::function<void()>& fn)
{
    try {
        fn();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

#define QVERIFY_ERROR_CONTAINS(call, fragment)                                                                         \
    do {                                                                                                               \
        std::string message_ = errorOf([&] { call; });                                                                 \
        QVERIFY2(!message_.empty(), "expected an Error");                                                              \
        QVERIFY2(message_.find(fragment) != std::string::npos, message_.c_str());                                      \
    } while (false)

std::string serialized(const onnx::ModelProto& m)
{
    std::string s;
    m.SerializeToString(&s);
    return s;
}

onnx::ModelProto chainModel()
{
    onnx::ModelProto m;
    m.set_ir_version(8);
    auto* op = m.add_opset_import();
    op->set_domain("");
    op->set_version(17);
    auto* g = m.mutable_graph();
    g->set_name("g");
    auto* in = g->add_input();
    in->set_name("x");
    in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    g->add_output()->set_name("z");
    auto add = [&](const char* name, const char* opType, std::vector<std::string> ins, const char* out) {
        auto* n = g->add_node();
        n->set_name(name);
        n->set_op_type(opType);
        for (auto& i : ins)
            n->add_input(i);
        n->add_output(out);
        return n;
    };
    // Written out of order on purpose: the loader sorts topologically.
    add("second", "Mul", { "y", "x" }, "z");
    add("first", "Add", { "x", "x" }, "y");
    return m;
}

} // namespace

class TestModelLoading : public QObject {
    Q_OBJECT
private slots:
    void sortsNodesTopologically()
    {
        auto model = Model::fromBytes(serialized(chainModel()), ".", "chain.onnx");
        const auto& nodes = model->graph().nodes();
        QCOMPARE(nodes.size(), size_t(2));
        QCOMPARE(nodes[0].name, std::string("first"));
        QCOMPARE(nodes[1].name, std::string("second"));
        QCOMPARE(model->opset(""), int64_t(17));
        Session s(std::make_shared<Program>(model));
        auto out = s.run({ { "x", Tensor::vector1D<float>({ 3 }) } });
        QCOMPARE(out.at("z").tensor().data<float>()[0], 18.0f); // (3 + 3) * 3
    }

    void matchesDisplayNamesWithoutBuildingThem()
    {
        Node named;
        named.id = 17;
        named.name = "encoder/layer_17/add";
        named.opType = "Add";
        Node unnamed = named;
        unnamed.name.clear();
        const std::vector<std::string> candidates { "encoder/layer_17/add", "Add_17", "Add_017", "Add_1", "Add_170",
            "Add_", "Add17", "Ad_17", "Add_+17", "Add_-17", "", "encoder/layer_17/ad" };
        for (const Node* node : { &named, &unnamed })
            for (const auto& candidate : candidates)
                QVERIFY2(node->hasDisplayName(candidate) == (node->displayName() == candidate),
                    qPrintable(QString::fromStdString(node->displayName() + " against " + candidate)));
        QVERIFY(unnamed.hasDisplayName("Add_17"));
        Node first = unnamed;
        first.id = 0;
        QVERIFY(first.hasDisplayName("Add_0"));
        QVERIFY(!first.hasDisplayName("Add_00"));
    }

    void refusesMalformedFiles()
    {
        QVERIFY_ERROR_CONTAINS(Model::fromBytes("", ".", "empty.onnx"), "\"empty.onnx\" is empty");
        std::string bytes = serialized(chainModel());
        QVERIFY_ERROR_CONTAINS(Model::fromBytes(bytes.substr(0, bytes.size() / 2), ".", "cut.onnx"), "\"cut.onnx\"");
        std::mt19937 rng(7);
        for (int trial = 0; trial < 200; ++trial) {
            std::string junk(static_cast<size_t>(rng() % 512 + 1), '\0');
            for (auto& c : junk)
                c = static_cast<char>(rng());
            std::string message = errorOf([&] { Model::fromBytes(junk, ".", "junk.onnx"); });
            // Random bytes occasionally parse as a (graphless) message; either way it must be an Error.
            QVERIFY2(message.find("junk.onnx") != std::string::npos, message.c_str());
        }
        // Flipping bytes of a valid model never crashes either.
        for (int trial = 0; trial < 300; ++trial) {
            std::string mutated = bytes;
            for (int k = 0; k < 3; ++k)
                mutated[rng() % mutated.size()] = static_cast<char>(rng());
            try {
                auto m = Model::fromBytes(mutated, ".", "mutated.onnx");
                Program p(m);
            } catch (const Error&) {
            }
        }
        QVERIFY_ERROR_CONTAINS(Model::load("/nonexistent/model.onnx"), "/nonexistent/model.onnx");
        QTemporaryDir dir;
        QVERIFY_ERROR_CONTAINS(Model::load(dir.path().toStdString()), "is a folder");
    }

    void reportsCyclesByName()
    {
        auto m = chainModel();
        m.mutable_graph()->mutable_node(1)->set_input(0, "z"); // first reads second's output
        QVERIFY_ERROR_CONTAINS(Model::fromBytes(serialized(m), ".", "cycle.onnx"), "cycle");
        std::string message = errorOf([&] { Model::fromBytes(serialized(m), ".", "cycle.onnx"); });
        QVERIFY2(message.find("\"first\"") != std::string::npos && message.find("\"second\"") != std::string::npos,
            message.c_str());
    }

    void reportsUndefinedInputsAndDuplicateProducers()
    {
        auto m = chainModel();
        m.mutable_graph()->mutable_node(0)->set_input(1, "nowhere");
        QVERIFY_ERROR_CONTAINS(Model::fromBytes(serialized(m), ".", "u.onnx"),
            "node \"second\" (Mul) reads \"nowhere\", which no node, graph input or initializer defines");
        m = chainModel();
        m.mutable_graph()->mutable_node(1)->set_output(0, "z");
        QVERIFY_ERROR_CONTAINS(Model::fromBytes(serialized(m), ".", "d.onnx"),
            "node \"first\" (Add) produces \"z\", which node \"second\" (Mul) already produces");
        m = chainModel();
        m.mutable_graph()->mutable_output(0)->set_name("ghost");
        QVERIFY_ERROR_CONTAINS(Model::fromBytes(serialized(m), ".", "o.onnx"), "output \"ghost\" is not produced");
    }

    void reportsAMissingOpsetImport()
    {
        auto m = chainModel();
        m.mutable_graph()->mutable_node(0)->set_domain("com.example");
        QVERIFY_ERROR_CONTAINS(Model::fromBytes(serialized(m), ".", "op.onnx"),
            "uses domain \"com.example\", which the model does not import");
    }

    void reportsUnsupportedOpsBeforeRunning()
    {
        auto m = chainModel();
        auto* imp = m.add_opset_import();
        imp->set_domain("com.example");
        imp->set_version(3);
        m.mutable_graph()->mutable_node(0)->set_domain("com.example");
        m.mutable_graph()->mutable_node(0)->set_op_type("Frobnicate");
        auto model = Model::fromBytes(serialized(m), ".", "unsupported.onnx");
        auto unsupported = Program::unsupportedNodes(*model);
        QCOMPARE(unsupported.size(), size_t(1));
        QCOMPARE(unsupported[0],
            std::string("node \"second\" (Frobnicate, domain \"com.example\", opset 3); no version of Frobnicate has a "
                        "kernel"));
        QVERIFY_ERROR_CONTAINS(
            Program { model }, "node \"second\" (Frobnicate, domain \"com.example\", opset 3) is not supported");
    }

    void validatesAttributesAtPlanTime()
    {
        auto model = Model::fromText(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2] x) => (float[2] y) { y = Softmax <axis = 1.5> (x) })");
        QVERIFY_ERROR_CONTAINS(
            Program { model }, "node \"Softmax_0\" (Softmax), attribute 'axis': expected int, got float");
    }

    void namesTheNodeWhoseElementTypeItsKernelDoesNotRun()
    {
        // The kernels build the node's label only when they refuse a type; the message is the same as ever.
        auto neg = std::make_shared<Program>(Model::fromText(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (uint32[2] x) => (uint32[2] y) { y = Neg (x) })"));
        Session negSession(neg);
        QVERIFY_ERROR_CONTAINS(negSession.run({ { "x", Value(Tensor::fromVector<uint32_t>({ 1, 2 }, { 2 })) } }),
            "node \"Neg_0\" (Neg): element type uint32 is not supported");
        auto pow = std::make_shared<Program>(Model::fromText(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2] x, bool[2] e) => (float[2] y) { y = Pow (x, e) })"));
        Session powSession(pow);
        QVERIFY_ERROR_CONTAINS(powSession.run({ { "x", Value(Tensor::fromVector<float>({ 1, 2 }, { 2 })) },
                                   { "e", Value(Tensor::fromVector<bool>({ true, false }, { 2 })) } }),
            "node \"Pow_0\" (Pow), exponent: element type bool is not supported");
    }

    void refusesInitializersWithBadData()
    {
        auto m = chainModel();
        auto* init = m.mutable_graph()->add_initializer();
        init->set_name("w");
        init->set_data_type(onnx::TensorProto::FLOAT);
        init->add_dims(4);
        init->set_raw_data(std::string(8, '\0')); // 2 floats for 4
        m.mutable_graph()->mutable_node(0)->set_input(1, "w");
        auto model = Model::fromBytes(serialized(m), ".", "short.onnx");
        QVERIFY_ERROR_CONTAINS(Program { model }, "tensor \"w\": raw_data has 8 bytes but float[4] needs 16");

        init->clear_raw_data();
        init->set_dims(0, -3);
        QVERIFY_ERROR_CONTAINS(Model::fromBytes(serialized(m), ".", "neg.onnx"), "\"w\" has a negative dimension");

        init->set_dims(0, 1000000000000000LL);
        init->add_dims(1000000);
        auto huge = Model::fromBytes(serialized(m), ".", "huge.onnx");
        std::string message = errorOf([&] { Program p(huge); });
        QVERIFY2(message.find("\"w\"") != std::string::npos, message.c_str());
    }

    void runsModelLocalFunctions()
    {
        auto model = Model::fromText(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
agraph (float[2] x) => (float[2] y) {
    y = local.Square2(x)
}
<domain: "local", opset_import: ["" : 17]>
Square2 (a) => (b) {
    sq = Mul(a, a)
    b = Add(sq, sq)
})");
        Session s(std::make_shared<Program>(model));
        auto out = s.run({ { "x", Tensor::vector1D<float>({ 3, -2 }) } });
        auto d = out.at("y").tensor().data<float>();
        QCOMPARE(d[0], 18.0f);
        QCOMPARE(d[1], 8.0f);
        QVERIFY(model->graph().nodes()[0].functionBody != nullptr);
        QCOMPARE(model->graph().totalNodeCount(), size_t(3));
    }

    void functionExpansionIsBoundedByTheConfigurableLimit()
    {
        // Twice calls Inner twice, Inner holds two nodes: each Twice call site instantiates 2 + 2 * 2 = 6 nodes.
        const std::string text = R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
agraph (float[2] x) => (float[2] y) {
    t = local.Twice(x)
    y = local.Twice(t)
}
<domain: "local", opset_import: ["" : 17, "local" : 1]>
Inner (a) => (b) {
    s = Add(a, a)
    b = Neg(s)
}
<domain: "local", opset_import: ["" : 17, "local" : 1]>
Twice (a) => (b) {
    m = local.Inner(a)
    b = local.Inner(m)
})";
        const size_t saved = Model::functionNodeLimit();
        QCOMPARE(saved, size_t(100'000));
        auto model = Model::fromText(text);
        QCOMPARE(model->graph().totalNodeCount(), size_t(2 + 2 * 6));
        Model::setFunctionNodeLimit(8);
        const std::string error = errorOf([&] { Model::fromText(text); });
        Model::setFunctionNodeLimit(saved);
        QVERIFY2(
            error.find("its model-local functions expand to more than 8 nodes") != std::string::npos, error.c_str());
        // x -> -(x + x) -> -(-2x - 2x) = 4x -> twice more: 16x.
        Session s(std::make_shared<Program>(model));
        auto out = s.run({ { "x", Tensor::vector1D<float>({ 1, -0.5f }) } });
        QCOMPARE(out.at("y").tensor().data<float>()[0], 16.0f);
        QCOMPARE(out.at("y").tensor().data<float>()[1], -8.0f);
    }

    void outerScopeValuesReachSubgraphs()
    {
        auto model = Model::fromText(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (bool c, float[2] x) => (float[2] y) {
    k = Add(x, x)
    y = If (c) <then_branch = t () => (float[2] a) { a = Mul(k, x) }, else_branch = e () => (float[2] b) { b = Sub(k, x) }>
})");
        const Node& ifNode = model->graph().nodes()[1];
        QCOMPARE(ifNode.implicitInputs.size(), size_t(2)); // k and x
        Session s(std::make_shared<Program>(model));
        auto out = s.run({ { "c", Tensor::scalar<bool>(true) }, { "x", Tensor::vector1D<float>({ 1, 2 }) } });
        QCOMPARE(out.at("y").tensor().data<float>()[1], 8.0f); // (2 + 2) * 2
    }

    void diagnosticsDoNotBlockRunning()
    {
        auto m = chainModel();
        m.mutable_graph()->mutable_node(0)->add_attribute()->set_name("bogus"); // the checker complains
        auto model = Model::fromBytes(serialized(m), ".", "diag.onnx");
        auto diags = model->diagnostics();
        QVERIFY(!diags.empty());
        Session s(std::make_shared<Program>(model));
        auto out = s.run({ { "x", Tensor::vector1D<float>({ 1 }) } });
        QCOMPARE(out.at("z").tensor().data<float>()[0], 2.0f);
    }
};

QTEST_APPLESS_MAIN(TestModelLoading)
#include "test_model_loading.moc"
