// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/model.h"
#include "ui/common/input_spec.h"

#include <QWidget>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QScrollArea;
class QSpinBox;
class QStackedWidget;
class QVBoxLayout;

namespace onnxscope {

class ModelDocument;

/// The Inputs dock: every graph input that needs a value, its declared dtype and shape, where its value comes from
/// (zeros, ones, constant, uniform/normal random with a seed, range, a .npy/.pb file, typed-in values), and the
/// symbolic dimensions. Dimensions and sources are remembered per model file in the Settings. Each input is
/// validated against its declared type and shape as it is edited; the mismatch shows under the input.
class InputsPanel : public QWidget {
    Q_OBJECT
public:
    /// Builds the inputs of a run by name; owns copies of everything it reads, so it can run on a worker thread.
    using InputFactory = std::function<std::map<std::string, Value>()>;

    explicit InputsPanel(QWidget* parent = nullptr);
    ~InputsPanel() override;

    /// Shows the inputs of `model`; `settingsKey` (usually the file path) selects the remembered settings.
    void setModel(
        std::shared_ptr<const Model> model, const QString& settingsKey, const ModelDocument* document = nullptr);

    QStringList inputNames() const;
    /// The rule that chose an input's default values ("attention mask (\"attention_mask\"): ones"), as shown under it.
    QString ruleFor(const QString& input) const;
    InputSpec spec(const QString& input) const;
    void setSpec(const QString& input, const InputSpec& spec);
    void setSource(const QString& input, InputSpec::Source source);
    /// Chooses a file for an input (and switches it to the File source); reads and validates it.
    void setFile(const QString& input, const QString& path);
    void setTypedText(const QString& input, const QString& text);
    /// Symbolic dimensions and their current values.
    DimValues dims() const { return m_dims; }
    void setDim(const QString& symbol, int64_t value);
    /// The dimensions at 1 that shape an input the panel generates (not one from a file or typed in): a model that
    /// fails on such inputs may only need real sizes.
    QStringList generatedDimensionsOfOne() const;
    /// The symbolic dimensions that shape an input the panel generates, in order of first use.
    QStringList generatedDimensions() const;
    /// "symbol = size" for each of generatedDimensions() whose size is the panel's guess (an image's height and width
    /// 224, a signal's length the widest window read from it, others 1), not one the user set: what to check first when
    /// a run fails.
    QStringList guessedDimensions() const;

    /// Validates every input; true when all are fine. Errors appear next to the inputs.
    bool validate();
    /// The error shown for an input, empty if valid.
    QString errorFor(const QString& input) const;
    /// Scrolls to the first input with an error (after validate()) and returns "name: error", empty if none.
    QString revealFirstError();
    /// A self-contained factory for a worker thread (the debugger's, a comparison's): copies of the specs and types.
    InputFactory factory() const;

signals:
    void inputsChanged();

private:
    struct Row;
    void rebuild();
    Row* row(const QString& input) const;
    void readRow(Row& row);
    void writeRow(Row& row);
    void validateRow(Row& row);
    void updateRuleLabel(Row& row);
    /// Enables the Dimensions boxes that a generated input uses; the others say why they are off.
    void updateDimensionBoxes();
    void save() const;
    void load();
    void onRowEdited(Row* row);

    QScrollArea* m_scroll = nullptr;
    std::shared_ptr<const Model> m_model;
    QString m_settingsKey;
    const ModelDocument* m_document = nullptr;
    std::vector<std::unique_ptr<Row>> m_rows;
    DimValues m_dims;
    std::set<QString> m_guessed; // dimensions at the panel's proposed size, not set by the user
    std::vector<std::pair<QString, QSpinBox*>> m_dimBoxes;
    QWidget* m_content;
    QVBoxLayout* m_layout;
    QLabel* m_summary;
    bool m_loading = false;
};

} // namespace onnxscope
