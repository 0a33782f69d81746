// SPDX-License-Identifier: MIT
// The default window as a first-time user sees it: whole dock tab titles, the Values dock's rows, edge labels clear of
// the group titles; and a saved layout restored only where it fits the window it lands in (issue #45).
#include "engine/model/model.h"
#include "tests/common/test_settings.h"
#include "ui/common/model_document.h"
#include "ui/common/settings.h"
#include "ui/debugger/debugger_panels.h"
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
#include <QHeaderView>
#include <QLineEdit>
#include <QSpinBox>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>

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

    /// Every tab title whole and the graph with its share (half the width, 45% of the height); "" if so.
    static QString cutTitlesOrGraph(MainWindow& window)
    {
        QStringList problems;
        for (QTabBar* bar : dockTabBars(window)) {
            QStringList these;
            for (int i = 0; i < bar->count(); ++i)
                these << bar->tabText(i);
            // The width every title needs whole (sizeHint is the unelided one).
            if (bar->width() < bar->sizeHint().width())
                problems << QStringLiteral("%1: %2 px for %3 px of titles")
                                .arg(these.join(QStringLiteral(", ")))
                                .arg(bar->width())
                                .arg(bar->sizeHint().width());
        }
        const QSize graph = window.graphView()->size();
        if (graph.width() < window.width() / 2 || graph.height() < window.height() * 45 / 100)
            problems << QStringLiteral("graph %1 x %2 in %3 x %4")
                            .arg(graph.width())
                            .arg(graph.height())
                            .arg(window.width())
                            .arg(window.height());
        return problems.join(QStringLiteral("; "));
    }

    /// Shows a window with the debugger's docks at `size`, waits until its layout is settled, and closes it, which
    /// saves its layout. `adjust` changes the docks first, as a user dragging their edges.
    static Settings::WindowLayout saveLayoutAt(QSize size, const std::function<void(MainWindow&, DebuggerUi&)>& adjust)
    {
        MainWindow window;
        DebuggerUi ui(&window);
        window.resize(size);
        window.show();
        if (!QTest::qWaitForWindowExposed(&window) || !QTest::qWaitFor([&] { return window.isLayoutSettled(); }))
            return {};
        if (adjust)
            adjust(window, ui);
        window.close();
        return Settings::instance().windowLayout().value_or(Settings::WindowLayout {});
    }

    /// The layout a new window with the debugger's docks settles on at 1600 x 1000, after `check` has looked at it.
    static void restoreInto(QSize size, const std::function<void(MainWindow&, DebuggerUi&)>& check)
    {
        MainWindow window;
        DebuggerUi ui(&window);
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(QTest::qWaitFor([&] { return window.isLayoutSettled(); })); // settled means sized
        check(window, ui);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        onnxscope::testing::useOwnSettings(m_settingsDir.path(), QStringLiteral("onnxscope-layout-tests"));
    }

    void init() { Settings::instance().clear(); }

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
        Settings::instance().clear();
        MainWindow window;
        DebuggerUi ui(&window);
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(open(window, kSample));
        QVERIFY(QTest::qWaitFor([&] { return window.isLayoutSettled(); })); // sized once the window is shown
        QVERIFY(!window.restoredSavedLayout());
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

    void valuesDockShowsTwelveRows()
    {
        // Issue #44: at 1600 x 1000 the default layout showed 3 rows of values. The rows that fit whole are counted on
        // the real view.
        Settings::instance().clear();
        MainWindow window;
        DebuggerUi ui(&window);
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(open(window, kSample));
        QVERIFY(QTest::qWaitFor([&] { return window.isLayoutSettled(); }));
        QVERIFY(ui.valuesDock()->isVisible());
        QTableView* view = ui.values()->view();
        QVERIFY(view->isVisible());
        const int row = view->verticalHeader()->defaultSectionSize();
        const int whole = view->viewport()->height() / row;
        QVERIFY2(whole >= 12,
            qPrintable(QStringLiteral("%1 rows of %2 px in %3 px, the dock %4 px high, the panel %5")
                           .arg(whole)
                           .arg(row)
                           .arg(view->viewport()->height())
                           .arg(ui.valuesDock()->height())
                           .arg(ui.values()->height())));
        // With the rows every title stays whole, and the graph keeps its share.
        const QString problems = cutTitlesOrGraph(window);
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

    void layoutsFromOtherWindowsFallBackToTheDefault_data()
    {
        QTest::addColumn<QSize>("savedIn");
        QTest::addColumn<bool>("claimsThisSize");
        QTest::addColumn<QString>("reason");
        // The packaging test's offscreen window (issue #45), and a laptop's; each restored into 1600 x 1000. Recorded
        // with its own size, the size tells; recorded as if saved at 1600 x 1000, the real geometry must: the side
        // docks keep their old widths, too narrow for their tab titles.
        QTest::newRow("787 x 755") << QSize(787, 755) << false << QStringLiteral("787 x 755 window");
        QTest::newRow("1280 x 800") << QSize(1280, 800) << false << QStringLiteral("1280 x 800 window");
        QTest::newRow("787 x 755, as if 1600 x 1000") << QSize(787, 755) << true << QStringLiteral("tabs");
    }

    void layoutsFromOtherWindowsFallBackToTheDefault()
    {
        QFETCH(QSize, savedIn);
        QFETCH(bool, claimsThisSize);
        QFETCH(QString, reason);
        Settings::instance().clear();
        Settings::WindowLayout saved = saveLayoutAt(savedIn, {});
        QVERIFY(!saved.state.isEmpty());
        QCOMPARE(saved.windowSize, savedIn);
        QCOMPARE(saved.version, MainWindow::kLayoutVersion);
        if (claimsThisSize) {
            saved.windowSize = QSize(1600, 1000);
            saved.geometry.clear();
            Settings::instance().setWindowLayout(saved);
        }
        restoreInto(QSize(1600, 1000), [&](MainWindow& window, DebuggerUi&) {
            QVERIFY(!window.restoredSavedLayout());
            QVERIFY2(window.layoutRejection().contains(reason), qPrintable(window.layoutRejection()));
            QCOMPARE(dockTabBars(window).size(), 3);
            const QString problems = cutTitlesOrGraph(window);
            QVERIFY2(problems.isEmpty(), qPrintable(problems));
        });
    }

    void layoutOfAnotherVersionFallsBackToTheDefault()
    {
        // A layout that would fit, but saved by another layout version: its docks may have other names or places.
        Settings::instance().clear();
        Settings::WindowLayout saved = saveLayoutAt(QSize(1600, 1000), [](MainWindow& window, DebuggerUi& ui) {
            window.resizeDocks({ ui.inputsDock() }, { 420 }, Qt::Horizontal);
            QVERIFY(QTest::qWaitFor([&] { return ui.inputsDock()->width() >= 400; }));
        });
        QVERIFY(!saved.state.isEmpty());
        saved.version = MainWindow::kLayoutVersion - 1;
        Settings::instance().setWindowLayout(saved);
        restoreInto(QSize(1600, 1000), [&](MainWindow& window, DebuggerUi& ui) {
            QVERIFY(!window.restoredSavedLayout());
            QVERIFY2(window.layoutRejection().contains(QStringLiteral("layout version")),
                qPrintable(window.layoutRejection()));
            QVERIFY2(ui.inputsDock()->width() < 400, qPrintable(QString::number(ui.inputsDock()->width())));
        });
    }

    void layoutThatFitsIsRestored()
    {
        // The user's own layout, saved in a window of this size with whole titles, comes back as it was: a wider
        // left column and a taller Values dock.
        Settings::instance().clear();
        int inputs = 0, values = 0;
        const Settings::WindowLayout saved = saveLayoutAt(QSize(1600, 1000), [&](MainWindow& window, DebuggerUi& ui) {
            window.resizeDocks({ ui.inputsDock() }, { 420 }, Qt::Horizontal);
            window.resizeDocks({ ui.valuesDock() }, { 430 }, Qt::Vertical);
            QVERIFY(
                QTest::qWaitFor([&] { return ui.inputsDock()->width() >= 400 && ui.valuesDock()->height() >= 400; }));
            inputs = ui.inputsDock()->width();
            values = ui.valuesDock()->height();
        });
        QVERIFY(!saved.state.isEmpty());
        QVERIFY2(inputs >= 400 && values >= 400, qPrintable(QStringLiteral("%1, %2").arg(inputs).arg(values)));
        restoreInto(QSize(1600, 1000), [&](MainWindow& window, DebuggerUi& ui) {
            QVERIFY2(window.restoredSavedLayout(), qPrintable(window.layoutRejection()));
            QCOMPARE(ui.inputsDock()->width(), inputs);
            QCOMPARE(ui.valuesDock()->height(), values);
            const QString problems = cutTitlesOrGraph(window);
            QVERIFY2(problems.isEmpty(), qPrintable(problems));
        });
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
