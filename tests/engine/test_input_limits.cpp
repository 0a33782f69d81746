// SPDX-License-Identifier: MIT
// Counts that come from a file are checked before any per-element work or allocation (issue 46): element counts of
// .npy whatever the item size (zero included) and memory order, .npz entry sizes each and in all, the bytes of any
// file read whole, sequence lengths and map sizes, packed sizes that must not wrap, external data ranges. Each case
// fails (or hangs) without its check.
#include "engine/compare/reference_values.h"
#include "engine/core/allocation_limit.h"
#include "engine/io/input_reader.h"
#include "engine/io/npy.h"
#include "engine/io/tensor_proto.h"
#include "engine/io/value_proto.h"

#include <onnx/onnx-data.pb.h> // the generated header: onnx installs no onnx-data_pb.h wrapper
#include <onnx/onnx_pb.h>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace onnxscope;
namespace fs = std::filesystem;

namespace {

template <class F> std::string errorOf(F&& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

void writeBytes(const fs::path& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A .npy 1.0 file: the header dict, padded with spaces as the fuzzer's finding was, then `data`.
std::string npy(const std::string& dict, const std::string& data = {})
{
    std::string h = dict;
    h.resize(118, ' ');
    std::string out("\x93NUMPY\x01\x00", 8);
    out += char(h.size() & 0xFF);
    out += char(h.size() >> 8);
    return out + h + data;
}

/// Sets the allocation limit for one scope.
class LimitScope {
public:
    explicit LimitScope(size_t bytes)
        : m_saved(Tensor::allocationLimit())
    {
        Tensor::setAllocationLimit(bytes);
    }
    ~LimitScope() { Tensor::setAllocationLimit(m_saved); }
    LimitScope(const LimitScope&) = delete;
    LimitScope& operator=(const LimitScope&) = delete;

private:
    size_t m_saved;
};

constexpr size_t kMiB = size_t(1) << 20;

} // namespace

class TestInputLimits : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    fs::path path(const std::string& name) const { return fs::path(m_dir.path().toStdString()) / name; }

private slots:
    // The fuzzer's finding without the leading zeros numpy refuses (numpy then loads it at once), its C-order twin
    // and the same with '<U0': 30 billion zero-length strings in a 128-byte file. Fortran order looped over every
    // element before the limit was checked.
    void zeroWidthItemsInEitherOrder()
    {
        for (const char* descr : { "|S0", "<U0" })
            for (const char* order : { "True", "False" }) {
                const std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': " + order
                    + ", 'shape': (1, 49,729 ,6,141220), }";
                const std::string bytes = npy(dict);
                QCOMPARE(bytes.size(), size_t(128));
                writeBytes(path("huge.npy"), bytes);
                const std::string err = errorOf([&] { readInputValue("x", path("huge.npy")); });
                QVERIFY2(contains(err,
                             "huge.npy\": tensor string[1, 49, 729, 6, 141220] would need 902.0 GiB, "
                             "more than the allocation limit of"),
                    (dict + " -> " + err).c_str());
            }
        // The finding as it was: a Python literal with leading zeros, refused as numpy refuses it.
        writeBytes(
            path("finding.npy"), npy("{'descr': '|S0', 'fortran_order': True, 'shape': (01, 49,729 ,6,0141220), }"));
        const std::string finding = errorOf([&] { readInputValue("x", path("finding.npy")); });
        QVERIFY2(
            contains(finding, "finding.npy\": malformed .npy header (a number with a leading zero"), finding.c_str());
        // Within a small limit the count alone decides: a million empty strings need 32 MB of std::string.
        LimitScope limit(kMiB);
        writeBytes(path("million.npy"), npy("{'descr': '|S0', 'fortran_order': True, 'shape': (1000, 1000), }"));
        const std::string err = errorOf([&] { readNpy(path("million.npy")); });
        QVERIFY2(contains(err, "million.npy\": tensor string[1000, 1000] would need"), err.c_str());
    }

    // Zero-width items within the limit still read, in either order, as empty strings (numpy: b'' everywhere); and
    // Fortran order is still reordered when items have bytes.
    void zeroWidthItemsWithinTheLimit()
    {
        for (const char* order : { "True", "False" }) {
            const Tensor t = parseNpy(
                npy(std::string("{'descr': '|S0', 'fortran_order': ") + order + ", 'shape': (3, 2), }"), "small");
            QCOMPARE(t.shape(), (Shape { 3, 2 }));
            for (const std::string& s : t.data<std::string>())
                QCOMPARE(s, std::string());
        }
        // Column-major bytes a b c d e f of shape (2, 3) are, row by row, a c e / b d f.
        const Tensor f = parseNpy(npy("{'descr': '|S1', 'fortran_order': True, 'shape': (2, 3), }", "abcdef"), "f");
        const std::vector<std::string> expected = { "a", "c", "e", "b", "d", "f" };
        QCOMPARE(std::vector<std::string>(f.data<std::string>().begin(), f.data<std::string>().end()), expected);
    }

    // An archive's declared sizes are checked, each and in all, before anything is decompressed (zeros compress to
    // almost nothing, so the archives are small).
    void npzSizesEachAndInAll()
    {
        const Tensor part(DataType::Float, { 768 * 1024 / 4 }); // 768 KiB
        writeNpz(path("two.npz"), { { "a", part }, { "b", part } }, true);
        writeNpz(path("three.npz"), { { "a", part }, { "b", part }, { "c", part } }, true);
        writeNpz(path("one.npz"), { { "big", Tensor(DataType::Float, { 1024 * 1024 }) } }, true);
        QVERIFY(fs::file_size(path("three.npz")) < 64 * 1024);
        LimitScope limit(2 * kMiB);
        QCOMPARE(readNpz(path("two.npz")).size(), size_t(2));
        std::string err = errorOf([&] { readNpz(path("three.npz")); });
        QVERIFY2(contains(err,
                     "three.npz\": its first 3 arrays (their sizes as the archive declares them) would "
                     "need 2.3 MiB, more than the allocation limit of 2.0 MiB"),
            err.c_str());
        err = errorOf([&] { readInputValue("big", path("one.npz")); });
        QVERIFY2(contains(err, "one.npz\" entry \"big.npy\" (its size as the archive declares it) would need 4.0 MiB"),
            err.c_str());
    }

    // Sizes of a file read whole: a regular file over the limit, and a device that never ends.
    void filesReadWholeAreBounded()
    {
        writeBytes(path("big.pb"), std::string(2 * kMiB, '\0'));
        LimitScope limit(kMiB);
        const std::string big = errorOf([&] { readTensorProtoFile(path("big.pb")); });
        QVERIFY2(contains(big, "reading \"")
                && contains(big,
                    "big.pb\" would need 2.0 MiB, more than the allocation "
                    "limit of 1.0 MiB"),
            big.c_str());
        fs::create_symlink("/dev/zero", path("zero.npy"));
        const std::string zero = errorOf([&] { readNpy(path("zero.npy")); });
        QVERIFY2(
            contains(zero, "zero.npy\" would need") && contains(zero, "more than the allocation limit"), zero.c_str());
        // A dump folder's manifest is read the same way.
        fs::create_directories(path("dump"));
        writeBytes(path("dump") / "manifest.json", "{\"tensors\": []}" + std::string(2 * kMiB, ' '));
        const std::string manifest = errorOf([&] { ReferenceValues::load(path("dump")); });
        QVERIFY2(contains(manifest, "manifest.json\" would need"), manifest.c_str());
    }

    // int4 dims of 2^62 elements need 2^61 bytes; the packed size wrapped to 0 bytes, so empty raw_data passed.
    void packedSizesDoNotWrap()
    {
        const int64_t n = int64_t(1) << 62;
        onnx::TensorProto raw;
        raw.set_name("w");
        raw.set_data_type(onnx::TensorProto::INT4);
        raw.add_dims(n);
        raw.set_raw_data("");
        std::string err = errorOf([&] { tensorFromProto(raw); });
        QVERIFY2(contains(err,
                     "tensor \"w\": raw_data has 0 bytes but int4[4611686018427387904] needs "
                     "2305843009213693952"),
            err.c_str());
        onnx::TensorProto typed = raw;
        typed.clear_raw_data();
        err = errorOf([&] { tensorFromProto(typed); });
        QVERIFY2(contains(err,
                     "tensor \"w\": 0 values stored but its shape [4611686018427387904] needs "
                     "2305843009213693952"),
            err.c_str());
        writeBytes(path("empty.bin"), "");
        onnx::TensorProto external = typed;
        external.set_data_location(onnx::TensorProto::EXTERNAL);
        auto* location = external.add_external_data();
        location->set_key("location");
        location->set_value("empty.bin");
        ExternalDataStore store(path(""));
        err = errorOf([&] { tensorFromProto(external, &store); });
        QVERIFY2(contains(err,
                     "tensor \"w\": external data length 0 bytes, but int4[4611686018427387904] needs "
                     "2305843009213693952"),
            err.c_str());
        // Wider types overflow 64 bits: an error naming the tensor, not a wrapped size.
        onnx::TensorProto wide;
        wide.set_name("d");
        wide.set_data_type(onnx::TensorProto::DOUBLE);
        wide.add_dims((int64_t(1) << 61) + 1);
        wide.set_raw_data(std::string(8, '\0'));
        err = errorOf([&] { tensorFromProto(wide); });
        QVERIFY2(contains(err, "tensor \"d\": byte size of double[2305843009213693953]"), err.c_str());
    }

    // The range of an offset near 2^64 is reported as given, not as a wrapped end.
    void externalRangeMessage()
    {
        writeBytes(path("w.bin"), std::string(24, '\0'));
        onnx::TensorProto p;
        p.set_name("w");
        p.set_data_type(onnx::TensorProto::FLOAT);
        p.add_dims(6);
        p.set_data_location(onnx::TensorProto::EXTERNAL);
        for (const auto& [key, value] : { std::pair<std::string, std::string> { "location", "w.bin" },
                 { "offset", "18446744073709551608" }, { "length", "24" } }) {
            auto* e = p.add_external_data();
            e->set_key(key);
            e->set_value(value);
        }
        ExternalDataStore store(path(""));
        const std::string err = errorOf([&] { tensorFromProto(p, &store); });
        QVERIFY2(contains(err,
                     "tensor \"w\": external data of 24 bytes at offset 18446744073709551608 lies past the "
                     "end of \"w.bin\" (24 bytes)"),
            err.c_str());
    }

    // A sequence of many empty tensors: each is tiny, the list of items is not.
    void sequenceLengthChecked()
    {
        onnx::SequenceProto seq;
        seq.set_name("s");
        seq.set_elem_type(onnx::SequenceProto::TENSOR);
        for (int i = 0; i < 100000; ++i) {
            auto* t = seq.add_tensor_values();
            t->set_data_type(onnx::TensorProto::FLOAT);
            t->add_dims(0);
        }
        QCOMPARE(valueFromSequenceProto(seq).sequence().items.size(), size_t(100000));
        LimitScope limit(kMiB);
        const std::string err = errorOf([&] { valueFromSequenceProto(seq); });
        QVERIFY2(contains(err, "sequence \"s\" of 100000 items would need") && contains(err, "allocation limit"),
            err.c_str());
    }

    // A map's key and value counts are compared before either is decoded; its keys are checked against the limit;
    // key types other than integers and strings are refused.
    void mapCountsChecked()
    {
        onnx::MapProto map;
        map.set_name("m");
        map.set_key_type(onnx::TensorProto::INT64);
        for (int64_t k : { 1, 2, 3 })
            map.add_keys(k);
        auto* values = map.mutable_values();
        values->set_elem_type(onnx::SequenceProto::TENSOR);
        tensorToProto(Tensor::scalar<float>(1.0f), *values->add_tensor_values());
        values->add_tensor_values()->set_data_type(99); // would fail to decode: the counts are compared first
        std::string err = errorOf([&] { valueFromMapProto(map); });
        QVERIFY2(contains(err, "map \"m\" has 3 keys but 2 values"), err.c_str());

        onnx::MapProto floatKeys = map;
        floatKeys.set_key_type(onnx::TensorProto::FLOAT);
        err = errorOf([&] { valueFromMapProto(floatKeys); });
        QVERIFY2(contains(err, "map \"m\": key type 1 is not an integer type or string"), err.c_str());

        onnx::MapProto many;
        many.set_name("many");
        many.set_key_type(onnx::TensorProto::STRING);
        many.mutable_values()->set_elem_type(onnx::SequenceProto::TENSOR);
        onnx::TensorProto one;
        tensorToProto(Tensor::scalar<float>(2.0f), one);
        for (int i = 0; i < 50000; ++i) {
            many.add_string_keys("");
            *many.mutable_values()->add_tensor_values() = one;
        }
        const Value ok = valueFromMapProto(many);
        QCOMPARE(ok.map().keys.size(), int64_t(50000));
        QCOMPARE(ok.map().values.data<float>()[49999], 2.0f);
        LimitScope limit(kMiB);
        err = errorOf([&] { valueFromMapProto(many); });
        QVERIFY2(contains(err, "map \"many\": tensor string[50000] would need"), err.c_str());
    }

    // The helper itself: negative dims, overflowing products and the byte check.
    void theOneCheck()
    {
        LimitScope limit(kMiB);
        QCOMPARE(checkedTensorCount(DataType::Float, { 512, 512 }), int64_t(262144));
        QVERIFY(contains(errorOf([] {
            checkedTensorCount(DataType::Float, { 512, 513 });
        }),
            "tensor float[512, 513] would need 1.0 MiB, more than the allocation limit of 1.0 MiB"));
        QVERIFY(contains(errorOf([] { checkedTensorCount(DataType::Float, { 2, -1 }); }), "negative"));
        QVERIFY(contains(errorOf([] {
            checkedTensorCount(DataType::Bool, { int64_t(1) << 40, int64_t(1) << 40 });
        }),
            "overflow"));
        QVERIFY(errorOf([] { checkAllocation(kMiB, 1, "x"); }).empty());
        QVERIFY(contains(errorOf([] { checkAllocation(kMiB + 1, 1, "x"); }), "x would need 1.0 MiB"));
        QVERIFY(contains(errorOf([] { checkAllocation(uint64_t(1) << 63, 4, "wraps"); }), "wraps would need"));
    }
};

QTEST_GUILESS_MAIN(TestInputLimits)
#include "test_input_limits.moc"
