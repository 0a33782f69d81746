// SPDX-License-Identifier: MIT
// The neutral views of a model that the GUI and the CLI read instead of protobuf: attributes, initializers, doc
// strings, model metadata and model-local functions.
#include "engine/model/model.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

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

std::unique_ptr<onnx::ModelProto> parse(const char* text)
{
    auto proto = std::make_unique<onnx::ModelProto>();
    const auto status = onnx::OnnxParser::Parse(*proto, text);
    if (!status.IsOK())
        qFatal("cannot parse the test model: %s", status.ErrorMessage().c_str());
    return proto;
}

onnx::GraphProto negGraph(const std::string& name, int nodes)
{
    onnx::GraphProto g;
    g.set_name(name);
    g.add_input()->set_name("a");
    std::string last = "a";
    for (int i = 0; i < nodes; ++i) {
        auto* n = g.add_node();
        n->set_op_type("Neg");
        n->add_input(last);
        last = name + "_" + std::to_string(i);
        n->add_output(last);
    }
    g.add_output()->set_name(last);
    return g;
}

void setFloatTensor(onnx::TensorProto& t, std::vector<int64_t> dims, const std::vector<float>& values)
{
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
        t.add_dims(d);
    for (float v : values)
        t.add_float_data(v);
}

const Attribute& find(const std::vector<Attribute>& attributes, const std::string& name)
{
    for (const Attribute& a : attributes)
        if (a.name() == name)
            return a;
    qFatal("no attribute %s", name.c_str());
}

} // namespace

class TestModelViews : public QObject {
    Q_OBJECT
private slots:
    void attributesOfEveryKindReadAsTheFileWritesThem()
    {
        auto proto = parse(R"(<ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
agraph (float[2] x) => (float[2] y) {
    y = com.example.Everything <f = 1.5, i = -3, s = "text", fs = [0.5, 2.0], is = [1, 2, 3], ss = ["a", "b"],
                                t = float[2] {1.0, 2.0}, g = body (float[2] a) => (float[2] b) { b = Neg(a) }> (x)
})");
        onnx::NodeProto& node = *proto->mutable_graph()->mutable_node(0);
        node.set_doc_string("does everything");
        proto->mutable_graph()->set_doc_string("the main graph");
        auto* ts = node.add_attribute();
        ts->set_name("ts");
        ts->set_type(onnx::AttributeProto::TENSORS);
        setFloatTensor(*ts->add_tensors(), { 1 }, { 1 });
        setFloatTensor(*ts->add_tensors(), { 1 }, { 2 });
        auto* gs = node.add_attribute();
        gs->set_name("gs");
        gs->set_type(onnx::AttributeProto::GRAPHS);
        *gs->add_graphs() = negGraph("first", 1);
        *gs->add_graphs() = negGraph("second", 2);
        auto* sp = node.add_attribute();
        sp->set_name("sp");
        sp->set_type(onnx::AttributeProto::SPARSE_TENSOR);
        sp->mutable_sparse_tensor()->add_dims(3);
        sp->mutable_sparse_tensor()->add_dims(4);
        auto* tp = node.add_attribute();
        tp->set_name("tp");
        tp->set_type(onnx::AttributeProto::TYPE_PROTO);
        auto* tensorType = tp->mutable_tp()->mutable_tensor_type();
        tensorType->set_elem_type(onnx::TensorProto::INT64);
        tensorType->mutable_shape()->add_dim()->set_dim_value(2);
        tensorType->mutable_shape()->add_dim()->set_dim_param("N");
        auto* ref = node.add_attribute();
        ref->set_name("r");
        ref->set_ref_attr_name("alpha");

        auto model = Model::fromProto(std::move(proto), ".", "<everything>");
        const Node& n = model->graph().nodes().at(0);
        QCOMPARE(n.docString(), std::string("does everything"));
        QCOMPARE(model->graph().docString(), std::string("the main graph"));
        const std::vector<Attribute> attributes = n.attributeList();
        std::vector<std::string> names;
        for (const Attribute& a : attributes)
            names.push_back(a.name());
        QCOMPARE(names,
            (std::vector<std::string> { "f", "i", "s", "fs", "is", "ss", "t", "g", "ts", "gs", "sp", "tp", "r" }));

        QCOMPARE(find(attributes, "f").type(), AttributeType::Float);
        QCOMPARE(find(attributes, "f").floatValue(), 1.5f);
        QCOMPARE(find(attributes, "i").type(), AttributeType::Int);
        QCOMPARE(find(attributes, "i").intValue(), int64_t(-3));
        QCOMPARE(find(attributes, "s").type(), AttributeType::String);
        QCOMPARE(find(attributes, "s").stringValue(), std::string("text"));
        QCOMPARE(find(attributes, "fs").type(), AttributeType::Floats);
        QCOMPARE(find(attributes, "fs").floats(), (std::vector<float> { 0.5f, 2.0f }));
        QCOMPARE(find(attributes, "is").type(), AttributeType::Ints);
        QCOMPARE(find(attributes, "is").ints(), (std::vector<int64_t> { 1, 2, 3 }));
        QCOMPARE(find(attributes, "ss").type(), AttributeType::Strings);
        QCOMPARE(find(attributes, "ss").strings(), (std::vector<std::string> { "a", "b" }));

        const Attribute& t = find(attributes, "t");
        QCOMPARE(t.type(), AttributeType::Tensor);
        QVERIFY(t.hasTensor());
        QCOMPARE(t.tensorType(), DataType::Float);
        QCOMPARE(t.tensorShape(), Shape { 2 });
        const Tensor value = t.tensor();
        QCOMPARE(value.shape(), Shape { 2 });
        QCOMPARE(value.data<float>()[1], 2.0f);
        QVERIFY(!find(attributes, "f").hasTensor());

        const Attribute& g = find(attributes, "g");
        QCOMPARE(g.type(), AttributeType::Graph);
        QVERIFY(g.graph() != nullptr);
        QCOMPARE(g.graph(), n.subgraph("g"));
        QCOMPARE(g.graph()->name(), std::string("body"));
        QCOMPARE(g.graph()->nodes().size(), size_t(1));
        QCOMPARE(g.graph()->nodes()[0].opType, std::string("Neg"));
        QVERIFY(g.graphs().empty());
        QVERIFY(t.graph() == nullptr);

        const Attribute& graphs = find(attributes, "gs");
        QCOMPARE(graphs.type(), AttributeType::Graphs);
        QVERIFY(graphs.graph() == nullptr);
        const std::vector<const Graph*> bodies = graphs.graphs();
        QCOMPARE(bodies.size(), size_t(2));
        QCOMPARE(bodies[0]->name(), std::string("first"));
        QCOMPARE(bodies[1]->name(), std::string("second"));
        QCOMPARE(bodies[1]->nodes().size(), size_t(2));
        QCOMPARE(bodies[1]->parent(), &model->graph());

        QCOMPARE(find(attributes, "ts").type(), AttributeType::Tensors);
        QCOMPARE(find(attributes, "ts").tensorCount(), size_t(2));
        QCOMPARE(find(attributes, "sp").type(), AttributeType::SparseTensor);
        QCOMPARE(find(attributes, "sp").sparseTensorShape(), (Shape { 3, 4 }));
        QCOMPARE(find(attributes, "tp").type(), AttributeType::Type);
        QCOMPARE(find(attributes, "tp").typeValue().toString(), std::string("int64[2, N]"));
        QCOMPARE(find(attributes, "r").type(), AttributeType::Undefined);
        QCOMPARE(find(attributes, "r").refAttrName(), std::string("alpha"));
        QCOMPARE(find(attributes, "f").refAttrName(), std::string());
    }

    void subgraphsOfControlFlowAreReferencedByTheirAttributes()
    {
        auto model = Model::fromText(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (bool c, float[2] x) => (float[2] y) {
    y = If (c) <then_branch = yes () => (float[2] a) { a = Neg(x) }, else_branch = no () => (float[2] b) { b = Abs(x) }>
})");
        const Node& ifNode = model->graph().nodes().at(0);
        const std::vector<Attribute> attributes = ifNode.attributeList();
        QCOMPARE(attributes.size(), size_t(2));
        QCOMPARE(attributes[0].name(), std::string("then_branch"));
        QCOMPARE(attributes[0].graph()->name(), std::string("yes"));
        QCOMPARE(attributes[1].graph()->name(), std::string("no"));
        QCOMPARE(attributes[1].graph(), ifNode.subgraph("else_branch"));
        QCOMPARE(attributes[1].graph()->nodes()[0].attributeList().size(), size_t(0));
        QCOMPARE(ifNode.docString(), std::string());
    }

    void initializerMetadataAndDataIncludingExternalData()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::vector<int64_t> external { 7, -8, 9, 1LL << 40 };
        {
            std::ofstream bin(dir.filePath(QStringLiteral("weights.bin")).toStdString(), std::ios::binary);
            bin.write("padding!", 8);
            bin.write(reinterpret_cast<const char*>(external.data()), 32);
        }
        auto proto = parse(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2, 3] x, float[2, 3] d) => (float[2, 3] y, int64[4] z) {
    s = Add(x, w)
    y = Add(s, d)
    z = Identity(e)
})");
        auto* graph = proto->mutable_graph();
        setFloatTensor(*graph->add_initializer(), { 2, 3 }, { 1, 2, 3, 4, 5, 6 });
        graph->mutable_initializer(0)->set_name("w");
        setFloatTensor(*graph->add_initializer(), { 2, 3 }, { 0, 0, 0, 0, 0, 1 });
        graph->mutable_initializer(1)->set_name("d");
        auto* e = graph->add_initializer();
        e->set_name("e");
        e->set_data_type(onnx::TensorProto::INT64);
        e->add_dims(4);
        e->set_data_location(onnx::TensorProto::EXTERNAL);
        for (const auto& [key, value] : { std::pair<std::string, std::string> { "location", "weights.bin" },
                 { "offset", "8" }, { "length", "32" } }) {
            auto* entry = e->add_external_data();
            entry->set_key(key);
            entry->set_value(value);
        }
        const std::string path = dir.filePath(QStringLiteral("model.onnx")).toStdString();
        {
            std::ofstream out(path, std::ios::binary);
            QVERIFY(proto->SerializeToOstream(&out));
        }
        auto model = Model::load(path);
        const Graph& g = model->graph();

        const ValueInfo& w = g.value(g.findValue("w"));
        QVERIFY(w.hasInitializer());
        QCOMPARE(w.source, ValueInfo::Source::Initializer);
        const InitializerInfo wInfo = w.initializerInfo();
        QCOMPARE(wInfo.dtype, DataType::Float);
        QCOMPARE(wInfo.shape, (Shape { 2, 3 }));
        QVERIFY(!wInfo.external);
        QCOMPARE(wInfo.location, std::string());
        QCOMPARE(w.initializerTensor().data<float>()[5], 6.0f);

        const ValueInfo& ev = g.value(g.findValue("e"));
        const InitializerInfo eInfo = ev.initializerInfo();
        QCOMPARE(eInfo.dtype, DataType::Int64);
        QCOMPARE(eInfo.shape, Shape { 4 });
        QVERIFY(eInfo.external);
        QCOMPARE(eInfo.location, std::string("weights.bin"));
        QVERIFY(!errorOf([&] { ev.initializerTensor(); }).empty()); // external data needs the model's store
        const Tensor data = ev.initializerTensor(&model->externalData());
        QCOMPARE(std::vector<int64_t>(data.data<int64_t>().begin(), data.data<int64_t>().end()), external);
        QCOMPARE(model->initializer(ev).data<int64_t>()[3], int64_t(1) << 40);

        const ValueInfo& d = g.value(g.findValue("d"));
        QCOMPARE(d.source, ValueInfo::Source::Input);
        QVERIFY(d.hasInitializer());
        QCOMPARE(d.initializerInfo().shape, (Shape { 2, 3 }));
        QCOMPARE(g.requiredInputs(), std::vector<ValueId> { g.findValue("x") });

        const ValueInfo& x = g.value(g.findValue("x"));
        QVERIFY(!x.hasInitializer());
        const std::string error = errorOf([&] { x.initializerInfo(); });
        QVERIFY2(error.find("\"x\" is not an initializer") != std::string::npos, error.c_str());
        QVERIFY(!errorOf([&] { x.initializerTensor(); }).empty());
        QVERIFY(!g.value(g.findValue("s")).hasInitializer());
    }

    void modelMetadataAndFunctions()
    {
        auto proto = parse(R"(<ir_version: 7, opset_import: ["" : 17, "local" : 1], producer_name: "maker",
  producer_version: "2.1", domain: "org.example", model_version: 3, doc_string: "a model">
main (float[2] x) => (float[2] y) {
    y = local.Square2(x)
}
<domain: "local", opset_import: ["" : 17]>
Square2 (a) => (b) {
    sq = Mul(a, a)
    b = Add(sq, sq)
})");
        for (const auto& [key, value] :
            { std::pair<std::string, std::string> { "author", "someone" }, { "license", "MIT" } }) {
            auto* entry = proto->add_metadata_props();
            entry->set_key(key);
            entry->set_value(value);
        }
        auto model = Model::fromProto(std::move(proto), ".", "<metadata>");
        const ModelMetadata m = model->metadata();
        QCOMPARE(m.irVersion, int64_t(7));
        QCOMPARE(m.producerName, std::string("maker"));
        QCOMPARE(m.producerVersion, std::string("2.1"));
        QCOMPARE(m.domain, std::string("org.example"));
        QCOMPARE(m.modelVersion, int64_t(3));
        QCOMPARE(m.docString, std::string("a model"));
        using Property = std::pair<std::string, std::string>;
        QCOMPARE(m.properties, (std::vector<Property> { { "author", "someone" }, { "license", "MIT" } }));
        QCOMPARE(model->graph().name(), std::string("main"));
        QCOMPARE(model->opsets(), (std::map<std::string, int64_t> { { "", 17 }, { "local", 1 } }));

        const std::vector<FunctionInfo> functions = model->functions();
        QCOMPARE(functions.size(), size_t(1));
        QCOMPARE(functions[0].domain, std::string("local"));
        QCOMPARE(functions[0].name, std::string("Square2"));
        QCOMPARE(functions[0].inputs, std::vector<std::string> { "a" });
        QCOMPARE(functions[0].outputs, std::vector<std::string> { "b" });
        QCOMPARE(functions[0].nodeCount, size_t(2));

        const ModelMetadata empty = Model::fromText("agraph (float[2] x) => (float[2] y) { y = Neg(x) }")->metadata();
        QCOMPARE(empty.producerName, std::string());
        QVERIFY(empty.properties.empty());
        QCOMPARE(empty.modelVersion, int64_t(0));
    }
};

QTEST_APPLESS_MAIN(TestModelViews)
#include "test_model_views.moc"
