// SPDX-License-Identifier: MIT
// Op-schema lookup: what onnx's schema registry says about an operator (port names, documentation, versions).
#include "engine/model/model.h"
#include "engine/model/op_schema.h"

#include <QtTest>

using namespace onnxscope;

class TestOpSchema : public QObject {
    Q_OBJECT
private slots:
    void knowsPortNamesDocAndVersionOfConv()
    {
        const OpSchemaInfo& conv = lookupOpSchema("Conv", "", 13);
        QVERIFY(conv.known);
        QCOMPARE(conv.sinceVersion, 11);
        QCOMPARE(conv.domain, std::string());
        QCOMPARE(conv.inputs, (std::vector<std::string> { "X", "W", "B" }));
        QCOMPARE(conv.outputs, std::vector<std::string> { "Y" });
        QVERIFY(!conv.variadicInput);
        QVERIFY(conv.doc.find("convolution") != std::string::npos);
        QVERIFY(!std::isspace(static_cast<unsigned char>(conv.doc.front())));
        QVERIFY(!std::isspace(static_cast<unsigned char>(conv.doc.back())));
        QVERIFY(conv.support.empty());
    }

    void resolvesTheVersionInEffectAtAnOpset()
    {
        QCOMPARE(lookupOpSchema("Relu", "", 5).sinceVersion, 1);
        QCOMPARE(lookupOpSchema("Relu", "", 13).sinceVersion, 13);
        QCOMPARE(lookupOpSchema("Relu", "", 17).sinceVersion, 14);
        QCOMPARE(lookupOpSchema("ZipMap", "ai.onnx.ml", 1).domain, std::string("ai.onnx.ml"));
    }

    void returnsTheSameEntryEachTime() { QCOMPARE(&lookupOpSchema("Add", "", 14), &lookupOpSchema("Add", "", 14)); }

    void marksUnknownAndDeprecatedOps()
    {
        const OpSchemaInfo& custom = lookupOpSchema("NoSuchOp", "com.example", 1);
        QVERIFY(!custom.known);
        QVERIFY(custom.inputs.empty());
        QVERIFY(custom.doc.empty());
        QCOMPARE(lookupOpSchema("Conv", "", 0).sinceVersion, 1); // opset 0 is read as 1
        QCOMPARE(lookupOpSchema("Upsample", "", 10).support, std::string("deprecated"));
    }

    void namesPortsOfNodesIncludingVariadicOnes()
    {
        auto model = Model::fromText(R"(
            agraph (float[2] a, float[2] b, float[2] c) => (float[6] y, float[2] z) {
                y = Concat <axis = 0> (a, b, c)
                z = Sum (a, b, c)
            })");
        const Graph& g = model->graph();
        const Node& concat = g.node(g.findNode("Concat_0"));
        QCOMPARE(inputPortName(concat, 0), std::string("inputs"));
        QCOMPARE(inputPortName(concat, 1), std::string("inputs_1"));
        QCOMPARE(inputPortName(concat, 2), std::string("inputs_2"));
        QCOMPARE(outputPortName(concat, 0), std::string("concat_result"));
        QCOMPARE(outputPortName(concat, 1), std::string());
        const Node& sum = g.node(g.findNode("Sum_1"));
        QCOMPARE(inputPortName(sum, 2), std::string("data_0_2"));
        QCOMPARE(outputPortName(sum, 0), std::string("sum"));
    }

    void namesNoPortOfAnUnknownOp()
    {
        auto model = Model::fromText(R"(
            <ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
            agraph (float[2] a) => (float[2] y) {
                y = com.example.Custom (a)
            })");
        const Node& node = model->graph().nodes().at(0);
        QCOMPARE(inputPortName(node, 0), std::string());
        QCOMPARE(outputPortName(node, 0), std::string());
    }
};

QTEST_APPLESS_MAIN(TestOpSchema)
#include "test_op_schema.moc"
