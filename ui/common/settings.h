// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/input_spec.h"

#include <QByteArray>
#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVariantMap>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QSettings;

namespace onnxscope {

/// Everything the GUI remembers between sessions, typed: the keys, their defaults and the file are in this class
/// only. One object per process, Settings::instance(), used from the UI thread.
///
/// Where it lives:
/// - by default in the user's settings file, `$XDG_CONFIG_HOME/onnxscope/onnxscope.conf` (`~/.config/...`);
/// - in another file after useFile() (tests, each with its own);
/// - in memory only after useMemory(): the session starts from the defaults and nothing is written, as measuring and
///   scripted runs (`--benchmark-open`, `--debug-run-to`, ...) want.
class Settings {
public:
    static Settings& instance();
    /// Reads and writes `path` (INI format) from now on.
    static void useFile(const QString& path);
    /// Starts from the defaults and keeps every change in memory: no file is read or written.
    static void useMemory();
    /// The file read and written; empty in memory.
    QString fileName() const;
    bool isPersistent() const { return !m_inMemory; }
    /// Forgets everything saved (in the file, or in memory).
    void clear();

    /// The window's geometry and dock layout, saved together when the window closes.
    struct WindowLayout {
        QByteArray geometry; ///< QWidget::saveGeometry()
        QByteArray state; ///< QMainWindow::saveState(version)
        QSize windowSize; ///< the window's size when `state` was saved
        int version = 0; ///< the layout version `state` was saved with
    };
    /// The saved layout, if any (a layout saved before the window size was recorded is none).
    std::optional<WindowLayout> windowLayout() const;
    void setWindowLayout(const WindowLayout& layout);
    void removeWindowLayout();

    /// File › Recent Files, newest first.
    QStringList recentFiles() const;
    void setRecentFiles(const QStringList& paths);

    /// Debug › Threads; `fallback` when none was chosen.
    int debuggerThreads(int fallback) const;
    void setDebuggerThreads(int threads);
    /// Debug › Step Into Constant Nodes (default off).
    bool stepConstants() const;
    void setStepConstants(bool on);
    /// Debug › Keep Every Value's Data (default off).
    bool keepValueData() const;
    void setKeepValueData(bool on);
    /// Debug › Record Profile (default off).
    bool recordProfile() const;
    void setRecordProfile(bool on);
    /// Debug › Memory Budget in bytes; 0 for the default budget (setting 0 forgets the choice).
    uint64_t memoryBudget() const;
    void setMemoryBudget(uint64_t bytes);

    /// A breakpoint as saved (kind is BreakpointSpec::Kind's value).
    struct Breakpoint {
        int kind = 0;
        QString pattern;
        bool enabled = true;
        qint64 iteration = -1;
        QString condition;
        int output = -1;
    };
    /// The breakpoints saved for a model file (by its absolute path); entries without a readable kind are left out.
    QList<Breakpoint> breakpoints(const QString& modelPath) const;
    void setBreakpoints(const QString& modelPath, const QList<Breakpoint>& breakpoints);

    /// The Inputs dock's choices for one model (`modelKey`: its path, or its name when it has none).
    /// A symbolic dimension's saved value, if the user set one.
    std::optional<int64_t> inputDim(const QString& modelKey, const QString& symbol) const;
    /// An input's saved source and parameters (without the file's tensor), if any; what was not saved is taken from
    /// `base`.
    std::optional<InputSpec> inputSpec(const QString& modelKey, const QString& input, InputSpec base = {}) const;
    /// Replaces what is saved for the model: the dimensions set and each input's spec (typed text cut at 100,000
    /// characters).
    void setInputs(
        const QString& modelKey, const DimValues& dims, const std::vector<std::pair<QString, InputSpec>>& inputs);

    /// The Compare dialog's fields as last accepted; defaults for a first use.
    struct CompareFields {
        int kind = 0; ///< which of the dialog's three kinds of comparison (0 to 2)
        QString model;
        QString nameMap;
        QString reference;
        bool byModule = false; ///< reference values by PyTorch module
        bool randomInputs = true;
        int seed = 1;
        QString rtol = QStringLiteral("1e-4");
        QString atol = QStringLiteral("1e-5");
        bool initializers = true;
        QString align = QStringLiteral("auto");
        bool record = true;
    };
    CompareFields compareFields() const;
    void setCompareFields(const CompareFields& fields);

    /// The colour scale a heatmap of the Tensor Inspector last used (by the heatmap's name); 0 by default.
    int heatmapColourScale(const QString& heatmap) const;
    void setHeatmapColourScale(const QString& heatmap, int scale);

private:
    Settings();
    ~Settings();
    std::unique_ptr<QSettings> open() const;
    QVariant value(const QString& key, const QVariant& fallback = {}) const;
    bool contains(const QString& key) const;
    void setValue(const QString& key, const QVariant& value);
    /// Removes the key and every key under it.
    void remove(const QString& key);

    QString m_file; ///< empty: the user's file
    bool m_inMemory = false;
    QVariantMap m_memory; ///< keys as "group/key", when in memory
};

} // namespace onnxscope
