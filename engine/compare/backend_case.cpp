// SPDX-License-Identifier: MIT
#include "engine/compare/backend_case.h"

#include "engine/exec/session.h"
#include "engine/io/value_proto.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace fs = std::filesystem;

namespace onnxscope {

namespace {

std::vector<fs::path> sortedFiles(const fs::path& dir, const std::string& prefix)
{
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().filename().string().rfind(prefix, 0) == 0
            && entry.path().extension() == ".pb")
            files.push_back(entry.path());
    // input_10.pb sorts after input_9.pb
    std::sort(files.begin(), files.end(), [&](const fs::path& a, const fs::path& b) {
        auto num = [&](const fs::path& p) {
            std::string s = p.stem().string().substr(prefix.size());
            try {
                return std::stoi(s);
            } catch (...) {
                return 0;
            }
        };
        return num(a) < num(b);
    });
    return files;
}

/// onnx 1.12's case generators have no numpy bfloat16 and store bfloat16 tensors as uint16 bit patterns; read them
/// back as the bfloat16 the model declares.
Value readCaseValue(const fs::path& file, const ValueType& declared)
{
    Value v = readValueFile(file, &declared);
    if (declared.elementType == DataType::BFloat16 && v.isTensor() && v.tensor().dtype() == DataType::UInt16) {
        const Tensor& bits = v.tensor();
        Tensor out(DataType::BFloat16, bits.shape());
        std::memcpy(out.mutableRaw(), bits.raw(), bits.byteSize());
        return Value(out);
    }
    return v;
}

/// True if the graph holds a random generator. ONNX's generators state that such outputs "may not produce the same
/// values in different implementations even if a seed is specified" (bernoulli.py), so their values are not compared.
bool hasRandomGenerator(const Graph& graph)
{
    static const std::set<std::string> kRandomOps { "Bernoulli", "RandomNormal", "RandomNormalLike", "RandomUniform",
        "RandomUniformLike", "Multinomial" };
    for (const auto& node : graph.nodes())
        if (node.domain.empty() && kRandomOps.count(node.opType))
            return true;
    return false;
}

bool isZeroOrOne(const Tensor& t)
{
    for (int64_t i = 0; i < t.size(); ++i) {
        const double x = t.toDouble(i);
        if (x != 0.0 && x != 1.0)
            return false;
    }
    return true;
}

/// For random outputs: same kind, element type and shape; and where every expected value is 0 or 1 (Bernoulli),
/// every actual value must be too.
std::optional<std::string> compareRandomOutput(const Value& expected, const Value& actual)
{
    if (!expected.isTensor() || !actual.isTensor())
        return compareValues(expected, actual);
    const Tensor& e = expected.tensor();
    const Tensor& a = actual.tensor();
    if (e.dtype() != a.dtype() || e.shape() != a.shape())
        return "random output: expected " + expected.typeString() + ", got " + actual.typeString();
    if (isZeroOrOne(e) && !isZeroOrOne(a))
        return std::string("random output: expected only 0 and 1 (Bernoulli draws), got other values");
    return std::nullopt;
}

} // namespace

std::vector<fs::path> findBackendCases(const fs::path& dir)
{
    std::vector<fs::path> cases;
    std::error_code ec;
    if (fs::exists(dir / "model.onnx", ec)) {
        cases.push_back(dir);
        return cases;
    }
    if (!fs::is_directory(dir, ec))
        return cases;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_directory() && fs::exists(entry.path() / "model.onnx"))
            cases.push_back(entry.path());
    std::sort(cases.begin(), cases.end());
    return cases;
}

BackendCaseResult runBackendCase(const fs::path& caseDir, Tolerance tolerance, ThreadPool* pool)
{
    BackendCaseResult result;
    result.name = caseDir.filename().string();
    if (result.name.empty())
        result.name = caseDir.parent_path().filename().string();
    try {
        auto model = Model::load(caseDir / "model.onnx");
        auto program = std::make_shared<Program>(model);
        const Graph& graph = model->graph();
        const bool random = hasRandomGenerator(graph);
        std::vector<fs::path> sets;
        for (const auto& entry : fs::directory_iterator(caseDir))
            if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
                sets.push_back(entry.path());
        std::sort(sets.begin(), sets.end());
        if (sets.empty()) {
            result.status = BackendCaseResult::Status::Skipped;
            result.message = "no test_data_set_* folder";
            return result;
        }
        for (const auto& set : sets) {
            auto inputFiles = sortedFiles(set, "input_");
            auto outputFiles = sortedFiles(set, "output_");
            std::map<std::string, Value> inputs;
            // Files are positional over the graph inputs that are not initializers.
            auto required = graph.inputs();
            std::vector<ValueId> feedable;
            for (ValueId id : required)
                if (!graph.value(id).initializer)
                    feedable.push_back(id);
            check(inputFiles.size() <= feedable.size(),
                set.filename().string() + " has " + std::to_string(inputFiles.size()) + " inputs but the model takes "
                    + std::to_string(feedable.size()));
            for (size_t i = 0; i < inputFiles.size(); ++i) {
                const auto& v = graph.value(feedable[i]);
                inputs[v.name] = readCaseValue(inputFiles[i], v.type);
            }
            SessionOptions options;
            options.checkInputShapes = false; // as ONNX's own backend runner: 4 onnx 1.12 cases feed other shapes
            options.threadPool = pool;
            Session session(program, options);
            auto outputs = session.run(inputs);
            check(outputFiles.size() <= graph.outputs().size(),
                set.filename().string() + " has more expected outputs than the model has outputs");
            for (size_t i = 0; i < outputFiles.size(); ++i) {
                const auto& v = graph.value(graph.outputs()[i]);
                Value expected = readCaseValue(outputFiles[i], v.type);
                const Value& actual = outputs.at(v.name);
                auto mismatch
                    = random ? compareRandomOutput(expected, actual) : compareValues(expected, actual, tolerance);
                if (mismatch)
                    throw Error(set.filename().string() + ", output \"" + v.name + "\": " + *mismatch);
            }
        }
        result.status = BackendCaseResult::Status::Passed;
    } catch (const std::exception& e) {
        result.status = BackendCaseResult::Status::Failed;
        result.message = e.what();
    }
    return result;
}

} // namespace onnxscope
