// SPDX-License-Identifier: MIT
// The engine's value writer through its public API: the file-name rule, formats by suffix (.npy, .pb, .csv), .npz
// archives, folders with a manifest, the JSON summary, the debug model, and the dump folder of `run --output-dir`.
#include "engine/core/half.h"
#include "engine/exec/debug/debugger.h"
#include "engine/exec/observers/dump_observer.h"
#include "engine/io/npy.h"
#include "engine/io/tensor_proto.h"
#include "engine/io/value_writer.h"
#include "engine/model/debug_model.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace onnxscope;
namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

QJsonDocument readJson(const fs::path& path)
{
    QJsonParseError error;
    QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(readText(path)), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << path.c_str() << error.errorString();
    return doc;
}

std::vector<float> floats(const Tensor& t)
{
    auto d = t.data<float>();
    return { d.begin(), d.end() };
}

template <class F> std::string errorOf(F&& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

// zero = a - a; ratio = zero / b; e = ratio + a
const char* kNan = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2] a, float[2] b) => (float[2] e) {
    zero = Sub(a, a)
    ratio = Div(zero, b)
    e = Add(ratio, a)
})";

} // namespace

class TestValueWriter : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    fs::path path(const std::string& name) const { return fs::path(m_dir.path().toStdString()) / name; }

private slots:
    void fileNameRule()
    {
        QCOMPARE(safeFileName("in/x:0"), std::string("in_x_0"));
        QCOMPARE(safeFileName("layer.3-attn_q"), std::string("layer.3-attn_q"));
        QCOMPARE(safeFileName("../../etc/passwd"), std::string("___.._etc_passwd"));
        QCOMPARE(safeFileName(".hidden"), std::string("_hidden"));
        QCOMPARE(safeFileName("."), std::string("_"));
        QCOMPARE(safeFileName(".."), std::string("__"));
        QCOMPARE(safeFileName("a..b"), std::string("a..b"));
        QCOMPARE(safeFileName(""), std::string("value"));
        QCOMPARE(safeFileName("\xC3\xA9t\xC3\xA9"), std::string("__t__")); // "été": one '_' per UTF-8 byte
        QCOMPARE(safeFileName(std::string(300, 'x')), std::string(100, 'x'));
        QCOMPARE(safeFileName("a b\\c\"d"), std::string("a_b_c_d"));
    }

    void tensorFileBySuffix()
    {
        Tensor t = Tensor::fromVector<float>({ 1.5f, -2, 0.25f, 8 }, { 2, 2 });
        writeTensorFile(path("t.npy"), t);
        QCOMPARE(floats(readNpy(path("t.npy"))), floats(t));
        writeTensorFile(path("t.PB"), t, "named");
        std::string name;
        const Tensor back = readTensorProtoFile(path("t.PB"), &name);
        QCOMPARE(name, std::string("named"));
        QCOMPARE(back.shape(), (Shape { 2, 2 }));
        QCOMPARE(floats(back), floats(t));
        // bfloat16 has no numpy dtype: written as float32.
        Tensor bf(DataType::BFloat16, { 2 });
        bf.data<BFloat16>()[0] = BFloat16(1.5f);
        bf.data<BFloat16>()[1] = BFloat16(-3.0f);
        writeTensorFile(path("bf.npy"), bf);
        const Tensor bfBack = readNpy(path("bf.npy"));
        QCOMPARE(bfBack.dtype(), DataType::Float);
        QCOMPARE(floats(bfBack), (std::vector<float> { 1.5f, -3.0f }));

        const std::string wrong = errorOf([&] { writeTensorFile(path("t.txt"), t); });
        QVERIFY2(wrong.find("t.txt\": choose a .npy, .pb or .csv file name") != std::string::npos, wrong.c_str());
        QCOMPARE(errorOf([&] { writeTensorFile(path("u.npy"), Tensor()); }), std::string("nothing to export"));
        QVERIFY(!fs::exists(path("u.npy")));
    }

    void csvCells()
    {
        Tensor f = Tensor::fromVector<float>({ 1.5f, -0.0f, NAN, INFINITY, -INFINITY, 0.1f }, { 2, 3 });
        writeTensorFile(path("f.csv"), f);
        QCOMPARE(readText(path("f.csv")), std::string("1.5,0,nan\ninf,-inf,0.100000001\n"));
        Tensor d = Tensor::vector1D<double>({ 0.1, 1e300 });
        writeCsv(path("d.csv"), d);
        QCOMPARE(readText(path("d.csv")), std::string("0.10000000000000001\n1.0000000000000001e+300\n"));
        Tensor i = Tensor::vector1D<int64_t>({ 9007199254740993LL, -4 });
        writeCsv(path("i.csv"), i);
        QCOMPARE(readText(path("i.csv")), std::string("9007199254740993\n-4\n"));
        Tensor b = Tensor::vector1D<bool>({ true, false });
        writeCsv(path("b.csv"), b);
        QCOMPARE(readText(path("b.csv")), std::string("1\n0\n"));
        Tensor s = Tensor::fromVector<std::string>({ "a,b", "say \"hi\"" }, { 1, 2 });
        writeCsv(path("s.csv"), s);
        QCOMPARE(readText(path("s.csv")), std::string("\"a,b\",\"say \"\"hi\"\"\"\n"));
        const std::string cube = errorOf([&] { writeCsv(path("c.csv"), Tensor(DataType::Float, { 2, 2, 2 })); });
        QVERIFY2(cube.find("1-D or 2-D") != std::string::npos && cube.find("float[2, 2, 2]") != std::string::npos,
            cube.c_str());
        QVERIFY(!fs::exists(path("c.csv")));
        QVERIFY(!fs::exists(path("c.csv.part")));
    }

    void archiveAndFolder()
    {
        std::vector<std::pair<std::string, Tensor>> tensors {
            { "in/x:0", Tensor::vector1D<float>({ 1, 2 }) },
            { "A", Tensor::vector1D<float>({ 3 }) },
            { "a", Tensor::vector1D<float>({ 4 }) },
            { "acc @ main / Loop \"l\" iteration 1", Tensor::vector1D<float>({ 5 }) },
        };
        writeTensorArchive(path("all.npz"), tensors);
        const auto arrays = readNpz(path("all.npz"));
        QCOMPARE(arrays.size(), size_t(4));
        QCOMPARE(arrays[3].first, tensors[3].first);
        QCOMPARE(floats(arrays[3].second), std::vector<float> { 5 });

        writeTensorFolder(path("folder/npy"), tensors, ".npy");
        const QJsonObject manifest = readJson(path("folder/npy/manifest.json")).object();
        QCOMPARE(manifest.size(), 4);
        QCOMPARE(manifest["in_x_0.npy"].toString(), QStringLiteral("in/x:0"));
        QCOMPARE(manifest["A.npy"].toString(), QStringLiteral("A"));
        QCOMPARE(manifest["a_2.npy"].toString(), QStringLiteral("a")); // "a.npy" and "A.npy" collide ignoring case
        QCOMPARE(manifest["acc___main___Loop__l__iteration_1.npy"].toString(),
            QStringLiteral("acc @ main / Loop \"l\" iteration 1"));
        QCOMPARE(floats(readNpy(path("folder/npy/a_2.npy"))), std::vector<float> { 4 });

        writeTensorFolder(path("folder/pb"), tensors, ".pb");
        std::string name;
        readTensorProtoFile(path("folder/pb/in_x_0.pb"), &name);
        QCOMPARE(name, std::string("in/x:0"));
    }

    void jsonSummary()
    {
        RunSummary summary;
        summary.model = "m.onnx";
        summary.stopReason = "finished";
        summary.message = "the run has finished";
        ValueSummary x;
        x.name = "x";
        x.framePath = "main";
        x.value = Value(Tensor::fromVector<float>({ 1, 3, NAN }, { 3 }));
        x.stats = computeStats(x.value.tensor());
        ValueSummary y;
        y.name = "y";
        y.node = "add_1";
        y.opType = "Add";
        y.framePath = "main / Loop \"l\" iteration 2";
        y.iteration = 2;
        y.dropped = true;
        y.tracePoint = "dbg";
        summary.values = { x, y };
        writeJsonSummary(path("summary.json"), summary);
        const QJsonObject root = readJson(path("summary.json")).object();
        QCOMPARE(root["model"].toString(), QStringLiteral("m.onnx"));
        QCOMPARE(root["stop_reason"].toString(), QStringLiteral("finished"));
        QCOMPARE(root["message"].toString(), QStringLiteral("the run has finished"));
        const QJsonArray values = root["values"].toArray();
        QCOMPARE(values.size(), 2);
        const QJsonObject vx = values[0].toObject();
        QVERIFY(vx["node"].isNull() && vx["op_type"].isNull());
        QCOMPARE(vx["dtype"].toString(), QStringLiteral("float"));
        QCOMPARE(vx["shape"].toArray(), QJsonArray { 3 });
        QCOMPARE(vx["type"].toString(), QStringLiteral("float[3]"));
        QCOMPARE(vx["iteration"].toInt(), -1);
        const QJsonObject stats = vx["stats"].toObject();
        QCOMPARE(stats["count"].toInt(), 3);
        QCOMPARE(stats["nan"].toInt(), 1);
        QCOMPARE(stats["max"].toDouble(), 3.0);
        QCOMPARE(stats["mean"].toDouble(), 2.0);
        QVERIFY(!vx.contains("trace_point"));
        const QJsonObject vy = values[1].toObject();
        QCOMPARE(vy["node"].toString(), QStringLiteral("add_1"));
        QCOMPARE(vy["op_type"].toString(), QStringLiteral("Add"));
        QCOMPARE(vy["iteration"].toInt(), 2);
        QVERIFY(vy["dropped"].toBool());
        QVERIFY(!vy.contains("dtype") && !vy.contains("stats"));
        QCOMPARE(vy["trace_point"].toString(), QStringLiteral("dbg"));
        // Integral statistics are written as integers, as JSON readers of Qt and Python expect.
        QVERIFY(readText(path("summary.json")).find("\"max\": 3,") != std::string::npos);
    }

    void debugModelCarriesTheValues()
    {
        auto model = Model::fromText(kNan);
        const std::vector<std::pair<std::string, Tensor>> values { { "zero", Tensor::vector1D<float>({ 0, 0 }) },
            { "ratio", Tensor::vector1D<float>({ 7, 8 }) } };
        QCOMPARE(writeDebugModel(path("debug.onnx"), *model, values), size_t(2));
        auto debug = Model::load(path("debug.onnx"));
        size_t debugNodes = 0;
        for (const Node& n : debug->graph().nodes())
            debugNodes += n.opType == "DEBUG" && n.domain == "mlprodict";
        QCOMPARE(debugNodes, size_t(2));
        // The DEBUG nodes are trace points holding the values.
        Debugger dbg(std::make_shared<Program>(debug));
        dbg.start({ { "a", Tensor::vector1D<float>({ 1, 2 }) }, { "b", Tensor::vector1D<float>({ 1, 1 }) } });
        StopInfo stop = dbg.continueRun();
        while (stop.reason == StopReason::DebugNode)
            stop = dbg.continueRun();
        QVERIFY2(dbg.finished(), stop.message.c_str());
        const auto points = dbg.tracePoints();
        QCOMPARE(points.size(), size_t(2));
        QCOMPARE(floats(dbg.materialize(*points[1]).tensor()), (std::vector<float> { 7, 8 }));
    }

    void dumpFolderAndManifest()
    {
        const fs::path dir = path("dump");
        fs::create_directories(dir);
        ValueWriter writer(dir);
        writer.write("in/x:0", Value(Tensor::vector1D<float>({ 1, 2 })), "", "main", "output");
        Tensor bf(DataType::BFloat16, { 1 });
        writer.write("half", Value(bf), "n", "main", "intermediate");
        Sequence seq;
        seq.elementType = DataType::Float;
        seq.items.push_back(Value(Tensor::vector1D<float>({ NAN })));
        writer.write("seq", Value(std::move(seq)), "n2", "main / Loop \"l\" iteration 0", "intermediate");
        writer.write("opt", Value::optional(Value(Tensor::vector1D<float>({ 3 }))), "n3", "main", "intermediate");
        writer.write("bytes", Value(Tensor::vector1D<std::string>({ "\xff" })), "n4", "main", "intermediate");
        QCOMPARE(writer.count(), size_t(5));
        writer.writeManifest();
        const QJsonArray tensors = readJson(dir / "manifest.json").object()["tensors"].toArray();
        QCOMPARE(tensors.size(), 5);
        QCOMPARE(tensors[0].toObject()["file"].toString(), QStringLiteral("0_in_x_0.npy"));
        QCOMPARE(tensors[0].toObject()["kind"].toString(), QStringLiteral("output"));
        QCOMPARE(tensors[0].toObject()["shape"].toArray(), QJsonArray { 2 });
        QCOMPARE(tensors[1].toObject()["file_dtype"].toString(), QStringLiteral("float"));
        QCOMPARE(tensors[1].toObject()["dtype"].toString(), QStringLiteral("bfloat16"));
        QCOMPARE(tensors[2].toObject()["file"].toString(), QStringLiteral("2_seq.json"));
        QVERIFY(tensors[2].toObject()["shape"].isNull());
        QCOMPARE(tensors[2].toObject()["frame"].toString(), QStringLiteral("main / Loop \"l\" iteration 0"));
        QCOMPARE(tensors[3].toObject()["value_kind"].toString(), QStringLiteral("optional"));
        QCOMPARE(tensors[3].toObject()["file"].toString(), QStringLiteral("3_opt.npy"));
        QCOMPARE(tensors[4].toObject()["file"].toString(), QStringLiteral("4_bytes.json"));
        QVERIFY(tensors[4].toObject().contains("note"));
        const QJsonObject seqJson = readJson(dir / "2_seq.json").object();
        QCOMPARE(seqJson["kind"].toString(), QStringLiteral("sequence"));
        QCOMPARE(seqJson["items"].toArray()[0].toObject()["value"].toObject()["data"].toArray()[0].toString(),
            QStringLiteral("nan"));
        QCOMPARE(readJson(dir / "4_bytes.json").object()["value"].toObject()["data"].toArray()[0].toString(),
            QStringLiteral("\\xff"));
    }

    void dumpObserverWritesEveryOutput()
    {
        const fs::path dir = path("observed");
        fs::create_directories(dir);
        ValueWriter writer(dir);
        DumpObserver dump(writer);
        Session session(std::make_shared<Program>(Model::fromText(kNan)));
        session.addObserver(&dump);
        session.run({ { "a", Tensor::vector1D<float>({ 1, 2 }) }, { "b", Tensor::vector1D<float>({ 0, 1 }) } });
        writer.writeManifest();
        QCOMPARE(dump.mainOutputsWritten(), std::set<std::string> { "e" });
        const QJsonArray tensors = readJson(dir / "manifest.json").object()["tensors"].toArray();
        QCOMPARE(tensors.size(), 3);
        QCOMPARE(tensors[0].toObject()["name"].toString(), QStringLiteral("zero"));
        QCOMPARE(tensors[0].toObject()["node"].toString(), QStringLiteral("Sub_0"));
        QCOMPARE(tensors[0].toObject()["kind"].toString(), QStringLiteral("intermediate"));
        QCOMPARE(tensors[2].toObject()["kind"].toString(), QStringLiteral("output"));
        QCOMPARE(tensors[2].toObject()["file"].toString(), QStringLiteral("2_e.npy"));
        const Tensor ratio = readNpy(dir / "1_ratio.npy");
        QVERIFY(std::isnan(ratio.data<float>()[0]));
        QCOMPARE(ratio.data<float>()[1], 0.0f);
    }
};

QTEST_GUILESS_MAIN(TestValueWriter)
#include "test_value_writer.moc"
