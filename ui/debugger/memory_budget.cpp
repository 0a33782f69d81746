// SPDX-License-Identifier: MIT
#include "ui/debugger/memory_budget.h"

#include "ui/common/settings.h"
#include "ui/common/tensor_format.h"
#include "ui/debugger/debug_controller.h"

#include <QAction>
#include <QInputDialog>
#include <QLabel>

namespace onnxscope {

MemoryBudget::MemoryBudget(DebugController* controller, QWidget* dialogParent, QObject* parent)
    : QObject(parent)
    , m_controller(controller)
    , m_dialogParent(dialogParent)
    , m_action(new QAction(QStringLiteral("&Memory Budget\u2026"), this))
    , m_keepValueData(new QAction(QStringLiteral("&Keep Every Value's Data"), this))
    , m_label(new QLabel(dialogParent))
{
    // What debug runs keep of the values and checkpoints; the rest is rebuilt on request.
    m_action->setObjectName(QStringLiteral("memoryBudgetAction"));
    m_action->setToolTip(QStringLiteral(
        "How much memory a debug run keeps for checkpoints (and, with Keep Every Value's Data, values: older ones "
        "beyond it are dropped, their statistics staying); a value whose data is not kept is rebuilt from the nearest "
        "checkpoint when it is inspected or exported"));
    connect(m_action, &QAction::triggered, this, &MemoryBudget::showDialog);
    // What a debug run keeps of each value: by default its summary, the data rebuilt when it is opened (a third of the
    // memory on ocr_det); checked, the data of every value within the budget (opening one needs no rebuild; about the
    // same time, 1.4-2.1x a plain run on the OCR models on AMD EPYC Zen 4 at AVX-512 and AVX2, docs/performance.md).
    m_keepValueData->setObjectName(QStringLiteral("keepValueDataAction"));
    m_keepValueData->setCheckable(true);
    m_keepValueData->setChecked(Settings::instance().keepValueData());
    m_keepValueData->setToolTip(QStringLiteral(
        "Keep the data of every value within the memory budget, so that opening one needs no rebuild (off: only each "
        "value's summary is kept and a run needs far less memory; opening a value rebuilds it from the nearest "
        "checkpoint)"));
    auto applyKeepValueData = [this](bool on) {
        DebuggerOptions options = m_controller->options();
        options.retention = on ? ValueRetention::Values : ValueRetention::Summaries;
        m_controller->setOptions(options);
    };
    connect(m_keepValueData, &QAction::toggled, this, [applyKeepValueData](bool on) {
        Settings::instance().setKeepValueData(on);
        applyKeepValueData(on);
    });
    applyKeepValueData(m_keepValueData->isChecked());
    m_label->setObjectName(QStringLiteral("memoryBudgetLabel"));
    set(Settings::instance().memoryBudget());
}

void MemoryBudget::set(uint64_t bytes)
{
    m_chosen = bytes;
    DebuggerOptions options = m_controller->options();
    options.memoryBudget = bytes ? static_cast<size_t>(bytes) : defaultMemoryBudget();
    m_controller->setOptions(options);
    Settings::instance().setMemoryBudget(bytes);
    updateLabel(m_shown);
}

uint64_t MemoryBudget::budget() const
{
    return m_controller->options().memoryBudget;
}

void MemoryBudget::updateLabel(const DebugSnapshotPtr& shown)
{
    m_shown = shown;
    const QString budgetText = formatBytes(budget()) + (m_chosen ? QString() : QStringLiteral(" (default)"));
    QString text = QStringLiteral("Memory budget %1").arg(budgetText);
    QString tip = QStringLiteral("Debug runs keep values and checkpoints within %1 (Debug \u203a Memory Budget\u2026); "
                                 "a change applies to the next run")
                      .arg(budgetText);
    if (const DebugSnapshotPtr s = shown) {
        text = QStringLiteral("%1 kept of %2").arg(formatBytes(s->recordedBytes + s->checkpointBytes), budgetText);
        tip += QStringLiteral("\nThis run keeps %1 of values and %2 in %3 checkpoint(s)")
                   .arg(formatBytes(s->recordedBytes), formatBytes(s->checkpointBytes))
                   .arg(s->checkpoints);
        size_t summarised = s->forgottenValues;
        for (const auto& v : s->values)
            summarised += v.record.dropped;
        if (summarised)
            text += QStringLiteral(", %1 as summaries").arg(summarised);
    }
    m_label->setText(text);
    m_label->setToolTip(tip);
}

void MemoryBudget::showDialog()
{
    QInputDialog dialog(m_dialogParent);
    dialog.setObjectName(QStringLiteral("memoryBudgetDialog"));
    dialog.setWindowTitle(QStringLiteral("Memory Budget"));
    dialog.setLabelText(QStringLiteral("Memory a debug run keeps for values and checkpoints (e.g. 512M, 1.5G; empty "
                                       "for the default, a quarter of the RAM: %1).\nApplies to the next run.")
                            .arg(formatBytes(defaultMemoryBudget())));
    dialog.setTextValue(m_chosen ? formatBytes(m_chosen) : QString());
    while (dialog.exec() == QDialog::Accepted) {
        const QString text = dialog.textValue().trimmed();
        if (text.isEmpty() || text.compare(QStringLiteral("default"), Qt::CaseInsensitive) == 0) {
            set(0);
            return;
        }
        if (const auto bytes = parseBytes(text)) {
            set(*bytes);
            return;
        }
        dialog.setLabelText(QStringLiteral("\"%1\" is not a size: give a number of bytes with K, M, G or T (powers of "
                                           "1024), e.g. 512M or 1.5G; empty for the default (%2).")
                                .arg(text, formatBytes(defaultMemoryBudget())));
    }
}

} // namespace onnxscope
