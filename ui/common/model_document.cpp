// SPDX-License-Identifier: MIT
#include "ui/common/model_document.h"

#include "engine/exec/model_diagnostics.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace onnxscope {

struct ModelDocument::LoadResult {
    std::shared_ptr<const Model> model;
    QString error;
    double milliseconds = 0;
};

namespace {

std::unordered_map<std::string, ValueType> inferTypes(const Model& model)
{
    std::unordered_map<std::string, ValueType> out;
    try {
        for (auto& [name, type] : model.inferredTypes())
            out.emplace(name, std::move(type));
    } catch (const std::exception&) {
        // Types are a display nicety: a model shape inference cannot handle still opens.
    }
    return out;
}

} // namespace

ModelDocument::ModelDocument(QObject* parent)
    : QObject(parent)
{
}

ModelDocument::~ModelDocument() = default;

void ModelDocument::open(const QString& path)
{
    const quint64 generation = ++m_generation;
    m_loading = true;
    emit loadingStarted(path);
    auto* watcher = new QFutureWatcher<std::shared_ptr<LoadResult>>(this);
    connect(watcher, &QFutureWatcher<std::shared_ptr<LoadResult>>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        finishLoad(watcher->result(), generation);
    });
    const std::string file = path.toStdString();
    watcher->setFuture(QtConcurrent::run([file] {
        auto result = std::make_shared<LoadResult>();
        QElapsedTimer timer;
        timer.start();
        try {
            result->model = Model::load(file);
        } catch (const std::exception& e) {
            result->error = QString::fromStdString(e.what());
        }
        result->milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        return result;
    }));
    m_pendingPath = path;
}

void ModelDocument::finishLoad(const std::shared_ptr<LoadResult>& result, quint64 generation)
{
    if (generation != m_generation)
        return;
    m_loading = false;
    if (!result->model) {
        emit loadFailed(m_pendingPath, result->error);
        return;
    }
    m_model = result->model;
    m_inferred.clear();
    m_typesReady = false;
    m_diagnosticsReady = false;
    m_diagnostics.clear();
    m_path = m_pendingPath;
    m_loadMs = result->milliseconds;
    emit loaded();
    startTypeInference();
}

void ModelDocument::setModel(std::shared_ptr<const Model> model, const QString& path)
{
    ++m_generation;
    m_loading = false;
    m_model = std::move(model);
    m_inferred = m_model ? inferTypes(*m_model) : decltype(m_inferred) {};
    m_typesReady = true;
    m_path = path;
    emit loaded();
    startDiagnostics();
}

void ModelDocument::startTypeInference()
{
    const quint64 generation = m_generation;
    using Types = std::unordered_map<std::string, ValueType>;
    auto* watcher = new QFutureWatcher<Types>(this);
    connect(watcher, &QFutureWatcher<Types>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        m_inferred = watcher->future().takeResult();
        m_typesReady = true;
        emit typesChanged();
        // onnx's checker and a second inference pass: after, not beside, the types (two cores are common).
        startDiagnostics();
    });
    std::shared_ptr<const Model> model = m_model;
    watcher->setFuture(QtConcurrent::run([model] { return inferTypes(*model); }));
}

void ModelDocument::startDiagnostics()
{
    m_diagnosticsReady = false;
    m_diagnostics.clear();
    emit diagnosticsChanged();
    if (!m_model)
        return;
    const quint64 generation = m_generation;
    auto* watcher = new QFutureWatcher<std::vector<Diagnostic>>(this);
    connect(watcher, &QFutureWatcher<std::vector<Diagnostic>>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        m_diagnostics = watcher->result();
        m_diagnosticsReady = true;
        emit diagnosticsChanged();
    });
    std::shared_ptr<const Model> model = m_model;
    watcher->setFuture(QtConcurrent::run([model] {
        try {
            return diagnosticsForThisBuild(*model);
        } catch (const std::exception& e) {
            return std::vector<Diagnostic> { { Diagnostic::Severity::Error, "onnxscope", e.what() } };
        }
    }));
}

ValueType ModelDocument::valueType(const Graph& graph, ValueId id) const
{
    if (id < 0 || static_cast<size_t>(id) >= graph.values().size())
        return {};
    const ValueInfo& v = graph.value(id);
    if (v.type.kind != Value::Kind::None && v.type.hasShape)
        return v.type;
    if (!graph.parent()) {
        if (auto it = m_inferred.find(v.name); it != m_inferred.end())
            return it->second;
    }
    auto tensorType = [](DataType dtype, const Shape& shape) {
        ValueType t;
        t.kind = Value::Kind::Tensor;
        t.elementType = dtype;
        t.hasShape = true;
        for (int64_t d : shape)
            t.shape.push_back(Dim { d, {} });
        return t;
    };
    if (v.hasInitializer()) {
        const InitializerInfo initializer = v.initializerInfo();
        return tensorType(initializer.dtype, initializer.shape);
    }
    if (v.producer >= 0) {
        const Node& producer = graph.node(v.producer);
        if (producer.opType == "Constant")
            for (const Attribute& attr : producer.attributeList())
                if (attr.name() == "value" && attr.hasTensor())
                    return tensorType(attr.tensorType(), attr.tensorShape());
    }
    // A value of an enclosing graph read by a subgraph (If branch, Loop body) has its type where it is defined.
    if (v.producer < 0 && v.type.kind == Value::Kind::None && graph.parent()) {
        const std::vector<ValueId>& outer = graph.outerScopeValues();
        if (std::find(outer.begin(), outer.end(), id) != outer.end())
            if (const ValueId there = graph.parent()->findValue(v.name); there >= 0)
                return valueType(*graph.parent(), there);
    }
    return v.type;
}

} // namespace onnxscope
