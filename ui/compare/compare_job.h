// SPDX-License-Identifier: MIT
#pragma once

#include "engine/compare/module_comparison.h"
#include "engine/compare/run_comparison.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace onnxscope {

/// What Debug › Compare… asked for: side A is the open model with the Inputs dock's values; side B is another model,
/// reference values, or the same model with another input set. Plain data, copied to the worker thread.
struct CompareRequest {
    enum class Kind { Model, Reference, OtherInputs };
    Kind kind = Kind::Model;

    std::shared_ptr<const Model> modelA;
    QString descriptionA; // the model's path or name
    /// Builds side A's inputs (called on the worker thread; it must own what it reads).
    std::function<std::map<std::string, Value>()> inputsA;

    QString modelB; // Kind::Model: the .onnx file of side B
    QString reference; // Kind::Reference: a `run --dump-all` folder or an .npz
    /// Kind::Reference: the .npz holds PyTorch module outputs (onnxscope.torch.capture), paired with the values leaving
    /// each module's scope of side A, a dynamo export (docs/torch-compare.md), instead of values by name.
    bool byModule = false;
    /// Side B's inputs by name, as files: "NAME" -> .npy/.pb, or "" -> an .npz whose arrays are named after inputs.
    /// Inputs not given take side A's value of the same name, or of the same position when the two models share no
    /// input name (converted to side B's float type when it declares another one).
    std::map<QString, QString> inputFilesB;
    /// Kind::OtherInputs with random values: builds side B's inputs (worker thread), or empty to use files.
    std::function<std::map<std::string, Value>()> randomInputsB;
    QString randomDescription; // "random, seed 7"

    std::map<std::string, std::string> nameMap; // side A name -> side B name
    Tolerance tolerance { 1e-4, 1e-5 };
    bool compareInitializers = true;
    AlignMode align = AlignMode::Auto; // Kind::Model: how values pair
    /// The kernels' thread pool (the debugger's, Debug › Threads), or null for one thread.
    std::shared_ptr<ThreadPool> threadPool;
};

/// A finished comparison and what is needed to look at any of its pairs again: both sides' programs and inputs, or
/// the reference values. Immutable once made; shared by the views.
struct CompareSession {
    CompareRequest::Kind kind = CompareRequest::Kind::Model;
    ComparisonResult result;
    RunSide a;
    std::optional<RunSide> b; // Model, OtherInputs
    std::shared_ptr<const ReferenceValues> reference; // Reference
    /// Reference by module: the module comparison; `result` is its value view (one row per module output).
    std::shared_ptr<const ModuleComparisonResult> modules;
    CompareOptions options; // tolerance and name map used
    std::shared_ptr<ThreadPool> threadPool; // kept alive for fetchPair(); options.sessionOptions points at it
    QString descriptionA, descriptionB;
    double seconds = 0; // wall time of the comparison, loading included

    /// (frame path, side A name) -> row, for rows side A has; filled by runCompareRequest().
    std::map<std::pair<std::string, std::string>, size_t> rowIndex;

    /// Index of the row of a side-A value (frame path, name), or -1.
    int64_t rowOf(const std::string& framePath, const std::string& name) const;
};

using CompareSessionPtr = std::shared_ptr<const CompareSession>;

/// Runs a comparison (loads model B or the reference, builds the inputs, compares). Throws Error with a message for
/// the user on a bad file, a missing or mismatched input, or an unsupported model. `cancel` may be null.
CompareSessionPtr runCompareRequest(const CompareRequest& request, const std::atomic<bool>* cancel = nullptr,
    std::function<void(uint64_t nodesDone)> progress = {});

/// The two values of one row, found again by re-running each side up to the value (or reading the reference).
/// `a` or `b` is None for the side that lacks the value.
struct ValuePair {
    Value a, b;
};
ValuePair fetchPair(const CompareSession& session, size_t row, const std::atomic<bool>* cancel = nullptr);

/// A name mapping from text: "NAME_A=NAME_B", "NAME_A NAME_B" or "NAME_A,NAME_B" per line (# starts a comment), or a
/// JSON object {"NAME_A": "NAME_B"}. Throws Error naming the line that cannot be read.
std::map<std::string, std::string> parseNameMap(const QString& text);

/// Runs comparisons off the UI thread, one at a time, and reports with signals. Also fetches the pair of a row for
/// the diff view.
class CompareController : public QObject {
    Q_OBJECT
public:
    explicit CompareController(QObject* parent = nullptr);
    ~CompareController() override;

    /// Starts a comparison; false if one is running.
    bool start(CompareRequest request);
    /// Asks the running comparison to stop at the next node; it then finishes with what ran (result.cancelled).
    void cancel();
    bool isRunning() const { return m_running; }

    /// Fetches the pair of `row` on a worker; pairFetched() or pairFailed() follows. A newer request supersedes an
    /// older one still running.
    void requestPair(CompareSessionPtr session, size_t row);
    bool isFetching() const { return m_fetching; }

signals:
    void started();
    void progress(qint64 nodesDone);
    void finished(onnxscope::CompareSessionPtr session);
    void failed(const QString& message);
    void pairFetched(
        onnxscope::CompareSessionPtr session, qint64 row, const onnxscope::Value& a, const onnxscope::Value& b);
    void pairFailed(qint64 row, const QString& message);

private:
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::shared_ptr<std::atomic<bool>> m_fetchCancel;
    bool m_running = false;
    bool m_fetching = false;
    quint64 m_fetchGeneration = 0;
};

} // namespace onnxscope

Q_DECLARE_METATYPE(onnxscope::CompareSessionPtr)
