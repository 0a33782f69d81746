// SPDX-License-Identifier: MIT
// "Int8 Layer Errors…" (issue 44 part 4) in the Compare Results dock, driven through the real MainWindow, DebuggerUi,
// CompareUi and QuantErrorUi: a float MLP compared with a QDQ copy written by hand with python3-onnx (uint8
// activations, int8 weights), whose fc1 weight scale is multiplied by 8. numpy computes each layer's own error (its
// inputs quantized with the layer's own scales, fed the float values) and the table must rank fc1 first with numpy's
// numbers; a row selects the float node in the graph. Comparing two float models reports why there is no table.
#include "tests/common/run_python.h"
#include "tests/common/test_settings.h"
#include "tests/ui/debugger_window.h"
#include "ui/compare/compare_job.h"
#include "ui/compare/quant_error_model.h"
#include "ui/graphview/graph_view.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/compare_ui.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/quant_error_ui.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDialog>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace onnxscope;
using onnxscope::testing::runPython;

class TestQuantErrorUi : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_work;
    onnxscope::testing::DebuggerWindow m_w;
    QuantErrorUi* m_quant = nullptr;
    std::map<QString, double> m_ownRelL2; // numpy's, per layer

    QString path(const char* name) const { return m_work.filePath(QString::fromLatin1(name)); }

    bool compareWith(const QString& other)
    {
        QSignalSpy shown(m_w.debugger->compare(), &CompareUi::comparisonShown);
        m_w.debugger->compare()->scheduleCompare(other, {}, false);
        QSignalSpy opened(m_w.window.get(), &MainWindow::modelOpened);
        m_w.window->openModel(path("float.onnx"));
        if (!opened.wait(20000))
            return false;
        return shown.count() > 0 || shown.wait(30000);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        QVERIFY(m_work.isValid());
        onnxscope::testing::useOwnSettings(m_settingsDir.path(), QStringLiteral("onnxscope-quant-tests"));
        qputenv("ONNXSCOPE_NO_DIALOGS", "1");
        const QString out = runPython(QStringLiteral(R"(
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
rng = np.random.default_rng(9)
x = rng.standard_normal((4, 16)).astype(np.float32)
W1 = (rng.standard_normal((16, 8)) * 0.3).astype(np.float32)
W2 = (rng.standard_normal((8, 4)) * 0.3).astype(np.float32)
N = helper.make_node
def save(nodes, inits, name):
    g = helper.make_graph(nodes, 'mlp', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [4, 16])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [4, 4])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, '%1/' + name)
save([N('MatMul', ['x', 'W1'], ['h1'], name='fc1'), N('Relu', ['h1'], ['r1'], name='relu1'),
      N('MatMul', ['r1', 'W2'], ['y'], name='fc2')],
     [numpy_helper.from_array(W1, 'W1'), numpy_helper.from_array(W2, 'W2')], 'float.onnx')
h1 = x @ W1; r1 = np.maximum(h1, 0); y = r1 @ W2
def act(v):  # uint8, the scale and zero point of the value's range
    lo, hi = min(float(v.min()), 0.0), max(float(v.max()), 0.0)
    s = np.float32((hi - lo) / 255); return s, np.uint8(np.clip(np.rint(-lo / s), 0, 255))
def wq(w):
    s = np.float32(np.abs(w).max() / 127); return np.clip(np.rint(w / s), -127, 127).astype(np.int8), s
q = lambda v, s, z: np.clip(np.rint(v / s) + z, 0, 255).astype(np.uint8)
dq = lambda v, s, z: (v.astype(np.float32) - np.float32(z)) * s
(xs, xz), (rs, rz), (ys, yz) = act(x), act(r1), act(y)
W1q, w1s = wq(W1); W2q, w2s = wq(W2)
w1s = np.float32(w1s * 8)  # the damage
inits = [numpy_helper.from_array(v, k) for k, v in (('x_scale', np.array(xs)), ('x_zero_point', np.array(xz)),
    ('r1_scale', np.array(rs)), ('r1_zero_point', np.array(rz)), ('y_scale', np.array(ys)), ('y_zero_point', np.array(yz)),
    ('W1_quantized', W1q), ('W1_scale', np.array(w1s)), ('W1_zero_point', np.array(np.int8(0))),
    ('W2_quantized', W2q), ('W2_scale', np.array(w2s)), ('W2_zero_point', np.array(np.int8(0))))]
save([N('QuantizeLinear', ['x', 'x_scale', 'x_zero_point'], ['x_QuantizeLinear_Output'], name='x_QuantizeLinear'),
      N('DequantizeLinear', ['x_QuantizeLinear_Output', 'x_scale', 'x_zero_point'], ['x_DequantizeLinear_Output'], name='x_DequantizeLinear'),
      N('DequantizeLinear', ['W1_quantized', 'W1_scale', 'W1_zero_point'], ['W1_DequantizeLinear_Output'], name='W1_DequantizeLinear'),
      N('DequantizeLinear', ['W2_quantized', 'W2_scale', 'W2_zero_point'], ['W2_DequantizeLinear_Output'], name='W2_DequantizeLinear'),
      N('MatMul', ['x_DequantizeLinear_Output', 'W1_DequantizeLinear_Output'], ['h1'], name='fc1'),
      N('Relu', ['h1'], ['r1'], name='relu1'),
      N('QuantizeLinear', ['r1', 'r1_scale', 'r1_zero_point'], ['r1_QuantizeLinear_Output'], name='r1_QuantizeLinear'),
      N('DequantizeLinear', ['r1_QuantizeLinear_Output', 'r1_scale', 'r1_zero_point'], ['r1_DequantizeLinear_Output'], name='r1_DequantizeLinear'),
      N('MatMul', ['r1_DequantizeLinear_Output', 'W2_DequantizeLinear_Output'], ['y_QuantizeLinear_Input'], name='fc2'),
      N('QuantizeLinear', ['y_QuantizeLinear_Input', 'y_scale', 'y_zero_point'], ['y_QuantizeLinear_Output'], name='y_QuantizeLinear'),
      N('DequantizeLinear', ['y_QuantizeLinear_Output', 'y_scale', 'y_zero_point'], ['y'], name='y_DequantizeLinear')],
     inits, 'qdq.onnx')
np.save('%1/x.npy', x)
rel = lambda a, b: float(np.linalg.norm(a.astype(np.float64) - b) / np.linalg.norm(b))
own1 = dq(q(x, xs, xz), xs, xz) @ dq(W1q, w1s, 0)
own2 = dq(q(dq(q(r1, rs, rz), rs, rz) @ dq(W2q, w2s, 0), ys, yz), ys, yz)
print('fc1', repr(rel(own1, h1)))
print('fc2', repr(rel(own2, y)))
)")
                                          .arg(m_work.path()));
        QVERIFY2(!out.startsWith(QStringLiteral("python")), qPrintable(out));
        for (const QString& line : out.split(QLatin1Char('\n')))
            m_ownRelL2[line.section(QLatin1Char(' '), 0, 0)] = line.section(QLatin1Char(' '), 1).toDouble();
        QCOMPARE(m_ownRelL2.size(), size_t(2));
        QVERIFY(m_ownRelL2.at(QStringLiteral("fc1")) > 5 * m_ownRelL2.at(QStringLiteral("fc2")));
    }

    void init()
    {
        QVERIFY(m_w.create());
        m_quant = new QuantErrorUi(m_w.window.get(), m_w.debugger->compare());
    }

    void cleanup()
    {
        m_w.destroy();
        m_quant = nullptr;
    }

    void rankedTableAgainstNumpy()
    {
        connect(m_w.window.get(), &MainWindow::modelOpened, this,
            [this] { m_w.debugger->inputs()->setFile(QStringLiteral("x"), path("x.npy")); });
        QVERIFY(compareWith(path("qdq.onnx")));
        QVERIFY2(m_w.errors.isEmpty(), qPrintable(m_w.errors.join(QLatin1Char('\n'))));
        QVERIFY(m_quant->action()->isEnabled());
        QSignalSpy finished(m_quant, &QuantErrorUi::finished);
        m_quant->action()->trigger();
        QVERIFY(finished.wait(30000));
        QVERIFY(m_quant->dialog()->isVisible());
        QuantErrorModel* model = m_quant->model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(model->layerAt(0)->node, std::string("fc1"));
        QCOMPARE(model->layerAt(0)->ownRank, 1);
        QCOMPARE(model->layerAt(0)->floatValue, std::string("h1"));
        QCOMPARE(model->layerAt(1)->floatValue, std::string("y"));
        for (int r = 0; r < 2; ++r) {
            const QuantLayer* l = model->layerAt(r);
            const double truth = m_ownRelL2.at(QString::fromStdString(l->node));
            QVERIFY2(std::abs(l->own.relativeL2 - truth) <= 1e-3 * truth,
                qPrintable(QStringLiteral("%1: %2 vs numpy %3")
                               .arg(QString::fromStdString(l->node))
                               .arg(l->own.relativeL2)
                               .arg(truth)));
        }
        // fc2 inherits fc1's damage in the quantized run only.
        QVERIFY(model->layerAt(1)->accumulated.relativeL2 > 5 * model->layerAt(1)->own.relativeL2);
        // A row selects the float node in the graph (once the graph's layout has finished, which on a loaded machine
        // may still be running: the selection then waits for it).
        m_quant->table()->setCurrentIndex(model->index(1, 0));
        QTRY_COMPARE_WITH_TIMEOUT(
            m_w.window->graphView()->selectedNode(), m_w.window->graphView()->currentGraph()->findNode("fc2"), 20000);
        QVERIFY(!m_w.window->graphView()->isLayoutRunning());
    }

    void cancelKeepsTheTable()
    {
        connect(m_w.window.get(), &MainWindow::modelOpened, this,
            [this] { m_w.debugger->inputs()->setFile(QStringLiteral("x"), path("x.npy")); });
        QVERIFY(compareWith(path("qdq.onnx")));
        QSignalSpy cancelled(m_quant, &QuantErrorUi::cancelled);
        QSignalSpy finished(m_quant, &QuantErrorUi::finished);
        QVERIFY(m_quant->run());
        QVERIFY(m_quant->isRunning());
        QVERIFY(!m_quant->action()->isEnabled());
        m_quant->cancel();
        QVERIFY(cancelled.wait(30000));
        QCOMPARE(finished.count(), 0);
        QCOMPARE(m_quant->model()->rowCount(), 0);
        QVERIFY(m_quant->action()->isEnabled());
        QVERIFY(m_w.errors.isEmpty());
        // Then a full run.
        QVERIFY(m_quant->run());
        QVERIFY(finished.wait(30000));
        QCOMPARE(m_quant->model()->rowCount(), 2);
    }

    void twoFloatModelsHaveNoTable()
    {
        QVERIFY(compareWith(path("float.onnx")));
        QVERIFY(!m_quant->action()->isEnabled());
        QVERIFY(!m_quant->run());
        QCOMPARE(m_w.errors.size(), 1);
        QVERIFY2(m_w.errors.front().contains(QStringLiteral("Neither model")), qPrintable(m_w.errors.front()));
    }
};

QTEST_MAIN(TestQuantErrorUi)
#include "test_quant_error_ui.moc"
