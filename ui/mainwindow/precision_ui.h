// SPDX-License-Identifier: MIT
#pragma once

#include "ui/precision/precision_job.h"

#include <QObject>
#include <QString>

class QAction;
class QDockWidget;

namespace onnxscope {

class DebuggerUi;
class MainWindow;
class PrecisionPanel;

/// Precision advice in the GUI (issue 44 part 4): Debug › Check Precision… runs check-precision's analysis
/// (engine/analysis/precision_check.h) off the UI thread on the Inputs dock's values, with progress and cancel; the
/// Precision dock lists the nodes to keep in float32 with their evidence, colours the graph by risk
/// (ui/precision/precision_decorations.h) and saves the block list. Errors are shown in a dialog.
class PrecisionUi : public QObject {
    Q_OBJECT
public:
    PrecisionUi(MainWindow* window, DebuggerUi* debugger);

    PrecisionPanel* panel() const { return m_panel; }
    QDockWidget* dock() const { return m_dock; }
    QAction* checkAction() const { return m_check; }
    PrecisionController* controller() const { return m_controller; }
    PrecisionResultPtr result() const { return m_result; }
    /// Starts a check of the open model with the panel's target; false, with the reason reported, if it cannot start.
    bool check();
    /// Writes the block list of the last check: JSON {"node_block_list": [...]} for a .json path, else one name a
    /// line. False with the error reported.
    bool saveBlockList(const QString& path);
    /// Checks once the next model is opened (the GUI's --check-precision).
    void scheduleCheck(DataType target);

signals:
    void resultShown();

private:
    void applyOverlay();
    void clear();

    MainWindow* m_window;
    DebuggerUi* m_debugger;
    PrecisionController* m_controller;
    PrecisionPanel* m_panel;
    QDockWidget* m_dock;
    QAction* m_check;
    PrecisionResultPtr m_result;
};

} // namespace onnxscope
