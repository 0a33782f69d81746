// SPDX-License-Identifier: MIT
// Tensor file I/O: TensorProto (typed fields, raw_data, external data), .npy and .npz, checked against numpy.
#include "engine/core/half.h"
#include "engine/io/npy.h"
#include "engine/io/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

using namespace onnxscope;
namespace fs = std::filesystem;

namespace {

const DataType kAllTypes[] = { DataType::Float, DataType::UInt8, DataType::Int8, DataType::UInt16, DataType::Int16,
    DataType::Int32, DataType::Int64, DataType::String, DataType::Bool, DataType::Float16, DataType::Double,
    DataType::UInt32, DataType::UInt64, DataType::Complex64, DataType::Complex128, DataType::BFloat16 };

const std::vector<std::string> kStrings
    = { "a", "h\xC3\xA9llo", "\xE6\x97\xA5\xE6\x9C\xAC", "\xF0\x9F\x98\x80", "", "longer string with spaces" };

/// The value numpy's side of the cross-checks uses for element i (see kNumpyFormula): real part, imaginary part.
std::pair<double, double> formula(DataType type, int64_t i)
{
    if (isComplex(type))
        return { (i - 7) * 0.25, i * 0.5 };
    if (isFloatingPoint(type))
        return { (i - 7) * 0.25, 0 };
    if (type == DataType::Bool)
        return { i % 3 == 0 ? 1.0 : 0.0, 0 };
    if (isSignedInteger(type))
        return { static_cast<double>(i * 5 - 60), 0 };
    return { static_cast<double>(i * 7), 0 };
}

const char* kNumpyFormula = R"(
import numpy as np
def formula(dtype, shape):
    n = int(np.prod(shape))
    i = np.arange(n)
    dt = np.dtype(dtype)
    if dt.kind == 'c':
        v = (i - 7) * 0.25 + 1j * (i * 0.5)
    elif dt.kind == 'f':
        v = (i - 7) * 0.25
    elif dt.kind == 'b':
        v = (i % 3 == 0)
    elif dt.kind == 'i':
        v = i * 5 - 60
    else:
        v = i * 7
    return v.astype(dt).reshape(shape)
)";

/// A tensor of `type` filled with formula() (strings: kStrings cycled).
Tensor formulaTensor(DataType type, Shape shape)
{
    Tensor t(type, shape);
    for (int64_t i = 0; i < t.size(); ++i) {
        auto [re, im] = formula(type, i);
        switch (type) {
        case DataType::Float:
            t.data<float>()[i] = static_cast<float>(re);
            break;
        case DataType::Double:
            t.data<double>()[i] = re;
            break;
        case DataType::Float16:
            t.data<Float16>()[i] = Float16(static_cast<float>(re));
            break;
        case DataType::BFloat16:
            t.data<BFloat16>()[i] = BFloat16(static_cast<float>(re));
            break;
        case DataType::Int8:
            t.data<int8_t>()[i] = static_cast<int8_t>(re);
            break;
        case DataType::Int16:
            t.data<int16_t>()[i] = static_cast<int16_t>(re);
            break;
        case DataType::Int32:
            t.data<int32_t>()[i] = static_cast<int32_t>(re);
            break;
        case DataType::Int64:
            t.data<int64_t>()[i] = static_cast<int64_t>(re);
            break;
        case DataType::UInt8:
            t.data<uint8_t>()[i] = static_cast<uint8_t>(re);
            break;
        case DataType::UInt16:
            t.data<uint16_t>()[i] = static_cast<uint16_t>(re);
            break;
        case DataType::UInt32:
            t.data<uint32_t>()[i] = static_cast<uint32_t>(re);
            break;
        case DataType::UInt64:
            t.data<uint64_t>()[i] = static_cast<uint64_t>(re);
            break;
        case DataType::Bool:
            t.data<bool>()[i] = re != 0;
            break;
        case DataType::Complex64:
            t.data<Complex64>()[i] = Complex64(float(re), float(im));
            break;
        case DataType::Complex128:
            t.data<Complex128>()[i] = Complex128(re, im);
            break;
        case DataType::String:
            t.data<std::string>()[i] = kStrings[size_t(i) % kStrings.size()];
            break;
        default:
            break;
        }
    }
    return t;
}

/// Empty if `t` holds formula(type) values in row-major order with `shape`, else the first mismatch.
QString checkFormula(const Tensor& t, DataType type, const Shape& shape)
{
    if (t.dtype() != type)
        return QString("dtype %1, expected %2").arg(dataTypeName(t.dtype()).data(), dataTypeName(type).data());
    if (t.shape() != shape)
        return QString("shape %1, expected %2").arg(shapeToString(t.shape()).c_str(), shapeToString(shape).c_str());
    for (int64_t i = 0; i < t.size(); ++i) {
        auto [re, im] = formula(type, i);
        double gotRe = 0, gotIm = 0;
        if (type == DataType::Complex64) {
            gotRe = t.data<Complex64>()[i].real();
            gotIm = t.data<Complex64>()[i].imag();
        } else if (type == DataType::Complex128) {
            gotRe = t.data<Complex128>()[i].real();
            gotIm = t.data<Complex128>()[i].imag();
        } else {
            gotRe = t.toDouble(i);
        }
        if (gotRe != re || gotIm != im)
            return QString("%1%2: first bad index %3: got (%4, %5), expected (%6, %7)")
                .arg(dataTypeName(type).data(), shapeToString(shape).c_str())
                .arg(i)
                .arg(gotRe)
                .arg(gotIm)
                .arg(re)
                .arg(im);
    }
    return {};
}

/// Element-wise identity: bytes for numeric types (so NaN payloads count), values for strings.
QString sameTensor(const Tensor& a, const Tensor& b)
{
    if (a.dtype() != b.dtype() || a.shape() != b.shape())
        return QString("%1 vs %2").arg(a.typeString().c_str(), b.typeString().c_str());
    if (a.dtype() == DataType::String) {
        for (int64_t i = 0; i < a.size(); ++i)
            if (a.data<std::string>()[i] != b.data<std::string>()[i])
                return QString("string %1: \"%2\" vs \"%3\"")
                    .arg(i)
                    .arg(a.data<std::string>()[i].c_str(), b.data<std::string>()[i].c_str());
        return {};
    }
    const size_t es = elementSize(a.dtype());
    for (int64_t i = 0; i < a.size(); ++i)
        if (std::memcmp(static_cast<const char*>(a.raw()) + i * es, static_cast<const char*>(b.raw()) + i * es, es))
            return QString("%1: first bad index %2 (%3 vs %4)")
                .arg(a.typeString().c_str())
                .arg(i)
                .arg(a.toDouble(i))
                .arg(b.toDouble(i));
    return {};
}

/// Runs /usr/bin/python3 with numpy on `script` (after kNumpyFormula); returns exit code, output in `out`.
int runPython(const QString& script, const QStringList& args, QString* out)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start("/usr/bin/python3", QStringList { "-c", QString(kNumpyFormula) + script } + args);
    if (!p.waitForFinished(120000))
        return -1;
    *out = QString::fromUtf8(p.readAll());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

std::string errorOf(const std::function<void()>& f)
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
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

} // namespace

class TestTensorIo : public QObject {
    Q_OBJECT

private slots:
    void protoRawRoundTripEveryType()
    {
        for (DataType type : kAllTypes) {
            Tensor t = formulaTensor(type, { 2, 3, 4 });
            onnx::TensorProto proto;
            tensorToProto(t, proto, "t");
            if (type == DataType::String)
                QVERIFY(!proto.has_raw_data() && proto.string_data_size() == 24);
            else
                QVERIFY2(proto.has_raw_data(), dataTypeName(type).data());
            // Through the wire format too.
            onnx::TensorProto parsed;
            QVERIFY(parsed.ParseFromString(proto.SerializeAsString()));
            Tensor back = tensorFromProto(parsed);
            QString why = sameTensor(t, back);
            QVERIFY2(why.isEmpty(), qPrintable(QString(dataTypeName(type).data()) + ": " + why));
            QString f = checkFormula(back, type, { 2, 3, 4 });
            QVERIFY2(type == DataType::String || f.isEmpty(), qPrintable(f));
        }
    }

    void protoTypedFieldsEveryType()
    {
        // Values stored in the typed fields as the ONNX spec lays them out, read back element by element.
        auto read = [](const std::function<void(onnx::TensorProto&)>& fill, int type, int64_t n) {
            onnx::TensorProto p;
            p.set_name("typed");
            p.set_data_type(type);
            p.add_dims(n);
            fill(p);
            return tensorFromProto(p);
        };
        Tensor f = read(
            [](auto& p) {
                p.add_float_data(1.5f);
                p.add_float_data(-2.f);
                p.add_float_data(3e10f);
            },
            onnx::TensorProto::FLOAT, 3);
        QCOMPARE(f.data<float>()[0], 1.5f);
        QCOMPARE(f.data<float>()[2], 3e10f);
        Tensor d = read(
            [](auto& p) {
                p.add_double_data(1e300);
                p.add_double_data(-0.125);
            },
            onnx::TensorProto::DOUBLE, 2);
        QCOMPARE(d.data<double>()[0], 1e300);
        QCOMPARE(d.data<double>()[1], -0.125);
        Tensor i8 = read(
            [](auto& p) {
                p.add_int32_data(-128);
                p.add_int32_data(127);
            },
            onnx::TensorProto::INT8, 2);
        QCOMPARE(int(i8.data<int8_t>()[0]), -128);
        QCOMPARE(int(i8.data<int8_t>()[1]), 127);
        Tensor u8 = read(
            [](auto& p) {
                p.add_int32_data(0);
                p.add_int32_data(255);
            },
            onnx::TensorProto::UINT8, 2);
        QCOMPARE(int(u8.data<uint8_t>()[1]), 255);
        Tensor i16 = read(
            [](auto& p) {
                p.add_int32_data(-32768);
                p.add_int32_data(32767);
            },
            onnx::TensorProto::INT16, 2);
        QCOMPARE(int(i16.data<int16_t>()[0]), -32768);
        Tensor u16 = read([](auto& p) { p.add_int32_data(65535); }, onnx::TensorProto::UINT16, 1);
        QCOMPARE(int(u16.data<uint16_t>()[0]), 65535);
        Tensor i32 = read([](auto& p) { p.add_int32_data(INT32_MIN); }, onnx::TensorProto::INT32, 1);
        QCOMPARE(i32.data<int32_t>()[0], INT32_MIN);
        Tensor i64 = read(
            [](auto& p) {
                p.add_int64_data(INT64_MIN);
                p.add_int64_data(INT64_MAX);
            },
            onnx::TensorProto::INT64, 2);
        QCOMPARE(i64.data<int64_t>()[0], INT64_MIN);
        QCOMPARE(i64.data<int64_t>()[1], INT64_MAX);
        Tensor u32 = read([](auto& p) { p.add_uint64_data(4294967295u); }, onnx::TensorProto::UINT32, 1);
        QCOMPARE(u32.data<uint32_t>()[0], 4294967295u);
        Tensor u64 = read([](auto& p) { p.add_uint64_data(UINT64_MAX); }, onnx::TensorProto::UINT64, 1);
        QCOMPARE(u64.data<uint64_t>()[0], UINT64_MAX);
        Tensor b = read(
            [](auto& p) {
                p.add_int32_data(1);
                p.add_int32_data(0);
                p.add_int32_data(1);
            },
            onnx::TensorProto::BOOL, 3);
        QCOMPARE(b.data<bool>()[0], true);
        QCOMPARE(b.data<bool>()[1], false);
        // float16 bits 0x3C00 = 1.0, 0xC000 = -2.0; bfloat16 bits 0x3F80 = 1.0, 0xC040 = -3.0.
        Tensor h = read(
            [](auto& p) {
                p.add_int32_data(0x3C00);
                p.add_int32_data(0xC000);
            },
            onnx::TensorProto::FLOAT16, 2);
        QCOMPARE(h.toDouble(0), 1.0);
        QCOMPARE(h.toDouble(1), -2.0);
        Tensor bf = read(
            [](auto& p) {
                p.add_int32_data(0x3F80);
                p.add_int32_data(0xC040);
            },
            onnx::TensorProto::BFLOAT16, 2);
        QCOMPARE(bf.toDouble(0), 1.0);
        QCOMPARE(bf.toDouble(1), -3.0);
        Tensor c64 = read(
            [](auto& p) {
                for (float v : { 1.f, 2.f, 3.f, 4.f })
                    p.add_float_data(v);
            },
            onnx::TensorProto::COMPLEX64, 2);
        QCOMPARE(c64.data<Complex64>()[1], Complex64(3, 4));
        Tensor c128 = read(
            [](auto& p) {
                for (double v : { 1., -2. })
                    p.add_double_data(v);
            },
            onnx::TensorProto::COMPLEX128, 1);
        QCOMPARE(c128.data<Complex128>()[0], Complex128(1, -2));
        Tensor s = read(
            [](auto& p) {
                p.add_string_data("x");
                p.add_string_data(std::string("a\0b", 3));
            },
            onnx::TensorProto::STRING, 2);
        QCOMPARE(s.data<std::string>()[1], std::string("a\0b", 3));

        // Count mismatches are errors that name the tensor.
        std::string err = errorOf([&] { read([](auto& p) { p.add_float_data(1); }, onnx::TensorProto::FLOAT, 2); });
        QVERIFY2(err.find("\"typed\"") != std::string::npos, err.c_str());
        err = errorOf([&] { read([](auto& p) { p.set_raw_data("abc"); }, onnx::TensorProto::FLOAT, 1); });
        QVERIFY2(err.find("\"typed\"") != std::string::npos && err.find("raw_data") != std::string::npos, err.c_str());
    }

    void npyRoundTripEveryType()
    {
        for (int version : { 0, 1, 2, 3 }) {
            for (DataType type : kAllTypes) {
                if (type == DataType::BFloat16)
                    continue;
                for (Shape shape : { Shape { 2, 3, 4 }, Shape {}, Shape { 0, 5 }, Shape { 7 } }) {
                    Tensor t = formulaTensor(type, shape);
                    std::string bytes = serializeNpy(t, { version });
                    QCOMPARE(int(bytes[6]), version == 0 ? 1 : version);
                    // Data starts 64-byte aligned, as numpy writes it.
                    const size_t headerLen = version >= 2 ? *reinterpret_cast<const uint32_t*>(bytes.data() + 8)
                                                          : *reinterpret_cast<const uint16_t*>(bytes.data() + 8);
                    QCOMPARE((headerLen + (version >= 2 ? 12 : 10)) % 64, size_t(0));
                    Tensor back = parseNpy(bytes, "mem");
                    QString why = sameTensor(t, back);
                    QVERIFY2(
                        why.isEmpty(), qPrintable(QString("v%1 %2: %3").arg(version).arg(t.typeString().c_str(), why)));
                }
            }
        }
        // bfloat16: refused by the writer, converted by npyCompatible.
        Tensor bf = formulaTensor(DataType::BFloat16, { 4 });
        QVERIFY(errorOf([&] { serializeNpy(bf); }).find("bfloat16") != std::string::npos);
        Tensor asFloat = parseNpy(serializeNpy(npyCompatible(bf)), "mem");
        QVERIFY(checkFormula(asFloat, DataType::Float, { 4 }).isEmpty());
        // Invalid UTF-8 cannot become a numpy unicode array.
        Tensor bad = Tensor::vector1D<std::string>({ std::string("\xFF\xFE") });
        QVERIFY(!errorOf([&] { serializeNpy(bad); }).empty());
    }

    void npyReadsWhatNumpyWrites()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString script = R"(
import sys, os
d = sys.argv[1]
sh = (2, 3, 4)
for t in ['f2','f4','f8','i1','i2','i4','i8','u1','u2','u4','u8','b1','c8','c16']:
    np.save(os.path.join(d, t + '.npy'), formula(t, sh))
for t in ['>i4', '>f8', '>c8', '>u2', '>f2']:
    np.save(os.path.join(d, 'be_' + t[1:] + '.npy'), formula(t, sh))
np.save(os.path.join(d, 'fortran_f4.npy'), np.asfortranarray(formula('f4', sh)))
np.save(os.path.join(d, 'fortran_be_i2.npy'), np.asfortranarray(formula('>i2', sh)))
np.save(os.path.join(d, 'scalar_f8.npy'), formula('f8', ()))
np.save(os.path.join(d, 'empty_f4.npy'), formula('f4', (0, 3)))
for v in [(1, 0), (2, 0), (3, 0)]:
    with open(os.path.join(d, 'v%d_i4.npy' % v[0]), 'wb') as f:
        np.lib.format.write_array(f, formula('i4', sh), version=v)
strings = ['a', 'h\u00e9llo', '\u65e5\u672c', '\U0001F600', '', 'longer string with spaces']
np.save(os.path.join(d, 'U.npy'), np.array(strings).reshape(2, 3))
np.save(os.path.join(d, 'U_be.npy'), np.array(strings).astype('>U30'))
np.save(os.path.join(d, 'S.npy'), np.array([b'ab', b'', b'xyz']))
np.savez(os.path.join(d, 'plain.npz'), **{'a/b': formula('f4', sh), 'x:0': formula('i8', (5,)), 'plain': np.array(strings)})
np.savez_compressed(os.path.join(d, 'compressed.npz'), first=formula('u1', (3,)), second=formula('c16', (2, 2)))
)";
        QString out;
        QCOMPARE(runPython(script, { tmp.path() }, &out), 0);
        const fs::path dir = tmp.path().toStdString();
        const Shape sh { 2, 3, 4 };
        struct Case {
            const char* file;
            DataType type;
            Shape shape;
        };
        const std::vector<Case> cases = { { "f2", DataType::Float16, sh }, { "f4", DataType::Float, sh },
            { "f8", DataType::Double, sh }, { "i1", DataType::Int8, sh }, { "i2", DataType::Int16, sh },
            { "i4", DataType::Int32, sh }, { "i8", DataType::Int64, sh }, { "u1", DataType::UInt8, sh },
            { "u2", DataType::UInt16, sh }, { "u4", DataType::UInt32, sh }, { "u8", DataType::UInt64, sh },
            { "b1", DataType::Bool, sh }, { "c8", DataType::Complex64, sh }, { "c16", DataType::Complex128, sh },
            { "be_i4", DataType::Int32, sh }, { "be_f8", DataType::Double, sh }, { "be_c8", DataType::Complex64, sh },
            { "be_u2", DataType::UInt16, sh }, { "be_f2", DataType::Float16, sh },
            { "fortran_f4", DataType::Float, sh }, { "fortran_be_i2", DataType::Int16, sh },
            { "scalar_f8", DataType::Double, {} }, { "empty_f4", DataType::Float, { 0, 3 } },
            { "v1_i4", DataType::Int32, sh }, { "v2_i4", DataType::Int32, sh }, { "v3_i4", DataType::Int32, sh } };
        for (const auto& c : cases) {
            Tensor t;
            std::string err = errorOf([&] { t = readNpy(dir / (std::string(c.file) + ".npy")); });
            QVERIFY2(err.empty(), err.c_str());
            QString why = checkFormula(t, c.type, c.shape);
            QVERIFY2(why.isEmpty(), qPrintable(QString(c.file) + ": " + why));
        }
        Tensor u = readNpy(dir / "U.npy");
        QCOMPARE(u.shape(), (Shape { 2, 3 }));
        for (size_t i = 0; i < kStrings.size(); ++i)
            QCOMPARE(u.data<std::string>()[i], kStrings[i]);
        Tensor ube = readNpy(dir / "U_be.npy");
        for (size_t i = 0; i < kStrings.size(); ++i)
            QCOMPARE(ube.data<std::string>()[i], kStrings[i]);
        Tensor s = readNpy(dir / "S.npy");
        QCOMPARE(s.data<std::string>()[0], std::string("ab"));
        QCOMPARE(s.data<std::string>()[1], std::string(""));
        QCOMPARE(s.data<std::string>()[2], std::string("xyz"));

        auto plain = readNpz(dir / "plain.npz");
        QCOMPARE(plain.size(), size_t(3));
        std::map<std::string, Tensor> byName(plain.begin(), plain.end());
        QVERIFY(byName.count("a/b") && byName.count("x:0") && byName.count("plain"));
        QVERIFY(checkFormula(byName["a/b"], DataType::Float, sh).isEmpty());
        QVERIFY(checkFormula(byName["x:0"], DataType::Int64, { 5 }).isEmpty());
        QCOMPARE(byName["plain"].data<std::string>()[3], kStrings[3]);
        auto compressed = readNpz(dir / "compressed.npz");
        QCOMPARE(compressed.size(), size_t(2));
        std::map<std::string, Tensor> c2(compressed.begin(), compressed.end());
        QVERIFY(checkFormula(c2["first"], DataType::UInt8, { 3 }).isEmpty());
        QVERIFY(checkFormula(c2["second"], DataType::Complex128, { 2, 2 }).isEmpty());
    }

    void numpyReadsWhatWeWrite()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path dir = tmp.path().toStdString();
        const Shape sh { 2, 3, 4 };
        const std::vector<std::pair<const char*, DataType>> types = { { "f2", DataType::Float16 },
            { "f4", DataType::Float }, { "f8", DataType::Double }, { "i1", DataType::Int8 }, { "i2", DataType::Int16 },
            { "i4", DataType::Int32 }, { "i8", DataType::Int64 }, { "u1", DataType::UInt8 }, { "u2", DataType::UInt16 },
            { "u4", DataType::UInt32 }, { "u8", DataType::UInt64 }, { "b1", DataType::Bool },
            { "c8", DataType::Complex64 }, { "c16", DataType::Complex128 } };
        std::vector<std::pair<std::string, Tensor>> npz;
        for (const auto& [code, type] : types) {
            writeNpy(dir / (std::string(code) + ".npy"), formulaTensor(type, sh));
            npz.emplace_back(std::string("dir/") + code + ":0", formulaTensor(type, sh));
        }
        writeNpy(dir / "v2_f4.npy", formulaTensor(DataType::Float, sh), { 2 });
        writeNpy(dir / "v3_f4.npy", formulaTensor(DataType::Float, sh), { 3 });
        writeNpy(dir / "scalar_i8.npy", formulaTensor(DataType::Int64, {}));
        writeNpy(dir / "U.npy", formulaTensor(DataType::String, { 2, 3 }));
        writeNpz(dir / "ours.npz", npz);
        writeNpz(dir / "ours_compressed.npz", npz, true);

        const QString script = R"(
import sys, os
d = sys.argv[1]
sh = (2, 3, 4)
bad = []
def expect(name, arr, dtype, shape):
    want = formula(dtype, shape)
    if arr.dtype != want.dtype or arr.shape != want.shape or not np.array_equal(arr, want):
        bad.append('%s: got %s%s %r' % (name, arr.dtype, arr.shape, arr.ravel()[:6]))
codes = ['f2','f4','f8','i1','i2','i4','i8','u1','u2','u4','u8','b1','c8','c16']
for t in codes:
    expect(t, np.load(os.path.join(d, t + '.npy')), t, sh)
for v in ['v2', 'v3']:
    expect(v, np.load(os.path.join(d, v + '_f4.npy')), 'f4', sh)
    with open(os.path.join(d, v + '_f4.npy'), 'rb') as f:
        if f.read(8)[6] != int(v[1]):
            bad.append(v + ': wrong version byte')
expect('scalar', np.load(os.path.join(d, 'scalar_i8.npy')), 'i8', ())
u = np.load(os.path.join(d, 'U.npy'))
strings = ['a', 'h\u00e9llo', '\u65e5\u672c', '\U0001F600', '', 'longer string with spaces']
if u.dtype.kind != 'U' or u.shape != (2, 3) or list(u.ravel()) != strings:
    bad.append('U: got %s %r' % (u.dtype, u))
for z in ['ours.npz', 'ours_compressed.npz']:
    with np.load(os.path.join(d, z)) as f:
        if sorted(f.files) != sorted('dir/%s:0' % t for t in codes):
            bad.append(z + ': keys ' + repr(f.files))
        for t in codes:
            expect(z + ' ' + t, f['dir/%s:0' % t], t, sh)
print('\n'.join(bad) if bad else 'all good')
sys.exit(1 if bad else 0)
)";
        QString out;
        int code = runPython(script, { tmp.path() }, &out);
        QVERIFY2(code == 0, qPrintable(out));
    }

    void npyMalformedIsAnError()
    {
        QTemporaryDir tmp;
        const fs::path file = fs::path(tmp.path().toStdString()) / "broken.npy";
        const std::string good = serializeNpy(formulaTensor(DataType::Float, { 3, 4 }));
        auto errorFor = [&](const std::string& bytes) {
            writeBytes(file, bytes);
            return errorOf([&] { readNpy(file); });
        };
        auto header = [](const std::string& dict) {
            std::string h = dict + "\n";
            std::string out = std::string("\x93NUMPY\x01\x00", 8);
            out += char(h.size() & 0xFF);
            out += char(h.size() >> 8);
            return out + h;
        };
        // Every truncation is an error that names the file.
        for (size_t n = 0; n < good.size(); ++n) {
            std::string err = errorFor(good.substr(0, n));
            QVERIFY2(!err.empty(), qPrintable(QString("truncated to %1 bytes was accepted").arg(n)));
            QVERIFY2(err.find("broken.npy") != std::string::npos, err.c_str());
        }
        struct Bad {
            std::string bytes;
            const char* mentions;
        };
        const std::vector<Bad> bad = {
            { "not numpy at all", "magic" },
            { std::string("\x93NUMPY\x09\x00\x00\x00", 10), "version" },
            { header("{'descr': '<f4', 'shape': (3,), }") + std::string(12, '\0'), "fortran_order" },
            { header("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }") + std::string(8, '\0'), "objects" },
            { header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }") + std::string(4, '\0'),
                "structured" },
            { header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"), "header" },
            { header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }"), "shape" },
            { header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }") + std::string(12, '\0'), "trailing" },
            { header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }") + std::string(7, '\0'), "truncated" },
            { header("{'descr': '<f4', 'fortran_order': False, 'shape': 3, }"), "shape" },
            { header("{'descr': '<f3', 'fortran_order': False, 'shape': (1,), }") + std::string(3, '\0'), "<f3" },
            { header("{'descr': '<M8', 'fortran_order': False, 'shape': (1,), }") + std::string(8, '\0'), "<M8" },
            { header("{'descr': '<U1', 'fortran_order': False, 'shape': (1,), }") + std::string("\xFF\xFF\xFF\xFF", 4),
                "code point" },
            { header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)"), "header" },
            // Zero-width strings: no data at all, but 10^17 elements would still need memory.
            { header("{'descr': '<U0', 'fortran_order': False, 'shape': (100000000000000000,), }"), "broken.npy" },
        };
        for (const auto& b : bad) {
            std::string err = errorFor(b.bytes);
            QVERIFY2(err.find("broken.npy") != std::string::npos,
                qPrintable(QString::fromStdString("no error naming the file: " + err)));
            QVERIFY2(err.find(b.mentions) != std::string::npos,
                qPrintable(QString::fromStdString("expected '" + std::string(b.mentions) + "' in: " + err)));
        }
        // Random corruption of header bytes: parse or throw Error, never crash (seeded).
        const unsigned seed = 20240601;
        std::mt19937 rng(seed);
        int accepted = 0;
        for (int iter = 0; iter < 3000; ++iter) {
            std::string bytes = good;
            const int flips = 1 + int(rng() % 4);
            for (int k = 0; k < flips; ++k)
                bytes[rng() % 128] = char(rng() % 256);
            try {
                Tensor t = parseNpy(bytes, "fuzz");
                ++accepted;
                QVERIFY(t.byteSize() <= bytes.size());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).rfind("fuzz", 0) == 0, e.what());
            }
        }
        qInfo("fuzz seed %u: %d of 3000 corrupted headers still parsed", seed, accepted);
        // A file that does not exist, and an .npz that is not a zip.
        QVERIFY(errorOf([&] { readNpy(file.parent_path() / "missing.npy"); }).find("missing.npy") != std::string::npos);
        writeBytes(file.parent_path() / "not.npz", good);
        QVERIFY(errorOf([&] { readNpz(file.parent_path() / "not.npz"); }).find("not.npz") != std::string::npos);
        // Duplicate names are refused when writing an archive.
        Tensor one = formulaTensor(DataType::Float, { 1 });
        QVERIFY(errorOf([&] {
            writeNpz(file.parent_path() / "dup.npz", { { "a", one }, { "a", one } });
        }).find("\"a\"")
            != std::string::npos);
    }

    void externalDataOffsetAndLength()
    {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        // 4 bytes of junk, then the floats 0..5, then junk.
        std::string blob(4, 'x');
        for (int i = 0; i < 6; ++i) {
            float v = float(i) * 1.5f;
            blob.append(reinterpret_cast<const char*>(&v), 4);
        }
        blob += "tail";
        fs::create_directories(dir / "weights");
        writeBytes(dir / "weights" / "w.bin", blob);

        ExternalDataStore store(dir);
        onnx::TensorProto p = externalProto("w", "weights/w.bin", 4, 24);
        Tensor t = tensorFromProto(p, &store);
        QCOMPARE(t.shape(), (Shape { 2, 3 }));
        for (int i = 0; i < 6; ++i)
            QCOMPARE(t.data<float>()[i], float(i) * 1.5f);
        // Offset 4 without a length: the rest of the file (6 floats + "tail") is 4 bytes too long for float[2, 3].
        onnx::TensorProto noLen = externalProto("w2", "weights/w.bin", 4, -1);
        std::string err = errorOf([&] { tensorFromProto(noLen, &store); });
        QVERIFY2(err.find("\"w2\"") != std::string::npos, err.c_str());
    }

    void externalDataRefusals()
    {
        QTemporaryDir tmp;
        QTemporaryDir outside;
        const fs::path dir = tmp.path().toStdString();
        const fs::path other = outside.path().toStdString();
        writeBytes(dir / "short.bin", std::string(10, '\0'));
        writeBytes(other / "secret.bin", std::string(24, '\0'));
        fs::create_symlink(other / "secret.bin", dir / "link.bin");
        fs::create_directories(dir / "sub");
        ExternalDataStore store(dir);

        struct Refusal {
            std::string tensor, location;
            int64_t offset, length;
            const char* why;
        };
        const std::vector<Refusal> refusals = {
            { "abs", (other / "secret.bin").string(), 0, 24, "absolute" },
            { "dotdot", "sub/../../" + other.filename().string() + "/secret.bin", 0, 24, "leaves" },
            { "dotdot2", "../secret.bin", 0, 24, "leaves" },
            { "symlink", "link.bin", 0, 24, "outside" },
            { "missing", "nope.bin", 0, 24, "does not exist" },
            { "short", "short.bin", 0, 24, "past the end" },
            { "offset", "short.bin", 100, 24, "past the end" },
        };
        for (const auto& r : refusals) {
            onnx::TensorProto p = externalProto(r.tensor, r.location, r.offset, r.length);
            std::string err = errorOf([&] { tensorFromProto(p, &store); });
            QVERIFY2(!err.empty(), qPrintable(QString::fromStdString(r.tensor + " was accepted")));
            QVERIFY2(err.find("\"" + r.tensor + "\"") != std::string::npos,
                qPrintable(QString::fromStdString(r.tensor + ": message does not name the tensor: " + err)));
            const std::string file = fs::path(r.location).filename().string();
            QVERIFY2(err.find(file) != std::string::npos,
                qPrintable(QString::fromStdString(r.tensor + ": message does not name the file: " + err)));
            QVERIFY2(err.find(r.why) != std::string::npos,
                qPrintable(QString::fromStdString(r.tensor + ": expected '" + r.why + "' in: " + err)));
        }
        // Without a store, external data is refused with the tensor named.
        onnx::TensorProto p = externalProto("nostore", "short.bin", 0, 8);
        QVERIFY(errorOf([&] { tensorFromProto(p, nullptr); }).find("\"nostore\"") != std::string::npos);
    }

private:
    static onnx::TensorProto externalProto(
        const std::string& name, const std::string& location, int64_t offset, int64_t length)
    {
        onnx::TensorProto p;
        p.set_name(name);
        p.set_data_type(onnx::TensorProto::FLOAT);
        p.add_dims(2);
        p.add_dims(3);
        p.set_data_location(onnx::TensorProto::EXTERNAL);
        auto add = [&](const char* k, const std::string& v) {
            auto* e = p.add_external_data();
            e->set_key(k);
            e->set_value(v);
        };
        add("location", location);
        if (offset >= 0)
            add("offset", std::to_string(offset));
        if (length >= 0)
            add("length", std::to_string(length));
        return p;
    }
};

QTEST_APPLESS_MAIN(TestTensorIo)
#include "test_tensor_io.moc"
