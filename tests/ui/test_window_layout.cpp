// SPDX-License-Identifier: MIT
// The default window as a first-time user sees it: whole dock tab titles, edge labels clear of the group titles.
#include "engine/model/model.h"
#include "tests/common/test_settings.h"
#include "ui/common/model_document.h"
#include "ui/graphview/edge_item.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/node_item.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/main_window.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace onnxscope;

namespace {

const QString kSample = QStringLiteral(ONNXSCOPE_SOURCE_DIR "/resources/samples/mlp_classifier.onnx");

} // namespace

class TestWindowLayout : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_settingsDir;

    static bool open(MainWindow& window, const QString& path)
    {
        QSignalSpy opened(&window, &MainWindow::modelOpened);
        window.openModel(path);
        if (!opened.wait(20000))
            return false;
        GraphView* view = window.graphView();
        return QTest::qWaitFor(
                   [&] {
                       return !window.document()->isLoading() && window.document()->typesReady()
                           && !view->isLayoutRunning();
                   },
                   20000)
            && !view->scene()->nodeItems().empty();
    }

    /// The tab bars of the window's groups of tabbed docks, with the titles they show.
    static QList<QTabBar*> dockTabBars(MainWindow& window)
    {
        QList<QTabBar*> bars;
        for (QTabBar* bar : window.findChildren<QTabBar*>(QString(), Qt::FindDirectChildrenOnly))
            if (bar->isVisible() && bar->count() > 1)
                bars << bar;
        return bars;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        onnxscope::testing::useOwnSettings(m_settingsDir.path(), QStringLiteral("onnxscope-layout-tests"));
    }

    void dockTabTitlesAreWholeInTheDefaultLayout_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1600 x 1000") << QSize(1600, 1000);
        QTest::newRow("1400 x 900") << QSize(1400, 900);
    }

    void dockTabTitlesAreWholeInTheDefaultLayout()
    {
        // No saved layout: the first run's default one, with every dock of the debugger.
        QFETCH(QSize, size);
        QSettings().clear();
        MainWindow window;
        DebuggerUi ui(&window);
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(open(window, kSample));
        QTRY_COMPARE(dockTabBars(window).size(), 3); // the default dock groups apply once the window is shown
        const QList<QTabBar*> bars = dockTabBars(window);
        // Left (Inputs, Breakpoints, Call Stack, Find), right (Inspector, Model, Tensor Inspector) and bottom.
        QCOMPARE(bars.size(), 3);
        QStringList titles;
        for (QTabBar* bar : bars) {
            QStringList these;
            for (int i = 0; i < bar->count(); ++i) {
                these << bar->tabText(i);
                // Hovering a tab shows its whole title even when the user narrows the column later.
                QCOMPARE(bar->tabToolTip(i), bar->tabText(i));
            }
            // The width every title needs whole (sizeHint is the unelided one).
            QVERIFY2(bar->width() >= bar->sizeHint().width(),
                qPrintable(QStringLiteral("%1: %2 px for %3 px of titles")
                               .arg(these.join(QStringLiteral(", ")))
                               .arg(bar->width())
                               .arg(bar->sizeHint().width())));
            titles << these;
        }
        QVERIFY(titles.contains(QStringLiteral("Breakpoints")));
        QVERIFY(titles.contains(QStringLiteral("Call Stack")));
        QVERIFY(titles.contains(QStringLiteral("Tensor Inspector")));
        // The graph keeps most of the window.
        const QSize graph = window.graphView()->size();
        QVERIFY2(graph.width() >= window.width() / 2,
            qPrintable(QStringLiteral("%1 of %2").arg(graph.width()).arg(window.width())));
    }

    void edgeLabelsStayClearOfGroupTitles()
    {
        // The sample's first edge into the dense1 group ends just below the group's title strip, where its label used
        // to be drawn over the title.
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(open(window, kSample));
        GraphScene* scene = window.graphView()->scene();
        QCOMPARE(scene->clusterItems().size(), size_t(2));
        int labels = 0;
        for (const EdgeItem* edge : scene->edgeItems()) {
            const QRectF r = edge->labelRect();
            if (r.isNull())
                continue;
            ++labels;
            for (const ClusterItem* cluster : scene->clusterItems())
                QVERIFY2(!cluster->headerRect().intersects(r),
                    qPrintable(QStringLiteral("the label \"%1\" is drawn over the title of %2")
                                   .arg(edge->label(), cluster->cluster().title)));
            for (const NodeItem* node : scene->nodeItems())
                QVERIFY(!node->sceneBox().intersects(r));
        }
        QCOMPARE(labels, 5); // the edges out of the input, MatMul, Add, Relu and Softmax
    }
    void reverseSliceToTheStartSaysEnd()
    {
        // silero_vad_v5's reflection padding slices backwards to the start: ends = -(2^63 - 1), step -1. It was drawn
        // as the number while the largest integer reads 'end'.
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.document()->setModel(Model::fromText("<ir_version: 8, opset_import: [\"\" : 17]>\n"
                                                    "g (float[10] x) => (float[?] y) {\n"
                                                    "  s = Constant <value = int64[1] {-1}> ()\n"
                                                    "  e = Constant <value = int64[1] {-9223372036854775807}> ()\n"
                                                    "  a = Constant <value = int64[1] {0}> ()\n"
                                                    "  t = Constant <value = int64[1] {-1}> ()\n"
                                                    "  y = Slice(x, s, e, a, t)\n}"),
            QString());
        QVERIFY(QTest::qWaitFor([&] { return !window.graphView()->isLayoutRunning(); }, 20000));
        const Graph& g = window.document()->model()->graph();
        QTRY_VERIFY(window.graphView()->scene()->itemForNode(g.findNode("Slice_4")));
        const QStringList rows = window.graphView()->scene()->itemForNode(g.findNode("Slice_4"))->viewItem().rows;
        QVERIFY2(rows.contains(QStringLiteral("ends = [-end]")), qPrintable(rows.join(QStringLiteral(" | "))));
        QVERIFY2(rows.contains(QStringLiteral("starts = [-1]")), qPrintable(rows.join(QStringLiteral(" | "))));
    }

    void wheelLeavesABoxTheUserDidNotChoose()
    {
        // The window hands the focus to a box of the Inputs dock when it is activated, and Qt hands it on to the next
        // box when a focused one is disabled; the user chose neither. Rolling the wheel over such a box while scrolling
        // the dock switched the input's source to File. Only a box clicked or tabbed into takes the wheel.
        MainWindow window;
        DebuggerUi ui(&window);
        window.resize(1400, 900);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(open(window, kSample));
        ui.inputsDock()->raise();
        QSpinBox* batch = nullptr;
        for (QSpinBox* s : ui.inputs()->findChildren<QSpinBox*>())
            if (s->isVisible() && s->isEnabled() && !batch)
                batch = s;
        QComboBox* source = nullptr;
        for (QComboBox* c : ui.inputs()->findChildren<QComboBox*>())
            if (c->isVisible() && c->count() > 2)
                source = c;
        QVERIFY(batch && source);
        const auto wheel = [](QWidget* w) {
            const QPointF centre = QPointF(w->rect().center());
            QWheelEvent e(centre, w->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
            QApplication::sendEvent(w, &e);
        };
        // Qt gives a combo or spin box the focus when the wheel turns over it (before the box sees the wheel), as if
        // the user had clicked it; scrolling the dock past a drop-down chose it.
        for (QWidget* box : ui.inputs()->findChildren<QWidget*>())
            if (qobject_cast<QComboBox*>(box) || qobject_cast<QAbstractSpinBox*>(box))
                QVERIFY2((box->focusPolicy() & Qt::WheelFocus) != Qt::WheelFocus, box->metaObject()->className());
        const int before = source->currentIndex();
        const int batchBefore = batch->value();
        for (const Qt::FocusReason reason : { Qt::ActiveWindowFocusReason, Qt::TabFocusReason, Qt::OtherFocusReason }) {
            window.graphView()->setFocus(Qt::MouseFocusReason);
            source->setFocus(reason); // a Tab focus without the Tab key: a disabled box handing the focus on
            QTRY_VERIFY(source->hasFocus());
            wheel(source);
            QCOMPARE(source->currentIndex(), before);
            batch->setFocus(reason);
            QTRY_VERIFY(batch->hasFocus());
            wheel(batch);
            QCOMPARE(batch->value(), batchBefore);
        }
        // Clicked into, or reached with the Tab key, a box takes the wheel; so does the focused box once clicked.
        QVERIFY(batch->hasFocus());
        QTest::mouseClick(batch->findChild<QLineEdit*>(), Qt::LeftButton);
        wheel(batch);
        QVERIFY(batch->value() != batchBefore);
        window.graphView()->setFocus(Qt::MouseFocusReason);
        batch->setFocus(Qt::BacktabFocusReason);
        QTRY_VERIFY(batch->hasFocus());
        wheel(batch);
        QCOMPARE(batch->value(), batchBefore + 1); // a Backtab focus without the key
        window.graphView()->setFocus(Qt::MouseFocusReason);
        QTest::keyPress(&window, Qt::Key_Tab); // the Tab key held while the focus moves
        batch->setFocus(Qt::TabFocusReason);
        QTest::keyRelease(&window, Qt::Key_Tab);
        QTRY_VERIFY(batch->hasFocus());
        wheel(batch);
        QCOMPARE(batch->value(), batchBefore + 2);
        window.graphView()->setFocus(Qt::MouseFocusReason);
        source->setFocus(Qt::MouseFocusReason);
        QTRY_VERIFY(source->hasFocus());
        wheel(source);
        QVERIFY(source->currentIndex() != before);
        const int after = source->currentIndex();
        source->setFocus(Qt::ActiveWindowFocusReason); // back in the window: still the box the user chose
        wheel(source);
        QVERIFY(source->currentIndex() != after);
    }
};

QTEST_MAIN(TestWindowLayout)
#include "test_window_layout.moc"
