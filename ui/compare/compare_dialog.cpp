// SPDX-License-Identifier: MIT
#include "ui/compare/compare_dialog.h"

#include "ui/common/settings.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleValidator>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <cmath>

namespace onnxscope {

namespace {

QLabel* hint(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setStyleSheet(QStringLiteral("color:#4b5563"));
    return label;
}

const QString kTensorFilter = QStringLiteral("Tensors (*.npy *.pb *.npz);;All files (*)");

} // namespace

QLineEdit* CompareDialog::pathRow(
    QWidget* parent, const QString& placeholder, const QString& filter, bool folderButton, QWidget** row)
{
    auto* widget = new QWidget(parent);
    auto* layout = new QHBoxLayout(widget);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* edit = new QLineEdit(widget);
    edit->setPlaceholderText(placeholder);
    edit->setClearButtonEnabled(true);
    layout->addWidget(edit, 1);
    if (folderButton) {
        auto* folder = new QPushButton(QStringLiteral("Folder\u2026"), widget);
        layout->addWidget(folder);
        connect(folder, &QPushButton::clicked, this, [this, edit] {
            const QString dir = QFileDialog::getExistingDirectory(
                this, QStringLiteral("Reference folder (run --dump-all)"), edit->text());
            if (!dir.isEmpty())
                edit->setText(dir);
        });
    }
    auto* file = new QPushButton(folderButton ? QStringLiteral("File\u2026") : QStringLiteral("Browse\u2026"), widget);
    layout->addWidget(file);
    connect(file, &QPushButton::clicked, this, [this, edit, filter] {
        const QString path = QFileDialog::getOpenFileName(
            this, QStringLiteral("Choose a file"), QFileInfo(edit->text()).absolutePath(), filter);
        if (!path.isEmpty())
            edit->setText(path);
    });
    *row = widget;
    return edit;
}

CompareDialog::CompareDialog(const QStringList& inputNames, QWidget* parent)
    : QDialog(parent)
    , m_kinds(new QButtonGroup(this))
    , m_pages(new QStackedWidget(this))
    , m_error(new QLabel(this))
{
    setWindowTitle(QStringLiteral("Compare Runs"));
    setObjectName(QStringLiteral("compareDialog"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(hint(
        QStringLiteral("Side A is the open model, run on the values of the Inputs dock. Every value the two sides "
                       "produce is matched by frame and name and compared in float64; the first node whose outputs "
                       "differ while its inputs match is the first divergence."),
        this));

    auto* kindBox = new QGroupBox(QStringLiteral("Side B"), this);
    auto* kindLayout = new QVBoxLayout(kindBox);
    const std::pair<const char*, CompareRequest::Kind> kinds[] = {
        { "Another &model (.onnx) \u2014 an fp16 conversion, a quantized or optimized copy",
            CompareRequest::Kind::Model },
        { "&Reference values \u2014 a run --dump-all folder or an .npz (PyTorch hooks, another runtime)",
            CompareRequest::Kind::Reference },
        { "The same model with &other inputs", CompareRequest::Kind::OtherInputs },
    };
    for (const auto& [text, kind] : kinds) {
        auto* radio = new QRadioButton(QString::fromUtf8(text), kindBox);
        m_kinds->addButton(radio, static_cast<int>(kind));
        kindLayout->addWidget(radio);
    }
    layout->addWidget(kindBox);

    // Another model.
    auto* modelPage = new QWidget(this);
    auto* modelForm = new QFormLayout(modelPage);
    modelForm->setContentsMargins(0, 0, 0, 0);
    QWidget* row = nullptr;
    m_model = pathRow(
        modelPage, QStringLiteral("model_b.onnx"), QStringLiteral("ONNX models (*.onnx);;All files (*)"), false, &row);
    modelForm->addRow(QStringLiteral("Model B:"), row);
    auto* mapRow = new QWidget(modelPage);
    auto* mapLayout = new QHBoxLayout(mapRow);
    mapLayout->setContentsMargins(0, 0, 0, 0);
    m_nameMap = new QPlainTextEdit(mapRow);
    m_nameMap->setPlaceholderText(
        QStringLiteral("Renamed tensors, one per line: name_in_A=name_in_B (or a JSON object)"));
    m_nameMap->setMaximumHeight(64);
    mapLayout->addWidget(m_nameMap, 1);
    auto* loadMap = new QPushButton(QStringLiteral("Load\u2026"), mapRow);
    mapLayout->addWidget(loadMap, 0, Qt::AlignTop);
    connect(loadMap, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, QStringLiteral("Name mapping"), {}, QStringLiteral("Mappings (*.txt *.json *.csv);;All files (*)"));
        if (!path.isEmpty())
            loadNameMapFile(path);
    });
    modelForm->addRow(QStringLiteral("Name mapping:"), mapRow);
    m_align = new QComboBox(modelPage);
    m_align->setObjectName(QStringLiteral("compareAlign"));
    m_align->addItem(QStringLiteral("By name, then by shape and content"), static_cast<int>(AlignMode::Auto));
    m_align->addItem(QStringLiteral("By name only"), static_cast<int>(AlignMode::Names));
    m_align->addItem(QStringLiteral("By shape and content only"), static_cast<int>(AlignMode::Content));
    m_align->setToolTip(QStringLiteral(
        "A fused, optimized, re-exported or quantized model names its values otherwise: they pair by shape and "
        "content, in execution order on both sides (each side then runs twice). Values whose names B has pair by "
        "name first."));
    modelForm->addRow(QStringLiteral("Pair values:"), m_align);
    m_pages->addWidget(modelPage);

    // Reference values.
    auto* referencePage = new QWidget(this);
    auto* referenceForm = new QFormLayout(referencePage);
    referenceForm->setContentsMargins(0, 0, 0, 0);
    m_reference = pathRow(referencePage, QStringLiteral("folder with manifest.json, or values.npz"),
        QStringLiteral("numpy archives (*.npz);;All files (*)"), true, &row);
    referenceForm->addRow(QStringLiteral("Reference:"), row);
    referenceForm->addRow(hint(
        QStringLiteral("A folder written by <tt>onnxscope-cli run --dump-all --output-dir DIR</tt>, or an .npz whose "
                       "arrays are named after values (\u201cFRAME / NAME\u201d inside subgraphs)."),
        referencePage));
    m_byModule = new QCheckBox(QStringLiteral("Pair by PyTorch &module"), referencePage);
    m_byModule->setObjectName(QStringLiteral("compareByModule"));
    m_byModule->setToolTip(QStringLiteral(
        "The .npz holds what each PyTorch module returned, written by onnxscope.torch.capture(model, x, path=...), "
        "and the open model is its torch.onnx.export(..., dynamo=True): each module's outputs are compared with the "
        "values leaving that module's scope, and the first module whose outputs differ is named."));
    referenceForm->addRow(QString(), m_byModule);
    m_pages->addWidget(referencePage);

    // Other inputs.
    auto* inputsPage = new QWidget(this);
    auto* inputsLayout = new QHBoxLayout(inputsPage);
    inputsLayout->setContentsMargins(0, 0, 0, 0);
    m_random = new QRadioButton(QStringLiteral("Random values, seed"), inputsPage);
    m_random->setToolTip(QStringLiteral(
        "The Inputs dock's random generator: inputs that are random there keep their range with this seed; "
        "the others become uniform in [0, 1)"));
    m_seed = new QSpinBox(inputsPage);
    m_seed->setRange(0, 1'000'000'000);
    m_seed->setValue(1);
    m_files = new QRadioButton(QStringLiteral("From files (below)"), inputsPage);
    inputsLayout->addWidget(m_random);
    inputsLayout->addWidget(m_seed);
    inputsLayout->addSpacing(16);
    inputsLayout->addWidget(m_files);
    inputsLayout->addStretch(1);
    m_random->setChecked(true);
    m_pages->addWidget(inputsPage);
    layout->addWidget(m_pages);

    // Side B's inputs.
    auto* inputsBox = new QGroupBox(QStringLiteral("Inputs of side B"), this);
    m_inputsBox = inputsBox;
    auto* inputsForm = new QFormLayout(inputsBox);
    m_archive = pathRow(inputsBox, QStringLiteral("an .npz whose arrays are named after the inputs"),
        QStringLiteral("numpy archives (*.npz);;All files (*)"), false, &row);
    inputsForm->addRow(QStringLiteral("All from .npz:"), row);
    for (const QString& name : inputNames) {
        QLineEdit* edit = pathRow(inputsBox, QStringLiteral(".npy, .pb or .npz"), kTensorFilter, false, &row);
        inputsForm->addRow(name + QLatin1Char(':'), row);
        m_inputFiles.emplace_back(name, edit);
    }
    m_inputsNote = hint(QString(), inputsBox);
    inputsForm->addRow(m_inputsNote);
    layout->addWidget(inputsBox);

    auto* tolerance = new QGroupBox(QStringLiteral("Tolerance"), this);
    auto* tl = new QHBoxLayout(tolerance);
    m_rtol = new QLineEdit(tolerance);
    m_atol = new QLineEdit(tolerance);
    for (QLineEdit* e : { m_rtol, m_atol }) {
        auto* v = new QDoubleValidator(0, 1e30, 12, e);
        v->setNotation(QDoubleValidator::ScientificNotation);
        v->setLocale(QLocale::c());
        e->setValidator(v);
        e->setMaximumWidth(110);
    }
    tl->addWidget(new QLabel(QStringLiteral("rtol"), tolerance));
    tl->addWidget(m_rtol);
    tl->addSpacing(12);
    tl->addWidget(new QLabel(QStringLiteral("atol"), tolerance));
    tl->addWidget(m_atol);
    tl->addSpacing(12);
    tl->addWidget(
        hint(QStringLiteral("an element matches when |a \u2212 b| \u2264 atol + rtol\u00b7|b|"), tolerance), 1);
    layout->addWidget(tolerance);

    m_initializers = new QCheckBox(QStringLiteral("Compare the initializers (weights) too"), this);
    m_record = new QCheckBox(
        QStringLiteral("Then run side A in the debugger, so the Values dock shows every value's error"), this);
    layout->addWidget(m_initializers);
    layout->addWidget(m_record);
    m_error->setStyleSheet(QStringLiteral("color:#c62828"));
    m_error->setWordWrap(true);
    m_error->hide();
    layout->addWidget(m_error);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(QStringLiteral("Compare"));
    connect(buttons, &QDialogButtonBox::accepted, this, &CompareDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    connect(m_kinds, &QButtonGroup::idToggled, this, [this](int, bool on) {
        if (on)
            updatePages();
    });
    connect(m_random, &QRadioButton::toggled, this, &CompareDialog::updatePages);
    load();
    updatePages();
    resize(640, sizeHint().height());
}

void CompareDialog::updatePages()
{
    const CompareRequest::Kind k = kind();
    m_pages->setCurrentIndex(static_cast<int>(k));
    // The stack is as tall as the page shown, not as its tallest page.
    for (int i = 0; i < m_pages->count(); ++i)
        m_pages->widget(i)->setSizePolicy(
            QSizePolicy::Preferred, i == m_pages->currentIndex() ? QSizePolicy::Preferred : QSizePolicy::Ignored);
    m_pages->adjustSize();
    if (isVisible()) {
        layout()->activate();
        resize(width(), sizeHint().height());
    }
    m_inputsBox->setVisible(k != CompareRequest::Kind::Reference);
    const bool files = k == CompareRequest::Kind::Model || !m_random->isChecked();
    m_inputsBox->setEnabled(files);
    m_inputsNote->setText(k == CompareRequest::Kind::Model
            ? QStringLiteral("Inputs left empty take side A's value (converted when model B declares another float "
                             "type, e.g. fp16).")
            : QStringLiteral("Inputs left empty keep side A's value, so one input can be varied on its own."));
    m_error->hide();
}

CompareRequest::Kind CompareDialog::kind() const
{
    const int id = m_kinds->checkedId();
    return id < 0 ? CompareRequest::Kind::Model : static_cast<CompareRequest::Kind>(id);
}

void CompareDialog::setKind(CompareRequest::Kind kind)
{
    m_kinds->button(static_cast<int>(kind))->setChecked(true);
    updatePages();
}

QString CompareDialog::modelPath() const
{
    return m_model->text().trimmed();
}
void CompareDialog::setModelPath(const QString& path)
{
    m_model->setText(path);
}
QString CompareDialog::referencePath() const
{
    return m_reference->text().trimmed();
}
void CompareDialog::setReferencePath(const QString& path)
{
    m_reference->setText(path);
}
void CompareDialog::setByModule(bool on)
{
    m_byModule->setChecked(on);
}
bool CompareDialog::byModule() const
{
    return m_byModule->isChecked();
}
QString CompareDialog::nameMapText() const
{
    return m_nameMap->toPlainText();
}
void CompareDialog::setNameMapText(const QString& text)
{
    m_nameMap->setPlainText(text);
}

bool CompareDialog::loadNameMapFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        m_error->setText(
            QStringLiteral("Cannot read the name mapping \u201c%1\u201d: %2").arg(path, file.errorString()));
        m_error->show();
        return false;
    }
    const QString text = QString::fromUtf8(file.readAll());
    try {
        parseNameMap(text);
    } catch (const std::exception& e) {
        m_error->setText(QStringLiteral("%1: %2").arg(QFileInfo(path).fileName(), QString::fromStdString(e.what())));
        m_error->show();
        return false;
    }
    m_nameMap->setPlainText(text);
    m_error->hide();
    return true;
}

void CompareDialog::setInputFile(const QString& name, const QString& path)
{
    if (name.isEmpty()) {
        m_archive->setText(path);
        return;
    }
    for (auto& [input, edit] : m_inputFiles)
        if (input == name)
            edit->setText(path);
}

std::map<QString, QString> CompareDialog::inputFiles() const
{
    std::map<QString, QString> files;
    if (!m_archive->text().trimmed().isEmpty())
        files[QString()] = m_archive->text().trimmed();
    for (const auto& [name, edit] : m_inputFiles)
        if (!edit->text().trimmed().isEmpty())
            files[name] = edit->text().trimmed();
    return files;
}

void CompareDialog::setRandomInputs(bool random, quint64 seed)
{
    (random ? m_random : m_files)->setChecked(true);
    m_seed->setValue(static_cast<int>(seed));
    updatePages();
}

bool CompareDialog::randomInputs() const
{
    return kind() == CompareRequest::Kind::OtherInputs && m_random->isChecked();
}
quint64 CompareDialog::seed() const
{
    return static_cast<quint64>(m_seed->value());
}

void CompareDialog::setTolerance(double rtol, double atol)
{
    m_rtol->setText(QString::number(rtol, 'g', 6));
    m_atol->setText(QString::number(atol, 'g', 6));
}

Tolerance CompareDialog::tolerance() const
{
    return { QLocale::c().toDouble(m_rtol->text().trimmed()), QLocale::c().toDouble(m_atol->text().trimmed()) };
}

void CompareDialog::setCompareInitializers(bool on)
{
    m_initializers->setChecked(on);
}
void CompareDialog::setAlignMode(AlignMode mode)
{
    const int index = m_align->findData(static_cast<int>(mode));
    if (index >= 0)
        m_align->setCurrentIndex(index);
}

AlignMode CompareDialog::alignMode() const
{
    return static_cast<AlignMode>(m_align->currentData().toInt());
}

bool CompareDialog::compareInitializers() const
{
    return m_initializers->isChecked();
}
void CompareDialog::setRecordInDebugger(bool on)
{
    m_record->setChecked(on);
}
bool CompareDialog::recordInDebugger() const
{
    return m_record->isChecked();
}
QString CompareDialog::errorText() const
{
    return m_error->isVisible() || !m_error->text().isEmpty() ? m_error->text() : QString();
}

bool CompareDialog::validate()
{
    QString error;
    bool ok = false;
    const double rtol = QLocale::c().toDouble(m_rtol->text().trimmed(), &ok);
    bool ok2 = false;
    const double atol = QLocale::c().toDouble(m_atol->text().trimmed(), &ok2);
    const CompareRequest::Kind k = kind();
    if (!ok || !ok2 || !(rtol >= 0) || !(atol >= 0) || !std::isfinite(rtol) || !std::isfinite(atol))
        error = QStringLiteral("rtol and atol must be non-negative numbers (e.g. 1e-4).");
    else if (k == CompareRequest::Kind::Model && modelPath().isEmpty())
        error = QStringLiteral("Choose the model of side B.");
    else if (k == CompareRequest::Kind::Reference && referencePath().isEmpty())
        error = QStringLiteral("Choose the reference folder or .npz of side B.");
    else if (k == CompareRequest::Kind::OtherInputs && !m_random->isChecked() && inputFiles().empty())
        error = QStringLiteral("Give at least one input file for side B, or choose random values.");
    if (error.isEmpty() && k == CompareRequest::Kind::Model) {
        try {
            parseNameMap(nameMapText());
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
    }
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    return error.isEmpty();
}

void CompareDialog::accept()
{
    if (!validate())
        return;
    save();
    QDialog::accept();
}

void CompareDialog::save() const
{
    Settings::CompareFields f;
    f.kind = static_cast<int>(kind());
    f.model = modelPath();
    f.nameMap = nameMapText();
    f.reference = referencePath();
    f.byModule = byModule();
    f.randomInputs = m_random->isChecked();
    f.seed = m_seed->value();
    f.rtol = m_rtol->text();
    f.atol = m_atol->text();
    f.initializers = m_initializers->isChecked();
    f.align = QString::fromLatin1(alignModeName(alignMode()).data());
    f.record = m_record->isChecked();
    Settings::instance().setCompareFields(f);
}

void CompareDialog::load()
{
    const Settings::CompareFields f = Settings::instance().compareFields();
    if (QAbstractButton* b = m_kinds->button(f.kind))
        b->setChecked(true);
    m_model->setText(f.model);
    m_nameMap->setPlainText(f.nameMap);
    m_reference->setText(f.reference);
    m_byModule->setChecked(f.byModule);
    (f.randomInputs ? m_random : m_files)->setChecked(true);
    m_seed->setValue(f.seed);
    m_rtol->setText(f.rtol);
    m_atol->setText(f.atol);
    m_initializers->setChecked(f.initializers);
    try {
        setAlignMode(parseAlignMode(f.align.toStdString()));
    } catch (const Error&) {
        setAlignMode(AlignMode::Auto);
    }
    m_record->setChecked(f.record);
}

} // namespace onnxscope
