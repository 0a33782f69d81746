// SPDX-License-Identifier: MIT
// The reliability corpus (make_corpus.py) through the engine API: every hostile model or input is an Error at the
// stage its manifest entry names (load, plan, reading an input, run), with a message naming the file, node, tensor or
// attribute; the entries that must work (200 nested Ifs, strings that are not UTF-8) load, plan and run.
#include "engine/core/tensor.h"
#include "engine/exec/program.h"
#include "engine/exec/session.h"
#include "engine/io/npy.h"
#include "engine/io/tensor_proto.h"
#include "engine/model/model.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace onnxscope;
namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = ONNXSCOPE_CORPUS_DIR;

/// An input file as the CLI reads it: .npy, .pb, or the array `name` (or the only array) of an .npz.
Value readInput(const std::string& name, const fs::path& file)
{
    if (file.extension() == ".npz") {
        auto arrays = readNpz(file);
        for (auto& [key, t] : arrays)
            if (key == name)
                return Value(t);
        check(arrays.size() == 1, "\"" + file.string() + "\" has no array \"" + name + "\"");
        return Value(arrays.front().second);
    }
    if (file.extension() == ".pb")
        return Value(readTensorProtoFile(file));
    return Value(readNpy(file));
}

enum class Stage { Load, Plan, Input, Run, Ok };

Stage stageOf(const std::string& s)
{
    if (s == "load")
        return Stage::Load;
    if (s == "plan")
        return Stage::Plan;
    if (s == "input")
        return Stage::Input;
    if (s == "run")
        return Stage::Run;
    return Stage::Ok;
}

} // namespace

class TestCorpusApi : public QObject {
    Q_OBJECT
private:
    size_t m_defaultLimit = 0;
    nlohmann::json m_entries;

private slots:
    void initTestCase()
    {
        m_defaultLimit = Tensor::allocationLimit();
        std::ifstream in(kCorpus / "manifest.json");
        QVERIFY2(in.good(), "run make_corpus.py first (the CTest fixture reliability_corpus does)");
        m_entries = nlohmann::json::parse(in)["entries"];
        QVERIFY(m_entries.size() > 50);
    }

    void cleanup() { Tensor::setAllocationLimit(m_defaultLimit); }

    void entry_data()
    {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < m_entries.size(); ++i)
            QTest::newRow(m_entries[i]["name"].get<std::string>().c_str()) << static_cast<int>(i);
    }

    void entry()
    {
        QFETCH(int, index);
        const auto& e = m_entries[static_cast<size_t>(index)];
        const Stage expected = stageOf(e["api"]["stage"].get<std::string>());
        const auto message = e["api"]["message"].get<std::vector<std::string>>();
        SessionOptions options;
        if (e.contains("limits")) {
            const auto& limits = e["limits"];
            if (limits.contains("allocation_limit"))
                Tensor::setAllocationLimit(limits["allocation_limit"].get<size_t>());
            if (limits.contains("max_loop_iterations"))
                options.limits.maxLoopIterations = limits["max_loop_iterations"].get<int64_t>();
        }

        Stage reached = Stage::Load;
        std::string error;
        std::map<std::string, Value> outputs;
        try {
            auto model = Model::load(kCorpus / e["file"].get<std::string>());
            reached = Stage::Plan;
            auto program = std::make_shared<Program>(model);
            reached = Stage::Input;
            std::map<std::string, Value> inputs;
            if (e.contains("inputs"))
                for (const auto& [name, file] : e["inputs"].items())
                    inputs[name] = readInput(name, kCorpus / file.get<std::string>());
            reached = Stage::Run;
            Session session(program, options);
            outputs = session.run(inputs);
            reached = Stage::Ok;
        } catch (const Error& e) {
            error = e.what();
        }
        const char* names[] = { "load", "plan", "input", "run", "ok" };
        QVERIFY2(reached == expected,
            qPrintable(QStringLiteral("reached stage '%1', expected '%2'; error: %3")
                           .arg(QLatin1String(names[int(reached)]), QLatin1String(names[int(expected)]),
                               QString::fromStdString(error))));
        if (expected != Stage::Ok) {
            for (const auto& text : message)
                QVERIFY2(error.find(text) != std::string::npos,
                    qPrintable(QStringLiteral("error \"%1\" does not contain \"%2\"")
                                   .arg(QString::fromStdString(error), QString::fromStdString(text))));
            return;
        }
        if (e["api"].contains("string_output_hex")) {
            // Strings keep their bytes exactly, whether or not they are UTF-8.
            const std::string wanted
                = QByteArray::fromHex(QByteArray::fromStdString(e["api"]["string_output_hex"].get<std::string>()))
                      .toStdString();
            QVERIFY(!outputs.empty() && outputs.begin()->second.isTensor());
            const Tensor& t = outputs.begin()->second.tensor();
            QCOMPARE(t.dtype(), DataType::String);
            bool found = false;
            for (const auto& s : t.data<std::string>())
                found |= s == wanted;
            QVERIFY2(found, "the string output lost the bytes of its input");
        }
    }
};

QTEST_GUILESS_MAIN(TestCorpusApi)
#include "test_corpus_api.moc"
