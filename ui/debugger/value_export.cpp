// SPDX-License-Identifier: MIT
#include "ui/debugger/value_export.h"

#include "engine/io/value_writer.h"
#include "engine/model/debug_model.h"

#include <map>

namespace onnxscope {

namespace {

std::filesystem::path toPath(const QString& path)
{
    return path.toStdString();
}

} // namespace

QString safeFileName(const QString& name)
{
    return QString::fromStdString(safeFileName(name.toStdString()));
}

void exportCsv(const QString& path, const Tensor& tensor)
{
    writeCsv(toPath(path), tensor);
}

void exportTensor(const QString& path, const Tensor& tensor, const QString& name)
{
    writeTensorFile(toPath(path), tensor, name.toStdString());
}

std::vector<std::pair<std::string, Tensor>> exportableTensors(const DebugSnapshot& snapshot)
{
    std::vector<std::pair<std::string, Tensor>> out;
    std::map<std::string, size_t> index;
    for (const ValueSnapshot& vs : snapshot.values) {
        const RecordedValue& r = vs.record;
        const Tensor* t = r.dropped ? nullptr : r.value.heldTensor();
        if (!t)
            continue;
        const std::string key = r.framePath == "main" ? r.name.str() : r.name.str() + " @ " + r.framePath.str();
        if (auto it = index.find(key); it != index.end()) {
            out[it->second].second = *t;
            continue;
        }
        index[key] = out.size();
        out.emplace_back(key, *t);
    }
    return out;
}

int exportAllNpz(const QString& path, const DebugSnapshot& snapshot, bool compress)
{
    const auto tensors = exportableTensors(snapshot);
    writeTensorArchive(toPath(path), tensors, compress);
    return static_cast<int>(tensors.size());
}

int exportAllToFolder(const QString& folder, const DebugSnapshot& snapshot, const QString& suffix)
{
    const auto tensors = exportableTensors(snapshot);
    writeTensorFolder(toPath(folder), tensors, suffix.toStdString());
    return static_cast<int>(tensors.size());
}

void exportJsonSummary(const QString& path, const DebugSnapshot& snapshot)
{
    RunSummary summary;
    summary.model = snapshot.model ? snapshot.model->displayName() : std::string();
    summary.stopReason = std::string(stopReasonName(snapshot.reason));
    summary.message = snapshot.message.toStdString();
    summary.values.reserve(snapshot.values.size());
    for (const ValueSnapshot& vs : snapshot.values) {
        const RecordedValue& r = vs.record;
        ValueSummary v;
        v.name = r.name;
        if (const Node* producer = r.graph && r.producer >= 0 ? &r.graph->node(r.producer) : nullptr) {
            v.node = producer->displayName();
            v.opType = producer->opType;
        }
        v.framePath = r.framePath;
        v.iteration = r.iteration;
        v.dropped = r.dropped;
        v.value = r.value;
        v.stats = vs.stats;
        if (r.tracePoint)
            v.tracePoint = r.tracePoint->displayName();
        summary.values.push_back(std::move(v));
    }
    writeJsonSummary(toPath(path), summary);
}

int exportDebugModel(const QString& path, const DebugSnapshot& snapshot)
{
    check(snapshot.model != nullptr, "no model");
    // The latest value of each main-graph node output, in the order each first appeared.
    const Graph* main = &snapshot.model->graph();
    std::map<std::string, size_t> index;
    std::vector<std::pair<std::string, Tensor>> values;
    for (const ValueSnapshot& vs : snapshot.values) {
        const RecordedValue& r = vs.record;
        const Tensor* t = r.dropped ? nullptr : r.value.heldTensor();
        if (r.graph != main || r.producer < 0 || !t)
            continue;
        if (auto it = index.find(r.name); it != index.end()) {
            values[it->second].second = *t;
            continue;
        }
        index[r.name] = values.size();
        values.emplace_back(r.name, *t);
    }
    return static_cast<int>(writeDebugModel(toPath(path), *snapshot.model, values));
}

} // namespace onnxscope
