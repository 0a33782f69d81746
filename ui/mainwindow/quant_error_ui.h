// SPDX-License-Identifier: MIT
#pragma once

#include "engine/analysis/quant_error.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

class QAction;
class QDialog;
class QLabel;
class QPushButton;
class QTableView;

namespace onnxscope {

class CompareUi;
class MainWindow;
class QuantErrorModel;

/// "Int8 Layer Errors…" in the Compare Results dock (issue 44 part 4): when a float model was compared with its
/// quantized copy (QDQ or QOperator, either side), runs check-quantization's analysis (engine/analysis/quant_error.h)
/// on the comparison's inputs off the UI thread and shows the ranked table of each layer's own error beside its
/// accumulated error; a row selects the layer's node of the open model (its float counterpart when the open model is
/// the float one). Errors go to a dialog.
class QuantErrorUi : public QObject {
    Q_OBJECT
public:
    QuantErrorUi(MainWindow* window, CompareUi* compare);

    QAction* action() const { return m_action; }
    QDialog* dialog() const { return m_dialog; }
    QuantErrorModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    /// Starts the analysis of the last comparison; false, with the reason reported, if it cannot start.
    bool run();
    /// Stops the running analysis; cancelled() follows and the table keeps what it showed.
    void cancel();
    bool isRunning() const { return m_running; }

signals:
    void finished();
    void failed(const QString& message);
    void cancelled();
    void progress(int done, int total);

private:
    void onRowChanged();

    MainWindow* m_window;
    CompareUi* m_compare;
    QAction* m_action;
    QDialog* m_dialog;
    QLabel* m_summary;
    QuantErrorModel* m_model;
    QTableView* m_table;
    QPushButton* m_cancelButton;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_running = false;
    bool m_floatIsA = true;
};

} // namespace onnxscope
