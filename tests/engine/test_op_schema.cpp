// SPDX-License-Identifier: MIT
// Op-schema lookup: what onnx's schema registry says about an operator (port names, documentation, versions).
#include "engine/core/version.h"
#include "engine/model/model.h"
#include "engine/model/op_schema.h"

#include <QtTest>

#include <algorithm>

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

    void knowsTheOperatorsOfOpsetsAfter17()
    {
        const OpSchemaInfo& bitwise = lookupOpSchema("BitwiseAnd", "", 18);
        QVERIFY(bitwise.known);
        QCOMPARE(bitwise.sinceVersion, 18);
        QCOMPARE(lookupOpSchema("Gelu", "", 20).sinceVersion, 20);
        QCOMPARE(lookupOpSchema("GroupNormalization", "", 21).sinceVersion, 21);
        const OpSchemaInfo& rms = lookupOpSchema("RMSNormalization", "", 23);
        QVERIFY(rms.known);
        QCOMPARE(rms.inputs, (std::vector<std::string> { "X", "scale" }));
        QCOMPARE(lookupOpSchema("ReduceSum", "", 18).inputs, (std::vector<std::string> { "data", "axes" }));
        QCOMPARE(lookupOpSchema("TreeEnsemble", "ai.onnx.ml", 5).sinceVersion, 5);
        QVERIFY(!lookupOpSchema("BitwiseAnd", "", 17).known);
    }

    void takesTheFunctionBodyWrittenForTheModelsOpset()
    {
        // Relu-14 has a function body from opset 18 on (the greater of X and a zero): at opset 17 it has none.
        const char* text = "agraph (float[2] x) => (float[2] y) { y = Relu (x) }";
        auto at18 = Model::fromText(text, 18);
        auto body = at18->schemaFunctionBody(at18->graph().nodes().at(0));
        QVERIFY(body);
        QVERIFY(
            std::any_of(body->nodes().begin(), body->nodes().end(), [](const Node& n) { return n.opType == "Max"; }));
        auto at17 = Model::fromText(text, 17);
        QVERIFY(!at17->schemaFunctionBody(at17->graph().nodes().at(0)));
    }

    void warnsOfAnOpsetNewerThanTheLibraryKnows()
    {
        auto model = Model::fromText("agraph (float[2] x) => (float[2] y) { y = Relu (x) }", 999);
        const auto diagnostics = model->diagnostics();
        const auto opset = std::find_if(
            diagnostics.begin(), diagnostics.end(), [](const Diagnostic& d) { return d.source == "opset"; });
        QVERIFY(opset != diagnostics.end());
        const std::string expected = std::string("the model imports opset 999 of \"ai.onnx\"; the newest that onnx ")
            + onnxLibraryVersion() + " knows is ";
        QVERIFY2(opset->message.rfind(expected, 0) == 0, opset->message.c_str());
        auto current = Model::fromText("agraph (float[2] x) => (float[2] y) { y = Relu (x) }", 18);
        for (const Diagnostic& d : current->diagnostics())
            QVERIFY2(d.source != "opset", d.message.c_str());
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
