// SPDX-License-Identifier: MIT
#include "ui/common/settings.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QLocale>
#include <QSettings>

#include <cmath>

namespace onnxscope {

namespace {

// The keys. Those of the debugger, the inputs, the breakpoints and the compare dialog are the ones earlier versions
// wrote, so that their users keep what they chose. The window's are new ("geometry" and "windowState" were saved
// without the window's size, so a layout could not be checked against the window it lands in): the old ones are
// removed on the first save.
const QString kWindowGeometry = QStringLiteral("window/geometry");
const QString kWindowState = QStringLiteral("window/state");
const QString kWindowSize = QStringLiteral("window/size");
const QString kWindowLayoutVersion = QStringLiteral("window/layoutVersion");
const QString kOldGeometry = QStringLiteral("geometry");
const QString kOldWindowState = QStringLiteral("windowState");
const QString kRecentFiles = QStringLiteral("recentFiles");
const QString kThreads = QStringLiteral("debugger/threads");
const QString kStepConstants = QStringLiteral("debugger/stepConstants");
const QString kKeepValueData = QStringLiteral("debugger/keepValueData");
const QString kRecordProfile = QStringLiteral("debugger/recordProfile");
const QString kMemoryBudget = QStringLiteral("debugger/memoryBudget");
const QString kCompare = QStringLiteral("compare/");
const QString kHeatmap = QStringLiteral("tensorInspector/");

/// The group of one model's entries in `area`: a digest of its key, since a path holds characters that keys cannot.
QString modelGroup(const QString& area, const QString& modelKey)
{
    return area + QLatin1Char('/')
        + QString::fromLatin1(QCryptographicHash::hash(modelKey.toUtf8(), QCryptographicHash::Sha1).toHex().left(16));
}

QString breakpointGroup(const QString& modelPath)
{
    return modelGroup(QStringLiteral("breakpoints"), QFileInfo(modelPath).absoluteFilePath())
        + QStringLiteral("/breakpoints");
}

QString inputGroup(const QString& modelKey, const QString& input)
{
    return modelGroup(QStringLiteral("inputs"), modelKey) + QStringLiteral("/input_")
        + QString::fromLatin1(input.toUtf8().toHex());
}

/// A double as the shortest text that reads back the same ("nan", "-inf", "1e+38"), as the Inputs dock shows it.
QString numberText(double value)
{
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value < 0 ? QStringLiteral("-inf") : QStringLiteral("inf");
    return QLocale::c().toString(value, 'g', QLocale::FloatingPointShortest);
}

/// A number saved as text, or by older versions as a double.
double number(const QVariant& saved, double fallback)
{
    if (!saved.isValid())
        return fallback;
    const QString text = saved.toString().trimmed().toLower();
    if (text == QStringLiteral("nan"))
        return std::nan("");
    if (text == QStringLiteral("inf") || text == QStringLiteral("+inf"))
        return INFINITY;
    if (text == QStringLiteral("-inf"))
        return -INFINITY;
    bool ok = false;
    const double v = QLocale::c().toDouble(text, &ok);
    return ok ? v : fallback;
}

} // namespace

Settings::Settings() = default;
Settings::~Settings() = default;

Settings& Settings::instance()
{
    static Settings settings;
    return settings;
}

void Settings::useFile(const QString& path)
{
    Settings& s = instance();
    s.m_file = path;
    s.m_inMemory = false;
    s.m_memory.clear();
}

void Settings::useMemory()
{
    Settings& s = instance();
    s.m_inMemory = true;
    s.m_memory.clear();
}

std::unique_ptr<QSettings> Settings::open() const
{
    if (!m_file.isEmpty())
        return std::make_unique<QSettings>(m_file, QSettings::IniFormat);
    // The names are fixed here rather than taken from the application's, so that every program of the project (and a
    // test with other names) finds the same file.
    return std::make_unique<QSettings>(QSettings::UserScope, QStringLiteral("onnxscope"), QStringLiteral("onnxscope"));
}

QString Settings::fileName() const
{
    return m_inMemory ? QString() : open()->fileName();
}

QVariant Settings::value(const QString& key, const QVariant& fallback) const
{
    if (m_inMemory)
        return m_memory.value(key, fallback);
    return open()->value(key, fallback);
}

bool Settings::contains(const QString& key) const
{
    return m_inMemory ? m_memory.contains(key) : open()->contains(key);
}

void Settings::setValue(const QString& key, const QVariant& value)
{
    if (m_inMemory)
        m_memory.insert(key, value);
    else
        open()->setValue(key, value);
}

void Settings::remove(const QString& key)
{
    if (!m_inMemory) {
        open()->remove(key);
        return;
    }
    m_memory.remove(key);
    const QString prefix = key + QLatin1Char('/');
    for (auto it = m_memory.lowerBound(prefix); it != m_memory.end() && it.key().startsWith(prefix);)
        it = m_memory.erase(it);
}

void Settings::clear()
{
    if (m_inMemory)
        m_memory.clear();
    else
        open()->clear();
}

std::optional<Settings::WindowLayout> Settings::windowLayout() const
{
    if (!contains(kWindowState) || !contains(kWindowSize))
        return std::nullopt;
    WindowLayout layout;
    layout.geometry = value(kWindowGeometry).toByteArray();
    layout.state = value(kWindowState).toByteArray();
    layout.windowSize = value(kWindowSize).toSize();
    layout.version = value(kWindowLayoutVersion, 0).toInt();
    if (layout.state.isEmpty() || !layout.windowSize.isValid())
        return std::nullopt;
    return layout;
}

void Settings::setWindowLayout(const WindowLayout& layout)
{
    remove(kOldGeometry);
    remove(kOldWindowState);
    setValue(kWindowGeometry, layout.geometry);
    setValue(kWindowState, layout.state);
    setValue(kWindowSize, layout.windowSize);
    setValue(kWindowLayoutVersion, layout.version);
}

void Settings::removeWindowLayout()
{
    remove(kOldGeometry);
    remove(kOldWindowState);
    remove(QStringLiteral("window"));
}

QStringList Settings::recentFiles() const
{
    return value(kRecentFiles).toStringList();
}

void Settings::setRecentFiles(const QStringList& paths)
{
    setValue(kRecentFiles, paths);
}

int Settings::debuggerThreads(int fallback) const
{
    bool ok = false;
    const int n = value(kThreads).toInt(&ok);
    return ok ? n : fallback;
}

void Settings::setDebuggerThreads(int threads)
{
    setValue(kThreads, threads);
}

bool Settings::stepConstants() const
{
    return value(kStepConstants, false).toBool();
}

void Settings::setStepConstants(bool on)
{
    setValue(kStepConstants, on);
}

bool Settings::keepValueData() const
{
    return value(kKeepValueData, false).toBool();
}

void Settings::setKeepValueData(bool on)
{
    setValue(kKeepValueData, on);
}

bool Settings::recordProfile() const
{
    return value(kRecordProfile, false).toBool();
}

void Settings::setRecordProfile(bool on)
{
    setValue(kRecordProfile, on);
}

uint64_t Settings::memoryBudget() const
{
    return value(kMemoryBudget, 0).toULongLong();
}

void Settings::setMemoryBudget(uint64_t bytes)
{
    if (bytes)
        setValue(kMemoryBudget, static_cast<qulonglong>(bytes));
    else
        remove(kMemoryBudget);
}

// Written as QSettings writes an array (beginWriteArray), which is how earlier versions saved them.
QList<Settings::Breakpoint> Settings::breakpoints(const QString& modelPath) const
{
    const QString group = breakpointGroup(modelPath);
    const int count = value(group + QStringLiteral("/size"), 0).toInt();
    QList<Breakpoint> out;
    for (int i = 1; i <= count; ++i) {
        const QString item = group + QLatin1Char('/') + QString::number(i) + QLatin1Char('/');
        bool ok = false;
        Breakpoint b;
        b.kind = value(item + QStringLiteral("kind")).toInt(&ok);
        if (!ok)
            continue;
        b.pattern = value(item + QStringLiteral("pattern")).toString();
        b.enabled = value(item + QStringLiteral("enabled"), true).toBool();
        b.iteration = value(item + QStringLiteral("iteration"), -1).toLongLong();
        b.condition = value(item + QStringLiteral("condition")).toString();
        b.output = value(item + QStringLiteral("output"), -1).toInt();
        out << b;
    }
    return out;
}

void Settings::setBreakpoints(const QString& modelPath, const QList<Breakpoint>& breakpoints)
{
    const QString group = breakpointGroup(modelPath);
    remove(group);
    setValue(group + QStringLiteral("/size"), static_cast<int>(breakpoints.size()));
    for (int i = 0; i < breakpoints.size(); ++i) {
        const Breakpoint& b = breakpoints[i];
        const QString item = group + QLatin1Char('/') + QString::number(i + 1) + QLatin1Char('/');
        setValue(item + QStringLiteral("kind"), b.kind);
        setValue(item + QStringLiteral("pattern"), b.pattern);
        setValue(item + QStringLiteral("enabled"), b.enabled);
        setValue(item + QStringLiteral("iteration"), b.iteration);
        setValue(item + QStringLiteral("condition"), b.condition);
        setValue(item + QStringLiteral("output"), b.output);
    }
}

std::optional<int64_t> Settings::inputDim(const QString& modelKey, const QString& symbol) const
{
    const QString key = modelGroup(QStringLiteral("inputs"), modelKey) + QStringLiteral("/dims/") + symbol;
    if (!contains(key))
        return std::nullopt;
    bool ok = false;
    const qlonglong v = value(key).toLongLong(&ok);
    return ok ? std::optional<int64_t>(v) : std::nullopt;
}

std::optional<InputSpec> Settings::inputSpec(const QString& modelKey, const QString& input, InputSpec base) const
{
    const QString g = inputGroup(modelKey, input) + QLatin1Char('/');
    bool ok = false;
    const int source = value(g + QStringLiteral("source")).toInt(&ok);
    if (!ok || source < static_cast<int>(InputSpec::Source::Zeros)
        || source > static_cast<int>(InputSpec::Source::Typed))
        return std::nullopt;
    InputSpec s = std::move(base);
    s.source = static_cast<InputSpec::Source>(source);
    s.constant = number(value(g + QStringLiteral("constant")), s.constant);
    s.low = number(value(g + QStringLiteral("low")), s.low);
    s.high = number(value(g + QStringLiteral("high")), s.high);
    s.mean = number(value(g + QStringLiteral("mean")), s.mean);
    s.stddev = number(value(g + QStringLiteral("stddev")), s.stddev);
    s.seed = value(g + QStringLiteral("seed"), s.seed).toULongLong();
    s.rangeStart = number(value(g + QStringLiteral("rangeStart")), s.rangeStart);
    s.rangeStep = number(value(g + QStringLiteral("rangeStep")), s.rangeStep);
    s.filePath = value(g + QStringLiteral("file")).toString();
    s.text = value(g + QStringLiteral("text")).toString();
    s.fileTensor = Tensor();
    return s;
}

void Settings::setInputs(
    const QString& modelKey, const DimValues& dims, const std::vector<std::pair<QString, InputSpec>>& inputs)
{
    const QString group = modelGroup(QStringLiteral("inputs"), modelKey);
    setValue(group + QStringLiteral("/model"), modelKey);
    for (const auto& [symbol, v] : dims)
        setValue(group + QStringLiteral("/dims/") + symbol, static_cast<qlonglong>(v));
    for (const auto& [name, s] : inputs) {
        const QString g = inputGroup(modelKey, name) + QLatin1Char('/');
        setValue(g + QStringLiteral("source"), static_cast<int>(s.source));
        setValue(g + QStringLiteral("constant"), numberText(s.constant));
        setValue(g + QStringLiteral("low"), numberText(s.low));
        setValue(g + QStringLiteral("high"), numberText(s.high));
        setValue(g + QStringLiteral("mean"), numberText(s.mean));
        setValue(g + QStringLiteral("stddev"), numberText(s.stddev));
        setValue(g + QStringLiteral("seed"), s.seed);
        setValue(g + QStringLiteral("rangeStart"), numberText(s.rangeStart));
        setValue(g + QStringLiteral("rangeStep"), numberText(s.rangeStep));
        setValue(g + QStringLiteral("file"), s.filePath);
        setValue(g + QStringLiteral("text"), s.text.left(100000));
    }
}

Settings::CompareFields Settings::compareFields() const
{
    CompareFields f;
    f.kind = value(kCompare + QStringLiteral("kind"), f.kind).toInt();
    if (f.kind < 0 || f.kind > 2)
        f.kind = 0;
    f.model = value(kCompare + QStringLiteral("model"), f.model).toString();
    f.nameMap = value(kCompare + QStringLiteral("nameMap"), f.nameMap).toString();
    f.reference = value(kCompare + QStringLiteral("reference"), f.reference).toString();
    f.byModule = value(kCompare + QStringLiteral("byModule"), f.byModule).toBool();
    f.randomInputs = value(kCompare + QStringLiteral("random"), f.randomInputs).toBool();
    f.seed = value(kCompare + QStringLiteral("seed"), f.seed).toInt();
    f.rtol = value(kCompare + QStringLiteral("rtol"), f.rtol).toString();
    f.atol = value(kCompare + QStringLiteral("atol"), f.atol).toString();
    f.initializers = value(kCompare + QStringLiteral("initializers"), f.initializers).toBool();
    f.align = value(kCompare + QStringLiteral("align"), f.align).toString();
    f.record = value(kCompare + QStringLiteral("record"), f.record).toBool();
    return f;
}

void Settings::setCompareFields(const CompareFields& f)
{
    setValue(kCompare + QStringLiteral("kind"), f.kind);
    setValue(kCompare + QStringLiteral("model"), f.model);
    setValue(kCompare + QStringLiteral("nameMap"), f.nameMap);
    setValue(kCompare + QStringLiteral("reference"), f.reference);
    setValue(kCompare + QStringLiteral("byModule"), f.byModule);
    setValue(kCompare + QStringLiteral("random"), f.randomInputs);
    setValue(kCompare + QStringLiteral("seed"), f.seed);
    setValue(kCompare + QStringLiteral("rtol"), f.rtol);
    setValue(kCompare + QStringLiteral("atol"), f.atol);
    setValue(kCompare + QStringLiteral("initializers"), f.initializers);
    setValue(kCompare + QStringLiteral("align"), f.align);
    setValue(kCompare + QStringLiteral("record"), f.record);
}

int Settings::heatmapColourScale(const QString& heatmap) const
{
    return value(kHeatmap + heatmap, 0).toInt();
}

void Settings::setHeatmapColourScale(const QString& heatmap, int scale)
{
    setValue(kHeatmap + heatmap, scale);
}

} // namespace onnxscope
