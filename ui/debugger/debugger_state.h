// SPDX-License-Identifier: MIT
#pragma once

#include <QMetaType>
#include <QString>

namespace onnxscope {

/// The one state that decides which debugger actions are enabled.
enum class DebuggerState {
    NoModel, // nothing to run
    Ready, // a model is loaded; no run in progress
    Running, // the worker thread is executing nodes
    Paused, // stopped at a node boundary (step, breakpoint, YieldOp, pause); values can be inspected
    Finished, // the run completed; every value can be inspected
    Failed, // a node (or the inputs) failed; earlier values can be inspected
};

QString debuggerStateName(DebuggerState state);

} // namespace onnxscope

Q_DECLARE_METATYPE(onnxscope::DebuggerState)
