// SPDX-License-Identifier: MIT
#include "app/gui/debug_benchmark.h"

#include "engine/exec/simd_level.h"
#include "ui/debugger/debug_controller.h"
#include "ui/debugger/debugger_actions.h"
#include "ui/graphview/graph_view.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/main_window.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>

namespace onnxscope {

namespace {

/// One F5 after another, timed from the GUI thread.
class DebugBenchmark : public QObject {
public:
    DebugBenchmark(MainWindow& window, DebuggerUi& debugger, int runs)
        : QObject(&window)
        , m_window(window)
        , m_debugger(debugger)
        , m_runs(runs)
    {
        m_heartbeat.setTimerType(Qt::PreciseTimer);
        m_heartbeat.setInterval(1);
        connect(&m_heartbeat, &QTimer::timeout, this, &DebugBenchmark::beat);
        DebugController* c = m_debugger.controller();
        connect(c, &DebugController::stopShown, this, [this] { m_shownNs = m_clock.nsecsElapsed(); });
        connect(c, &DebugController::stopped, this, &DebugBenchmark::stopped);
    }

    void start()
    {
        m_stallNs = {};
        m_shownNs = -1;
        m_doneNs = -1;
        m_clock.start();
        m_lastBeat = 0;
        m_heartbeat.start();
        if (!m_debugger.controller()->continueRun()) {
            std::fprintf(stderr, "the debugger did not accept F5 (state %s)\n",
                debuggerStateName(m_debugger.controller()->state()).toUtf8().constData());
            QCoreApplication::exit(1);
        }
    }

private:
    void beat()
    {
        const qint64 now = m_clock.nsecsElapsed();
        // The gap ending now is counted in the phase it ends in: running, summarising (from the stop shown), or the
        // views taking the complete stop.
        const int phase = m_doneNs >= 0 ? 2 : m_shownNs >= 0 ? 1 : 0;
        m_stallNs[phase] = std::max(m_stallNs[phase], now - m_lastBeat);
        m_lastBeat = now;
        if (m_doneNs >= 0) // the first beat after the stop's views were updated: this run is measured
            report();
    }

    void stopped(const DebugSnapshotPtr& snapshot)
    {
        m_doneNs = m_clock.nsecsElapsed(); // DebuggerUi's slot, connected first, has updated the views
        m_snapshot = snapshot;
    }

    void report()
    {
        m_heartbeat.stop();
        const DebugSnapshot& s = *m_snapshot;
        const auto ms = [](qint64 ns) { return static_cast<double>(ns) / 1e6; };
        std::printf("{\"run\": %d, \"threads\": %d, \"simd\": \"%s\", \"record_profile\": %s, \"reason\": \"%s\", "
                    "\"f5_to_stop_shown_ms\": %.2f, \"f5_to_summaries_ms\": %.2f, \"values\": %zu, "
                    "\"quiet_stretches\": %zu, \"max_stall_running_ms\": %.2f, \"max_stall_summarising_ms\": %.2f, "
                    "\"max_stall_after_ms\": %.2f}\n",
            m_done, m_debugger.controller()->threads(), std::string(simdLevelName()).c_str(),
            m_debugger.recordProfileAction()->isChecked() ? "true" : "false",
            std::string(stopReasonName(s.reason)).c_str(), ms(m_shownNs >= 0 ? m_shownNs : m_doneNs), ms(m_doneNs),
            s.values.size(), s.quietStretches, ms(m_stallNs[0]), ms(m_stallNs[1]), ms(m_stallNs[2]));
        std::fflush(stdout);
        m_snapshot.reset();
        if (s.reason == StopReason::Failed) {
            std::fprintf(stderr, "the run failed: %s\n", s.message.toUtf8().constData());
            QCoreApplication::exit(1);
            return;
        }
        if (++m_done >= m_runs) {
            QTimer::singleShot(0, qApp, &QApplication::quit);
            return;
        }
        QTimer::singleShot(0, this, &DebugBenchmark::start);
    }

    MainWindow& m_window;
    DebuggerUi& m_debugger;
    int m_runs;
    int m_done = 0;
    QTimer m_heartbeat;
    QElapsedTimer m_clock;
    qint64 m_lastBeat = 0;
    std::array<qint64, 3> m_stallNs {}; // the longest gap between two heartbeats, by phase (beat())
    qint64 m_shownNs = -1;
    qint64 m_doneNs = -1;
    DebugSnapshotPtr m_snapshot;
};

} // namespace

void scheduleDebugBenchmark(
    MainWindow& window, DebuggerUi& debugger, const QStringList& inputs, int runs, int threads, bool recordProfile)
{
    auto* bench = new DebugBenchmark(window, debugger, std::max(runs, 1));
    window.setErrorReporter([](const QString&, const QString&) {});
    QObject::connect(&window, &MainWindow::modelOpenFailed, bench, [](const QString&, const QString& message) {
        std::fprintf(stderr, "%s\n", message.toUtf8().constData());
        QCoreApplication::exit(1);
    });
    QObject::connect(&window, &MainWindow::modelOpened, bench, [&debugger, inputs, threads, recordProfile] {
        for (const QString& item : inputs)
            debugger.inputs()->setFile(item.section(QLatin1Char('='), 0, 0), item.section(QLatin1Char('='), 1));
        debugger.actions()->setThreads(threads);
        debugger.recordProfileAction()->setChecked(recordProfile);
    });
    // F5 once the graph is drawn and laid out, as a user would press it.
    auto started = std::make_shared<bool>(false);
    QObject::connect(window.graphView(), &GraphView::graphDrawn, bench, [&window, &debugger, bench, started] {
        if (*started)
            return;
        *started = true;
        auto* poll = new QTimer(bench);
        QObject::connect(poll, &QTimer::timeout, bench, [&window, &debugger, bench, poll] {
            if (window.graphView()->isLayoutRunning() || debugger.controller()->state() != DebuggerState::Ready)
                return;
            poll->stop();
            if (!debugger.inputs()->validate()) {
                std::fprintf(stderr, "the inputs are not valid\n");
                QCoreApplication::exit(1);
                return;
            }
            bench->start();
        });
        poll->start(5);
    });
}

} // namespace onnxscope
