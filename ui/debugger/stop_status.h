// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/debug_snapshot.h"

#include <QString>

namespace onnxscope {

/// The status line for a run that stopped for any reason but a failure: "Finished — 12 values recorded", or "Paused
/// (breakpoint) before Add_0 — <message> · node 2 of 5 in Loop "l" iteration 3, 2 of 3 in main".
QString stopStatusText(const DebugSnapshot& snapshot);

} // namespace onnxscope
