// SPDX-License-Identifier: MIT
#include "ui/debugger/stop_status.h"

namespace onnxscope {

QString stopStatusText(const DebugSnapshot& snapshot)
{
    const QString summarising = QStringLiteral(" \u2014 summarising the values\u2026");
    if (snapshot.reason == StopReason::Finished)
        return snapshot.summarising ? QStringLiteral("Finished") + summarising
                                    : QStringLiteral("Finished \u2014 %1 values recorded").arg(snapshot.values.size());
    const Node* next = snapshot.nextNode();
    QString text;
    text = QStringLiteral("Paused (%1)").arg(QString::fromUtf8(stopReasonName(snapshot.reason).data()));
    if (next)
        text += QStringLiteral(" before %1").arg(QString::fromStdString(next->displayName()));
    if (!snapshot.message.isEmpty() && snapshot.reason != StopReason::Step)
        text += QStringLiteral(" \u2014 ") + snapshot.message;
    // Inside a body, where the stop is in it comes first; the main graph's progress after.
    const QString mainProgress = QStringLiteral("%1 of %2").arg(snapshot.mainNodesDone).arg(snapshot.mainNodeCount);
    if (const FrameSnapshot* f = snapshot.innermost(); f && snapshot.frames.size() > 1 && f->graph) {
        const auto count = static_cast<int64_t>(f->graph->nodes().size());
        text += QStringLiteral(" \u00b7 node %1 of %2 in %3, %4 in main")
                    .arg(f->position < 0 ? count : f->position)
                    .arg(count)
                    .arg(QString::fromStdString(f->label), mainProgress);
    } else {
        text += QStringLiteral(" \u00b7 node ") + mainProgress;
    }
    return snapshot.summarising ? text + summarising : text;
}

} // namespace onnxscope
