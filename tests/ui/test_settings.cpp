// SPDX-License-Identifier: MIT
// The one settings object (ui/common/settings.h): what it reads from files older versions wrote with QSettings, its
// file and memory modes, and the GUI's measuring mode, which must leave the settings folder as it was (issue #45).
#include "tests/common/test_settings.h"
#include "ui/common/settings.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace onnxscope;

namespace {

const QString kSample = QStringLiteral(ONNXSCOPE_SOURCE_DIR "/resources/samples/mlp_classifier.onnx");

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestSettings : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_file;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        onnxscope::testing::useOwnSettings(m_dir.path(), QStringLiteral("onnxscope-settings-tests"));
        m_file = m_dir.filePath(QStringLiteral("onnxscope.conf"));
    }

    void init()
    {
        Settings::useFile(m_file);
        Settings::instance().clear();
    }

    void writesTheFileItIsGiven()
    {
        Settings& s = Settings::instance();
        QCOMPARE(s.fileName(), m_file);
        QVERIFY(s.isPersistent());
        s.setRecentFiles({ QStringLiteral("/a.onnx"), QStringLiteral("/b.onnx") });
        s.setDebuggerThreads(3);
        s.setMemoryBudget(uint64_t(3) << 29);
        s.setKeepValueData(true);
        s.setHeatmapColourScale(QStringLiteral("heatmapColours"), 2);
        // Another reader of the same file (QSettings itself) sees them under the keys earlier versions used.
        QSettings file(m_file, QSettings::IniFormat);
        QCOMPARE(file.value(QStringLiteral("recentFiles")).toStringList(),
            QStringList({ QStringLiteral("/a.onnx"), QStringLiteral("/b.onnx") }));
        QCOMPARE(file.value(QStringLiteral("debugger/threads")).toInt(), 3);
        QCOMPARE(file.value(QStringLiteral("debugger/memoryBudget")).toULongLong(), qulonglong(3) << 29);
        QCOMPARE(file.value(QStringLiteral("debugger/keepValueData")).toBool(), true);
        QCOMPARE(file.value(QStringLiteral("tensorInspector/heatmapColours")).toInt(), 2);
        // Defaults, and a budget of 0 forgets the choice.
        QCOMPARE(s.debuggerThreads(7), 3);
        QVERIFY(!s.stepConstants());
        s.setMemoryBudget(0);
        QCOMPARE(s.memoryBudget(), uint64_t(0));
        QVERIFY(!QSettings(m_file, QSettings::IniFormat).contains(QStringLiteral("debugger/memoryBudget")));
        s.clear();
        QCOMPARE(s.debuggerThreads(7), 7);
        QVERIFY(s.recentFiles().isEmpty());
    }

    void readsWhatEarlierVersionsWrote()
    {
        // Breakpoints and inputs as DebuggerUi and InputsPanel wrote them with QSettings' own array and group calls
        // (the group is a digest of the model's path).
        const QString model = QStringLiteral("/models/net.onnx");
        const QString digest
            = QString::fromLatin1(QCryptographicHash::hash(model.toUtf8(), QCryptographicHash::Sha1).toHex().left(16));
        {
            QSettings old(m_file, QSettings::IniFormat);
            old.beginGroup(QStringLiteral("breakpoints/") + digest);
            old.beginWriteArray(QStringLiteral("breakpoints"), 2);
            old.setArrayIndex(0);
            old.setValue(QStringLiteral("kind"), 4);
            old.setValue(QStringLiteral("pattern"), QStringLiteral("Add_3"));
            old.setValue(QStringLiteral("enabled"), false);
            old.setValue(QStringLiteral("iteration"), qlonglong(7));
            old.setValue(QStringLiteral("condition"), QStringLiteral("any |x| > 1e4"));
            old.setValue(QStringLiteral("output"), 1);
            old.setArrayIndex(1);
            old.setValue(QStringLiteral("kind"), 1);
            old.setValue(QStringLiteral("pattern"), QStringLiteral("Relu"));
            old.endArray();
            old.endGroup();
            old.beginGroup(QStringLiteral("inputs/") + digest);
            old.setValue(QStringLiteral("dims/batch"), qlonglong(4));
            old.beginGroup(QStringLiteral("input_") + QString::fromLatin1(QByteArray("x").toHex()));
            old.setValue(QStringLiteral("source"), static_cast<int>(InputSpec::Source::Uniform));
            old.setValue(QStringLiteral("low"), QStringLiteral("-inf"));
            old.setValue(QStringLiteral("high"), 2.5); // a double, as the first versions saved numbers
            old.setValue(QStringLiteral("seed"), qulonglong(42));
            old.endGroup();
            old.endGroup();
            old.beginGroup(QStringLiteral("compare"));
            old.setValue(QStringLiteral("kind"), 1);
            old.setValue(QStringLiteral("rtol"), QStringLiteral("1e-3"));
            old.endGroup();
        }
        const Settings& s = Settings::instance();
        const QList<Settings::Breakpoint> b = s.breakpoints(model);
        QCOMPARE(b.size(), 2);
        QCOMPARE(b[0].kind, 4);
        QCOMPARE(b[0].pattern, QStringLiteral("Add_3"));
        QCOMPARE(b[0].enabled, false);
        QCOMPARE(b[0].iteration, qint64(7));
        QCOMPARE(b[0].condition, QStringLiteral("any |x| > 1e4"));
        QCOMPARE(b[0].output, 1);
        QCOMPARE(b[1].pattern, QStringLiteral("Relu"));
        QCOMPARE(b[1].enabled, true); // the defaults of what was not written
        QCOMPARE(b[1].iteration, qint64(-1));
        QCOMPARE(b[1].output, -1);
        QCOMPARE(s.inputDim(model, QStringLiteral("batch")), std::optional<int64_t>(4));
        QVERIFY(!s.inputDim(model, QStringLiteral("sequence")));
        InputSpec base;
        base.mean = 9;
        const std::optional<InputSpec> x = s.inputSpec(model, QStringLiteral("x"), base);
        QVERIFY(x);
        QCOMPARE(x->source, InputSpec::Source::Uniform);
        QVERIFY(std::isinf(x->low) && x->low < 0);
        QCOMPARE(x->high, 2.5);
        QCOMPARE(x->seed, quint64(42));
        QCOMPARE(x->mean, 9.0); // not saved: the base's
        QVERIFY(!s.inputSpec(model, QStringLiteral("y")));
        const Settings::CompareFields f = s.compareFields();
        QCOMPARE(f.kind, 1);
        QCOMPARE(f.rtol, QStringLiteral("1e-3"));
        QCOMPARE(f.atol, QStringLiteral("1e-5")); // the default
    }

    void breakpointsAndInputsRoundTrip()
    {
        Settings& s = Settings::instance();
        const QString model = m_dir.filePath(QStringLiteral("m.onnx"));
        s.setBreakpoints(
            model, { { 2, QString(), true, -1, QString(), -1 }, { 0, QStringLiteral("n"), false, 3, {}, 0 } });
        s.setBreakpoints(model, { { 0, QStringLiteral("only"), true, -1, QString(), -1 } }); // replaces the list
        const QList<Settings::Breakpoint> b = s.breakpoints(model);
        QCOMPARE(b.size(), 1);
        QCOMPARE(b[0].pattern, QStringLiteral("only"));
        InputSpec spec;
        spec.source = InputSpec::Source::Constant;
        spec.constant = std::nan("");
        spec.rangeStep = 0.1;
        spec.text = QString(200000, QLatin1Char('1'));
        s.setInputs(model, { { QStringLiteral("n"), 8 } }, { { QStringLiteral("in/put"), spec } });
        const std::optional<InputSpec> back = s.inputSpec(model, QStringLiteral("in/put"));
        QVERIFY(back);
        QCOMPARE(back->source, InputSpec::Source::Constant);
        QVERIFY(std::isnan(back->constant));
        QCOMPARE(back->rangeStep, 0.1); // the shortest text that reads back the same double
        QCOMPARE(back->text.size(), 100000);
        QCOMPARE(s.inputDim(model, QStringLiteral("n")), std::optional<int64_t>(8));
    }

    void memoryModeReadsAndWritesNoFile()
    {
        Settings::instance().setRecentFiles({ QStringLiteral("/kept.onnx") });
        Settings::instance().setWindowLayout({ QByteArray("g"), QByteArray("s"), QSize(800, 600), 3 });
        const QByteArray before = readAll(m_file);
        QVERIFY(!before.isEmpty());
        Settings::useMemory();
        Settings& s = Settings::instance();
        QVERIFY(!s.isPersistent());
        QVERIFY(s.fileName().isEmpty());
        // It starts from the defaults: a measurement does not depend on what the user saved.
        QVERIFY(s.recentFiles().isEmpty());
        QVERIFY(!s.windowLayout());
        s.setRecentFiles({ QStringLiteral("/session.onnx") });
        s.setWindowLayout({ QByteArray("g2"), QByteArray("s2"), QSize(787, 755), 3 });
        s.setBreakpoints(QStringLiteral("/m.onnx"), { { 0, QStringLiteral("a"), true, -1, {}, -1 } });
        QCOMPARE(s.recentFiles(), QStringList { QStringLiteral("/session.onnx") });
        QCOMPARE(s.windowLayout()->windowSize, QSize(787, 755));
        QCOMPARE(s.breakpoints(QStringLiteral("/m.onnx")).size(), 1);
        s.setBreakpoints(QStringLiteral("/m.onnx"), {});
        QVERIFY(s.breakpoints(QStringLiteral("/m.onnx")).isEmpty());
        QCOMPARE(readAll(m_file), before);
        Settings::useFile(m_file);
        QCOMPARE(s.recentFiles(), QStringList { QStringLiteral("/kept.onnx") });
    }

    void benchmarkOpenLeavesTheSettingsAsTheyWere()
    {
        // The GUI's measuring mode, in a settings folder of its own holding a user's settings: it opens the model
        // (which would add it to Recent Files) and quits (which would save the window's layout), and writes nothing.
        QTemporaryDir config;
        QVERIFY(config.isValid());
        const QString file = config.filePath(QStringLiteral("onnxscope/onnxscope.conf"));
        {
            QSettings user(file, QSettings::IniFormat);
            user.setValue(QStringLiteral("recentFiles"), QStringList { QStringLiteral("/home/u/model.onnx") });
            user.setValue(QStringLiteral("debugger/threads"), 2);
        }
        const QByteArray before = readAll(file);
        QVERIFY(!before.isEmpty());
        QProcess gui;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), config.path());
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        gui.setProcessEnvironment(env);
        gui.start(QStringLiteral(ONNXSCOPE_GUI), { QStringLiteral("--benchmark-open"), kSample });
        QVERIFY(gui.waitForFinished(120000));
        QCOMPARE(gui.exitCode(), 0);
        QVERIFY2(gui.readAllStandardOutput().contains("open_to_first_draw_ms"), "the model was not opened");
        QCOMPARE(readAll(file), before);
        QCOMPARE(QDir(config.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
            QStringList { QStringLiteral("onnxscope") });
        QCOMPARE(QDir(config.filePath(QStringLiteral("onnxscope"))).entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
            QStringList { QStringLiteral("onnxscope.conf") });
    }
};

QTEST_MAIN(TestSettings)
#include "test_settings.moc"
