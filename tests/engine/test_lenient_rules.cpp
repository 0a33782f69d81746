// SPDX-License-Identifier: MIT
// The lenient rules of onnxruntime's CPU provider that real files rely on (issue #41), through the public API: a
// com.microsoft or com.microsoft.nchwc node whose domain the model does not import runs as version 1 of it;
// LayerNormalization runs at any default-domain opset (onnxruntime registers it from version 1). Each is a warning in
// the diagnostics (never an error), and any other unimported domain is still refused. Values against formulas worked
// out here.
#include "engine/core/error.h"
#include "engine/exec/model_diagnostics.h"
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>

using namespace onnxscope;

namespace {

std::shared_ptr<const Model> model(int64_t opset, const std::string& inputs, const std::string& body)
{
    return Model::fromText("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\nagraph (" + inputs
        + ") => (float[2, 4] y) {\n" + body + "\n}");
}

/// The diagnostics of `m` as this build sees them: the warnings holding `text`, and every error.
std::pair<std::vector<std::string>, std::vector<std::string>> warningsAndErrors(const Model& m, const std::string& text)
{
    std::vector<std::string> warnings, errors;
    for (const Diagnostic& d : diagnosticsForThisBuild(m)) {
        if (d.severity == Diagnostic::Severity::Error)
            errors.push_back(d.message);
        else if (d.message.find(text) != std::string::npos)
            warnings.push_back(d.message);
    }
    return { warnings, errors };
}

Tensor runY(const std::shared_ptr<const Model>& m, const Tensor& x, const Tensor* scale = nullptr)
{
    Session session(std::make_shared<Program>(m));
    std::map<std::string, Value> in { { "x", Value(x) } };
    if (scale)
        in.emplace("s", Value(*scale));
    return session.run(in).at("y").tensor();
}

const Tensor kX = Tensor::fromVector<float>({ 1, 2, 3, 4, -1, 0.5f, 2, -3 }, { 2, 4 });

} // namespace

class TestLenientRules : public QObject {
    Q_OBJECT
private slots:
    void layerNormalizationRunsBelowOpset17WithAWarning()
    {
        for (int64_t opset : { 11, 13, 16 }) {
            auto m = model(opset, "float[2, 4] x, float[4] s", "y = LayerNormalization <epsilon = 0.0> (x, s)");
            const Tensor s = Tensor::vector1D<float>({ 1, 2, 0.5f, -1 });
            const Tensor y = runY(m, kX, &s);
            for (int64_t r = 0; r < 2; ++r) {
                double mean = 0, var = 0;
                for (int64_t c = 0; c < 4; ++c)
                    mean += kX.data<float>()[size_t(r * 4 + c)] / 4.0;
                for (int64_t c = 0; c < 4; ++c)
                    var += std::pow(kX.data<float>()[size_t(r * 4 + c)] - mean, 2) / 4.0;
                for (int64_t c = 0; c < 4; ++c) {
                    const double expected
                        = (kX.data<float>()[size_t(r * 4 + c)] - mean) / std::sqrt(var) * s.data<float>()[size_t(c)];
                    QVERIFY2(std::abs(y.data<float>()[size_t(r * 4 + c)] - expected) < 1e-5,
                        ("opset " + std::to_string(opset) + " element " + std::to_string(r * 4 + c)).c_str());
                }
            }
            const auto [warnings, errors] = warningsAndErrors(*m, "LayerNormalization node at default-domain opset");
            QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
            QCOMPARE(warnings.size(), size_t(1));
            QVERIFY2(warnings[0].find("opset " + std::to_string(opset)) != std::string::npos, warnings[0].c_str());
            QVERIFY(warnings[0].find("onnxruntime registers it") != std::string::npos);
            QVERIFY(Program::unsupportedNodes(*m).empty());
        }
    }

    void layerNormalizationAtOpset17HasNoWarning()
    {
        auto m = model(17, "float[2, 4] x, float[4] s", "y = LayerNormalization (x, s)");
        QVERIFY(warningsAndErrors(*m, "LayerNormalization").first.empty());
    }

    void comMicrosoftNodeWithoutItsImportRunsAsVersion1()
    {
        // com.microsoft Gelu (erf form); the model imports only the default domain.
        auto m = model(13, "float[2, 4] x", "y = com.microsoft.Gelu (x)");
        QCOMPARE(m->opset("com.microsoft"), int64_t(0));
        QCOMPARE(m->graph().nodes().at(0).opset, int64_t(1));
        const Tensor y = runY(m, kX);
        for (int64_t i = 0; i < kX.size(); ++i) {
            const double v = kX.data<float>()[size_t(i)];
            QVERIFY(std::abs(y.data<float>()[size_t(i)] - 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))) < 1e-5);
        }
        const auto [warnings, errors] = warningsAndErrors(*m, "\"com.microsoft\", which the model does not import");
        QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
        // The loader's warning, and the checker's error about the missing import, turned into a warning.
        QVERIFY(!warnings.empty());
        QVERIFY(warnings[0].find("1 node uses domain") != std::string::npos);
        bool checkerNote = false;
        for (const Diagnostic& d : diagnosticsForThisBuild(*m))
            checkerNote |= d.source == "checker" && d.severity == Diagnostic::Severity::Warning
                && d.message.find("No opset import for domain 'com.microsoft'") != std::string::npos;
        QVERIFY(checkerNote);
    }

    void otherDomainsWithoutImportAreStillRefused()
    {
        try {
            model(13, "float[2, 4] x", "y = com.example.Frob (x)");
            QFAIL("a node of an unimported custom domain loaded");
        } catch (const Error& e) {
            QVERIFY2(
                std::string(e.what()).find("\"com.example\", which the model does not import") != std::string::npos,
                e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestLenientRules)
#include "test_lenient_rules.moc"
