// SPDX-License-Identifier: MIT
// The engine's input reader through its public API: .npy, .npz (by name, the only array, the whole archive), .pb as
// TensorProto, SequenceProto, MapProto and OptionalProto, and errors that name the file.
#include "engine/io/input_reader.h"
#include "engine/io/npy.h"
#include "engine/io/tensor_proto.h"

#include <onnx/onnx-data.pb.h> // the generated header: onnx installs no onnx-data_pb.h wrapper
#include <onnx/onnx_pb.h>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace onnxscope;
namespace fs = std::filesystem;

namespace {

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

void writeBytes(const fs::path& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

ValueType declared(Value::Kind kind)
{
    ValueType t;
    t.kind = kind;
    t.elementType = DataType::Float;
    return t;
}

} // namespace

class TestInputReader : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    fs::path path(const std::string& name) const { return fs::path(m_dir.path().toStdString()) / name; }

private slots:
    void formatBySuffix()
    {
        QCOMPARE(inputFileFormat("a/x.npy"), InputFileFormat::Npy);
        QCOMPARE(inputFileFormat("x.NPZ"), InputFileFormat::Npz);
        QCOMPARE(inputFileFormat("x.Pb"), InputFileFormat::Pb);
        QCOMPARE(inputFileFormat("x.npy.txt"), InputFileFormat::Unknown);
        QCOMPARE(inputFileFormat("npy"), InputFileFormat::Unknown);
    }

    void npyAndNpz()
    {
        writeNpy(path("x.npy"), Tensor::vector1D<float>({ 1, 2 }));
        QCOMPARE(floats(readInputValue("x", path("x.npy")).tensor()), (std::vector<float> { 1, 2 }));
        QCOMPARE(floats(readTensorFile(path("x.npy"))), (std::vector<float> { 1, 2 }));

        writeNpz(
            path("two.npz"), { { "a", Tensor::vector1D<float>({ 3 }) }, { "b", Tensor::vector1D<float>({ 4, 5 }) } });
        QCOMPARE(floats(readInputValue("b", path("two.npz")).tensor()), (std::vector<float> { 4, 5 }));
        const std::string none = errorOf([&] { readInputValue("c", path("two.npz")); });
        QVERIFY2(contains(none, "two.npz\" holds 2 arrays and none is named \"c\""), none.c_str());
        writeNpz(path("one.npz"), { { "whatever", Tensor::vector1D<float>({ 6 }) } });
        QCOMPARE(floats(readInputValue("c", path("one.npz")).tensor()), std::vector<float> { 6 });

        const auto all = readInputArchive(path("two.npz"));
        QCOMPARE(all.size(), size_t(2));
        QCOMPARE(all[0].first, std::string("a"));
        QCOMPARE(all[1].first, std::string("b"));
        QCOMPARE(floats(all[1].second.tensor()), (std::vector<float> { 4, 5 }));
    }

    void protoFiles()
    {
        onnx::TensorProto tensor;
        tensorToProto(Tensor::vector1D<float>({ 7, 8 }), tensor, "t");
        writeBytes(path("t.pb"), tensor.SerializeAsString());
        QCOMPARE(floats(readInputValue("t", path("t.pb")).tensor()), (std::vector<float> { 7, 8 }));
        QCOMPARE(floats(readTensorFile(path("t.pb"))), (std::vector<float> { 7, 8 }));

        onnx::SequenceProto seq;
        seq.set_elem_type(onnx::SequenceProto::TENSOR);
        tensorToProto(Tensor::vector1D<float>({ 1 }), *seq.add_tensor_values());
        tensorToProto(Tensor::vector1D<float>({ 2, 3 }), *seq.add_tensor_values());
        writeBytes(path("s.pb"), seq.SerializeAsString());
        const ValueType seqType = declared(Value::Kind::Sequence);
        const Value s = readInputValue("s", path("s.pb"), &seqType);
        QVERIFY(s.isSequence());
        QCOMPARE(s.sequence().items.size(), size_t(2));
        QCOMPARE(floats(s.sequence().items[1].tensor()), (std::vector<float> { 2, 3 }));

        onnx::MapProto map;
        map.set_key_type(onnx::TensorProto::INT64);
        map.add_keys(10);
        map.add_keys(20);
        map.mutable_values()->set_elem_type(onnx::SequenceProto::TENSOR);
        tensorToProto(Tensor::scalar<float>(0.5f), *map.mutable_values()->add_tensor_values());
        tensorToProto(Tensor::scalar<float>(1.5f), *map.mutable_values()->add_tensor_values());
        writeBytes(path("m.pb"), map.SerializeAsString());
        const ValueType mapType = declared(Value::Kind::Map);
        const Value m = readInputValue("m", path("m.pb"), &mapType);
        QVERIFY(m.isMap());
        QCOMPARE(m.map().keys.data<int64_t>()[1], int64_t(20));
        QCOMPARE(floats(m.map().values), (std::vector<float> { 0.5f, 1.5f }));

        onnx::OptionalProto opt;
        opt.set_elem_type(onnx::OptionalProto::TENSOR);
        tensorToProto(Tensor::vector1D<float>({ 9 }), *opt.mutable_tensor_value());
        writeBytes(path("o.pb"), opt.SerializeAsString());
        const ValueType optType = declared(Value::Kind::Optional);
        const Value o = readInputValue("o", path("o.pb"), &optType);
        QVERIFY(o.isOptional() && o.optionalValue());
        QCOMPARE(floats(o.optionalValue()->tensor()), std::vector<float> { 9 });
    }

    void errorsNameTheFile()
    {
        const std::string suffix = errorOf([&] { readInputValue("x", path("x.wav")); });
        QVERIFY2(contains(suffix, "input \"x\": \"") && contains(suffix, "x.wav\" is neither .npy, .npz nor .pb"),
            suffix.c_str());
        const std::string tensorSuffix = errorOf([&] { readTensorFile(path("x.npz")); });
        QVERIFY2(contains(tensorSuffix, "x.npz\": expected a .npy or TensorProto .pb file"), tensorSuffix.c_str());
        const std::string missing = errorOf([&] { readInputValue("x", path("gone.npy")); });
        QVERIFY2(contains(missing, "gone.npy"), missing.c_str());
        writeBytes(path("bad.pb"), "\xff\xff\xff not a proto");
        const std::string badPb = errorOf([&] { readInputValue("x", path("bad.pb")); });
        QVERIFY2(contains(badPb, "bad.pb") && contains(badPb, "TensorProto"), badPb.c_str());
        const ValueType seqType = declared(Value::Kind::Sequence);
        const std::string badSeq = errorOf([&] { readInputValue("x", path("bad.pb"), &seqType); });
        QVERIFY2(contains(badSeq, "bad.pb") && contains(badSeq, "SequenceProto"), badSeq.c_str());
        writeBytes(path("bad.npy"), "not numpy");
        const std::string badNpy = errorOf([&] { readInputValue("x", path("bad.npy")); });
        QVERIFY2(contains(badNpy, "bad.npy"), badNpy.c_str());
        const std::string badNpz = errorOf([&] { readInputArchive(path("bad.npy")); });
        QVERIFY2(contains(badNpz, "bad.npy"), badNpz.c_str());
    }
};

QTEST_GUILESS_MAIN(TestInputReader)
#include "test_input_reader.moc"
