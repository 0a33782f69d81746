// SPDX-License-Identifier: MIT
#include "ui/precision/precision_job.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace onnxscope {

namespace {

struct Outcome {
    PrecisionResultPtr result;
    QString error;
    bool cancelled = false;
};

} // namespace

PrecisionController::PrecisionController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<PrecisionResultPtr>();
}

PrecisionController::~PrecisionController()
{
    if (m_cancel)
        m_cancel->store(true);
}

bool PrecisionController::start(PrecisionRequest request)
{
    if (m_running)
        return false;
    m_running = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_cancel;
    QPointer<PrecisionController> self(this);
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher] {
        const Outcome outcome = watcher->result();
        watcher->deleteLater();
        m_running = false;
        if (outcome.cancelled)
            emit cancelled();
        else if (outcome.result)
            emit finished(outcome.result);
        else
            emit failed(outcome.error);
    });
    emit started();
    watcher->setFuture(QtConcurrent::run([request = std::move(request), cancel, self]() -> Outcome {
        QElapsedTimer timer;
        timer.start();
        try {
            auto result = std::make_shared<PrecisionResult>();
            result->program = std::make_shared<Program>(request.model);
            PrecisionCheckOptions options;
            options.target = request.target;
            options.underflowShare = request.underflowShare;
            options.cancel = cancel.get();
            options.progress = [self](uint64_t done) {
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, done] {
                        if (self)
                            emit self->progress(static_cast<qint64>(done));
                    },
                    Qt::QueuedConnection);
            };
            result->report = checkPrecision(result->program, request.inputs(), options);
            result->seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
            return { result, {}, false };
        } catch (const PrecisionCheckCancelled&) {
            return { nullptr, {}, true };
        } catch (const std::exception& e) {
            return { nullptr, QString::fromStdString(e.what()), false };
        } catch (...) {
            return { nullptr, QStringLiteral("the precision check failed"), false };
        }
    }));
    return true;
}

void PrecisionController::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

} // namespace onnxscope
