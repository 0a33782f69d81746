// SPDX-License-Identifier: MIT
#include "engine/exec/backend_case.h"

#include "engine/exec/session.h"
#include "engine/io/value_proto.h"

#include <algorithm>
#include <cstring>

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

BackendCaseResult runBackendCase(const fs::path& caseDir, Tolerance tolerance)
{
    BackendCaseResult result;
    result.name = caseDir.filename().string();
    if (result.name.empty())
        result.name = caseDir.parent_path().filename().string();
    try {
        auto model = Model::load(caseDir / "model.onnx");
        auto program = std::make_shared<Program>(model);
        const Graph& graph = model->graph();
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
            Session session(program);
            auto outputs = session.run(inputs);
            check(outputFiles.size() <= graph.outputs().size(),
                set.filename().string() + " has more expected outputs than the model has outputs");
            for (size_t i = 0; i < outputFiles.size(); ++i) {
                const auto& v = graph.value(graph.outputs()[i]);
                Value expected = readCaseValue(outputFiles[i], v.type);
                if (auto mismatch = compareValues(expected, outputs.at(v.name), tolerance))
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
