// SPDX-License-Identifier: MIT
// What the engine tells its faces about itself, through the public API: the supported-operator table, the SIMD level,
// and element casting from engine/core.
#include "engine/core/cast.h"
#include "engine/exec/operator_support.h"
#include "engine/exec/simd_level.h"

#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <tuple>

using namespace onnxscope;

namespace {

const SupportedOperator* find(
    const std::vector<SupportedOperator>& ops, const std::string& domain, const std::string& opType, int64_t opset)
{
    for (const SupportedOperator& o : ops)
        if (o.domain == domain && o.opType == opType && o.sinceVersion <= opset && opset <= o.lastVersion)
            return &o;
    return nullptr;
}

} // namespace

class TestEngineQueries : public QObject {
    Q_OBJECT
private slots:
    void supportedOperatorsAreSortedAndCoverTheCommonOps()
    {
        const auto ops = supportedOperators();
        QVERIFY(ops.size() > 100);
        QVERIFY(std::is_sorted(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
            return std::tie(a.domain, a.opType, a.sinceVersion) < std::tie(b.domain, b.opType, b.sinceVersion);
        }));
        // In the default domain the ranges are of schema versions (Add: 1, 6, 7, 13, 14; Softmax: 1, 11, 13).
        for (const auto& [op, version] :
            std::vector<std::pair<const char*, int64_t>> { { "Add", 14 }, { "Conv", 22 }, { "Gemm", 13 },
                { "Loop", 16 }, { "If", 21 }, { "Scan", 19 }, { "Cast", 13 }, { "Equal", 19 }, { "Softmax", 13 } })
            QVERIFY2(find(ops, "", op, version), op);
        QVERIFY(find(ops, "ai.onnx.ml", "ZipMap", 1));
        QVERIFY(!find(ops, "", "FrobnicateXYZ", 17));
        // Every range is well-formed and, in the schema domains, closed and listing the versions it implements.
        for (const SupportedOperator& o : ops)
            QVERIFY2(o.sinceVersion >= 1 && o.sinceVersion <= o.lastVersion, o.opType.c_str());
        const SupportedOperator* add = find(ops, "", "Add", 14);
        QVERIFY(add && add->lastVersion == 14);
        QCOMPARE(add->versions, std::vector<int>({ 1, 6, 7, 13, 14 }));
        // Custom domains have no schemas: their ranges are of opsets and may stay open.
        const SupportedOperator* cdist = find(ops, "com.microsoft", "CDist", 1000);
        QVERIFY(cdist && cdist->lastVersion == SupportedOperator::kLatest && cdist->versions.empty());
    }

    void simdLevelIsOneOfTheLevels()
    {
        const std::string level(simdLevelName());
        QVERIFY2(level == "baseline" || level == "AVX2" || level == "AVX-512", level.c_str());
        // The engine tests run again with ONNXSCOPE_SIMD set (tests/engine/CMakeLists.txt): the narrowest level.
        const char* env = std::getenv("ONNXSCOPE_SIMD");
        if (env && std::string(env) == "baseline")
            QCOMPARE(level, std::string("baseline"));
    }

    void castFromCore()
    {
        const Tensor s = Tensor::vector1D<std::string>({ "1.5", "-2", "nan" });
        const Tensor f = castTensor(s, DataType::Float);
        QCOMPARE(f.dtype(), DataType::Float);
        QCOMPARE(f.data<float>()[0], 1.5f);
        QVERIFY(std::isnan(f.data<float>()[2]));
        const Tensor i = castTensor(Tensor::vector1D<float>({ 2.9f, -2.9f, 1e20f }), DataType::Int8);
        QCOMPARE(i.data<int8_t>()[0], int8_t(2));
        QCOMPARE(i.data<int8_t>()[1], int8_t(-2));
        QCOMPARE(i.data<int8_t>()[2], int8_t(127));
        QCOMPARE(
            castTensor(Tensor::vector1D<bool>({ true }), DataType::String).data<std::string>()[0], std::string("True"));
        QVERIFY_THROWS_EXCEPTION(Error, castTensor(Tensor::vector1D<std::string>({ "x" }), DataType::Int32));
        QVERIFY_THROWS_EXCEPTION(Error, castTensor(Tensor(DataType::Complex64, { 1 }), DataType::Float));
    }
};

QTEST_GUILESS_MAIN(TestEngineQueries)
#include "test_engine_queries.moc"
