// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"

#include <QObject>
#include <QString>

class QAction;

namespace onnxscope {

class InputsPanel;
class MainWindow;

/// "Extract as Test Case…" in the graph's node context menu: writes the selected node of the main graph as a
/// standalone repro (engine/exec/extract_case.h: model.onnx and test_data_set_0/ with the values a run on the Inputs
/// dock's inputs gave it) into a folder the user picks. The run goes on a worker; the result or the error is reported
/// in a dialog.
class ExtractUi : public QObject {
    Q_OBJECT
public:
    ExtractUi(MainWindow* window, InputsPanel* inputs);

    QAction* extractAction() const { return m_extract; }
    /// Extracts `node` of the main graph into `folder` (created if missing; must be empty). False, with the reason
    /// reported, when it cannot start; otherwise finished() or failed() follows.
    bool extractNode(NodeId node, const QString& folder);

signals:
    /// The folder was written: `summary` says what it holds.
    void finished(const QString& folder, const QString& summary);
    void failed(const QString& message);

private:
    void onTriggered();

    MainWindow* m_window;
    InputsPanel* m_inputs;
    QAction* m_extract;
    bool m_running = false;
    bool m_fromMenu = false; // the running extraction was asked for from the menu
};

} // namespace onnxscope
