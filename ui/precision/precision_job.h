// SPDX-License-Identifier: MIT
#pragma once

#include "engine/analysis/precision_check.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace onnxscope {

/// What Debug › Check Precision… asked for: the open model run once in float32 on the Inputs dock's values.
struct PrecisionRequest {
    std::shared_ptr<const Model> model;
    /// Builds the inputs (called on the worker thread; it must own what it reads).
    std::function<std::map<std::string, Value>()> inputs;
    PrecisionTarget target;
    double underflowShare = 0.5;
};

/// A finished check: the report and the program whose graphs its nodes point into.
struct PrecisionResult {
    std::shared_ptr<const Program> program;
    PrecisionReport report;
    double seconds = 0;
};
using PrecisionResultPtr = std::shared_ptr<const PrecisionResult>;

/// Runs checkPrecision off the UI thread, one at a time, with progress and cancel, and reports with signals.
class PrecisionController : public QObject {
    Q_OBJECT
public:
    explicit PrecisionController(QObject* parent = nullptr);
    ~PrecisionController() override;

    /// Starts a check; false if one is running.
    bool start(PrecisionRequest request);
    /// Stops the running check at its next node; cancelled() follows.
    void cancel();
    bool isRunning() const { return m_running; }

signals:
    void started();
    void progress(qint64 nodesDone);
    void finished(onnxscope::PrecisionResultPtr result);
    void failed(const QString& message);
    void cancelled();

private:
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_running = false;
};

} // namespace onnxscope

Q_DECLARE_METATYPE(onnxscope::PrecisionResultPtr)
