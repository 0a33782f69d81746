// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/model.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <memory>
#include <unordered_map>
#include <vector>

namespace onnxscope {

/// The loaded model, shared by every view. Loading and onnx's diagnostics run on worker threads; the document reports
/// with signals and is only touched from the UI thread.
///
/// Views keep their own std::shared_ptr<const Model> while they show it, so Graph pointers they hold stay valid
/// until they switch to the new model on loaded().
class ModelDocument : public QObject {
    Q_OBJECT
public:
    explicit ModelDocument(QObject* parent = nullptr);
    ~ModelDocument() override;

    /// Starts loading `path` off the UI thread. A load started while another runs supersedes it.
    void open(const QString& path);
    /// Sets an already loaded model (tests, text-format models). Runs shape inference synchronously.
    void setModel(std::shared_ptr<const Model> model, const QString& path = {});

    std::shared_ptr<const Model> model() const { return m_model; }
    QString path() const { return m_path; }
    bool isLoading() const { return m_loading; }
    /// Milliseconds the last load took (reading, parsing, building graphs).
    double loadMilliseconds() const { return m_loadMs; }

    /// The best known type of a value: declared, else inferred (main graph), else an initializer's or Constant's.
    ValueType valueType(const Graph& graph, ValueId value) const;

    /// Shape inference runs after loading, off the UI thread; until then valueType() knows declared types only.
    bool typesReady() const { return m_typesReady; }
    bool diagnosticsReady() const { return m_diagnosticsReady; }
    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }

signals:
    void loadingStarted(const QString& path);
    void loaded();
    void loadFailed(const QString& path, const QString& message);
    void diagnosticsChanged();
    /// Inferred types arrived (after loaded()).
    void typesChanged();

private:
    struct LoadResult;
    void finishLoad(const std::shared_ptr<LoadResult>& result, quint64 generation);
    void startDiagnostics();
    void startTypeInference();

    std::shared_ptr<const Model> m_model;
    std::unordered_map<std::string, ValueType> m_inferred;
    QString m_path;
    QString m_pendingPath;
    bool m_loading = false;
    double m_loadMs = 0;
    quint64 m_generation = 0;
    bool m_diagnosticsReady = false;
    bool m_typesReady = false;
    std::vector<Diagnostic> m_diagnostics;
};

} // namespace onnxscope
