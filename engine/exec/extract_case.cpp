// SPDX-License-Identifier: MIT
#include "engine/exec/extract_case.h"

#include "engine/core/error.h"
#include "engine/exec/session.h"
#include "engine/io/tensor_proto.h"

#include <set>

namespace fs = std::filesystem;

namespace onnxscope {

namespace {

/// Keeps the main graph's values named in `wanted` as their nodes finish.
class BoundaryCapture : public SessionObserver {
public:
    explicit BoundaryCapture(std::set<std::string> wanted)
        : m_wanted(std::move(wanted))
    {
    }
    void afterNode(const NodeEvent& e) override
    {
        if (e.depth != 1)
            return;
        for (size_t i = 0; i < e.node.outputs.size() && i < e.outputs.size(); ++i) {
            const ValueId v = e.node.outputs[i];
            if (v == kNoValue)
                continue;
            const std::string& name = e.frame.plan->graph->value(v).name;
            if (m_wanted.count(name) && !m_values.count(name))
                m_values.emplace(name, e.outputs[i]);
        }
    }
    bool wantsTiming() const override { return false; }
    bool complete() const { return m_values.size() == m_wanted.size(); }
    std::map<std::string, Value>& values() { return m_values; }

private:
    std::set<std::string> m_wanted;
    std::map<std::string, Value> m_values;
};

} // namespace

ExtractedCase extractTestCase(std::shared_ptr<const Program> program, const SubgraphBoundary& part,
    const std::map<std::string, Value>& inputs, const fs::path& folder, const ExtractOptions& options, ThreadPool* pool)
{
    std::set<std::string> wanted;
    std::map<std::string, Value> known;
    for (const auto& names : { part.inputs, part.outputs })
        for (const auto& name : names) {
            if (auto it = inputs.find(name); it != inputs.end())
                known.emplace(name, it->second); // a graph input
            else
                wanted.insert(name);
        }
    BoundaryCapture capture(wanted);
    SessionOptions sessionOptions;
    sessionOptions.threadPool = pool;
    Session session(program, sessionOptions);
    session.addObserver(&capture);
    session.start(inputs);
    while (!capture.complete() && session.advance().kind != Session::StepKind::Finished) { }
    for (const auto& name : wanted)
        if (!capture.values().count(name))
            throw Error("the run finished without computing \"" + name + "\" in the main graph");
    known.merge(capture.values());

    ExtractedCase result;
    result.part = part;
    result.folder = folder;
    fs::create_directories(folder / "test_data_set_0");
    result.model = writeSubgraphModel(program->model(), part, known, folder / "model.onnx", options);
    for (size_t i = 0; i < part.inputs.size(); ++i)
        writeTensorProtoFile(folder / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb"),
            known.at(part.inputs[i]).tensor(), part.inputs[i]);
    for (size_t i = 0; i < part.outputs.size(); ++i)
        writeTensorProtoFile(folder / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb"),
            known.at(part.outputs[i]).tensor(), part.outputs[i]);
    return result;
}

} // namespace onnxscope
