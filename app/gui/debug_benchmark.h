// SPDX-License-Identifier: MIT
#pragma once

#include <QStringList>

namespace onnxscope {

class DebuggerUi;
class MainWindow;

/// --benchmark-debug: once the model is open and drawn, sets the inputs, presses F5 `runs` times (each a new run to the
/// end) and prints one JSON line per run: the time from F5 to the stop shown (DebugController::stopShown, or stopped
/// when the run had nothing to summarise) and to the summaries ready (stopped, and the views updated for it), and the
/// GUI thread's longest event-loop stall (a 1 ms heartbeat timer's longest gap) while running, while summarising (from
/// the stop shown to stopped) and while the views take the complete stop. Then quits (exit code 1 if the run failed or
/// the model did not open).
void scheduleDebugBenchmark(
    MainWindow& window, DebuggerUi& debugger, const QStringList& inputs, int runs, int threads, bool recordProfile);

} // namespace onnxscope
