// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/debug_snapshot.h"

#include <QDialog>

#include <map>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableWidget;

namespace onnxscope {

class DebugController;

/// Shown when the run stops before a YieldOp: lists its inputs, and for each output lets the user keep the
/// input (identity) or load a replacement tensor (.npy/.pb). Replacements can be remembered for later runs.
class YieldDialog : public QDialog {
    Q_OBJECT
public:
    /// `remembered`: replacements from earlier runs, preselected.
    YieldDialog(
        const DebugSnapshot& snapshot, const std::map<std::string, Value>& remembered, QWidget* parent = nullptr);

    /// Uses the tensor in `path` for `output`; false (with the error shown) if it cannot be read.
    bool setReplacementFile(const QString& output, const QString& path);
    void setReplacement(const QString& output, const Tensor& tensor, const QString& label);
    void keepInput(const QString& output);
    void setRemember(bool remember);
    bool remember() const;
    /// Whether the user chose to continue the run (rather than stay paused before the YieldOp).
    bool continueAfter() const { return m_continue; }

    /// Per output: the chosen replacement, or the corresponding input when kept.
    std::map<std::string, Value> outputs() const;
    /// Outputs the user chose to keep as their input (to forget remembered replacements).
    std::vector<std::string> keptOutputs() const;
    /// Hands the answer to `controller`: the replaced outputs (remembered if asked), the kept ones, then continues if
    /// asked.
    void answer(DebugController& controller) const;
    QStringList outputNames() const;

private:
    struct Choice {
        std::string name;
        Value input; // the input at the same position (identity)
        Value replacement; // None when kept
        QString label;
    };
    void refreshRow(int row);
    int rowOf(const QString& output) const;

    std::vector<Choice> m_choices;
    QTableWidget* m_outputs;
    QCheckBox* m_remember;
    QLabel* m_error;
    bool m_continue = true;
};

} // namespace onnxscope
