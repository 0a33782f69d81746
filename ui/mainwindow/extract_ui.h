// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"

#include <QObject>
#include <QString>

#include <memory>

class QAction;

namespace onnxscope {

class CompareUi;
class InputsPanel;
class MainWindow;
struct CompareSession;

/// "Extract as Test Case…" in the graph's node context menu: writes the selected node of the main graph as a
/// standalone repro (engine/exec/extract_case.h: model.onnx and test_data_set_0/ with the values a run on the Inputs
/// dock's inputs gave it) into a folder the user picks. With the compare feature, also "Extract First Divergence…" in
/// the Compare Results dock: the first divergent node of both sides as two test cases fed the same inputs
/// (engine/compare/divergence_extract.h). The run goes on a worker; the result or the error is reported in a dialog.
class ExtractUi : public QObject {
    Q_OBJECT
public:
    ExtractUi(MainWindow* window, InputsPanel* inputs, CompareUi* compare = nullptr);

    QAction* extractAction() const { return m_extract; }
    /// "Extract First Divergence…" (null without the compare feature).
    QAction* divergenceAction() const { return m_divergence; }
    /// Extracts `node` of the main graph into `folder` (created if missing; must be empty). False, with the reason
    /// reported, when it cannot start; otherwise finished() or failed() follows.
    bool extractNode(NodeId node, const QString& folder);
    /// Writes the first divergence of `session` (two models compared) into `folder` (created if missing; must be
    /// empty): a/, b/ and README.txt. False, with the reason reported, when it cannot start (no comparison, side B not
    /// a model, no divergent node, folder in use); otherwise finished() or failed() follows.
    bool extractDivergence(const std::shared_ptr<const CompareSession>& session, const QString& folder);

signals:
    /// The folder was written: `summary` says what it holds.
    void finished(const QString& folder, const QString& summary);
    void failed(const QString& message);

private:
    void onTriggered();
    void onDivergenceTriggered();
    bool canStart(const QString& folder);

    MainWindow* m_window;
    InputsPanel* m_inputs;
    QAction* m_extract;
    QAction* m_divergence = nullptr;
    CompareUi* m_compare;
    bool m_running = false;
    bool m_fromMenu = false; // the running extraction was asked for from the menu
    bool m_divergenceRun = false; // the running extraction writes a first divergence (two cases)
};

} // namespace onnxscope
