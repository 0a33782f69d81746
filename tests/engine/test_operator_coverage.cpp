// SPDX-License-Identifier: MIT
// Exact opset ranges: onnx's schema registry against the engine's kernel table. Every version of every operator
// that onnx defines runs through a kernel or its function body, or is listed as unsupported with a reason; a node
// whose version no kernel implements is reported with the versions that are, and never runs with another meaning.
#include "engine/core/error.h"
#include "engine/exec/operator_support.h"
#include "engine/exec/program.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/model/model.h"
#include "engine/model/op_schema.h"

#include <QtTest>

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <tuple>

using namespace onnxscope;

namespace {

std::string name(const std::string& domain, const std::string& op, int version)
{
    return (domain.empty() ? std::string("ai.onnx") : domain) + " " + op + "-" + std::to_string(version);
}

/// A model of one node `op` (one float input, one float output) importing `opset` of the default domain.
std::shared_ptr<const Model> oneNodeModel(const std::string& op, int64_t opset)
{
    onnx::ModelProto m;
    m.set_ir_version(8);
    auto* imp = m.add_opset_import();
    imp->set_domain("");
    imp->set_version(opset);
    auto* g = m.mutable_graph();
    g->set_name("g");
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name("the_node");
    n->add_input("x");
    n->add_output("y");
    for (const char* io : { "x", "y" }) {
        auto* vi = io[0] == 'x' ? g->add_input() : g->add_output();
        vi->set_name(io);
        auto* t = vi->mutable_type()->mutable_tensor_type();
        t->set_elem_type(onnx::TensorProto::FLOAT);
        t->mutable_shape()->add_dim()->set_dim_value(2);
    }
    return Model::fromBytes(m.SerializeAsString(), ".", "one_node.onnx");
}

KernelFactory unusedFactory()
{
    return [](const KernelInit&) -> std::unique_ptr<Kernel> { return nullptr; };
}

} // namespace

class TestOperatorCoverage : public QObject {
    Q_OBJECT
private slots:
    void everySchemaVersionRunsOrIsListedWithAReason()
    {
        std::set<std::tuple<std::string, std::string, int>> listed;
        for (const UnsupportedOperator& u : unsupportedOperators()) {
            QVERIFY2(!u.reason.empty(), name(u.domain, u.opType, u.sinceVersion).c_str());
            QVERIFY2(listed.emplace(u.domain, u.opType, u.sinceVersion).second,
                ("listed twice: " + name(u.domain, u.opType, u.sinceVersion)).c_str());
        }
        std::set<std::tuple<std::string, std::string, int>> known;
        std::vector<std::string> unlisted, runnableButListed;
        size_t kernels = 0, bodies = 0;
        for (const SchemaVersion& v : allSchemaVersions()) {
            known.emplace(v.domain, v.opType, v.sinceVersion);
            const OperatorCoverage c = operatorCoverage(v.domain, v.opType, v.sinceVersion);
            const bool isListed = listed.count({ v.domain, v.opType, v.sinceVersion }) > 0;
            if (c == OperatorCoverage::Unsupported && !isListed)
                unlisted.push_back(name(v.domain, v.opType, v.sinceVersion));
            if (c != OperatorCoverage::Unsupported && isListed)
                runnableButListed.push_back(name(v.domain, v.opType, v.sinceVersion));
            kernels += c == OperatorCoverage::Kernel;
            bodies += c == OperatorCoverage::FunctionBody;
        }
        for (const auto& [domain, op, version] : listed)
            QVERIFY2(
                known.count({ domain, op, version }), ("not an onnx schema: " + name(domain, op, version)).c_str());
        for (const auto& s : unlisted)
            qWarning("neither run nor listed as unsupported: %s", s.c_str());
        for (const auto& s : runnableButListed)
            qWarning("runs, yet listed as unsupported: %s", s.c_str());
        QVERIFY(unlisted.empty());
        QVERIFY(runnableButListed.empty());
        qInfo("%zu operator versions run by a kernel, %zu by their function body, %zu listed as unsupported", kernels,
            bodies, listed.size());
    }

    void kernelRangesInSchemaDomainsAreClosedAndExact()
    {
        for (const SupportedOperator& o : supportedOperators()) {
            if (!isSchemaDomain(o.domain))
                continue;
            const std::string what = name(o.domain, o.opType, int(o.sinceVersion));
            const std::vector<int> versions = schemaVersions(o.opType, o.domain);
            // onnxruntime registers a few ops in the default domain that onnx does not define (its own, and the
            // experimental ones onnx removed), and versions before onnx's first (LayerNormalization 1-16,
            // MeanVarianceNormalization 1-8, ThresholdedRelu 1-9); they keep opset ranges.
            static const std::set<std::string> ortOnly = { "SimplifiedLayerNormalization", "Affine", "Crop",
                "DynamicSlice", "ImageScaler", "ParametricSoftplus", "Scale", "ScaledTanh" };
            if (versions.empty() && o.domain.empty() && ortOnly.count(o.opType))
                continue;
            if (o.domain.empty() && !versions.empty() && o.lastVersion < versions.front())
                continue;
            QVERIFY2(!versions.empty(), ("no onnx schema: " + what).c_str());
            QVERIFY2(o.lastVersion != SupportedOperator::kLatest, ("open-ended range: " + what).c_str());
            // Both ends are versions onnx defines, so that a range says exactly which meanings the kernel has.
            QVERIFY2(
                std::count(versions.begin(), versions.end(), o.sinceVersion) == 1 || o.sinceVersion < versions.front(),
                ("first version is not a schema version: " + what).c_str());
            QVERIFY2(std::count(versions.begin(), versions.end(), o.lastVersion) == 1,
                ("last version " + std::to_string(o.lastVersion) + " is not a schema version: " + what).c_str());
            QVERIFY2(!o.versions.empty(), what.c_str());
        }
    }

    void aNodeRunsOnlyWithTheVersionItsOpsetResolvesTo()
    {
        // Relu's versions are 1, 6, 13 and 14. A table that implements only 1-6 runs opsets 1-12 and no later one.
        KernelRegistry r;
        r.add("", "Relu", 1, 6, unusedFactory());
        QCOMPARE(KernelRegistry::implementedVersion("", "Relu", 12), int64_t(6));
        QCOMPARE(KernelRegistry::implementedVersion("", "Relu", 17), int64_t(14));
        QVERIFY(r.find("", "Relu", 1));
        QVERIFY(r.find("", "Relu", 12));
        QVERIFY(!r.find("", "Relu", 13));
        QVERIFY(!r.find("", "Relu", 20));
        // Custom domains have no schemas: the range is one of opsets.
        r.add("com.example", "Frob", 2, KernelRegistry::kLatest, unusedFactory());
        QVERIFY(!r.find("com.example", "Frob", 1));
        QVERIFY(r.find("com.example", "Frob", 9));

        auto model = oneNodeModel("Relu", 17);
        try {
            Program program(model, r);
            QFAIL("a Relu-14 node ran with a Relu-6 kernel");
        } catch (const Error& e) {
            const std::string text = e.what();
            QVERIFY2(text.find("\"the_node\" (Relu, domain \"ai.onnx\", opset 17, version 14) is not supported")
                    != std::string::npos,
                text.c_str());
            QVERIFY2(text.find("the versions of Relu with a kernel: 1-6") != std::string::npos, text.c_str());
        }
        const auto listed = Program::unsupportedNodes(*model, r);
        QCOMPARE(listed.size(), size_t(1));
        QVERIFY2(listed[0].find("version 14") != std::string::npos, listed[0].c_str());
    }

    void theBuiltinTableRunsTheNewestReluAndRefusesAnOpAtAnOpsetBeforeItExists()
    {
        QVERIFY(KernelRegistry::builtin().find("", "Relu", 28));
        // Gelu exists from opset 20 on: a Gelu node of opset 18 is not a valid node, and no kernel takes it.
        QVERIFY(!KernelRegistry::builtin().find("", "Gelu", 18));
    }
};

QTEST_GUILESS_MAIN(TestOperatorCoverage)
#include "test_operator_coverage.moc"
