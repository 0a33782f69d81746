// SPDX-License-Identifier: MIT
// The narrow element types (float8*, float4e2m1, float6*, float8e8m0, int4/uint4, int2/uint2): names, conversion
// tables, packing, TensorProto raw and typed fields, .npy, and data-movement kernels moving them unchanged.
// Expected values are written out here from the ONNX spec (onnx.proto, Cast's tables) and the OCP 8-bit / MX
// format definitions, and were checked against ml_dtypes 0.7 (numpy's `astype` with ml_dtypes' dtypes), which
// generated ONNX's test data; never from our own output.
#include "engine/core/narrow_types.h"
#include "engine/core/tensor_stats.h"
#include "engine/exec/session.h"
#include "engine/io/npy.h"
#include "engine/io/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>

using namespace onnxscope;

namespace {

std::vector<uint8_t> bytesOf(const Tensor& t)
{
    const auto* p = static_cast<const uint8_t*>(t.raw());
    return { p, p + t.size() };
}

Tensor narrowTensor(DataType type, const std::vector<uint8_t>& elements, Shape shape)
{
    Tensor t(type, std::move(shape));
    std::memcpy(t.mutableRaw(), elements.data(), elements.size());
    return t;
}

struct Entry {
    double value;
    uint8_t bits;
};

} // namespace

class TestElementTypes : public QObject {
    Q_OBJECT

private slots:
    void names()
    {
        QCOMPARE(static_cast<int>(DataType::Float8E4M3FN), 17);
        QCOMPARE(static_cast<int>(DataType::Int2), 26);
        QCOMPARE(static_cast<int>(DataType::Float6E3M2), 28);
        QCOMPARE(dataTypeName(DataType::Float8E5M2FNUZ), std::string_view("float8e5m2fnuz"));
        QCOMPARE(dataTypeFromName("float8e4m3fn"), DataType::Float8E4M3FN);
        QCOMPARE(dataTypeFromName("float8_e4m3fn"), DataType::Float8E4M3FN); // ml_dtypes
        QCOMPARE(dataTypeFromName("float4_e2m1fn"), DataType::Float4E2M1);
        QCOMPARE(dataTypeFromName("float8_e8m0fnu"), DataType::Float8E8M0);
        QCOMPARE(dataTypeFromName("int4"), DataType::Int4);
        QCOMPARE(dataTypeFromName("uint2"), DataType::UInt2);
        QCOMPARE(dataTypeFromName("float32"), DataType::Float);
        QCOMPARE(dataTypeFromOnnx(24), DataType::Float8E8M0);
        QCOMPARE(dataTypeFromOnnx(29), DataType::Undefined);
        QCOMPARE(numpyTypeName(DataType::Float8E5M2), std::string_view("float8_e5m2"));
        for (int v = 17; v <= 28; ++v) {
            const DataType t = dataTypeFromOnnx(v);
            QCOMPARE(elementSize(t), size_t(1)); // unpacked in memory
            QVERIFY(isNarrow(t));
            QVERIFY(isNumeric(t));
            QVERIFY(!isFloatingPoint(t) && !isInteger(t));
        }
        QCOMPARE(bitWidth(DataType::Int4), 4);
        QCOMPARE(bitWidth(DataType::UInt2), 2);
        QCOMPARE(bitWidth(DataType::Float6E2M3), 6);
        QCOMPARE(bitWidth(DataType::Float8E8M0), 8);
        QCOMPARE(packedByteSize(DataType::Int4, 5), size_t(3));
        QCOMPARE(packedByteSize(DataType::Int2, 5), size_t(2));
        QCOMPARE(packedByteSize(DataType::Float6E3M2, 5), size_t(4)); // ceil(30 / 8)
    }

    void decodeTables()
    {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        struct Case {
            DataType type;
            std::vector<Entry> entries;
        };
        // S.EEEE.MMM etc.; subnormals: M * 2^(1 - bias - mantissa bits).
        const std::vector<Case> cases = {
            { DataType::Float8E4M3FN,
                { { 448, 0x7E }, { -448, 0xFE }, { nan, 0x7F }, { nan, 0xFF }, { 1.0, 0x38 }, { -2.0, 0xC0 },
                    { std::ldexp(1.0, -9), 0x01 }, { std::ldexp(1.0, -6), 0x08 }, { 0.0, 0x00 } } },
            { DataType::Float8E4M3FNUZ,
                { { 240, 0x7F }, { nan, 0x80 }, { 1.0, 0x40 }, { -1.0, 0xC0 }, { std::ldexp(1.0, -10), 0x01 } } },
            { DataType::Float8E5M2,
                { { 57344, 0x7B }, { inf, 0x7C }, { -inf, 0xFC }, { nan, 0x7E }, { 1.0, 0x3C },
                    { std::ldexp(1.0, -16), 0x01 } } },
            { DataType::Float8E5M2FNUZ,
                { { 57344, 0x7F }, { nan, 0x80 }, { 1.0, 0x40 }, { std::ldexp(1.0, -17), 0x01 } } },
            { DataType::Float4E2M1,
                { { 0, 0x0 }, { 0.5, 0x1 }, { 1, 0x2 }, { 1.5, 0x3 }, { 2, 0x4 }, { 3, 0x5 }, { 4, 0x6 }, { 6, 0x7 },
                    { -6, 0xF }, { -0.5, 0x9 } } },
            { DataType::Float6E2M3, { { 7.5, 0x1F }, { 0.125, 0x01 }, { -1, 0x28 } } },
            { DataType::Float6E3M2, { { 28, 0x1F }, { 0.0625, 0x01 }, { -1, 0x2C } } },
            { DataType::Float8E8M0, { { 1.0, 0x7F }, { 4.0, 0x81 }, { std::ldexp(1.0, -127), 0x00 }, { nan, 0xFF } } },
            { DataType::Int4, { { -1, 0xFF }, { -8, 0xF8 }, { 7, 0x07 } } },
            { DataType::UInt4, { { 15, 0x0F } } },
            { DataType::Int2, { { -2, 0xFE }, { 1, 0x01 } } },
            { DataType::UInt2, { { 3, 0x03 } } },
        };
        for (const auto& c : cases)
            for (const auto& e : c.entries) {
                const double got = narrowToDouble(c.type, e.bits);
                const std::string what
                    = std::string(dataTypeName(c.type)) + " 0x" + QByteArray::number(e.bits, 16).toStdString();
                if (std::isnan(e.value))
                    QVERIFY2(std::isnan(got), what.c_str());
                else
                    QVERIFY2(got == e.value, (what + " = " + std::to_string(got)).c_str());
            }
        // fnuz: 0x80 is NaN, so there is no -0; e4m3fn: S.1111.111 is NaN, so 0x7E is the largest.
        QCOMPARE(narrowMax(DataType::Float8E4M3FN), 448.0);
        QCOMPARE(narrowMax(DataType::Float8E5M2), 57344.0);
        QCOMPARE(narrowMax(DataType::Float8E4M3FNUZ), 240.0);
        QCOMPARE(narrowMax(DataType::Float4E2M1), 6.0);
    }

    void encodeRoundsToNearestEven()
    {
        const double inf = std::numeric_limits<double>::infinity();
        const double nan = std::numeric_limits<double>::quiet_NaN();
        auto enc = [](DataType t, double v, bool saturate = true) { return int(narrowFromDouble(t, v, saturate)); };
        const DataType e4 = DataType::Float8E4M3FN;
        QCOMPARE(enc(e4, 448), 0x7E);
        QCOMPARE(enc(e4, 1000), 0x7E); // saturate: [x] > max -> max
        QCOMPARE(enc(e4, 1000, false), 0x7F); // no saturate: NaN
        QCOMPARE(enc(e4, inf), 0x7E);
        QCOMPARE(enc(e4, inf, false), 0x7F);
        QCOMPARE(enc(e4, -inf, false), 0xFF); // -NaN
        QCOMPARE(enc(e4, -0.0), 0x80);
        QCOMPARE(enc(e4, std::ldexp(0.5, -9)), 0x00); // tie between 0 and the smallest subnormal: even
        QCOMPARE(enc(e4, std::ldexp(1.5, -9)), 0x02); // tie between subnormals 1 and 2: even
        QCOMPARE(enc(e4, 1.0625), 0x38); // tie between 1.0 (M=0) and 1.125 (M=1): 1.0
        QCOMPARE(enc(e4, 1.1875), 0x3A); // tie between 1.125 and 1.25 (M=2)
        QCOMPARE(enc(e4, 464), 0x7E); // below the midpoint 480
        QCOMPARE(enc(e4, 480, false), 0x7F); // tie rounds to 512 (even), which overflows
        QVERIFY(std::isnan(narrowToDouble(e4, narrowFromDouble(e4, nan))));
        const DataType e4z = DataType::Float8E4M3FNUZ;
        QCOMPARE(enc(e4z, 240), 0x7F);
        QCOMPARE(enc(e4z, -0.0), 0x00); // no -0
        QCOMPARE(enc(e4z, 300, false), 0x80);
        QCOMPARE(enc(e4z, inf, false), 0x80);
        QCOMPARE(enc(e4z, inf), 0x7F);
        QCOMPARE(enc(e4z, -inf), 0xFF);
        const DataType e5 = DataType::Float8E5M2;
        QCOMPARE(enc(e5, 57344), 0x7B);
        QCOMPARE(enc(e5, 70000), 0x7B);
        QCOMPARE(enc(e5, 70000, false), 0x7C); // inf
        QCOMPARE(enc(e5, 61440, false), 0x7C); // tie between max and 65536: even, overflow
        QCOMPARE(enc(e5, -inf, false), 0xFC);
        QCOMPARE(enc(e5, -inf), 0xFB);
        QCOMPARE(enc(DataType::Float8E5M2FNUZ, -0.0), 0x00);
        QCOMPARE(enc(DataType::Float8E5M2FNUZ, 1e6, false), 0x80);
        const DataType f4 = DataType::Float4E2M1;
        QCOMPARE(enc(f4, 5), 0x6); // tie between 4 and 6: 4
        QCOMPARE(enc(f4, 0.25), 0x0);
        QCOMPARE(enc(f4, 0.75), 0x2);
        QCOMPARE(enc(f4, 2.5), 0x4);
        QCOMPARE(enc(f4, 100, false), 0x7); // no inf: always saturates
        QCOMPARE(enc(f4, -100), 0xF);
        QCOMPARE(enc(DataType::Float6E2M3, -1), 0x28);
        QCOMPARE(enc(DataType::Float6E3M2, 100), 0x1F);
        // Narrow integers from floats: truncate, 0 when out of range (ml_dtypes' astype).
        QCOMPARE(int(int8_t(narrowFromDouble(DataType::Int4, -8.5))), -8);
        QCOMPARE(int(narrowFromDouble(DataType::Int4, 8)), 0);
        QCOMPARE(int(narrowFromDouble(DataType::UInt4, 15.5)), 15);
        QCOMPARE(int(narrowFromDouble(DataType::UInt4, 16)), 0);
        QCOMPARE(int(int8_t(narrowFromDouble(DataType::Int2, -2.5))), -2);
        // ... and from integers: wrap (200 = 0xC8 -> low nibble 8 -> -8).
        QCOMPARE(int(int8_t(narrowFromInteger(DataType::Int4, 200))), -8);
        QCOMPARE(int(int8_t(narrowFromInteger(DataType::Int4, -9))), 7);
        QCOMPARE(int(narrowFromInteger(DataType::UInt4, 17)), 1);
    }

    void e8m0Rounding()
    {
        // 3.0 = 1.5 * 2^1: up -> 2^2, down -> 2^1, nearest -> 2^2 (the fraction is >= 0.5).
        QCOMPARE(int(float8e8m0FromFloat(3.0f, true, E8M0Rounding::Up)), 0x81);
        QCOMPARE(int(float8e8m0FromFloat(3.0f, true, E8M0Rounding::Down)), 0x80);
        QCOMPARE(int(float8e8m0FromFloat(3.0f, true, E8M0Rounding::Nearest)), 0x81);
        QCOMPARE(int(float8e8m0FromFloat(2.5f, true, E8M0Rounding::Nearest)), 0x80);
        QCOMPARE(int(float8e8m0FromFloat(4.0f, true, E8M0Rounding::Up)), 0x81); // exact
        QCOMPARE(int(float8e8m0FromFloat(std::numeric_limits<float>::infinity(), true, E8M0Rounding::Up)), 0xFF);
        const float big = std::ldexp(1.5f, 127); // exponent field 0xFE with a fraction
        QCOMPARE(int(float8e8m0FromFloat(big, true, E8M0Rounding::Up)), 0xFE);
        QCOMPARE(int(float8e8m0FromFloat(big, false, E8M0Rounding::Up)), 0xFF);
    }

    void packing()
    {
        // onnx.proto: 4-bit pairs, first element in the low nibble; 2-bit quads from the low bits; 6-bit as an
        // LSB-first bit stream.
        const std::vector<uint8_t> int4 = { 0xFF, 0x02, 0x07, 0xF8, 0x03 }; // -1, 2, 7, -8, 3
        std::vector<uint8_t> packed(3);
        packElements(DataType::Int4, int4.data(), 5, packed.data());
        QCOMPARE(packed, (std::vector<uint8_t> { 0x2F, 0x87, 0x03 }));
        std::vector<uint8_t> back(5);
        unpackElements(DataType::Int4, packed.data(), 5, back.data());
        QCOMPARE(back, int4);
        const std::vector<uint8_t> uint2 = { 1, 2, 3, 0, 3 };
        std::vector<uint8_t> p2(2);
        packElements(DataType::UInt2, uint2.data(), 5, p2.data());
        QCOMPARE(p2, (std::vector<uint8_t> { 0x39, 0x03 }));
        const std::vector<uint8_t> f6 = { 0x01, 0x3F, 0x2A, 0x15 };
        std::vector<uint8_t> p6(3);
        packElements(DataType::Float6E2M3, f6.data(), 4, p6.data());
        // byte0 = x0 | (x1 & 3) << 6; byte1 = x1 >> 2 | (x2 & 0xF) << 4; byte2 = x2 >> 4 | x3 << 2
        QCOMPARE(p6, (std::vector<uint8_t> { 0xC1, 0xAF, 0x56 }));
        std::vector<uint8_t> b6(4);
        unpackElements(DataType::Float6E2M3, p6.data(), 4, b6.data());
        QCOMPARE(b6, f6);
    }

    void tensorProtoRawAndTyped()
    {
        // raw_data, packed: int4 [-1, 2, 7, -8, 3] is 0x2F 0x87 0x03.
        onnx::TensorProto raw;
        raw.set_data_type(onnx::TensorProto::INT4);
        raw.add_dims(5);
        raw.set_raw_data(std::string("\x2F\x87\x03", 3));
        Tensor t = tensorFromProto(raw);
        QCOMPARE(t.dtype(), DataType::Int4);
        QCOMPARE(bytesOf(t), (std::vector<uint8_t> { 0xFF, 0x02, 0x07, 0xF8, 0x03 }));
        QCOMPARE(t.toDouble(3), -8.0);
        onnx::TensorProto written;
        tensorToProto(t, written, "t");
        QCOMPARE(written.raw_data(), raw.raw_data());
        QCOMPARE(written.data_type(), int(onnx::TensorProto::INT4));

        // int32_data: for 4-bit types two elements per value (the packed byte).
        onnx::TensorProto typed;
        typed.set_data_type(onnx::TensorProto::UINT4);
        typed.add_dims(3);
        typed.add_int32_data(0x21); // 1, 2
        typed.add_int32_data(0x0F); // 15
        QCOMPARE(bytesOf(tensorFromProto(typed)), (std::vector<uint8_t> { 1, 2, 15 }));

        // float8: one bit pattern per int32_data value.
        onnx::TensorProto f8;
        f8.set_data_type(onnx::TensorProto::FLOAT8E4M3FN);
        f8.add_dims(3);
        f8.add_int32_data(0x38);
        f8.add_int32_data(0x7E);
        f8.add_int32_data(0xC0);
        Tensor f = tensorFromProto(f8);
        QCOMPARE(f.toDouble(0), 1.0);
        QCOMPARE(f.toDouble(1), 448.0);
        QCOMPARE(f.toDouble(2), -2.0);
        onnx::TensorProto f8out;
        tensorToProto(f, f8out);
        QCOMPARE(f8out.raw_data(), std::string("\x38\x7E\xC0", 3));

        // float6: one element per int32_data value; raw_data as a bit stream.
        onnx::TensorProto f6;
        f6.set_data_type(onnx::TensorProto::FLOAT6E3M2);
        f6.add_dims(2);
        f6.add_int32_data(0x1F);
        f6.add_int32_data(0x2C);
        Tensor six = tensorFromProto(f6);
        QCOMPARE(six.toDouble(0), 28.0);
        QCOMPARE(six.toDouble(1), -1.0);
        onnx::TensorProto f6out;
        tensorToProto(six, f6out);
        QCOMPARE(f6out.raw_data(), std::string("\x1F\x0B", 2)); // 0x1F | (0x2C & 3) << 6, 0x2C >> 2

        // Too few bytes is an error naming the tensor.
        onnx::TensorProto bad = raw;
        bad.set_name("w");
        bad.set_raw_data(std::string("\x2F", 1));
        try {
            tensorFromProto(bad);
            QFAIL("no error for short raw_data");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("\"w\"") != std::string::npos, e.what());
        }
    }

    void npyRoundTrip()
    {
        // ml_dtypes saves one byte per element with the bit pattern in the low bits (int4 -1 is 0x0F); the descr
        // is its dtype name, which numpy resolves once ml_dtypes is imported.
        Tensor t = narrowTensor(DataType::Int4, { 0xFF, 0x07, 0xF8 }, { 3 });
        const std::string bytes = serializeNpy(t);
        QVERIFY(bytes.find("'descr': 'int4'") != std::string::npos);
        QCOMPARE(bytes.substr(bytes.size() - 3), std::string("\x0F\x07\x08", 3));
        Tensor back = parseNpy(bytes, "t.npy");
        QCOMPARE(back.dtype(), DataType::Int4);
        QCOMPARE(bytesOf(back), bytesOf(t));

        Tensor f = narrowTensor(DataType::Float8E5M2, { 0x3C, 0x7C, 0xFB }, { 3 });
        const std::string fb = serializeNpy(f);
        QVERIFY(fb.find("'descr': 'float8_e5m2'") != std::string::npos);
        Tensor fback = parseNpy(fb, "f.npy");
        QCOMPARE(fback.dtype(), DataType::Float8E5M2);
        QCOMPARE(bytesOf(fback), bytesOf(f));

        // A header numpy wrote for an ml_dtypes array (float8_e4m3fn [1, 2, -4]).
        std::string header = "{'descr': 'float8_e4m3fn', 'fortran_order': False, 'shape': (3,), }";
        header.resize(117, ' ');
        header += '\n';
        const std::string file = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + char(0) + header
            + std::string("\x38\x40\xC8", 3);
        Tensor g = parseNpy(file, "g.npy");
        QCOMPARE(g.dtype(), DataType::Float8E4M3FN);
        QCOMPARE(g.toDouble(0), 1.0);
        QCOMPARE(g.toDouble(1), 2.0);
        QCOMPARE(g.toDouble(2), -4.0);
    }

    void statisticsAndDiffSeeNarrowValues()
    {
        // float8e4m3fn bytes: 0x7E = 448, 0xB0 = -0.5, 0x7F = NaN, 0x00 = 0, 0x38 = 1 (S.EEEE.MMM, bias 7).
        const Tensor f = narrowTensor(DataType::Float8E4M3FN, { 0x7E, 0xB0, 0x7F, 0x00, 0x38 }, { 5 });
        const TensorStats s = computeStats(f);
        QVERIFY(s.numeric);
        QCOMPARE(s.count, int64_t(5));
        QCOMPARE(s.nan, int64_t(1));
        QCOMPARE(s.zeros, int64_t(1));
        QCOMPARE(s.min, -0.5);
        QCOMPARE(s.max, 448.0);
        QCOMPARE(s.mean, (448.0 - 0.5 + 0.0 + 1.0) / 4);
        // int4 holds -8..7: [-8, 7, -1] has min -8, max 7, mean -2/3.
        const TensorStats i = computeStats(narrowTensor(DataType::Int4, { 0xF8, 0x07, 0xFF }, { 3 }));
        QCOMPARE(i.min, -8.0);
        QCOMPARE(i.max, 7.0);
        // A diff of two float8 tensors finds the element that differs (1 vs 2 at index 4: 0x40 = 2).
        const Tensor g = narrowTensor(DataType::Float8E4M3FN, { 0x7E, 0xB0, 0x7F, 0x00, 0x40 }, { 5 });
        const TensorDiff d = compareTensors(f, g);
        QCOMPARE(d.worstIndex, int64_t(4));
        QCOMPARE(d.maxAbs, 1.0);
        QCOMPARE(d.mismatchedNonFinite, int64_t(0));
        const Histogram h = computeHistogram(f, 2, -1, 1);
        QCOMPARE(h.counts, std::vector<int64_t>({ 1, 2 })); // -0.5 | 0 and 1
    }

    void dataMovementKernels()
    {
        // x: int4[2, 3] = [[-8, -1, 0], [1, 6, 7]]; Reshape to [3, 2] then Transpose: numpy gives
        // x.reshape(3, 2).T = [[-8, 0, 6], [-1, 1, 7]].
        // f: float8e4m3fn[2, 3] = [[1, 2, -4], [448, 0.5, -0]]: reshape(3, 2).T = [[1, -4, 0.5], [2, 448, -0]].
        const std::string text = R"(<ir_version: 11, opset_import: ["" : 21]>
agraph (int4[2, 3] x, float8e4m3fn[2, 3] f) => (int4[2, 3] y, float8e4m3fn[2, 3] g, int4[1, 6] z) {
    s = Constant <value = int64[2] {3, 2}> ()
    r = Reshape (x, s)
    y = Transpose <perm = [1, 0]> (r)
    rf = Reshape (f, s)
    g = Transpose <perm = [1, 0]> (rf)
    id = Identity (y)
    z = Flatten <axis = 0> (id)
})";
        Tensor x = narrowTensor(DataType::Int4, { 0xF8, 0xFF, 0x00, 0x01, 0x06, 0x07 }, { 2, 3 });
        Tensor f = narrowTensor(DataType::Float8E4M3FN, { 0x38, 0x40, 0xC8, 0x7E, 0x30, 0x80 }, { 2, 3 });
        Session session(std::make_shared<Program>(Model::fromText(text)));
        auto out = session.run({ { "x", Value(x) }, { "f", Value(f) } });
        const Tensor& y = out.at("y").tensor();
        QCOMPARE(y.dtype(), DataType::Int4);
        QCOMPARE(y.shape(), (Shape { 2, 3 }));
        const std::vector<double> yWant = { -8, 0, 6, -1, 1, 7 };
        for (int64_t i = 0; i < 6; ++i)
            QCOMPARE(y.toDouble(i), yWant[static_cast<size_t>(i)]);
        const Tensor& g = out.at("g").tensor();
        QCOMPARE(g.dtype(), DataType::Float8E4M3FN);
        const std::vector<double> gWant = { 1, -4, 0.5, 2, 448, -0.0 };
        for (int64_t i = 0; i < 6; ++i)
            QCOMPARE(g.toDouble(i), gWant[static_cast<size_t>(i)]);
        QVERIFY(std::signbit(g.toDouble(5)));
        const Tensor& z = out.at("z").tensor();
        QCOMPARE(z.shape(), (Shape { 1, 6 }));
        QCOMPARE(z.toDouble(5), 7.0);
    }

    void castAndQuantize()
    {
        // Cast float -> float8e4m3fn -> float, saturate=0: 1000 becomes NaN, 0.3 rounds to 0.3125 (1.25 * 2^-2).
        const std::string text = R"(<ir_version: 11, opset_import: ["" : 21]>
agraph (float[4] x) => (float[4] y, int4[4] q, float[4] d) {
    c = Cast <to = 17, saturate = 0> (x)
    y = Cast <to = 1> (c)
    s = Constant <value = float {0.5}> ()
    z = Constant <value = int4 {1}> ()
    q = QuantizeLinear (x, s, z)
    d = DequantizeLinear (q, s, z)
})";
        Session session(std::make_shared<Program>(Model::fromText(text)));
        auto out = session.run({ { "x", Value(Tensor::vector1D<float>({ 1000.0f, 0.3f, -1.25f, 2.0f })) } });
        const auto y = out.at("y").tensor().data<float>();
        QVERIFY(std::isnan(y[0]));
        QCOMPARE(y[1], 0.3125f);
        QCOMPARE(y[2], -1.25f);
        QCOMPARE(y[3], 2.0f);
        // q = clamp(round_half_even(x / 0.5) + 1, -8, 7): 2000 -> 7; 0.6 -> 1 + 1; -2.5 -> -2 + 1; 4 + 1.
        const Tensor& q = out.at("q").tensor();
        QCOMPARE(q.dtype(), DataType::Int4);
        const std::vector<double> qWant = { 7, 2, -1, 5 };
        for (int64_t i = 0; i < 4; ++i)
            QCOMPARE(q.toDouble(i), qWant[static_cast<size_t>(i)]);
        const auto d = out.at("d").tensor().data<float>();
        QCOMPARE(d[0], 3.0f); // (7 - 1) * 0.5
        QCOMPARE(d[2], -1.0f);
    }
};

QTEST_APPLESS_MAIN(TestElementTypes)
#include "test_element_types.moc"
