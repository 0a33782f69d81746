// SPDX-License-Identifier: MIT
// IR 10 model-local functions: overloads (FunctionProto.overload / NodeProto.overload), attribute defaults and
// references (also inside a body's subgraphs), value_info, doc_string and metadata_props of functions, nested calls
// under the debugger, and a model written like torch dynamo exports write them (pkg.onnxscript.torch_lib).
// Expected values: numpy, and onnxruntime 1.32 where it runs the model (it does not resolve nested overloaded calls).
#include "engine/exec/debug/debugger.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <QtTest>

#include <cmath>

using namespace onnxscope;

namespace {

// y = local.outer:v2 <alpha = 3> (x) -> -(middle:a) ; middle:a = inner:b(x) + x ; inner:b = x * alpha.
// w = local.outer:v1 (x), alpha defaulting to 10 at the outermost function and passed down by reference.
// Decoy overload inner:c subtracts instead: running it would give other values.
const char* const kNested = R"(<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
main (float[2,3] x) => (float[2,3] y, float[2,3] w) {
   y = local.outer:v2 <alpha: float = 3.0> (x)
   w = local.outer:v1 (x)
}
<domain: "local", opset_import: ["" : 18, "local" : 1], overload: "v1">
outer <alpha: float = 10.0> (X) => (Y) {
   Y = local.middle:a <alpha: float = @alpha> (X)
}
<domain: "local", opset_import: ["" : 18, "local" : 1], overload: "v2">
outer <alpha> (X) => (Y) {
   S = local.middle:a <alpha: float = @alpha> (X)
   Y = Neg (S)
}
<domain: "local", opset_import: ["" : 18, "local" : 1], overload: "a">
middle <alpha> (X) => (Y) {
   T = local.inner:b <alpha: float = @alpha> (X)
   Y = Add (T, X)
}
<domain: "local", opset_import: ["" : 18], overload: "b">
inner <alpha> (X) => (Y) {
   A = Constant <value_float: float = @alpha> ()
   Y = Mul (X, A)
}
<domain: "local", opset_import: ["" : 18], overload: "c">
inner <alpha> (X) => (Y) {
   A = Constant <value_float: float = @alpha> ()
   Y = Sub (X, A)
})";

const char* const kOverloads = R"(<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
main (float[2,3] x) => (float[2,3] y, float[2,3] z) {
   y = local.scale:fast <alpha: float = 2.0> (x)
   z = local.scale:slow (x)
}
<domain: "local", opset_import: ["" : 18], overload: "fast", doc_string: "multiplies by alpha">
scale <alpha: float = 3.0> (X) => (Y) {
   A = Constant <value_float: float = @alpha> ()
   Y = Mul (X, A)
}
<domain: "local", opset_import: ["" : 18], overload: "slow">
scale <alpha: float = 5.0> (X) => (Y) <float[2,3] T> {
   A = Constant <value_float: float = @alpha> ()
   T = Add (X, A)
   Y = Neg (T)
})";

// References to the function's attributes inside the branches of an If in its body; `lo` only has a default.
const char* const kRefInSubgraph = R"(<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
main (float[3] x, bool c) => (float[3] y, float[3] z) {
   y = local.pick <hi: float = 7.0> (x, c)
   z = local.pick (x, c)
}
<domain: "local", opset_import: ["" : 18]>
pick <hi: float = 100.0, lo: float = -1.0> (X, C) => (Y) {
   Y = If (C) <then_branch = t () => (float[3] ty) {
         H = Constant <value_float: float = @hi> ()
         ty = Add (X, H)
      }, else_branch = e () => (float[3] ey) {
         L = Constant <value_float: float = @lo> ()
         ey = Add (X, L)
      }>
})";

// As torch.onnx.export(..., dynamo=True) writes a model (IR 10, torch_lib functions importing opset 18 and
// torch_lib.common, an overload, a function calling a function): Linear -> Gelu(tanh) -> Linear without bias.
const char* const kDynamo
    = R"(<ir_version: 10, opset_import: ["" : 18, "pkg.onnxscript.torch_lib" : 1, "pkg.onnxscript.torch_lib.common" : 1], producer_name: "pytorch", producer_version: "2.5.0">
main_graph (float[2,4] input, float[3,4] weight, float[3] bias, float[5,3] input_3d_w) => (float[2,3] gelu, float[2,5] linear_1) {
   linear = pkg.onnxscript.torch_lib.aten_linear (input, weight, bias)
   gelu = pkg.onnxscript.torch_lib.aten_gelu <approximate: string = "tanh"> (linear)
   linear_1 = pkg.onnxscript.torch_lib.aten_linear:no_bias (gelu, input_3d_w)
}
<domain: "pkg.onnxscript.torch_lib.common", opset_import: ["" : 18]>
Rank (input) => (return_val) {
   tmp = Shape (input)
   return_val = Size (tmp)
}
<domain: "pkg.onnxscript.torch_lib", opset_import: ["" : 18, "pkg.onnxscript.torch_lib.common" : 1]>
aten_linear (input, weight, bias) => (result_12) {
   rank = pkg.onnxscript.torch_lib.common.Rank (input)
   int64_2 = Constant <value: tensor = int64 {2}> ()
   cond = Equal (rank, int64_2)
   result_12 = If (cond) <then_branch = thenGraph () => (result) {
         result = Gemm <transB: int = 1> (input, weight, bias)
      }, else_branch = elseGraph () => (result_11) {
         weight_t = Transpose <perm: ints = [1, 0]> (weight)
         mul = MatMul (input, weight_t)
         result_11 = Add (mul, bias)
      }>
}
<domain: "pkg.onnxscript.torch_lib", opset_import: ["" : 18], overload: "no_bias">
aten_linear (input, weight) => (result) {
   weight_t = Transpose <perm: ints = [1, 0]> (weight)
   result = MatMul (input, weight_t)
}
<domain: "pkg.onnxscript.torch_lib", opset_import: ["" : 18, "pkg.onnxscript.torch_lib" : 1]>
aten_gelu <approximate: string = "none"> (self) => (result) {
   result = pkg.onnxscript.torch_lib._aten_gelu_approximate_tanh (self)
}
<domain: "pkg.onnxscript.torch_lib", opset_import: ["" : 18]>
_aten_gelu_approximate_tanh (self) => (result) {
   three = Constant <value: tensor = float {3.0}> ()
   cubed = Pow (self, three)
   coeff = Constant <value: tensor = float {0.044715}> ()
   scaled_cubed = Mul (cubed, coeff)
   inner = Add (self, scaled_cubed)
   sqrt_2_over_pi = Constant <value: tensor = float {0.7978845608028654}> ()
   inner_1 = Mul (inner, sqrt_2_over_pi)
   t = Tanh (inner_1)
   one = Constant <value: tensor = float {1.0}> ()
   onep = Add (t, one)
   half = Constant <value: tensor = float {0.5}> ()
   hx = Mul (self, half)
   result = Mul (hx, onep)
})";

std::unique_ptr<onnx::ModelProto> parse(const char* text)
{
    auto proto = std::make_unique<onnx::ModelProto>();
    auto status = onnx::OnnxParser::Parse(*proto, text);
    if (!status.IsOK())
        throw Error("test model does not parse: " + status.ErrorMessage());
    return proto;
}

std::shared_ptr<Model> load(const char* text)
{
    return Model::fromProto(parse(text), ".", "<test>");
}

std::map<std::string, Value> run(const std::shared_ptr<Model>& model, const std::map<std::string, Value>& inputs)
{
    Debugger dbg(std::make_shared<Program>(model));
    dbg.start(inputs);
    StopInfo s = dbg.continueRun();
    if (s.reason != StopReason::Finished)
        throw Error("run did not finish: " + s.message);
    return dbg.session().outputs();
}

std::vector<float> floats(const Value& v)
{
    auto d = v.tensor().data<float>();
    return { d.begin(), d.end() };
}

void compareClose(const std::vector<float>& got, const std::vector<float>& expected, float tolerance)
{
    QCOMPARE(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
        QVERIFY2(std::fabs(got[i] - expected[i]) <= tolerance,
            qPrintable(QStringLiteral("element %1: %2, expected %3").arg(i).arg(got[i]).arg(expected[i])));
}

/// x = arange(6).reshape(2, 3) - 2
Value x6()
{
    return Tensor::fromVector<float>({ -2, -1, 0, 1, 2, 3 }, { 2, 3 });
}

std::string where(const Debugger& d)
{
    const Node* next = d.session().nextNode();
    return d.session().framePath() + " | " + (next ? next->displayName() : std::string("<end>"));
}

} // namespace

class TestIr10Functions : public QObject {
    Q_OBJECT
private slots:
    void overloadsRunTheirOwnBodies()
    {
        auto out = run(load(kOverloads), { { "x", x6() } });
        // fast: x * 2 (the caller's alpha over the default 3); slow: -(x + 5) (the default alpha).
        QCOMPARE(floats(out.at("y")), (std::vector<float> { -4, -2, 0, 2, 4, 6 }));
        QCOMPARE(floats(out.at("z")), (std::vector<float> { -3, -4, -5, -6, -7, -8 }));
    }

    void eachCallSiteGetsTheBodyOfItsOverload()
    {
        auto model = load(kOverloads);
        const Graph& g = model->graph();
        QCOMPARE(g.nodes().size(), size_t(2));
        const Node& fast = g.nodes()[0];
        const Node& slow = g.nodes()[1];
        QVERIFY(fast.functionBody && slow.functionBody);
        QCOMPARE(fast.functionBody->name(), std::string("scale:fast"));
        QCOMPARE(slow.functionBody->name(), std::string("scale:slow"));
        QCOMPARE(fast.functionBody->nodes().size(), size_t(2));
        QCOMPARE(slow.functionBody->nodes().size(), size_t(3));
    }

    void missingOverloadIsNamed()
    {
        std::string text = kOverloads;
        text.replace(text.find("scale:slow"), 10, "scale:medium");
        try {
            load(text.c_str());
            QFAIL("loaded a call of an overload that the model does not define");
        } catch (const Error& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("overload \"medium\"") != std::string::npos, e.what());
            QVERIFY2(what.find("\"fast\", \"slow\"") != std::string::npos, e.what());
        }
        // A call without an overload when only overloaded versions exist.
        std::string bare = kOverloads;
        bare.replace(bare.find("scale:slow"), 10, "scale");
        try {
            load(bare.c_str());
            QFAIL("loaded a call without an overload of an overloaded function");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("without an overload") != std::string::npos, e.what());
        }
    }

    void duplicateOverloadIsAnError()
    {
        auto proto = parse(kOverloads);
        proto->mutable_functions(1)->set_overload("fast");
        QVERIFY_THROWS_EXCEPTION(Error, Model::fromProto(std::move(proto), ".", "<test>"));
    }

    void attributeReferencesInsideSubgraphsOfABody()
    {
        auto model = load(kRefInSubgraph);
        const Value x = Tensor::vector1D<float>({ 1, 2, 3 });
        auto taken = run(model, { { "x", x }, { "c", Tensor::scalar<bool>(true) } });
        QCOMPARE(floats(taken.at("y")), (std::vector<float> { 8, 9, 10 })); // hi = 7 from the caller
        QCOMPARE(floats(taken.at("z")), (std::vector<float> { 101, 102, 103 })); // hi's default 100
        auto other = run(model, { { "x", x }, { "c", Tensor::scalar<bool>(false) } });
        QCOMPARE(floats(other.at("y")), (std::vector<float> { 0, 1, 2 })); // lo's default -1
        QCOMPARE(floats(other.at("z")), (std::vector<float> { 0, 1, 2 }));
    }

    void valueInfoOfAFunctionTypesItsBody()
    {
        auto model = load(kOverloads);
        const Graph& body = *model->graph().nodes()[1].functionBody;
        const ValueId t = body.findValue("T");
        QVERIFY(t != kNoValue);
        const ValueType& type = body.value(t).type;
        QCOMPARE(type.kind, Value::Kind::Tensor);
        QCOMPARE(type.elementType, DataType::Float);
        QVERIFY(type.hasShape);
        QCOMPARE(type.shape.size(), size_t(2));
        QCOMPARE(type.shape[0].value, int64_t(2));
        QCOMPARE(type.shape[1].value, int64_t(3));
        // Values that value_info does not declare stay untyped.
        QCOMPARE(body.value(body.findValue("A")).type.kind, Value::Kind::None);
    }

    void functionInfoHasOverloadDocAndMetadata()
    {
        auto proto = parse(kOverloads);
        auto* entry = proto->mutable_functions(0)->add_metadata_props();
        entry->set_key("pkg.torch.onnx.original_name");
        entry->set_value("aten::mul");
        auto model = Model::fromProto(std::move(proto), ".", "<test>");
        const std::vector<FunctionInfo> functions = model->functions();
        QCOMPARE(functions.size(), size_t(2));
        QCOMPARE(functions[0].name, std::string("scale"));
        QCOMPARE(functions[0].overload, std::string("fast"));
        QCOMPARE(functions[0].doc, std::string("multiplies by alpha"));
        QCOMPARE(functions[0].metadata.size(), size_t(1));
        QCOMPARE(functions[0].metadata[0].first, std::string("pkg.torch.onnx.original_name"));
        QCOMPARE(functions[0].metadata[0].second, std::string("aten::mul"));
        QCOMPARE(functions[0].attributes, (std::vector<std::string> { "alpha = 3" }));
        QCOMPARE(functions[1].overload, std::string("slow"));
        QVERIFY(functions[1].doc.empty());
        QVERIFY(functions[1].metadata.empty());
    }

    void nestedOverloadsPassAttributesDown()
    {
        auto out = run(load(kNested), { { "x", x6() } });
        QCOMPARE(floats(out.at("y")), (std::vector<float> { 8, 4, 0, -4, -8, -12 })); // -(3x + x)
        QCOMPARE(floats(out.at("w")), (std::vector<float> { -22, -11, 0, 11, 22, 33 })); // 10x + x
    }

    void debuggerStepsIntoEachLevel()
    {
        DebuggerOptions options;
        options.stepConstants = true; // stop on inner's Constant too, to see the attribute it got by reference
        Debugger dbg(std::make_shared<Program>(load(kNested)), options);
        dbg.start({ { "x", x6() } });
        const std::string outer = "main / function \"outer:v2\"";
        const std::string middle = outer + " / function \"middle:a\"";
        const std::string inner = middle + " / function \"inner:b\"";
        QCOMPARE(where(dbg), std::string("main | outer_0"));
        QCOMPARE(dbg.stepInto().reason, StopReason::Step);
        QCOMPARE(where(dbg), outer + " | middle_0");
        QCOMPARE(dbg.stepInto().reason, StopReason::Step);
        QCOMPARE(where(dbg), middle + " | inner_0");
        QCOMPARE(dbg.stepInto().reason, StopReason::Step);
        QCOMPARE(where(dbg), inner + " | Constant_0");
        QCOMPARE(dbg.session().depth(), size_t(4));
        dbg.step();
        // alpha = 3 came from main through outer and middle by reference.
        const RecordedValue* alpha = dbg.findValue("A");
        QVERIFY(alpha);
        QCOMPARE(alpha->framePath.str(), inner);
        QCOMPARE(floats(dbg.materialize(*alpha)), (std::vector<float> { 3 }));
        QCOMPARE(where(dbg), inner + " | Mul_1");
        dbg.step();
        QCOMPARE(where(dbg), inner + " | <end>");
        dbg.step();
        QCOMPARE(where(dbg), middle + " | Add_1");
        QCOMPARE(dbg.stepOut().reason, StopReason::Step);
        QCOMPARE(where(dbg), outer + " | Neg_1");
        QCOMPARE(dbg.stepOut().reason, StopReason::Step);
        QCOMPARE(where(dbg), std::string("main | outer_1"));
        // The second call (overload v1, alpha defaulting to 10) down to its innermost level.
        dbg.stepInto();
        dbg.stepInto();
        dbg.stepInto();
        QCOMPARE(where(dbg),
            std::string("main / function \"outer:v1\" / function \"middle:a\" / function \"inner:b\" | Constant_0"));
        dbg.step();
        QCOMPARE(floats(dbg.materialize(*dbg.findValue("A"))), (std::vector<float> { 10 }));
        QCOMPARE(dbg.continueRun().reason, StopReason::Finished);
        QCOMPARE(floats(dbg.session().outputs().at("w")), (std::vector<float> { -22, -11, 0, 11, 22, 33 }));
    }

    void dynamoStyleExportRuns()
    {
        auto model = load(kDynamo);
        // input = (arange(8).reshape(2, 4) - 3) / 4, weight = (arange(12).reshape(3, 4) % 5 - 2) / 3,
        // input_3d_w = (arange(15).reshape(5, 3) % 7 - 3) / 5
        std::vector<float> input(8), weight(12), w2(15);
        for (int i = 0; i < 8; ++i)
            input[i] = static_cast<float>(i - 3) / 4.0f;
        for (int i = 0; i < 12; ++i)
            weight[i] = static_cast<float>(i % 5 - 2) / 3.0f;
        for (int i = 0; i < 15; ++i)
            w2[i] = static_cast<float>(i % 7 - 3) / 5.0f;
        auto out = run(model,
            { { "input", Tensor::fromVector<float>(input, { 2, 4 }) },
                { "weight", Tensor::fromVector<float>(weight, { 3, 4 }) },
                { "bias", Tensor::vector1D<float>({ 0.5f, -0.25f, 1.0f }) },
                { "input_3d_w", Tensor::fromVector<float>(w2, { 5, 3 }) } });
        // numpy in float64: lin = input @ weight.T + bias; gelu = 0.5 lin (1 + tanh(sqrt(2/pi) (lin + 0.044715
        // lin^3))); linear_1 = gelu @ input_3d_w.T (onnxruntime 1.32 agrees to 1e-7).
        compareClose(floats(out.at("gelu")),
            { 1.0245099f, -0.12315087f, 0.42006668f, 0.345714f, -0.16837546f, 0.42006668f }, 1e-5f);
        compareClose(floats(out.at("linear_1")),
            { -0.649459f, 0.14339651f, 0.52056986f, -0.12088865f, 0.083873436f, -0.22409157f, 0.13435158f, 0.14042702f,
                0.014870537f, -0.2147797f },
            1e-5f);
        // Each torch_lib call is a frame, and Rank (torch_lib.common) runs inside aten_linear.
        const Node& linear = model->graph().nodes()[0];
        QVERIFY(linear.functionBody);
        QCOMPARE(linear.functionBody->name(), std::string("aten_linear"));
        QVERIFY(linear.functionBody->nodes()[0].functionBody);
        QCOMPARE(linear.functionBody->nodes()[0].functionBody->name(), std::string("Rank"));
        QCOMPARE(model->graph().nodes()[2].functionBody->name(), std::string("aten_linear:no_bias"));
    }
};

QTEST_APPLESS_MAIN(TestIr10Functions)
#include "test_ir10_functions.moc"
