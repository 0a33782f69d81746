// SPDX-License-Identifier: MIT
#include "ui/export/value_export.h"

#include "engine/io/npy.h"
#include "engine/io/tensor_proto.h"
#include "ui/common/tensor_format.h"

#include <onnx/onnx_pb.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QTextStream>

#include <cmath>
#include <fstream>
#include <set>

namespace onnxscope {

namespace {

void writeText(const QString& path, const QByteArray& bytes)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw Error("cannot write \"" + path.toStdString() + "\": " + file.errorString().toStdString());
    file.write(bytes);
    if (!file.commit())
        throw Error("cannot write \"" + path.toStdString() + "\": " + file.errorString().toStdString());
}

QString csvCell(const Tensor& t, int64_t i)
{
    if (t.dtype() == DataType::String) {
        QString s = QString::fromStdString(t.data<std::string>()[static_cast<size_t>(i)]);
        s.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        return QLatin1Char('"') + s + QLatin1Char('"');
    }
    if (t.dtype() == DataType::Bool)
        return t.toDouble(i) != 0 ? QStringLiteral("1") : QStringLiteral("0");
    if (isInteger(t.dtype()))
        return formatElement(t, i);
    const double v = t.toDouble(i);
    if (std::isnan(v))
        return QStringLiteral("nan");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(v, 'g', t.dtype() == DataType::Double ? 17 : 9);
}

QJsonObject statsJson(const TensorStats& s)
{
    QJsonObject o;
    o[QStringLiteral("count")] = static_cast<qint64>(s.count);
    if (s.numeric) {
        auto num = [](double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(); };
        o[QStringLiteral("min")] = num(s.min);
        o[QStringLiteral("max")] = num(s.max);
        o[QStringLiteral("mean")] = num(s.mean);
        o[QStringLiteral("std")] = num(s.std);
        o[QStringLiteral("zeros")] = static_cast<qint64>(s.zeros);
        o[QStringLiteral("nan")] = static_cast<qint64>(s.nan);
        o[QStringLiteral("pos_inf")] = static_cast<qint64>(s.posInf);
        o[QStringLiteral("neg_inf")] = static_cast<qint64>(s.negInf);
    }
    return o;
}

} // namespace

QString safeFileName(const QString& name)
{
    QString s;
    for (QChar c : name)
        s += (c.isLetterOrNumber() || c == QLatin1Char('_') || c == QLatin1Char('-') || c == QLatin1Char('.')) ? c : QLatin1Char('_');
    while (s.startsWith(QLatin1Char('.')))
        s[0] = QLatin1Char('_');
    if (s.isEmpty())
        s = QStringLiteral("value");
    return s.left(180);
}

void exportCsv(const QString& path, const Tensor& tensor)
{
    check(tensor.defined(), "nothing to export");
    check(tensor.rank() <= 2, "CSV export takes 1-D or 2-D tensors; this one is " + tensor.typeString()
            + " (export it as .npy instead)");
    check(!isComplex(tensor.dtype()), "CSV export does not take complex tensors");
    const int64_t columns = tensor.rank() == 2 ? tensor.dim(1) : 1;
    const int64_t rows = columns > 0 ? tensor.size() / columns : (tensor.rank() == 2 ? tensor.dim(0) : 0);
    QByteArray out;
    for (int64_t r = 0; r < rows; ++r) {
        QStringList cells;
        for (int64_t c = 0; c < columns; ++c)
            cells << csvCell(tensor, r * columns + c);
        out += cells.join(QLatin1Char(',')).toUtf8();
        out += '\n';
    }
    writeText(path, out);
}

void exportTensor(const QString& path, const Tensor& tensor, const QString& name)
{
    check(tensor.defined(), "nothing to export");
    const std::filesystem::path p = path.toStdString();
    if (path.endsWith(QStringLiteral(".npy"), Qt::CaseInsensitive))
        writeNpy(p, npyCompatible(tensor));
    else if (path.endsWith(QStringLiteral(".pb"), Qt::CaseInsensitive))
        writeTensorProtoFile(p, tensor, name.toStdString());
    else if (path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive))
        exportCsv(path, tensor);
    else
        throw Error("\"" + path.toStdString() + "\": choose a .npy, .pb or .csv file name");
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
    auto tensors = exportableTensors(snapshot);
    for (auto& [name, t] : tensors)
        t = npyCompatible(t);
    writeNpz(path.toStdString(), tensors, compress);
    return static_cast<int>(tensors.size());
}

int exportAllToFolder(const QString& folder, const DebugSnapshot& snapshot, const QString& suffix)
{
    QDir dir(folder);
    if (!dir.exists() && !QDir().mkpath(folder))
        throw Error("cannot create folder \"" + folder.toStdString() + "\"");
    const auto tensors = exportableTensors(snapshot);
    QJsonObject manifest;
    std::set<QString> used;
    for (const auto& [name, t] : tensors) {
        const QString base = safeFileName(QString::fromStdString(name));
        QString file = base + suffix;
        for (int n = 2; used.count(file.toLower()); ++n)
            file = QStringLiteral("%1_%2%3").arg(base).arg(n).arg(suffix);
        used.insert(file.toLower());
        exportTensor(dir.filePath(file), t, QString::fromStdString(name));
        manifest[file] = QString::fromStdString(name);
    }
    writeText(dir.filePath(QStringLiteral("manifest.json")), QJsonDocument(manifest).toJson());
    return static_cast<int>(tensors.size());
}

void exportJsonSummary(const QString& path, const DebugSnapshot& snapshot)
{
    QJsonArray values;
    for (const ValueSnapshot& vs : snapshot.values) {
        const RecordedValue& r = vs.record;
        QJsonObject o;
        o[QStringLiteral("name")] = QString::fromStdString(r.name);
        const Node* producer = r.graph && r.producer >= 0 ? &r.graph->node(r.producer) : nullptr;
        o[QStringLiteral("node")] = producer ? QJsonValue(QString::fromStdString(producer->displayName())) : QJsonValue();
        o[QStringLiteral("op_type")] = producer ? QJsonValue(QString::fromStdString(producer->opType)) : QJsonValue();
        o[QStringLiteral("frame")] = QString::fromStdString(r.framePath);
        o[QStringLiteral("iteration")] = static_cast<qint64>(r.iteration);
        o[QStringLiteral("dropped")] = r.dropped;
        o[QStringLiteral("type")] = QString::fromStdString(r.value.typeString());
        if (const Tensor* t = r.dropped ? nullptr : r.value.heldTensor()) {
            o[QStringLiteral("dtype")] = QString::fromUtf8(dataTypeName(t->dtype()).data());
            QJsonArray shape;
            for (int64_t d : t->shape())
                shape.append(static_cast<qint64>(d));
            o[QStringLiteral("shape")] = shape;
        }
        if (vs.stats)
            o[QStringLiteral("stats")] = statsJson(*vs.stats);
        if (r.tracePoint)
            o[QStringLiteral("trace_point")] = QString::fromStdString(r.tracePoint->displayName());
        values.append(o);
    }
    QJsonObject root;
    root[QStringLiteral("model")] = snapshot.model ? QString::fromStdString(snapshot.model->displayName()) : QString();
    root[QStringLiteral("stop_reason")] = QString::fromUtf8(stopReasonName(snapshot.reason).data());
    root[QStringLiteral("message")] = snapshot.message;
    root[QStringLiteral("values")] = values;
    writeText(path, QJsonDocument(root).toJson());
}

int exportDebugModel(const QString& path, const DebugSnapshot& snapshot)
{
    check(snapshot.model != nullptr, "no model");
    onnx::ModelProto model = snapshot.model->proto();
    onnx::GraphProto* graph = model.mutable_graph();
    bool hasDomain = false;
    for (const auto& op : model.opset_import())
        hasDomain = hasDomain || op.domain() == "mlprodict";
    if (!hasDomain) {
        auto* op = model.add_opset_import();
        op->set_domain("mlprodict");
        op->set_version(1);
    }
    std::set<std::string> names;
    for (const auto& n : graph->node())
        for (const auto& o : n.output())
            names.insert(o);
    for (const auto& i : graph->initializer())
        names.insert(i.name());
    for (const auto& i : graph->input())
        names.insert(i.name());
    auto unique = [&](std::string base) {
        std::string name = base;
        for (int n = 2; names.count(name); ++n)
            name = base + "_" + std::to_string(n);
        names.insert(name);
        return name;
    };
    const Graph* main = &snapshot.model->graph();
    std::map<std::string, const Tensor*> latest;
    std::vector<std::string> order;
    for (const ValueSnapshot& vs : snapshot.values) {
        const RecordedValue& r = vs.record;
        const Tensor* t = r.dropped ? nullptr : r.value.heldTensor();
        if (r.graph != main || r.producer < 0 || !t)
            continue;
        if (!latest.count(r.name))
            order.push_back(r.name);
        latest[r.name] = t;
    }
    int count = 0;
    for (const std::string& name : order) {
        const std::string init = unique(name + "__debug_value");
        tensorToProto(*latest[name], *graph->add_initializer(), init);
        auto* node = graph->add_node();
        node->set_op_type("DEBUG");
        node->set_domain("mlprodict");
        node->set_name(unique("DEBUG_" + name));
        node->add_input(init);
        node->add_output(unique(name + "__debug"));
        node->set_doc_string("value of \"" + name + "\" computed by onnxscope");
        ++count;
    }
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    if (!out)
        throw Error("cannot write \"" + path.toStdString() + "\"");
    if (model.ByteSizeLong() > (size_t(2) << 30) - 1)
        throw Error("the debug model would be over protobuf's 2 GB limit; export the values as .npz instead");
    if (!model.SerializeToOstream(&out))
        throw Error("cannot write \"" + path.toStdString() + "\"");
    return count;
}

} // namespace onnxscope
