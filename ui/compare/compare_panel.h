// SPDX-License-Identifier: MIT
#pragma once

#include "ui/compare/compare_model.h"

#include <QWidget>

class QAction;
class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;

namespace onnxscope {

/// The Compare Results dock: what was compared with what and the counts per status, the first divergence (a link
/// to it), progress and Cancel while a comparison runs, and every row in execution order, sortable and filterable
/// (text; all / divergent / unmatched / matched / roots; initializers on or off). Double-click or Enter goes to the
/// node; Diff opens the pair in the tensor inspector.
class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(QWidget* parent = nullptr);

    void setSession(CompareSessionPtr session);
    const CompareSessionPtr& session() const { return m_model->session(); }
    /// Shows the progress row while a comparison runs.
    void setRunning(bool running);
    void setProgress(qint64 nodesDone, qint64 totalHint);
    void setMessage(const QString& html);

    /// The comparison row of the current table row, or -1.
    int currentRow() const;
    /// Makes a comparison row current (clearing the filters if they hide it) and scrolls to it.
    void selectRow(int row);
    ErrorMetric metric() const;
    /// Adds a button for `action` to the bar (after Go to Node) and puts it on the table's context menu: for actions
    /// that other parts of the window own (Extract First Divergence…).
    void addPanelAction(QAction* action);

    CompareRowsModel* model() const { return m_model; }
    CompareFilterModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    QComboBox* showBox() const { return m_show; }
    QComboBox* metricBox() const { return m_metric; }
    QCheckBox* initializersBox() const { return m_initializers; }
    QLabel* summaryLabel() const { return m_summary; }
    QPushButton* diffButton() const { return m_diff; }
    QPushButton* cancelButton() const { return m_cancel; }

signals:
    void rowActivated(int row);
    void diffRequested(int row);
    void firstDivergenceRequested();
    void compareRequested();
    void clearRequested();
    void cancelRequested();
    void metricChanged(onnxscope::ErrorMetric metric);

private:
    void updateSummary();
    void updateButtons();

    CompareRowsModel* m_model;
    CompareFilterModel* m_proxy;
    QLabel* m_summary;
    QLabel* m_message;
    QWidget* m_progressRow;
    QProgressBar* m_progress;
    QLabel* m_progressLabel;
    QPushButton* m_cancel;
    QLineEdit* m_filter;
    QComboBox* m_show;
    QCheckBox* m_initializers;
    QComboBox* m_metric;
    QPushButton* m_diff;
    QPushButton* m_goTo;
    QPushButton* m_compare;
    QPushButton* m_clear;
    QTableView* m_view;
    QHBoxLayout* m_bar = nullptr;
};

} // namespace onnxscope
