// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"
#include "ui/precision/precision_job.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace onnxscope {

class PrecisionModel;

/// The Precision dock: the target (fp16, bf16), Check / Cancel with the run's progress, "Colour graph by risk" with
/// its legend, and the nodes to keep in float32 with their evidence (range, smallest |x|, underflowed share). A row
/// activated names its node; "Save Block List…" asks for the list to be written.
class PrecisionPanel : public QWidget {
    Q_OBJECT
public:
    explicit PrecisionPanel(QWidget* parent = nullptr);

    PrecisionModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    PrecisionTarget target() const;
    void setTarget(DataType type);
    /// A value is flagged as mostly flushing to zero when more than this share of its non-zero elements does (0.5).
    double underflowShare() const;
    void setUnderflowShare(double share);
    bool overlayEnabled() const;
    void setOverlayEnabled(bool on);
    QPushButton* checkButton() const { return m_check; }
    QPushButton* saveButton() const { return m_save; }

    void setRunning(bool running);
    void setProgress(qint64 nodesDone, qint64 nodesTotal);
    void setResult(PrecisionResultPtr result);
    void setMessage(const QString& text);
    /// Selects the row of `node`, if kept.
    void selectNode(const Graph* graph, NodeId node);

signals:
    void checkRequested();
    void cancelRequested();
    void overlayToggled(bool on);
    void saveBlockListRequested();
    void nodeActivated(const onnxscope::Graph* graph, onnxscope::NodeId node);

private:
    void onCurrentRowChanged();

    PrecisionModel* m_model;
    QComboBox* m_target;
    QSpinBox* m_share;
    QPushButton* m_check;
    QPushButton* m_cancel;
    QPushButton* m_save;
    QCheckBox* m_overlay;
    QProgressBar* m_progress;
    QLabel* m_summary;
    QTableView* m_table;
    bool m_selecting = false;
};

} // namespace onnxscope
