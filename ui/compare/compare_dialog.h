// SPDX-License-Identifier: MIT
#pragma once

#include "ui/compare/compare_job.h"

#include <QDialog>

#include <vector>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QStackedWidget;

namespace onnxscope {

/// Debug › Compare…: what to compare the open model (side A, with the Inputs dock's values) against: another model
/// (with an optional name mapping), reference values (a `run --dump-all` folder or an .npz), or the same model with
/// another input set (files, or the Inputs dock's random generator with another seed); side B's inputs; rtol/atol.
/// The fields are remembered in the Settings. Accepting checks what can be checked without reading files.
class CompareDialog : public QDialog {
    Q_OBJECT
public:
    /// `inputNames`: the graph inputs of side A, offered as side B's inputs.
    CompareDialog(const QStringList& inputNames, QWidget* parent = nullptr);

    CompareRequest::Kind kind() const;
    void setKind(CompareRequest::Kind kind);
    QString modelPath() const;
    void setModelPath(const QString& path);
    QString referencePath() const;
    void setReferencePath(const QString& path);
    /// Reference values by PyTorch module (an .npz of onnxscope.torch.capture) rather than by value name.
    void setByModule(bool on);
    bool byModule() const;
    QString nameMapText() const;
    void setNameMapText(const QString& text);
    /// Reads a name mapping file into the text field; false with the error shown if it cannot be read.
    bool loadNameMapFile(const QString& path);
    /// Side B's input `name` from a .npy/.pb (or .npz) file; an empty name is an .npz for all inputs.
    void setInputFile(const QString& name, const QString& path);
    std::map<QString, QString> inputFiles() const;
    /// Same model, other inputs: random values with this seed instead of files.
    void setRandomInputs(bool random, quint64 seed = 1);
    bool randomInputs() const;
    quint64 seed() const;
    void setTolerance(double rtol, double atol);
    Tolerance tolerance() const;
    void setCompareInitializers(bool on);
    bool compareInitializers() const;
    /// How values of another model pair with side A's: by name then content (Auto), names only, or content only.
    void setAlignMode(AlignMode mode);
    AlignMode alignMode() const;
    /// Also run side A in the debugger afterwards, so the Values dock lists its values with their errors.
    void setRecordInDebugger(bool on);
    bool recordInDebugger() const;
    /// The last validation error shown in the dialog (empty when valid).
    QString errorText() const;

    /// Checks the fields; false with the reason shown (and in errorText()).
    bool validate();
    void accept() override;

private:
    void updatePages();
    void save() const;
    void load();
    QLineEdit* pathRow(
        QWidget* parent, const QString& placeholder, const QString& filter, bool folderButton, QWidget** row);

    QButtonGroup* m_kinds;
    QStackedWidget* m_pages;
    QLineEdit* m_model;
    QPlainTextEdit* m_nameMap;
    QLineEdit* m_reference;
    QCheckBox* m_byModule;
    QRadioButton* m_random;
    QRadioButton* m_files;
    QSpinBox* m_seed;
    QWidget* m_inputsBox;
    QLabel* m_inputsNote;
    QLineEdit* m_archive;
    std::vector<std::pair<QString, QLineEdit*>> m_inputFiles;
    QLineEdit* m_rtol;
    QLineEdit* m_atol;
    QCheckBox* m_initializers;
    QComboBox* m_align;
    QCheckBox* m_record;
    QLabel* m_error;
    QPushButton* m_ok = nullptr;
};

} // namespace onnxscope
