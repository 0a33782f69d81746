// SPDX-License-Identifier: MIT
// Debug › Check Precision… (issue 44 part 4) driven through the real MainWindow, DebuggerUi and PrecisionUi on a model
// written by python3-onnx at test time with a value that overflows float16 (MatMul of inputs in [1, 3] with weights
// near 3000) and values that flush to zero (Exp(x - 30)). numpy decides which values overflow or mostly underflow and
// which nodes make or read them; the Precision dock's rows, the graph's risk colours, the row <-> node selection and
// the saved block list must agree. Also bfloat16 (nothing flagged), cancel, and a model whose run fails (a dialog).
#include "engine/model/model.h"
#include "tests/common/run_python.h"
#include "tests/common/test_models.h"
#include "tests/common/test_settings.h"
#include "tests/ui/debugger_window.h"
#include "ui/common/model_document.h"
#include "ui/graphview/graph_view.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/precision_ui.h"
#include "ui/precision/precision_model.h"
#include "ui/precision/precision_panel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

using namespace onnxscope;
using onnxscope::testing::kLongLoop;
using onnxscope::testing::runPython;

class TestPrecisionUi : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_work;
    onnxscope::testing::DebuggerWindow m_w;
    PrecisionUi* m_precision = nullptr;
    std::map<QString, PrecisionRisk> m_expected; // numpy's: node -> risk, for the nodes to keep
    double m_partlyShare = 0; // numpy's underflowed share of "q" (5 of 16 columns): flagged below it, not above

    QString path(const char* name) const { return m_work.filePath(QString::fromLatin1(name)); }

    void openText(const char* text, const QString& file)
    {
        QSignalSpy opened(m_w.window.get(), &MainWindow::modelOpened);
        m_w.window->document()->setModel(Model::fromText(text), file);
        QVERIFY(opened.count() == 1 || opened.wait(5000));
        QVERIFY(QTest::qWaitFor([&] { return !m_w.window->graphView()->isLayoutRunning(); }, 10000));
    }

    void openFile(const QString& file) { QVERIFY(m_w.openFile(file)); }

    bool runCheck()
    {
        QSignalSpy shown(m_precision, &PrecisionUi::resultShown);
        m_precision->checkAction()->trigger();
        return shown.wait(30000);
    }

    RiskMark markOf(const QString& node) const
    {
        GraphView* view = m_w.window->graphView();
        const NodeId id = view->currentGraph()->findNode(node.toStdString());
        const int box = view->boxOfNode(id);
        return box < 0 ? RiskMark {} : view->riskMark(box);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        QVERIFY(m_work.isValid());
        onnxscope::testing::useOwnSettings(m_settingsDir.path(), QStringLiteral("onnxscope-precision-tests"));
        qputenv("ONNXSCOPE_NO_DIALOGS", "1");
        const QString out = runPython(QStringLiteral(R"(
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
rng = np.random.default_rng(5)
x = (1 + 2 * rng.random((4, 16))).astype(np.float32)
w = {'W1': (3000 + 100 * rng.standard_normal((16, 8))).astype(np.float32),
     'W2': (rng.standard_normal((8, 4)) / 3).astype(np.float32),
     'thirty': np.array(30, np.float32), 'scale': np.array(1e-3, np.float32),
     'shift': np.where(np.arange(16) < 5, 30.0, 0.0).astype(np.float32)}
N = helper.make_node
nodes = [N('MatMul', ['x', 'W1'], ['h'], name='big_matmul'),
         N('Mul', ['h', 'scale'], ['hs'], name='shrink'),
         N('MatMul', ['hs', 'W2'], ['y1'], name='head'),
         N('Sub', ['x', 'thirty'], ['d'], name='minus_thirty'),
         N('Exp', ['d'], ['e'], name='tiny_exp'),
         N('Log', ['e'], ['y2'], name='log_back'),
         N('Relu', ['x'], ['y3'], name='plain'),
         N('Sub', ['x', 'shift'], ['d2'], name='shift_some'),
         N('Exp', ['d2'], ['q'], name='partly_tiny_exp'),
         N('ReduceSum', ['q'], ['y4'], name='partly_sum', keepdims=1)]
g = helper.make_graph(nodes, 'precision', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [4, 16])],
    [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ('y1', 'y2', 'y3', 'y4')],
    [numpy_helper.from_array(v, k) for k, v in w.items()])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
m.ir_version = 8
onnx.save(m, '%1/precision.onnx')
np.save('%1/x.npy', x)
# The truth: every value with numpy in float64, flagged as check-precision defines it.
v = {'x': x.astype(np.float64)}
v['h'] = v['x'] @ w['W1']; v['hs'] = v['h'] * 1e-3; v['y1'] = v['hs'] @ w['W2']
v['d'] = v['x'] - 30; v['e'] = np.exp(v['d']); v['y2'] = np.log(v['e']); v['y3'] = np.maximum(v['x'], 0)
v['d2'] = v['x'] - w['shift']; v['q'] = np.exp(v['d2']); v['y4'] = v['q'].sum(-1, keepdims=True)
risk = {}
for n in nodes:
    for o in n.output:
        a = np.abs(v[o]); nz = a[a > 0]
        if (a > 65504).any(): risk[n.name] = 'overflow'
        elif nz.size and (nz < 2.0**-24).mean() > 0.5: risk.setdefault(n.name, 'underflow')
        else: continue
        for r in nodes:
            if o in r.input: risk.setdefault(r.name, 'reads')
print(' '.join(k + ':' + r for k, r in sorted(risk.items())))
a = np.abs(v['q']); print(repr(float((a[a > 0] < 2.0**-24).mean())))
)")
                                          .arg(m_work.path()));
        QVERIFY2(!out.startsWith(QStringLiteral("python")), qPrintable(out));
        const QStringList lines = out.split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 2);
        m_partlyShare = lines[1].toDouble();
        QVERIFY(m_partlyShare > 0.2 && m_partlyShare < 0.5);
        for (const QString& item : lines[0].split(QLatin1Char(' '))) {
            const QString risk = item.section(QLatin1Char(':'), 1);
            m_expected[item.section(QLatin1Char(':'), 0, 0)] = risk == QStringLiteral("overflow")
                ? PrecisionRisk::Overflow
                : risk == QStringLiteral("underflow") ? PrecisionRisk::Underflow
                                                      : PrecisionRisk::ReadsFlagged;
        }
        QCOMPARE(m_expected.size(), size_t(4)); // big_matmul, shrink, tiny_exp, log_back; the others are fine
    }

    void init()
    {
        QVERIFY(m_w.create());
        m_precision = new PrecisionUi(m_w.window.get(), m_w.debugger);
    }

    void cleanup()
    {
        m_w.destroy();
        m_precision = nullptr;
    }

    void rowsColoursSelectionAndBlockList()
    {
        openFile(path("precision.onnx"));
        m_w.debugger->inputs()->setFile(QStringLiteral("x"), path("x.npy"));
        QVERIFY(runCheck());
        QVERIFY2(m_w.errors.isEmpty(), qPrintable(m_w.errors.join(QLatin1Char('\n'))));
        PrecisionModel* model = m_precision->panel()->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // The rows: exactly numpy's nodes, each with numpy's risk.
        std::map<QString, PrecisionRisk> rows;
        for (int r = 0; r < model->rowCount(); ++r)
            rows[QString::fromStdString(model->nodeAt(r)->name)] = precisionRisk(*model->nodeAt(r));
        QCOMPARE(rows, m_expected);
        // The evidence of the overflowing node: its own value, with numpy's range (above 65504).
        const int matmulRow = model->rowOf(
            m_w.window->graphView()->currentGraph(), m_w.window->graphView()->currentGraph()->findNode("big_matmul"));
        QVERIFY(matmulRow >= 0);
        QCOMPARE(model->index(matmulRow, PrecisionModel::ValueColumn).data().toString(), QStringLiteral("h"));
        QVERIFY(model->index(matmulRow, PrecisionModel::MaxColumn).data().toString().toDouble() > 65504);
        // The overlay: each node by its risk, the others fine; off clears it, on brings it back.
        for (const char* node : { "big_matmul", "shrink", "head", "minus_thirty", "tiny_exp", "log_back", "plain" }) {
            const QString name = QString::fromLatin1(node);
            const auto it = m_expected.find(name);
            const PrecisionRisk risk = it == m_expected.end() ? PrecisionRisk::Fine : it->second;
            QCOMPARE(markOf(name).colour, precisionRiskColour(risk));
            QVERIFY(!markOf(name).note.isEmpty());
        }
        m_precision->panel()->setOverlayEnabled(false);
        QVERIFY(!markOf(QStringLiteral("big_matmul")).colour.isValid());
        QVERIFY(!markOf(QStringLiteral("plain")).colour.isValid());
        m_precision->panel()->setOverlayEnabled(true);
        QCOMPARE(markOf(QStringLiteral("big_matmul")).colour, precisionRiskColour(PrecisionRisk::Overflow));
        // A row selects its node in the graph; a node selected in the graph selects its row.
        const int expRow = model->rowOf(
            m_w.window->graphView()->currentGraph(), m_w.window->graphView()->currentGraph()->findNode("tiny_exp"));
        QTableView* table = m_precision->panel()->table();
        m_precision->dock()->show();
        m_precision->dock()->raise();
        table->scrollTo(model->index(expRow, 0));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(model->index(expRow, 0)).center());
        QCOMPARE(table->currentIndex().row(), expRow);
        QCOMPARE(
            m_w.window->graphView()->selectedNode(), m_w.window->graphView()->currentGraph()->findNode("tiny_exp"));
        m_w.window->graphView()->centerOnNode(m_w.window->graphView()->currentGraph(),
            m_w.window->graphView()->currentGraph()->findNode("big_matmul"), true);
        QCOMPARE(m_precision->panel()->table()->currentIndex().row(), matmulRow);
        // The block list in both forms.
        QVERIFY(m_precision->saveBlockList(path("keep.json")));
        QFile json(path("keep.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        std::set<QString> listed;
        for (const auto& v :
            QJsonDocument::fromJson(json.readAll()).object().value(QStringLiteral("node_block_list")).toArray())
            listed.insert(v.toString());
        std::set<QString> expected;
        for (const auto& [node, risk] : m_expected)
            expected.insert(node);
        QCOMPARE(listed, expected);
        QVERIFY(m_precision->saveBlockList(path("keep.txt")));
        QFile text(path("keep.txt"));
        QVERIFY(text.open(QIODevice::ReadOnly));
        std::set<QString> lines;
        for (const QString& line : QString::fromUtf8(text.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            lines.insert(line);
        QCOMPARE(lines, expected);
        QVERIFY(m_precision->panel()->saveButton()->isEnabled());
        // "q" underflows in numpy's share of its elements: flagged (with its producer and reader) only when the
        // threshold is below that share.
        QCOMPARE(markOf(QStringLiteral("partly_tiny_exp")).colour, precisionRiskColour(PrecisionRisk::Fine));
        m_precision->panel()->setUnderflowShare(m_partlyShare - 0.05);
        QVERIFY(runCheck());
        QCOMPARE(markOf(QStringLiteral("partly_tiny_exp")).colour, precisionRiskColour(PrecisionRisk::Underflow));
        QCOMPARE(markOf(QStringLiteral("partly_sum")).colour, precisionRiskColour(PrecisionRisk::ReadsFlagged));
        const int qRow = model->rowOf(m_w.window->graphView()->currentGraph(),
            m_w.window->graphView()->currentGraph()->findNode("partly_tiny_exp"));
        QVERIFY(qRow >= 0);
        QCOMPARE(model->index(qRow, PrecisionModel::UnderflowedColumn)
                     .data()
                     .toString()
                     .section(QLatin1Char('%'), 0, 0)
                     .toDouble(),
            std::round(100 * m_partlyShare * 1000) / 1000);
        m_precision->panel()->setUnderflowShare(0.5);
        // bfloat16: 2^-133 and 3.4e38 leave every value in range.
        m_precision->panel()->setTarget(DataType::BFloat16);
        QVERIFY(runCheck());
        QCOMPARE(model->rowCount(), 0);
        QCOMPARE(markOf(QStringLiteral("big_matmul")).colour, precisionRiskColour(PrecisionRisk::Fine));
        QVERIFY(!m_precision->panel()->saveButton()->isEnabled());
        // Opening another model clears the check and its colours.
        openFile(path("precision.onnx"));
        QVERIFY(!m_precision->result());
        QVERIFY(!markOf(QStringLiteral("big_matmul")).colour.isValid());
    }

    void cancelStopsTheRun()
    {
        openText(kLongLoop, path("long.onnx"));
        QSignalSpy progress(m_precision->controller(), &PrecisionController::progress);
        QSignalSpy cancelled(m_precision->controller(), &PrecisionController::cancelled);
        QVERIFY(m_precision->check());
        QVERIFY(progress.wait(20000));
        QVERIFY(!m_precision->panel()->checkButton()->isEnabled());
        m_precision->controller()->cancel();
        QVERIFY(cancelled.wait(20000));
        QVERIFY(m_precision->panel()->checkButton()->isEnabled());
        QVERIFY(!m_precision->result());
        QVERIFY(m_w.errors.isEmpty());
    }

    void failingRunShowsAnError()
    {
        openText(R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[4] x) => (float[3] y) {
    s = Constant <value = int64[1] {3}> ()
    y = Reshape <allowzero = 0> (x, s)
})",
            path("bad.onnx"));
        QSignalSpy failed(m_precision->controller(), &PrecisionController::failed);
        QVERIFY(m_precision->check());
        QVERIFY(failed.wait(20000));
        QCOMPARE(m_w.errors.size(), 1);
        QVERIFY2(
            m_w.errors.front().startsWith(QStringLiteral("Precision check failed")), qPrintable(m_w.errors.front()));
        QVERIFY2(m_w.errors.front().contains(QStringLiteral("Reshape")), qPrintable(m_w.errors.front()));
        // Without a model: an error, no run.
        m_w.errors.clear();
        MainWindow empty;
        empty.setErrorReporter(
            [this](const QString& t, const QString& m) { m_w.errors << t + QStringLiteral(": ") + m; });
        auto* debugger = new DebuggerUi(&empty);
        PrecisionUi precision(&empty, debugger);
        QVERIFY(!precision.check());
        QCOMPARE(m_w.errors.size(), 1);
    }
};

QTEST_MAIN(TestPrecisionUi)
#include "test_precision_ui.moc"
