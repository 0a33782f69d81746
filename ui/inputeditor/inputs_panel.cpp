// SPDX-License-Identifier: MIT
#include "ui/inputeditor/inputs_panel.h"

#include "engine/model/input_roles.h"

#include "ui/inputeditor/number_edit.h"

#include "ui/common/model_document.h"
#include "ui/common/separator_wrap_label.h"
#include "ui/common/settings.h"
#include "ui/common/tensor_format.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace onnxscope {

namespace {

/// A stack as tall as its current page (a QStackedWidget is as tall as its tallest).
void fitToCurrentPage(QStackedWidget* pages)
{
    for (int i = 0; i < pages->count(); ++i)
        pages->widget(i)->setSizePolicy(
            QSizePolicy::Preferred, i == pages->currentIndex() ? QSizePolicy::Preferred : QSizePolicy::Ignored);
    pages->updateGeometry();
}

constexpr InputSpec::Source kSources[]
    = { InputSpec::Source::Zeros, InputSpec::Source::Ones, InputSpec::Source::Constant, InputSpec::Source::Uniform,
          InputSpec::Source::Normal, InputSpec::Source::Range, InputSpec::Source::File, InputSpec::Source::Typed };

// Random inputs above this many elements are not built just to validate them (their shape is still checked).
constexpr int64_t kValidateBuildLimit = 4'000'000;

int pageOf(InputSpec::Source s)
{
    switch (s) {
    case InputSpec::Source::Zeros:
    case InputSpec::Source::Ones:
        return 0;
    case InputSpec::Source::Constant:
        return 1;
    case InputSpec::Source::Uniform:
        return 2;
    case InputSpec::Source::Normal:
        return 3;
    case InputSpec::Source::Range:
        return 4;
    case InputSpec::Source::File:
        return 5;
    case InputSpec::Source::Typed:
        return 6;
    }
    return 0;
}

/// decimals 0 for the values of an integer or bool input: whole numbers only.
NumberEdit* numberBox(QWidget* parent, double value, int decimals = 6)
{
    auto* box = new NumberEdit(decimals == 0, parent);
    box->setValue(value);
    box->setMinimumWidth(90);
    return box;
}

/// What a size the model leaves open is shown with until the user sets it.
const QString kGuessSuffix = QStringLiteral("  (guess)");

/// A size for a dimension the model leaves open that the graph can likely run: an image's height and width (a 4-D
/// input with 1, 3 or 4 channels, channels first or last) get 224, which pooling and strided convolutions divide
/// evenly; any other size gets 1 (a batch of one).
int64_t proposedSize(const ValueType& type, size_t axis)
{
    const auto& s = type.shape;
    if (s.size() != 4)
        return 1;
    const auto isChannels = [](const Dim& d) { return d.known() && (d.value == 1 || d.value == 3 || d.value == 4); };
    if (isChannels(s[1]) && (axis == 2 || axis == 3))
        return 224;
    if (isChannels(s[3]) && !isChannels(s[1]) && (axis == 1 || axis == 2))
        return 224;
    return 1;
}

/// Adds to `reached` the values of `g` (and of its subgraphs, which read outer values by name) computed from a value
/// already in it, and returns the widest window a convolution or pooling among their consumers reads: the size an
/// axis that reaches it needs at least.
int64_t widestWindowFrom(const Graph& g, std::set<std::string>& reached)
{
    int64_t widest = 1;
    const auto isReached = [&](ValueId v) { return v != kNoValue && reached.count(g.value(v).name) > 0; };
    for (const Node& n : g.nodes()) {
        for (const auto& [attribute, sub] : n.subgraphs)
            if (sub)
                widest = std::max(widest, widestWindowFrom(*sub, reached));
        const bool fed = std::any_of(n.inputs.begin(), n.inputs.end(), isReached)
            || std::any_of(n.implicitInputs.begin(), n.implicitInputs.end(), isReached);
        if (!fed)
            continue;
        for (ValueId out : n.outputs)
            if (out != kNoValue)
                reached.insert(g.value(out).name);
        static const std::set<std::string> windowed { "Conv", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool",
            "LpPool" };
        if (!n.domain.empty() || !windowed.count(n.opType))
            continue;
        std::vector<int64_t> kernel = n.attributes.getInts("kernel_shape");
        const size_t weight = n.opType == "QLinearConv" ? 3 : 1;
        if (kernel.empty() && n.opType != "MaxPool" && n.opType != "AveragePool" && n.opType != "LpPool"
            && n.inputs.size() > weight && n.inputs[weight] != kNoValue && g.value(n.inputs[weight]).hasInitializer()) {
            const Shape w = g.value(n.inputs[weight]).initializerInfo().shape;
            kernel.assign(w.begin() + std::min<size_t>(2, w.size()), w.end());
        }
        const std::vector<int64_t> dilations = n.attributes.getInts("dilations");
        for (size_t i = 0; i < kernel.size(); ++i)
            widest = std::max(widest, (kernel[i] - 1) * (i < dilations.size() ? dilations[i] : 1) + 1);
    }
    return widest;
}

} // namespace

struct InputsPanel::Row {
    QString name;
    ValueType type;
    InputSpec spec;
    InputSpec::Source ruleSource = InputSpec::Source::Zeros; // what the default rule chose
    QString rule; // which rule chose it, for the user
    QLabel* ruleLabel = nullptr;
    QString error;
    QGroupBox* box = nullptr;
    QComboBox* source = nullptr;
    QStackedWidget* pages = nullptr;
    NumberEdit* constant = nullptr;
    NumberEdit* low = nullptr;
    NumberEdit* high = nullptr;
    QSpinBox* uniformSeed = nullptr;
    NumberEdit* mean = nullptr;
    NumberEdit* stddev = nullptr;
    QSpinBox* normalSeed = nullptr;
    NumberEdit* rangeStart = nullptr;
    NumberEdit* rangeStep = nullptr;
    QLineEdit* file = nullptr;
    QPlainTextEdit* text = nullptr;
    QLabel* shape = nullptr;
    QLabel* errorLabel = nullptr;
};

InputsPanel::InputsPanel(QWidget* parent)
    : QWidget(parent)
    , m_content(new QWidget)
    , m_layout(new QVBoxLayout(m_content))
    , m_summary(new QLabel(this))
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    m_summary->setWordWrap(true);
    outer->addWidget(m_summary);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setWidget(m_content);
    outer->addWidget(m_scroll, 1);
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_summary->setText(QStringLiteral("Open a model to set its inputs."));
}

InputsPanel::~InputsPanel() = default;

void InputsPanel::setModel(
    std::shared_ptr<const Model> model, const QString& settingsKey, const ModelDocument* document)
{
    m_model = std::move(model);
    m_settingsKey = settingsKey.isEmpty() && m_model ? QString::fromStdString(m_model->displayName()) : settingsKey;
    m_document = document;
    m_rows.clear();
    m_dims.clear();
    m_guessed.clear();
    if (m_model) {
        const Graph& g = m_model->graph();
        for (ValueId id : g.requiredInputs()) {
            auto row = std::make_unique<Row>();
            row->name = QString::fromStdString(g.value(id).name);
            row->type = g.value(id).type;
            if (row->type.kind == Value::Kind::None && m_document)
                row->type = m_document->valueType(g, id);
            const DataType dt = row->type.elementType;
            // Inputs whose role is known get values that mean something (engine/model/input_roles.h, as the CLI and
            // Python make them); other floats start random so that a first run shows something, others at zero.
            const InputRole role = inputRole(g, id);
            switch (role.kind) {
            case InputRole::Kind::AttentionMask:
                row->spec.source = InputSpec::Source::Ones;
                break;
            case InputRole::Kind::TokenTypeIds:
                row->spec.source = InputSpec::Source::Zeros;
                break;
            case InputRole::Kind::PositionIds:
                row->spec.source = InputSpec::Source::Range;
                break;
            case InputRole::Kind::TokenIds:
                row->spec.source = InputSpec::Source::Uniform;
                row->spec.low = 0;
                row->spec.high = static_cast<double>(role.vocabulary > 0 ? role.vocabulary : 10);
                break;
            case InputRole::Kind::Generic:
                row->spec.source = isFloatingPoint(dt) || dt == DataType::Undefined ? InputSpec::Source::Uniform
                                                                                    : InputSpec::Source::Zeros;
                break;
            }
            row->ruleSource = row->spec.source;
            row->rule = role.kind != InputRole::Kind::Generic ? QString::fromStdString(role.rule)
                : row->spec.source == InputSpec::Source::Uniform
                ? QStringLiteral("no known role: uniform random, so that a first run shows something")
                : QStringLiteral("no known role: zeros");
            if (row->type.hasShape)
                for (size_t axis = 0; axis < row->type.shape.size(); ++axis) {
                    const QString key = dimKey(row->name, axis, row->type.shape[axis]);
                    if (!key.isEmpty() && m_dims.emplace(key, proposedSize(row->type, axis)).second)
                        m_guessed.insert(key);
                }
            // A sequence or a signal (the last open axis of a tensor of two or more axes, axis 0 being its batch)
            // guessed at 1 gets the widest window a convolution or pooling computed from the input reads, so that the
            // window fits: silero's 256-sample STFT window.
            if (row->type.hasShape && row->type.shape.size() >= 2) {
                const auto& shape = row->type.shape;
                for (size_t axis = shape.size() - 1; axis > 0; --axis) {
                    if (shape[axis].known())
                        continue;
                    const QString key = dimKey(row->name, axis, shape[axis]);
                    if (m_guessed.count(key) && m_dims[key] == 1) {
                        std::set<std::string> reached { row->name.toStdString() };
                        m_dims[key] = widestWindowFrom(g, reached);
                    }
                    break;
                }
            }
            m_rows.push_back(std::move(row));
        }
    }
    load();
    rebuild();
    validate();
}

void InputsPanel::rebuild()
{
    while (QLayoutItem* item = m_layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_dimBoxes.clear();
    if (!m_model) {
        m_summary->setText(QStringLiteral("Open a model to set its inputs."));
        return;
    }
    m_summary->setText(m_rows.empty()
            ? QStringLiteral("This model takes no inputs.")
            : QStringLiteral("%1 input(s). Values are checked against the declared types.").arg(m_rows.size()));
    if (!m_dims.empty()) {
        auto* dimsBox = new QGroupBox(QStringLiteral("Dimensions"), m_content);
        dimsBox->setObjectName(QStringLiteral("dimensionsBox"));
        auto* form = new QFormLayout(dimsBox);
        // Exporters name dimensions like "p2o.DynamicDimension.0": such a label goes above its box in a narrow dock.
        form->setRowWrapPolicy(QFormLayout::WrapLongRows);
        for (const auto& [symbol, value] : m_dims) {
            auto* spin = new QSpinBox(dimsBox);
            spin->setRange(0, 1'000'000'000);
            spin->setValue(static_cast<int>(value));
            spin->setObjectName(QStringLiteral("dim:") + symbol);
            if (m_guessed.count(symbol))
                spin->setSuffix(kGuessSuffix);
            form->addRow(symbol, spin);
            const QString key = symbol;
            connect(spin, &QSpinBox::valueChanged, this, [this, key, spin](int v) {
                m_dims[key] = v;
                m_guessed.erase(key);
                spin->setSuffix(QString());
                save();
                validate();
                emit inputsChanged();
            });
            m_dimBoxes.emplace_back(symbol, spin);
        }
        m_layout->addWidget(dimsBox);
    }
    m_loading = true;
    for (auto& rowPtr : m_rows) {
        Row& r = *rowPtr;
        r.box = new QGroupBox(r.name, m_content);
        r.box->setObjectName(QStringLiteral("input:") + r.name);
        auto* v = new QVBoxLayout(r.box);
        // "float[p2o.DynamicDimension.0, 3, 48, p2o.DynamicDimension.1]" would otherwise set the dock's minimum width,
        // and the panel would scroll sideways under its own labels; it wraps after its commas, never inside a name.
        auto* typeLabel = new SeparatorWrapLabel(QString::fromStdString(r.type.toString()), r.box);
        typeLabel->setObjectName(QStringLiteral("type"));
        typeLabel->setStyleSheet(QStringLiteral("color:#4b5563"));
        typeLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
        v->addWidget(typeLabel);
        r.ruleLabel = new QLabel(r.box);
        r.ruleLabel->setObjectName(QStringLiteral("rule"));
        r.ruleLabel->setWordWrap(true);
        r.ruleLabel->setStyleSheet(QStringLiteral("color:#4b5563"));
        r.ruleLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
        v->addWidget(r.ruleLabel);
        r.source = new QComboBox(r.box);
        for (InputSpec::Source s : kSources)
            r.source->addItem(inputSourceName(s), static_cast<int>(s));
        v->addWidget(r.source);
        r.pages = new QStackedWidget(r.box);
        r.pages->addWidget(new QWidget(r.pages));
        const int decimals = isInteger(r.type.elementType) || r.type.elementType == DataType::Bool ? 0 : 6;
        {
            auto* page = new QWidget(r.pages);
            auto* f = new QFormLayout(page);
            f->setContentsMargins(0, 0, 0, 0);
            r.constant = numberBox(page, r.spec.constant, decimals);
            r.constant->setObjectName(QStringLiteral("constant"));
            f->addRow(QStringLiteral("Value"), r.constant);
            r.pages->addWidget(page);
        }
        {
            auto* page = new QWidget(r.pages);
            auto* f = new QFormLayout(page);
            f->setContentsMargins(0, 0, 0, 0);
            r.low = numberBox(page, r.spec.low, decimals);
            r.high = numberBox(page, r.spec.high, decimals);
            r.uniformSeed = new QSpinBox(page);
            r.uniformSeed->setRange(0, 2'000'000'000);
            f->addRow(QStringLiteral("Low"), r.low);
            f->addRow(QStringLiteral("High"), r.high);
            f->addRow(QStringLiteral("Seed"), r.uniformSeed);
            r.pages->addWidget(page);
        }
        {
            auto* page = new QWidget(r.pages);
            auto* f = new QFormLayout(page);
            f->setContentsMargins(0, 0, 0, 0);
            r.mean = numberBox(page, r.spec.mean);
            r.stddev = numberBox(page, r.spec.stddev);
            r.normalSeed = new QSpinBox(page);
            r.normalSeed->setRange(0, 2'000'000'000);
            f->addRow(QStringLiteral("Mean"), r.mean);
            f->addRow(QStringLiteral("Std"), r.stddev);
            f->addRow(QStringLiteral("Seed"), r.normalSeed);
            r.pages->addWidget(page);
        }
        {
            auto* page = new QWidget(r.pages);
            auto* f = new QFormLayout(page);
            f->setContentsMargins(0, 0, 0, 0);
            r.rangeStart = numberBox(page, r.spec.rangeStart, decimals);
            r.rangeStep = numberBox(page, r.spec.rangeStep, decimals);
            f->addRow(QStringLiteral("Start"), r.rangeStart);
            f->addRow(QStringLiteral("Step"), r.rangeStep);
            r.pages->addWidget(page);
        }
        {
            auto* page = new QWidget(r.pages);
            auto* h = new QHBoxLayout(page);
            h->setContentsMargins(0, 0, 0, 0);
            r.file = new QLineEdit(page);
            r.file->setPlaceholderText(QStringLiteral(".npy or .pb file"));
            auto* browse = new QPushButton(QStringLiteral("Browse\u2026"), page);
            h->addWidget(r.file, 1);
            h->addWidget(browse);
            Row* rp = &r;
            connect(browse, &QPushButton::clicked, this, [this, rp] {
                const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Value for %1").arg(rp->name),
                    rp->file->text().isEmpty() ? QString() : QFileInfo(rp->file->text()).absolutePath(),
                    QStringLiteral("Tensors (*.npy *.pb);;All files (*)"));
                if (!path.isEmpty())
                    setFile(rp->name, path);
            });
            r.pages->addWidget(page);
        }
        {
            r.text = new QPlainTextEdit(r.pages);
            r.text->setPlaceholderText(r.type.elementType == DataType::String
                    ? QStringLiteral("One string per line, or a JSON array: [\"a\", \"b\"]")
                    : QStringLiteral("Values, e.g. [[1, 2], [3, 4]]"));
            r.text->setMaximumHeight(90);
            r.pages->addWidget(r.text);
        }
        // The pages differ in height (the typed-values box is 90 px): the stack takes the current page's, so the
        // shape and the error below it sit right under the fields rather than under an empty gap.
        connect(r.pages, &QStackedWidget::currentChanged, r.pages, [pages = r.pages] { fitToCurrentPage(pages); });
        v->addWidget(r.pages);
        r.shape = new QLabel(r.box);
        r.shape->setStyleSheet(QStringLiteral("color:#4b5563"));
        v->addWidget(r.shape);
        r.errorLabel = new QLabel(r.box);
        r.errorLabel->setObjectName(QStringLiteral("error"));
        r.errorLabel->setWordWrap(true);
        r.errorLabel->setStyleSheet(QStringLiteral("color:#c62828"));
        r.errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
        v->addWidget(r.errorLabel);
        writeRow(r);
        fitToCurrentPage(r.pages);
        Row* rp = &r;
        auto edited = [this, rp] { onRowEdited(rp); };
        connect(r.source, &QComboBox::currentIndexChanged, this, edited);
        for (NumberEdit* b : { r.constant, r.low, r.high, r.mean, r.stddev, r.rangeStart, r.rangeStep })
            connect(b, &NumberEdit::valueChanged, this, edited);
        for (QSpinBox* b : { r.uniformSeed, r.normalSeed })
            connect(b, &QSpinBox::valueChanged, this, edited);
        connect(r.file, &QLineEdit::editingFinished, this, [this, rp] {
            if (rp->file->text() != rp->spec.filePath)
                setFile(rp->name, rp->file->text());
        });
        connect(r.text, &QPlainTextEdit::textChanged, this, edited);
        m_layout->addWidget(r.box);
    }
    m_loading = false;
    m_layout->addStretch(1);
}

QString InputsPanel::ruleFor(const QString& input) const
{
    const Row* r = row(input);
    return r ? r->rule : QString();
}

void InputsPanel::updateRuleLabel(Row& r)
{
    if (!r.ruleLabel)
        return;
    const bool changed = r.spec.source != r.ruleSource;
    r.ruleLabel->setText(changed ? QStringLiteral("Default was: %1 (changed here)").arg(r.rule)
                                 : QStringLiteral("Default: %1").arg(r.rule));
    r.ruleLabel->setToolTip(QStringLiteral("The rule that chose this input's default values"));
}

void InputsPanel::writeRow(Row& r)
{
    const bool wasLoading = m_loading;
    m_loading = true;
    r.source->setCurrentIndex(r.source->findData(static_cast<int>(r.spec.source)));
    r.pages->setCurrentIndex(pageOf(r.spec.source));
    updateRuleLabel(r);
    r.constant->setValue(r.spec.constant);
    r.low->setValue(r.spec.low);
    r.high->setValue(r.spec.high);
    r.uniformSeed->setValue(static_cast<int>(r.spec.seed));
    r.mean->setValue(r.spec.mean);
    r.stddev->setValue(r.spec.stddev);
    r.normalSeed->setValue(static_cast<int>(r.spec.seed));
    r.rangeStart->setValue(r.spec.rangeStart);
    r.rangeStep->setValue(r.spec.rangeStep);
    r.file->setText(r.spec.filePath);
    if (r.text->toPlainText() != r.spec.text)
        r.text->setPlainText(r.spec.text);
    m_loading = wasLoading;
}

void InputsPanel::readRow(Row& r)
{
    r.spec.source = static_cast<InputSpec::Source>(r.source->currentData().toInt());
    r.pages->setCurrentIndex(pageOf(r.spec.source));
    updateRuleLabel(r);
    r.spec.constant = r.constant->value();
    r.spec.low = r.low->value();
    r.spec.high = r.high->value();
    r.spec.mean = r.mean->value();
    r.spec.stddev = r.stddev->value();
    r.spec.seed = static_cast<quint64>(
        r.spec.source == InputSpec::Source::Normal ? r.normalSeed->value() : r.uniformSeed->value());
    r.spec.rangeStart = r.rangeStart->value();
    r.spec.rangeStep = r.rangeStep->value();
    r.spec.text = r.text->toPlainText();
}

void InputsPanel::onRowEdited(Row* row)
{
    if (m_loading)
        return;
    readRow(*row);
    validateRow(*row);
    save();
    emit inputsChanged();
}

InputsPanel::Row* InputsPanel::row(const QString& input) const
{
    for (const auto& r : m_rows)
        if (r->name == input)
            return r.get();
    return nullptr;
}

QStringList InputsPanel::inputNames() const
{
    QStringList names;
    for (const auto& r : m_rows)
        names << r->name;
    return names;
}

InputSpec InputsPanel::spec(const QString& input) const
{
    const Row* r = row(input);
    return r ? r->spec : InputSpec {};
}

void InputsPanel::setSpec(const QString& input, const InputSpec& spec)
{
    Row* r = row(input);
    if (!r)
        return;
    r->spec = spec;
    if (r->box)
        writeRow(*r);
    validateRow(*r);
    save();
    emit inputsChanged();
}

void InputsPanel::setSource(const QString& input, InputSpec::Source source)
{
    if (Row* r = row(input)) {
        InputSpec s = r->spec;
        s.source = source;
        setSpec(input, s);
    }
}

void InputsPanel::setFile(const QString& input, const QString& path)
{
    Row* r = row(input);
    if (!r)
        return;
    r->spec.source = InputSpec::Source::File;
    r->spec.filePath = path;
    r->spec.fileTensor = Tensor();
    try {
        r->spec.fileTensor = readTensorFile(path);
    } catch (const std::exception&) {
        // validateRow() reports it next to the input.
    }
    if (r->box)
        writeRow(*r);
    validateRow(*r);
    save();
    emit inputsChanged();
}

void InputsPanel::setTypedText(const QString& input, const QString& text)
{
    if (Row* r = row(input)) {
        InputSpec s = r->spec;
        s.source = InputSpec::Source::Typed;
        s.text = text;
        setSpec(input, s);
    }
}

QStringList InputsPanel::generatedDimensions() const
{
    QStringList out;
    for (const auto& row : m_rows) {
        if (row->spec.source == InputSpec::Source::File || row->spec.source == InputSpec::Source::Typed
            || !row->type.hasShape)
            continue;
        for (size_t axis = 0; axis < row->type.shape.size(); ++axis)
            if (const QString key = dimKey(row->name, axis, row->type.shape[axis]);
                !key.isEmpty() && !out.contains(key))
                out << key;
    }
    return out;
}

QStringList InputsPanel::generatedDimensionsOfOne() const
{
    QStringList out;
    for (const QString& key : generatedDimensions())
        if (auto it = m_dims.find(key); it != m_dims.end() && it->second == 1)
            out << key;
    return out;
}

QStringList InputsPanel::guessedDimensions() const
{
    QStringList out;
    for (const QString& key : generatedDimensions())
        if (m_guessed.count(key))
            out << QStringLiteral("%1 = %2").arg(key).arg(m_dims.at(key));
    return out;
}

void InputsPanel::setDim(const QString& symbol, int64_t value)
{
    m_dims[symbol] = value;
    m_guessed.erase(symbol);
    for (const auto& [name, box] : m_dimBoxes)
        if (name == symbol) {
            const QSignalBlocker blocker(box);
            box->setSuffix(QString());
            box->setValue(static_cast<int>(value));
        }
    save();
    validate();
    emit inputsChanged();
}

void InputsPanel::validateRow(Row& r)
{
    r.error.clear();
    const Shape shape = resolveShape(r.name, r.type, m_dims);
    int64_t count = 1;
    for (int64_t d : shape)
        count *= std::max<int64_t>(d, 0);
    try {
        if (r.type.kind != Value::Kind::None && r.type.kind != Value::Kind::Tensor)
            throw Error("input \"" + r.name.toStdString() + "\" is a " + r.type.toString()
                + "; the input editor only builds tensors");
        if (r.spec.source == InputSpec::Source::File && !r.spec.fileTensor.defined()) {
            if (r.spec.filePath.isEmpty())
                throw Error("choose a .npy or .pb file");
            readTensorFile(r.spec.filePath); // throws the reason
        }
        const bool cheap = r.spec.source == InputSpec::Source::File || r.spec.source == InputSpec::Source::Typed
            || count <= kValidateBuildLimit;
        if (cheap) {
            const Tensor t = buildInputTensor(r.name, r.spec, r.type, m_dims);
            if (r.shape)
                r.shape->setText(QStringLiteral("Value: %1 \u27e8%2\u27e9")
                                     .arg(QString::fromUtf8(dataTypeName(t.dtype()).data()), formatShape(t.shape())));
        } else if (r.shape) {
            r.shape->setText(QStringLiteral("Value: %1 \u27e8%2\u27e9")
                                 .arg(QString::fromUtf8(dataTypeName(r.type.elementType).data()), formatShape(shape)));
        }
    } catch (const std::exception& e) {
        r.error = QString::fromStdString(e.what());
    }
    if (r.errorLabel) {
        r.errorLabel->setText(r.error);
        r.errorLabel->setVisible(!r.error.isEmpty());
    }
    if (r.shape) // the value's type and shape, when there is a value: not an empty line above the error
        r.shape->setVisible(r.error.isEmpty() && !r.shape->text().isEmpty());
    updateDimensionBoxes(); // the row's source may have changed
}

void InputsPanel::updateDimensionBoxes()
{
    // A size matters only to inputs the panel generates: a file or typed values bring their own.
    const QStringList used = generatedDimensions();
    for (const auto& [symbol, box] : m_dimBoxes) {
        const bool inUse = used.contains(symbol);
        box->setEnabled(inUse);
        box->setToolTip(inUse
                ? QStringLiteral("The size of %1 in the inputs generated here").arg(symbol)
                : QStringLiteral(
                    "Not used: every input with %1 comes from a file or typed values, which have their own sizes")
                      .arg(symbol));
    }
}

bool InputsPanel::validate()
{
    bool ok = true;
    for (auto& r : m_rows) {
        validateRow(*r);
        ok = ok && r->error.isEmpty();
    }
    return ok;
}

QString InputsPanel::revealFirstError()
{
    for (const auto& r : m_rows)
        if (!r->error.isEmpty()) {
            if (r->errorLabel)
                m_scroll->ensureWidgetVisible(r->errorLabel);
            return r->error.startsWith(r->name + QLatin1Char(':')) ? r->error
                                                                   : QStringLiteral("%1: %2").arg(r->name, r->error);
        }
    return {};
}

QString InputsPanel::errorFor(const QString& input) const
{
    const Row* r = row(input);
    return r ? r->error : QString();
}

InputsPanel::InputFactory InputsPanel::factory() const
{
    struct Item {
        QString name;
        InputSpec spec;
        ValueType type;
    };
    std::vector<Item> items;
    for (const auto& r : m_rows)
        items.push_back({ r->name, r->spec, r->type });
    const DimValues dims = m_dims;
    return [items, dims] {
        std::map<std::string, Value> inputs;
        for (const Item& item : items)
            inputs[item.name.toStdString()] = buildInputTensor(item.name, item.spec, item.type, dims);
        return inputs;
    };
}

void InputsPanel::save() const
{
    if (m_settingsKey.isEmpty() || m_loading)
        return;
    DimValues dims;
    for (const auto& [symbol, value] : m_dims)
        if (!m_guessed.count(symbol)) // a guess stays a guess: it is not remembered as the user's size
            dims[symbol] = value;
    std::vector<std::pair<QString, InputSpec>> specs;
    for (const auto& r : m_rows)
        specs.emplace_back(r->name, r->spec);
    Settings::instance().setInputs(m_settingsKey, dims, specs);
}

void InputsPanel::load()
{
    if (m_settingsKey.isEmpty())
        return;
    const Settings& settings = Settings::instance();
    for (auto& [symbol, value] : m_dims)
        if (const std::optional<int64_t> saved = settings.inputDim(m_settingsKey, symbol)) {
            value = *saved;
            m_guessed.erase(symbol);
        }
    for (auto& r : m_rows) {
        std::optional<InputSpec> saved = settings.inputSpec(m_settingsKey, r->name, r->spec);
        if (!saved)
            continue;
        r->spec = std::move(*saved);
        InputSpec& s = r->spec;
        if (s.source == InputSpec::Source::File && !s.filePath.isEmpty()) {
            try {
                s.fileTensor = readTensorFile(s.filePath);
            } catch (const std::exception&) {
            }
        }
    }
}

} // namespace onnxscope
