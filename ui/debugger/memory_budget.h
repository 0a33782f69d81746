// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/debug_snapshot.h"

#include <QObject>

class QAction;
class QLabel;
class QWidget;

namespace onnxscope {

class DebugController;

/// What debug runs keep: Debug › Keep Every Value's Data, and the memory budget: Debug › Memory Budget… (its action and
/// dialog), the status-bar label that shows the budget and what the shown run keeps of it, and the budget the next run
/// gets (remembered in the Settings). Sizes are read and written by engine/core/byte_size ("512M",
/// "1.5G").
class MemoryBudget : public QObject {
    Q_OBJECT
public:
    MemoryBudget(DebugController* controller, QWidget* dialogParent, QObject* parent);

    QAction* action() const { return m_action; }
    /// Debug › Keep Every Value's Data (checkable, remembered in the Settings):
    /// ValueRetention::Values instead of Summaries.
    QAction* keepValueDataAction() const { return m_keepValueData; }
    QLabel* label() const { return m_label; }
    /// The budget of the next debug runs in bytes, 0 for the default (a quarter of the RAM).
    void set(uint64_t bytes);
    /// The budget the next run gets, in bytes (the default resolved).
    uint64_t budget() const;
    /// Asks for a budget (empty or "default": the default) until the text is a size or the dialog is cancelled.
    void showDialog();
    /// Shows the budget and what `shown` (may be null) keeps of it.
    void updateLabel(const DebugSnapshotPtr& shown);

private:
    DebugController* m_controller;
    QWidget* m_dialogParent;
    QAction* m_action;
    QAction* m_keepValueData;
    QLabel* m_label;
    uint64_t m_chosen = 0; // 0: the default
    DebugSnapshotPtr m_shown;
};

} // namespace onnxscope
