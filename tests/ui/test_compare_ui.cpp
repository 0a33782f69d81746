// SPDX-License-Identifier: MIT
// Debug › Compare… driven headless through the real MainWindow, DebuggerUi and CompareUi, on models written by
// python3-onnx at test time: a model against a copy with one perturbed initializer (first divergence, selection,
// colours, error columns, the diff view's worst indices checked against numpy), against itself, against a
// `onnxscope-cli run --dump-all` folder, against other inputs, with renamed tensors, a cancelled run and bad files.
#include "engine/compare/backend_case.h"
#include "engine/io/tensor_proto.h"
#include "engine/model/model.h"
#include "tests/common/run_python.h"
#include "tests/common/test_models.h"
#include "tests/common/test_settings.h"
#include "ui/common/compare_colours.h"
#include "ui/common/model_document.h"
#include "ui/common/settings.h"
#include "ui/compare/compare_dialog.h"
#include "ui/compare/compare_job.h"
#include "ui/compare/compare_model.h"
#include "ui/compare/compare_panel.h"
#include "ui/debugger/debug_controller.h"
#include "ui/debugger/debugger_panels.h"
#include "ui/debugger/values_model.h"
#include "ui/graphview/graph_canvas.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/compare_ui.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/extract_ui.h"
#include "ui/mainwindow/main_window.h"
#include "ui/tensorinspector/tensor_diff_view.h"
#include "ui/tensorinspector/tensor_inspector.h"
#include "ui/tensorinspector/tensor_plots.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace onnxscope;
using onnxscope::testing::kLongLoop;
using onnxscope::testing::runPython;

namespace {

bool reddish(const QColor& c)
{
    return c.red() > c.green() + 40;
}

} // namespace

class TestCompareUi : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_work;
    std::unique_ptr<MainWindow> m_window;
    DebuggerUi* m_ui = nullptr;
    QStringList m_errors;
    // From numpy: the perturbation W1[3, 4] += 0.5 changes column 4 of h = x @ W1 by 0.5 * x[:, 3].
    std::vector<int64_t> m_expectedWorst; // flat indices of h, largest |delta| first
    std::vector<double> m_expectedA; // (x @ W1)[i, 4] in float64, in the same order
    double m_expectedMaxAbs = 0;

    CompareUi* compare() const { return m_ui->compare(); }
    QString path(const char* name) const { return m_work.filePath(QString::fromLatin1(name)); }

    void openFile(const QString& file)
    {
        QSignalSpy opened(m_window.get(), &MainWindow::modelOpened);
        m_window->openModel(file);
        QVERIFY(opened.wait(20000));
        QVERIFY(QTest::qWaitFor([&] { return !m_window->graphView()->isLayoutRunning(); }, 20000));
    }

    void openMlp()
    {
        openFile(path("mlp.onnx"));
        m_ui->inputs()->setFile(QStringLiteral("x"), path("x.npy"));
        QVERIFY2(m_ui->inputs()->validate(), qPrintable(m_ui->inputs()->errorFor(QStringLiteral("x"))));
    }

    /// Opens Debug › Compare…, lets `fill` set the fields, accepts, and waits for the result.
    bool runDialog(const std::function<void(CompareDialog*)>& fill, bool expectFailure = false)
    {
        CompareDialog* dialog = compare()->openDialog();
        if (!dialog)
            return false;
        dialog->setTolerance(1e-4, 1e-5);
        dialog->setRecordInDebugger(false);
        dialog->setCompareInitializers(true);
        dialog->setByModule(false);
        fill(dialog);
        QSignalSpy shown(compare(), &CompareUi::comparisonShown);
        QSignalSpy failed(compare(), &CompareUi::comparisonFailed);
        dialog->accept();
        if (!QTest::qWaitFor([&] { return !shown.isEmpty() || !failed.isEmpty(); }, 60000))
            return false;
        if (!QTest::qWaitFor([&] { return !m_window->graphView()->isLayoutRunning(); }, 20000))
            return false;
        return expectFailure ? !failed.isEmpty() : !shown.isEmpty();
    }

    NodeItem* itemOf(const char* node) const
    {
        GraphView* view = m_window->graphView();
        const Graph* g = view->currentGraph();
        return g ? view->scene()->itemForNode(g->findNode(node)) : nullptr;
    }

    int rowOf(const std::string& name) const
    {
        const auto& rows = compare()->session()->result.rows;
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i].name == name && rows[i].status != CompareStatus::OnlyB)
                return static_cast<int>(i);
        return -1;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        QVERIFY(m_work.isValid());
        onnxscope::testing::useOwnSettings(m_settingsDir.path(), QStringLiteral("onnxscope-compare-tests"));
        qputenv("ONNXSCOPE_NO_DIALOGS", "1");
        // An MLP, the same with W1[3, 4] perturbed, the same with `hb` renamed, other inputs; numpy's expectations.
        const QString out = runPython(QStringLiteral(R"(
import numpy as np, onnx, onnx.parser
from onnx import helper, numpy_helper, TensorProto
rng = np.random.default_rng(3)
x = rng.standard_normal((4, 8)).astype(np.float32)
x2 = rng.standard_normal((4, 8)).astype(np.float32)
W1 = rng.standard_normal((8, 6)).astype(np.float32)
b1 = rng.standard_normal(6).astype(np.float32)
W2 = rng.standard_normal((6, 5)).astype(np.float32)
def model(w1, hb='hb'):
    nodes = [helper.make_node('MatMul', ['x', 'W1'], ['h'], name='fc1'),
             helper.make_node('Add', ['h', 'b1'], [hb], name='bias1'),
             helper.make_node('Relu', [hb], ['r'], name='relu1'),
             helper.make_node('MatMul', ['r', 'W2'], ['logits'], name='fc2'),
             helper.make_node('Softmax', ['logits'], ['probs'], name='softmax', axis=-1)]
    g = helper.make_graph(nodes, 'mlp', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info('probs', TensorProto.FLOAT, [4, 5])],
        [numpy_helper.from_array(w1, 'W1'), numpy_helper.from_array(b1, 'b1'), numpy_helper.from_array(W2, 'W2')])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
    onnx.checker.check_model(m)
    return m
W1p = W1.copy(); W1p[3, 4] += 0.5
onnx.save(model(W1), '%1/mlp.onnx')
onnx.save(model(W1p), '%1/mlp_perturbed.onnx')
onnx.save(model(W1, 'hb_renamed'), '%1/mlp_renamed.onnx')
np.save('%1/x.npy', x)
np.save('%1/x2.npy', x2)
np.savez('%1/inputs_b.npz', x=x2)
np.save('%1/x_bad.npy', x[:3])
# A Loop of 3 iterations whose iteration 2 takes an If branch adding a constant k; the copy changes only k.
loop = '''<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2] x) => (float[2] out, float[3, 2] trace) {
    trip = Constant <value = int64 {3}> ()
    cond = Constant <value = bool {1}> ()
    out, trace = Loop (trip, cond, x) <body = loop_body (int64 i, bool c, float[2] acc) => (bool c_out, float[2] acc_out, float[2] s) {
        c_out = Identity(c)
        two = Constant <value = int64 {2}> ()
        late = Equal(i, two)
        acc_out = If (late) <then_branch = then_g () => (float[2] t) { k = Constant <value = float[2] {K}> () t = Add(acc, k) }, else_branch = else_g () => (float[2] e) { e = Mul(acc, x) }>
        s = Identity(acc_out)
    }>
}'''
for name, k in (('loop', '1.0, 2.0'), ('loop_k', '1.0, 2.5')):
    onnx.save(onnx.parser.parse_model(loop.replace('K', k)), '%1/' + name + '.onnx')
np.save('%1/loop_x.npy', np.array([1.5, -2.0], np.float32))
# Weights as a Constant node, as PaddlePaddle exports them; the copy's are perturbed.
constw = '''<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2, 4] x) => (float[2, 3] y) {
    w = Constant <value = float[4, 3] {W}> ()
    y = MatMul(x, w)
}'''
for name, w in (('constw', rng.standard_normal(12)), ('constw_b', rng.standard_normal(12))):
    onnx.save(onnx.parser.parse_model(constw.replace('W', ', '.join(repr(float(v)) for v in w))), '%1/' + name + '.onnx')
delta = np.abs(x.astype(np.float64) @ W1p.astype(np.float64) - x.astype(np.float64) @ W1.astype(np.float64))
order = np.argsort(-delta.ravel(), kind='stable')[:4]
h = x.astype(np.float64) @ W1.astype(np.float64)
print(' '.join(str(int(i)) for i in order))
print(' '.join(repr(float(h.ravel()[i])) for i in order))
print(repr(float(delta.max())))
)")
                                          .arg(m_work.path()));
        QVERIFY2(!out.startsWith(QStringLiteral("python")), qPrintable(out));
        const QStringList lines = out.split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);
        for (const QString& s : lines[0].split(QLatin1Char(' ')))
            m_expectedWorst.push_back(s.toLongLong());
        for (const QString& s : lines[1].split(QLatin1Char(' ')))
            m_expectedA.push_back(s.toDouble());
        m_expectedMaxAbs = lines[2].toDouble();
        QCOMPARE(m_expectedWorst.size(), size_t(4));
        for (int64_t i : m_expectedWorst)
            QCOMPARE(i % 6, int64_t(4)); // column 4 of a 4 x 6 matrix
    }

    void init()
    {
        m_errors.clear();
        m_window = std::make_unique<MainWindow>();
        m_window->setErrorReporter([](const QString&, const QString&) {});
        m_ui = new DebuggerUi(m_window.get());
        compare()->setErrorReporter([this](const QString& title, const QString& message) {
            m_errors << title + QStringLiteral(": ") + message;
        });
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup()
    {
        m_window.reset();
        m_ui = nullptr;
    }

    void nameMappingText()
    {
        const auto map = parseNameMap(QStringLiteral("# renamed\na=b\nc d\n\ne,f  # trailing\n"));
        QCOMPARE(map.size(), size_t(3));
        QCOMPARE(map.at("a"), std::string("b"));
        QCOMPARE(map.at("c"), std::string("d"));
        QCOMPARE(map.at("e"), std::string("f"));
        QCOMPARE(parseNameMap(QStringLiteral(R"({"x": "y"})")).at("x"), std::string("y"));
        QVERIFY_THROWS_EXCEPTION(Error, parseNameMap(QStringLiteral("a=b\nlonely\n")));
        QVERIFY_THROWS_EXCEPTION(Error, parseNameMap(QStringLiteral(R"({"x": 3})")));
    }

    void worstDifferencesOfTwoTensors()
    {
        const Tensor a = Tensor::fromVector<float>({ 1, 2, 3, 4, NAN, 6 }, { 2, 3 });
        const Tensor b = Tensor::fromVector<double>({ 1, 2.5, 1, 4, 5, 6.25 }, { 2, 3 });
        const auto worst = worstDifferences(a, b, 3);
        QCOMPARE(worst.size(), size_t(3));
        QCOMPARE(worst[0].index, int64_t(4)); // NaN vs 5 ranks first
        QVERIFY(std::isinf(worst[0].absDiff));
        QCOMPARE(worst[1].index, int64_t(2));
        QCOMPARE(worst[1].absDiff, 2.0);
        QCOMPARE(worst[2].index, int64_t(1));
        QCOMPARE(worst[2].relDiff, 0.5 / 2.5);
        QVERIFY(worstDifferences(a, a, 5).empty()); // NaN against NaN is no difference
        QVERIFY_THROWS_EXCEPTION(Error, worstDifferences(a, Tensor::fromVector<float>({ 1 }, { 1 }), 1));
    }

    void dialogRefusesMissingFields()
    {
        openMlp();
        CompareDialog* dialog = compare()->openDialog();
        QVERIFY(dialog);
        dialog->setKind(CompareRequest::Kind::Model);
        dialog->setModelPath({});
        QVERIFY(!dialog->validate());
        QVERIFY(dialog->errorText().contains(QStringLiteral("model")));
        dialog->setModelPath(path("mlp_perturbed.onnx"));
        dialog->setNameMapText(QStringLiteral("only_one_name"));
        QVERIFY(!dialog->validate());
        QVERIFY(dialog->errorText().contains(QStringLiteral("line 1")));
        dialog->setNameMapText({});
        dialog->setTolerance(-1, 0);
        QVERIFY(!dialog->validate());
        dialog->setTolerance(1e-3, 0);
        QVERIFY(dialog->validate());
        dialog->reject();
    }

    void perturbedInitializerDivergesAtItsConsumer()
    {
        openMlp();
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("mlp_perturbed.onnx"));
            d->setRecordInDebugger(true);
        }));
        QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join(QLatin1Char('\n'))));
        const CompareSessionPtr session = compare()->session();
        QVERIFY(session);
        const ComparisonResult& r = session->result;
        QVERIFY(r.firstDivergence.has_value());
        QCOMPARE(r.nodes[*r.firstDivergence].node, std::string("fc1"));

        // The first divergent node is selected in the graph, tagged, and red; later nodes are coloured too.
        QTRY_COMPARE(m_ui->selectedNodeName(), QStringLiteral("fc1"));
        NodeItem* fc1 = itemOf("fc1");
        QVERIFY(fc1);
        QVERIFY(fc1->isSelected());
        QVERIFY(fc1->compareMark().firstDivergence);
        QVERIFY2(reddish(fc1->compareMark().colour), qPrintable(fc1->compareMark().colour.name()));
        QVERIFY(fc1->toolTip().contains(QStringLiteral("First divergence")));
        QVERIFY(fc1->toolTip().contains(QStringLiteral("\u201cW1\u201d differs")));
        for (const char* node : { "bias1", "relu1", "fc2", "softmax" }) {
            NodeItem* item = itemOf(node);
            QVERIFY2(item && item->hasCompareMark(), node);
            QVERIFY2(!item->compareMark().firstDivergence, node);
        }
        QVERIFY(m_window->graphView()->canvas()->viewport()->rect().intersects(
            m_window->graphView()->canvas()->mapFromScene(fc1->sceneBoundingRect()).boundingRect()));
        QVERIFY(compare()->legend()->isVisible());

        // The Compare Results table: every value, in execution order, with the error columns.
        ComparePanel* panel = compare()->panel();
        QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel->model()->rowCount(), static_cast<int>(r.rows.size()));
        const int h = rowOf("h");
        QVERIFY(h >= 0);
        QCOMPARE(panel->currentRow(), h); // the first divergence's output is the current row
        QCOMPARE(
            panel->model()->index(h, CompareRowsModel::StatusColumn).data().toString(), QStringLiteral("mismatch"));
        const double maxAbs
            = panel->model()->index(h, CompareRowsModel::MaxAbsColumn).data(CompareRowsModel::SortRole).toDouble();
        QVERIFY2(
            std::abs(maxAbs - m_expectedMaxAbs) <= 1e-5 * m_expectedMaxAbs + 1e-6, qPrintable(QString::number(maxAbs)));
        QCOMPARE(
            panel->model()->index(h, CompareRowsModel::MismatchesColumn).data().toString(), QStringLiteral("4 / 24"));
        const int w1 = rowOf("W1");
        QVERIFY(w1 >= 0);
        QCOMPARE(panel->model()->index(w1, CompareRowsModel::OrderColumn).data().toString(), QStringLiteral("init"));
        QVERIFY(panel->summaryLabel()->text().contains(QStringLiteral("fc1")));
        panel->showBox()->setCurrentIndex(static_cast<int>(CompareFilterModel::Show::Roots));
        QCOMPARE(panel->proxy()->rowCount(), 1);
        panel->showBox()->setCurrentIndex(static_cast<int>(CompareFilterModel::Show::All));
        panel->view()->sortByColumn(CompareRowsModel::MaxAbsColumn, Qt::DescendingOrder);
        for (int i = 0; i + 1 < panel->proxy()->rowCount(); ++i)
            QVERIFY(panel->proxy()->index(i, CompareRowsModel::MaxAbsColumn).data(CompareRowsModel::SortRole).toDouble()
                >= panel->proxy()
                       ->index(i + 1, CompareRowsModel::MaxAbsColumn)
                       .data(CompareRowsModel::SortRole)
                       .toDouble());
        panel->view()->sortByColumn(CompareRowsModel::OrderColumn, Qt::AscendingOrder);
        QCOMPARE(panel->proxy()->index(0, 0).data(CompareRowsModel::RowIndexRole).toInt(), 0);

        // The Values dock (the debugger ran side A afterwards) gains the error columns.
        QTRY_COMPARE_WITH_TIMEOUT(m_ui->controller()->state(), DebuggerState::Finished, 20000);
        // The Tensor Inspector follows the selection, the first divergence, and not the run's last value.
        QTRY_VERIFY2(m_ui->inspector()->title().startsWith(QStringLiteral("h "))
                || m_ui->inspector()->title() == QStringLiteral("h"),
            qPrintable(m_ui->inspector()->title()));
        // Pinned, it keeps its tensor while the selection moves.
        m_ui->inspector()->pinButton()->click();
        QVERIFY(m_ui->inspector()->isPinned());
        const QString pinnedTitle = m_ui->inspector()->title();
        {
            const Graph& g = m_window->document()->model()->graph();
            m_window->graphView()->centerOnNode(&g, g.findNode("softmax"), true);
            QTRY_COMPARE(m_window->graphView()->selectedNode(), g.findNode("softmax"));
            QCoreApplication::sendPostedEvents(); // every queued reaction to the new selection has run
            QCoreApplication::processEvents();
            QCOMPARE(m_ui->inspector()->title(), pinnedTitle);
            m_ui->inspector()->pinButton()->click();
            m_window->graphView()->centerOnNode(&g, g.findNode("fc1"), true);
            QTRY_VERIFY(m_ui->inspector()->title().startsWith(QStringLiteral("h")));
        }
        ValuesModel* values = m_ui->values()->model();
        QAbstractItemModelTester valuesTester(values, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(values->columnCount(), static_cast<int>(ValuesModel::ColumnCount));
        const int vh = values->rowOf("h");
        QVERIFY(vh >= 0);
        QCOMPARE(values->index(vh, ValuesModel::CompareStatusColumn).data().toString(), QStringLiteral("mismatch"));
        QCOMPARE(values->index(vh, ValuesModel::MaxAbsErrorColumn).data(ValuesModel::SortRole).toDouble(), maxAbs);
        QCOMPARE(values->index(vh, 0).data(ValuesModel::CompareRowRole).toInt(), h);
        QCOMPARE(values->headerData(ValuesModel::CosineColumn, Qt::Horizontal).toString(), QStringLiteral("Cosine"));

        // The diff view on h: both sides, |A - B| as a heatmap, and the worst indices numpy predicts.
        QSignalSpy diffShown(compare(), &CompareUi::diffShown);
        panel->selectRow(h);
        panel->diffButton()->click();
        QVERIFY(diffShown.wait(20000));
        TensorInspector* inspector = m_ui->inspector();
        QCOMPARE(inspector->tabs()->currentIndex(), static_cast<int>(TensorInspector::DiffTab));
        TensorDiffView* diff = inspector->diffView();
        QTRY_VERIFY(diff->isReady());
        QCOMPARE(diff->tensorA().shape(), (Shape { 4, 6 }));
        QCOMPARE(diff->tensorB().shape(), (Shape { 4, 6 }));
        const auto& worst = diff->worst();
        QCOMPARE(worst.size(), size_t(4)); // only column 4 differs
        for (size_t i = 0; i < 4; ++i) {
            QCOMPARE(worst[i].index, m_expectedWorst[i]);
            QVERIFY2(std::abs(worst[i].a - m_expectedA[i]) <= 1e-4 * (1 + std::abs(m_expectedA[i])),
                qPrintable(QString::number(worst[i].a)));
        }
        QCOMPARE(diff->worstTable()->rowCount(), 4);
        QCOMPARE(diff->worstTable()->item(0, 0)->text(), QStringLiteral("[%1, 4]").arg(m_expectedWorst[0] / 6));
        QVERIFY(!diff->heatmap()->image().isNull());
        QCOMPARE(diff->heatmap()->image().size(), QSize(6, 4));
        QCOMPARE(diff->tableA()->currentIndex().row(),
            static_cast<int>(m_expectedWorst[0] / 6)); // opened on the worst element
        QCOMPARE(diff->tableA()->currentIndex().column(), 4);
        QVERIFY(diff->summaryText().contains(QStringLiteral("mismatch")));
        // The diff view's tables and plots never make the window demand more than the screen.
        const QRect available = m_window->screen()->availableGeometry();
        QVERIFY2(m_window->minimumSizeHint().width() <= available.width()
                && m_window->minimumSizeHint().height() <= available.height(),
            qPrintable(QStringLiteral("%1 × %2")
                           .arg(m_window->minimumSizeHint().width())
                           .arg(m_window->minimumSizeHint().height())));

        // From the Values dock: the context menu's Diff opens the pair of the chosen value.
        const int vlogits = values->rowOf("logits");
        m_ui->values()->selectValue(vlogits);
        QTRY_VERIFY(m_ui->values()->view()->currentIndex().isValid());
        diffShown.clear();
        compare()->diffValueAction()->trigger();
        QVERIFY(diffShown.wait(20000));
        QCOMPARE(diffShown.last().at(0).toInt(), rowOf("logits"));
        QTRY_VERIFY(diff->isReady());
        QCOMPARE(diff->tensorA().shape(), (Shape { 4, 5 }));

        // Double-click (activated) on a row goes to its node.
        emit panel->rowActivated(rowOf("probs"));
        QTRY_COMPARE(m_ui->selectedNodeName(), QStringLiteral("softmax"));

        // Clear: back to normal colouring, the Values dock loses its error columns, the status no longer speaks of a
        // diff.
        QVERIFY(m_ui->statusLabel()->text().startsWith(QStringLiteral("Diff of")));
        compare()->clearAction()->trigger();
        QVERIFY2(
            !m_ui->statusLabel()->text().contains(QStringLiteral("Diff of")), qPrintable(m_ui->statusLabel()->text()));
        QVERIFY(!compare()->session());
        for (NodeItem* item : m_window->graphView()->scene()->nodeItems())
            QVERIFY(!item->hasCompareMark());
        QCOMPARE(values->columnCount(), static_cast<int>(ValuesModel::BaseColumnCount));
        QVERIFY(!compare()->legend()->isVisible());
        QCOMPARE(panel->model()->rowCount(), 0);
    }

    void extractFirstDivergence()
    {
        // Compare Results › Extract First Divergence…: fc1 of both sides (W1 against the perturbed W1), fed the same
        // x; each folder passes as a backend case, and their outputs differ by numpy's largest change of x @ W1.
        auto* extract = new ExtractUi(m_window.get(), m_ui->inputs(), compare());
        QStringList reported;
        m_window->setErrorReporter(
            [&](const QString& title, const QString& message) { reported << title + QStringLiteral(": ") + message; });
        QVERIFY(extract->divergenceAction());
        QVERIFY(compare()->panel()->view()->actions().contains(extract->divergenceAction()));
        QVERIFY(!extract->divergenceAction()->isEnabled());
        openMlp();
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("mlp_perturbed.onnx"));
        }));
        QVERIFY(extract->divergenceAction()->isEnabled());
        QTemporaryDir work;
        const QString folder = work.filePath(QStringLiteral("div"));
        QSignalSpy done(extract, &ExtractUi::finished);
        QSignalSpy failed(extract, &ExtractUi::failed);
        QVERIFY(extract->extractDivergence(compare()->session(), folder));
        QVERIFY(QTest::qWaitFor([&] { return done.count() + failed.count() > 0; }, 30000));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
        QVERIFY(done.front().at(1).toString().contains(QStringLiteral("fc1")));
        for (const char* side : { "a", "b" }) {
            const BackendCaseResult result
                = runBackendCase((folder + QLatin1Char('/') + QLatin1String(side)).toStdString());
            QVERIFY2(result.status == BackendCaseResult::Status::Passed, result.message.c_str());
        }
        const std::string dir = folder.toStdString();
        const Tensor xa = readTensorProtoFile(dir + "/a/test_data_set_0/input_0.pb");
        const Tensor xb = readTensorProtoFile(dir + "/b/test_data_set_0/input_0.pb");
        QCOMPARE(xa.shape(), xb.shape());
        QVERIFY(std::equal(xa.data<float>().begin(), xa.data<float>().end(), xb.data<float>().begin()));
        const Tensor ha = readTensorProtoFile(dir + "/a/test_data_set_0/output_0.pb");
        const Tensor hb = readTensorProtoFile(dir + "/b/test_data_set_0/output_0.pb");
        double maxAbs = 0;
        for (size_t i = 0; i < ha.data<float>().size(); ++i)
            maxAbs = std::max(maxAbs, std::abs(double(ha.data<float>()[i]) - double(hb.data<float>()[i])));
        QVERIFY2(std::abs(maxAbs - m_expectedMaxAbs) <= 1e-5 + 1e-4 * m_expectedMaxAbs,
            qPrintable(QStringLiteral("%1 against numpy's %2").arg(maxAbs).arg(m_expectedMaxAbs)));
        QVERIFY(QFile::exists(folder + QStringLiteral("/README.txt")));

        // The same folder again is refused; a comparison without a divergence disables the action and writes nothing.
        QVERIFY(!extract->extractDivergence(compare()->session(), folder));
        QVERIFY2(reported.size() == 1 && reported.front().contains(QStringLiteral("not empty")),
            qPrintable(reported.join(QLatin1Char('\n'))));
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("mlp.onnx"));
        }));
        QVERIFY(!extract->divergenceAction()->isEnabled());
        QVERIFY(!extract->extractDivergence(compare()->session(), work.filePath(QStringLiteral("none"))));
        QVERIFY(reported.back().contains(QStringLiteral("No node diverged")));
        QVERIFY(!QDir(work.filePath(QStringLiteral("none"))).exists());
    }

    void modelAgainstItselfMatchesEverywhere()
    {
        openMlp();
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("mlp.onnx"));
        }));
        const ComparisonResult& r = compare()->session()->result;
        QVERIFY(r.allMatch());
        QVERIFY(!r.firstDivergence);
        int marked = 0;
        for (NodeItem* item : m_window->graphView()->scene()->nodeItems()) {
            if (!item->hasCompareMark())
                continue;
            ++marked;
            QVERIFY2(!reddish(item->compareMark().colour), qPrintable(item->viewItem().title));
            QCOMPARE(item->compareMark().colour, CompareColours::gradient(0));
            QVERIFY(
                !item->compareMark().firstDivergence && !item->compareMark().root && !item->compareMark().unmatched);
        }
        QCOMPARE(marked, 5 + 1); // five nodes and the input x
        QVERIFY(compare()->panel()->summaryLabel()->text().contains(QStringLiteral("No divergence")));
        compare()->panel()->showBox()->setCurrentIndex(static_cast<int>(CompareFilterModel::Show::Divergent));
        QCOMPARE(compare()->panel()->proxy()->rowCount(), 0);
    }

    void referenceFolderFromRunDumpAllMatches()
    {
        const QString dump = path("dump");
        QProcess cli;
        cli.start(QStringLiteral(ONNXSCOPE_CLI),
            { QStringLiteral("run"), path("mlp.onnx"), QStringLiteral("--input"), QStringLiteral("x=") + path("x.npy"),
                QStringLiteral("--dump-all"), QStringLiteral("--output-dir"), dump, QStringLiteral("--quiet") });
        QVERIFY(cli.waitForFinished(60000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        QVERIFY(QFileInfo::exists(dump + QStringLiteral("/manifest.json")));
        openMlp();
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Reference);
            d->setReferencePath(dump);
        }));
        const ComparisonResult& r = compare()->session()->result;
        QVERIFY(!r.hasDivergence());
        QCOMPARE(r.count(CompareStatus::Mismatch), size_t(0));
        QCOMPARE(r.count(CompareStatus::OnlyB), size_t(0));
        for (const char* value : { "h", "hb", "r", "logits", "probs" })
            QCOMPARE(r.rows[static_cast<size_t>(rowOf(value))].status, CompareStatus::Match);
        QVERIFY(compare()->session()->descriptionB.contains(QStringLiteral("dump")));
        // A reference pair opens in the diff view too (read back from the folder).
        QSignalSpy diffShown(compare(), &CompareUi::diffShown);
        compare()->openDiff(rowOf("probs"));
        QVERIFY(diffShown.wait(20000));
        QTRY_VERIFY(m_ui->inspector()->diffView()->isReady());
        // The CLI may sum in another order (threads): equal within the tolerance, not necessarily bit for bit.
        TensorDiffView* diff = m_ui->inspector()->diffView();
        QCOMPARE(diff->comparison()->status, CompareStatus::Match);
        for (const ElementDifference& d : diff->worst())
            QVERIFY(d.absDiff <= 1e-5 + 1e-4 * std::abs(d.b));
    }

    void otherInputsDivergeAtTheFirstConsumer()
    {
        openMlp();
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::OtherInputs);
            d->setRandomInputs(false);
            d->setInputFile(QStringLiteral("x"), path("x2.npy"));
        }));
        const ComparisonResult& r = compare()->session()->result;
        QVERIFY(r.firstDivergence.has_value());
        QCOMPARE(r.nodes[*r.firstDivergence].node, std::string("fc1"));
        QCOMPARE(r.differingSources.size(), size_t(1));
        QCOMPARE(r.rows[r.differingSources.front()].name, std::string("x"));
        QTRY_COMPARE(m_ui->selectedNodeName(), QStringLiteral("fc1"));
        // The input terminal is coloured by its difference.
        bool inputMarked = false;
        for (NodeItem* item : m_window->graphView()->scene()->nodeItems())
            if (item->viewItem().kind == ViewItem::Kind::Input)
                inputMarked = item->hasCompareMark() && reddish(item->compareMark().colour);
        QVERIFY(inputMarked);

        // Random inputs with a seed (the Inputs dock's generator) diverge the same way; an .npz for side B too.
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::OtherInputs);
            d->setRandomInputs(true, 42);
        }));
        QCOMPARE(
            compare()->session()->result.nodes[*compare()->session()->result.firstDivergence].node, std::string("fc1"));
        QVERIFY(compare()->session()->descriptionB.contains(QStringLiteral("seed 42")));
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::OtherInputs);
            d->setRandomInputs(false);
            d->setInputFile(QString(), path("inputs_b.npz"));
        }));
        QCOMPARE(compare()->session()->result.rows[compare()->session()->result.differingSources.front()].name,
            std::string("x"));
    }

    void renamedValuesAreListedUnlessMapped()
    {
        openMlp();
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("mlp_renamed.onnx"));
            d->setNameMapText({});
            d->setAlignMode(AlignMode::Names);
        }));
        const ComparisonResult& r = compare()->session()->result;
        QCOMPARE(r.rows[static_cast<size_t>(rowOf("hb"))].status, CompareStatus::OnlyA);
        bool onlyB = false;
        for (const auto& row : r.rows)
            onlyB = onlyB || (row.name == "hb_renamed" && row.status == CompareStatus::OnlyB);
        QVERIFY(onlyB);
        // Listed, not hidden: the "one side only" filter shows both; the producer of the unmatched value is hatched.
        ComparePanel* panel = compare()->panel();
        panel->showBox()->setCurrentIndex(static_cast<int>(CompareFilterModel::Show::Unmatched));
        QCOMPARE(panel->proxy()->rowCount(), 2);
        NodeItem* bias = itemOf("bias1");
        QVERIFY(bias && bias->compareMark().unmatched);
        QCOMPARE(bias->compareMark().colour, CompareColours::unmatched());
        // Going to a value only side B has says so instead of selecting something else.
        for (size_t i = 0; i < r.rows.size(); ++i)
            if (r.rows[i].status == CompareStatus::OnlyB)
                compare()->goToRow(static_cast<int>(i));

        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("mlp_renamed.onnx"));
            d->setNameMapText(QStringLiteral("hb=hb_renamed"));
        }));
        const ComparisonResult& mapped = compare()->session()->result;
        QVERIFY(mapped.allMatch());
        QCOMPARE(compare()->panel()->model()->index(rowOf("hb"), CompareRowsModel::ValueColumn).data().toString(),
            QStringLiteral("hb \u2192 hb_renamed"));
        QVERIFY(!itemOf("bias1")->compareMark().unmatched);

        // Without a map, pairing by name then content (the default) finds hb's counterpart by what it holds; the
        // counterpart column and the tooltip on the graph name side B's node, and side B's graph is shown coloured.
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("mlp_renamed.onnx"));
            d->setNameMapText({});
            d->setAlignMode(AlignMode::Auto);
        }));
        const ComparisonResult& aligned = compare()->session()->result;
        QCOMPARE(aligned.align, AlignMode::Auto);
        QVERIFY(aligned.allMatch());
        const CompareRow& hb = aligned.rows[static_cast<size_t>(rowOf("hb"))];
        QCOMPARE(hb.nameB, std::string("hb_renamed"));
        QCOMPARE(hb.pairedBy, PairedBy::Content);
        const QString counterpart
            = compare()->panel()->model()->index(rowOf("hb"), CompareRowsModel::CounterpartColumn).data().toString();
        QVERIFY2(
            counterpart.contains(QString::fromStdString(hb.nodeB)) && counterpart.contains(QStringLiteral("content")),
            qPrintable(counterpart));
        QVERIFY(!itemOf("bias1")->compareMark().unmatched);
        QVERIFY2(
            itemOf("bias1")->toolTip().contains(QStringLiteral("hb_renamed")), qPrintable(itemOf("bias1")->toolTip()));
        QVERIFY(compare()->graphBDock()->isVisible());
        GraphView* viewB = compare()->graphBView();
        QTRY_VERIFY(viewB->scene()->itemForNode(hb.nodeIdB) != nullptr);
        QTRY_VERIFY(viewB->scene()->itemForNode(hb.nodeIdB)->hasCompareMark());
        NodeItem* boxB = viewB->scene()->itemForNode(hb.nodeIdB);
        QVERIFY(!boxB->compareMark().unmatched);
        QVERIFY2(boxB->toolTip().contains(QStringLiteral("Counterpart on side A")), qPrintable(boxB->toolTip()));
        compare()->clear();
        QVERIFY(!compare()->graphBDock()->isVisible());
    }

    void sideBGraphOpensWithRoomToRead()
    {
        // The Side B Graph dock joins the column of the Inspector; it opened as a strip of 80 px showing part of one
        // box. It gets half the column, and keeps what the user gives it on the next comparison.
        openMlp();
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("mlp_perturbed.onnx"));
        }));
        QDockWidget* dock = compare()->graphBDock();
        QVERIFY(dock->isVisible());
        QCOMPARE(m_window->dockWidgetArea(dock), Qt::RightDockWidgetArea);
        // The column is the Inspector's group of tabs and this dock.
        const auto column = [&] { return dock->height() + m_window->inspectorDock()->height(); };
        QTRY_VERIFY2(dock->height() >= column() * 9 / 20,
            qPrintable(QStringLiteral("%1 of %2 px").arg(dock->height()).arg(column())));
        QVERIFY(m_window->inspectorDock()->height() >= column() / 3); // the Inspector keeps room too
        m_window->resizeDocks(
            { m_window->inspectorDock(), dock }, { column() / 3, column() * 2 / 3 }, Qt::Vertical); // the user's
        QTRY_VERIFY(dock->height() > column() * 3 / 5);
        const int chosen = dock->height();
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("mlp_perturbed.onnx"));
        }));
        QCoreApplication::sendPostedEvents(); // every queued layout request after the dialog has run
        QCoreApplication::processEvents();
        QCOMPARE(dock->height(), chosen);
    }

    void sideBGraphShowsTheShapesOfConstantWeights()
    {
        // Side B's graph had no document: a weight made by a Constant node (PaddlePaddle's way) read "B ⟨?⟩" there,
        // "B ⟨4×3⟩" on side A.
        openFile(path("constw.onnx"));
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("constw_b.onnx"));
        }));
        const auto rowsOfMatMul = [](GraphView* view) {
            for (NodeItem* item : view->scene()->nodeItems())
                if (item->viewItem().title == QStringLiteral("MatMul"))
                    return item->viewItem().rows.join(QStringLiteral(" | "));
            return QStringLiteral("no MatMul");
        };
        const QString expected = QStringLiteral("B \u27e84\u00d73\u27e9");
        QCOMPARE(rowsOfMatMul(m_window->graphView()), expected);
        GraphView* viewB = compare()->graphBView();
        QTRY_VERIFY(!viewB->isLayoutRunning() && viewB->currentGraph());
        QCOMPARE(rowsOfMatMul(viewB), expected);
    }

    void subgraphValuesComparePerIteration()
    {
        openFile(path("loop.onnx"));
        m_ui->inputs()->setFile(QStringLiteral("x"), path("loop_x.npy"));
        QVERIFY(m_ui->inputs()->validate());
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("loop_k.onnx"));
        }));
        const ComparisonResult& r = compare()->session()->result;
        QVERIFY(r.firstDivergence.has_value());
        const NodeCompare& first = r.nodes[*r.firstDivergence];
        QCOMPARE(first.opType, std::string("Constant")); // k, the only change, in the then branch of iteration 2
        QCOMPARE(first.iteration, int64_t(2));
        QVERIFY(QString::fromStdString(first.framePath).contains(QStringLiteral("iteration 2")));
        // The graph view opened the branch and selected the node.
        QTRY_VERIFY(m_window->graphView()->currentGraph() == first.graph);
        QTRY_VERIFY(m_window->graphView()->scene()->selectedNode()
            == m_window->graphView()->scene()->itemForNode(first.nodeId));
        // k is folded into its consumer t = Add(acc, k): that box carries the tag and says why.
        NodeItem* box = m_window->graphView()->scene()->itemForNode(first.nodeId);
        QCOMPARE(first.graph->node(box->viewItem().node).opType, std::string("Add"));
        QVERIFY(box->compareMark().firstDivergence);
        QVERIFY(reddish(box->compareMark().colour));
        QVERIFY2(box->toolTip().contains(QStringLiteral("it is the first divergence")), qPrintable(box->toolTip()));
        // Selecting the box did not move the table off the first divergence's own row.
        QCOMPARE(compare()->panel()->currentRow(), static_cast<int>(first.rows.front()));
        // Iterations 0 and 1 of the body match, iteration 2 does not: one row per iteration, with frame and iteration.
        ComparePanel* panel = compare()->panel();
        QVERIFY(!panel->view()->isColumnHidden(CompareRowsModel::FrameColumn));
        int matchedS = 0, divergedS = 0;
        for (int row = 0; row < panel->model()->rowCount(); ++row) {
            const CompareRow* cr = panel->model()->rowAt(row);
            if (cr->name != "s")
                continue;
            const QString iteration = panel->model()->index(row, CompareRowsModel::IterationColumn).data().toString();
            if (cr->status == CompareStatus::Match) {
                ++matchedS;
                QVERIFY(iteration == QStringLiteral("0") || iteration == QStringLiteral("1"));
            } else {
                ++divergedS;
                QCOMPARE(iteration, QStringLiteral("2"));
            }
        }
        QCOMPARE(matchedS, 2);
        QCOMPARE(divergedS, 1);
        // A diff inside an iteration re-runs both sides to that frame.
        QSignalSpy diffShown(compare(), &CompareUi::diffShown);
        compare()->openDiff(static_cast<int>(first.rows.front()));
        QVERIFY(diffShown.wait(20000));
        QTRY_VERIFY(m_ui->inspector()->diffView()->isReady());
        QCOMPARE(m_ui->inspector()->diffView()->worst().size(), size_t(1)); // only k[1] changed
        QCOMPARE(m_ui->inspector()->diffView()->worst().front().index, int64_t(1));
        QCOMPARE(m_ui->inspector()->diffView()->worst().front().absDiff, 0.5);

        // Opening another model clears the comparison.
        openMlp();
        QVERIFY(!compare()->session());
        for (NodeItem* item : m_window->graphView()->scene()->nodeItems())
            QVERIFY(!item->hasCompareMark());
    }

    void errorsShowAMessageAndTheWindowKeepsWorking()
    {
        openMlp();
        QVERIFY(runDialog(
            [&](CompareDialog* d) {
                d->setKind(CompareRequest::Kind::Reference);
                d->setReferencePath(path("does_not_exist.npz"));
            },
            true));
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.first().contains(QStringLiteral("does_not_exist.npz")), qPrintable(m_errors.first()));
        QVERIFY(!compare()->session());
        QVERIFY(compare()->compareAction()->isEnabled());

        // A model B whose input is missing from side A and given no file, and does not fit side A's input at the same
        // position (another shape): a message naming it.
        m_errors.clear();
        const QString other = path("other_input.onnx");
        const QString made = runPython(QStringLiteral(R"(
import onnx
from onnx import helper, TensorProto
n = helper.make_node('Relu', ['y'], ['z'])
g = helper.make_graph([n], 'g', [helper.make_tensor_value_info('y', TensorProto.FLOAT, [5, 8])], [helper.make_tensor_value_info('z', TensorProto.FLOAT, [5, 8])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]), '%1')
print('ok')
)")
                                           .arg(other));
        QCOMPARE(made, QStringLiteral("ok"));
        QVERIFY(runDialog(
            [&](CompareDialog* d) {
                d->setKind(CompareRequest::Kind::Model);
                d->setModelPath(other);
            },
            true));
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.first().contains(QStringLiteral("\"y\"")), qPrintable(m_errors.first()));

        // A missing input file for side B.
        m_errors.clear();
        QVERIFY(runDialog(
            [&](CompareDialog* d) {
                d->setKind(CompareRequest::Kind::OtherInputs);
                d->setRandomInputs(false);
                d->setInputFile(QStringLiteral("x"), path("missing.npy"));
            },
            true));
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.first().contains(QStringLiteral("missing.npy")), qPrintable(m_errors.first()));

        // An input of the wrong shape for side B: side B stops at once; the message says so and the rows stay listed.
        m_errors.clear();
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::OtherInputs);
            d->setRandomInputs(false);
            d->setInputFile(QStringLiteral("x"), path("x_bad.npy"));
        }));
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.first().contains(QStringLiteral("Side B")), qPrintable(m_errors.first()));
        QVERIFY(!compare()->session()->result.errorB.empty());
        QVERIFY(compare()->panel()->summaryLabel()->text().contains(QStringLiteral("Side B stopped")));
        QCOMPARE(compare()->panel()->model()->rowCount(), static_cast<int>(compare()->session()->result.rows.size()));

        // The window still works: the debugger runs, and a good comparison follows.
        QSignalSpy stopped(m_ui->controller(), &DebugController::stopped);
        m_ui->continueAction()->trigger();
        QVERIFY(stopped.wait(20000));
        QCOMPARE(m_ui->controller()->state(), DebuggerState::Finished);
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Model);
            d->setModelPath(path("mlp_perturbed.onnx"));
        }));
        QVERIFY(compare()->session()->result.firstDivergence.has_value());
    }

    void aLongComparisonCanBeCancelled()
    {
        QSignalSpy opened(m_window.get(), &MainWindow::modelOpened);
        m_window->document()->setModel(Model::fromText(kLongLoop), m_work.filePath(QStringLiteral("long.onnx")));
        QVERIFY(opened.count() == 1 || opened.wait(5000));
        QVERIFY(QTest::qWaitFor([&] { return !m_window->graphView()->isLayoutRunning(); }, 10000));
        QSignalSpy progress(compare()->controller(), &CompareController::progress);
        QSignalSpy shown(compare(), &CompareUi::comparisonShown);
        CompareDialog* dialog = compare()->openDialog();
        QVERIFY(dialog);
        dialog->setKind(CompareRequest::Kind::OtherInputs);
        dialog->setRandomInputs(true, 3);
        dialog->setRecordInDebugger(false);
        dialog->accept();
        QVERIFY(compare()->controller()->isRunning());
        QVERIFY(!compare()->compareAction()->isEnabled());
        QVERIFY(compare()->cancelAction()->isEnabled());
        QVERIFY(progress.wait(20000));
        compare()->panel()->cancelButton()->click();
        QVERIFY(shown.wait(20000));
        QVERIFY(compare()->session()->result.cancelled);
        QVERIFY(compare()->panel()->summaryLabel()->text().contains(QStringLiteral("Cancelled")));
        QVERIFY(compare()->compareAction()->isEnabled());
    }

    // Issue #44 part 2: reference values by PyTorch module, on the committed dynamo export of a small module tree and
    // the outputs onnxscope.torch.capture recorded in torch (tests/models/torch/make_module_tree.py).
    void referenceByModuleNamesThePerturbedModule()
    {
        const QString models = QStringLiteral(ONNXSCOPE_SOURCE_DIR "/tests/models/torch/");
        const QString x = path("tree_x.npy");
        QCOMPARE(runPython(QStringLiteral("import numpy as np\nnp.save('%1', np.load('%2')['x'])\nprint('ok')")
                               .arg(x, models + QStringLiteral("module_tree_input.npz"))),
            QStringLiteral("ok"));
        openFile(models + QStringLiteral("module_tree_dynamo.onnx"));
        m_ui->inputs()->setFile(QStringLiteral("x"), x);
        QVERIFY(m_ui->inputs()->validate());

        // torch's own capture: every module output matches.
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Reference);
            d->setReferencePath(models + QStringLiteral("module_tree_capture.npz"));
            d->setByModule(true);
        }));
        QVERIFY(Settings::instance().compareFields().byModule);
        CompareSessionPtr s = compare()->session();
        QVERIFY(s->modules);
        QVERIFY(!s->result.hasDivergence());
        QCOMPARE(s->result.rows.size(), size_t(16));
        QCOMPARE(s->result.count(CompareStatus::Match), size_t(16));
        QVERIFY(compare()->panel()->summaryLabel()->text().contains(QStringLiteral("No divergence")));

        // One module's output perturbed: the summary names the module, the first divergence is its output's node.
        QVERIFY(runDialog([&](CompareDialog* d) {
            d->setKind(CompareRequest::Kind::Reference);
            d->setReferencePath(models + QStringLiteral("module_tree_perturbed.npz"));
            d->setByModule(true);
        }));
        s = compare()->session();
        QVERIFY(s->modules && s->modules->firstDivergence && s->result.firstDivergence);
        QCOMPARE(QString::fromStdString(s->modules->modules[*s->modules->firstDivergence].path),
            QStringLiteral("blocks.1.fc"));
        QCOMPARE(
            QString::fromStdString(s->result.nodes[*s->result.firstDivergence].node), QStringLiteral("node_linear_1"));
        const QString summary = compare()->panel()->summaryLabel()->text();
        QVERIFY2(
            summary.contains(QStringLiteral("First divergent module:</span> <b>blocks.1.fc</b>")), qPrintable(summary));
        QCOMPARE(s->result.count(CompareStatus::Mismatch), size_t(1));
        // Its pair opens in the diff view: the run's value against the archive's key.
        const int row = rowOf("linear_1");
        QVERIFY(row >= 0);
        QCOMPARE(QString::fromStdString(s->result.rows[static_cast<size_t>(row)].nameB), QStringLiteral("blocks.1.fc"));
        QSignalSpy diffShown(compare(), &CompareUi::diffShown);
        compare()->openDiff(row);
        QVERIFY(diffShown.wait(20000));
        QTRY_VERIFY(m_ui->inspector()->diffView()->isReady());
        QCOMPARE(m_ui->inspector()->diffView()->comparison()->status, CompareStatus::Mismatch);

        // Keys naming no module: a message listing the nearest module paths; the window keeps working.
        m_errors.clear();
        const QString bad = path("no_module.npz");
        QCOMPARE(runPython(QStringLiteral("import numpy as np\nd = np.load('%1')\nnp.savez('%2', **{'block.1.fcc': "
                                          "d['blocks.1.fc']})\nprint('ok')")
                               .arg(models + QStringLiteral("module_tree_capture.npz"), bad)),
            QStringLiteral("ok"));
        QVERIFY(runDialog(
            [&](CompareDialog* d) {
                d->setKind(CompareRequest::Kind::Reference);
                d->setReferencePath(bad);
                d->setByModule(true);
            },
            true));
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.first().contains(QStringLiteral("nearest module paths \"blocks.1.fc\"")),
            qPrintable(m_errors.first()));
        QVERIFY(compare()->compareAction()->isEnabled());
    }
};

QTEST_MAIN(TestCompareUi)
#include "test_compare_ui.moc"
