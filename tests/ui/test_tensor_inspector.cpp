// SPDX-License-Identifier: MIT
// The tensor inspector: instant opening of huge tensors, statistics, slices, heatmap, histogram, strings and bools,
// sequences, compare with a value or a .npy file; value conditions of conditional breakpoints.
#include "engine/core/tensor_stats.h"
#include "engine/exec/value_condition.h"
#include "engine/io/npy.h"
#include "tests/common/test_settings.h"
#include "ui/tensorinspector/tensor_inspector.h"
#include "ui/tensorinspector/tensor_plots.h"
#include "ui/tensorinspector/tensor_table_model.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace onnxscope;

class TestTensorInspector : public QObject {
    Q_OBJECT
    QTemporaryDir m_settingsDir;
private slots:
    void fitsANarrowColumn()
    {
        // A 4-D feature map in the 400-pixel column the default layout gives the inspector: no sideways scrolling.
        TensorInspector inspector;
        Tensor t(DataType::Float, { 1, 1, 224, 224 });
        inspector.setTensor(QStringLiteral("p2o.Add.281 \u2190 p2o.Add.280 (Add)"), t);
        QVERIFY2(inspector.minimumSizeHint().width() <= 400,
            qPrintable(QString::number(inspector.minimumSizeHint().width())));
    }

    void kvCacheShowsPerHead()
    {
        // A present key of GroupQueryAttention [batch 1, kv heads 2, positions 3, head dim 4]: head h holds h * 100 +
        // position * 10 + d, so each head's statistics are known independently of the inspector.
        std::vector<float> v;
        for (int h = 0; h < 2; ++h)
            for (int p = 0; p < 3; ++p)
                for (int d = 0; d < 4; ++d)
                    v.push_back(static_cast<float>(h * 100 + p * 10 + d));
        TensorInspector inspector;
        inspector.setTensor(
            QStringLiteral("present.0.key  \u2190 /model/layers.0/attn/GroupQueryAttention (GroupQueryAttention)"),
            Tensor::fromVector(v, { 1, 2, 3, 4 }));
        QCOMPARE(inspector.axisNames(),
            QStringList({ QStringLiteral("batch"), QStringLiteral("kv head"), QStringLiteral("position"),
                QStringLiteral("head dim") }));
        // Still fits the inspector's narrow column with the named slice controls and the slice's statistics.
        QVERIFY2(inspector.minimumSizeHint().width() <= 400,
            qPrintable(QString::number(inspector.minimumSizeHint().width())));
        auto* head = inspector.findChild<QSpinBox*>(QStringLiteral("sliceAxis1"));
        QVERIFY(head);
        QVERIFY2(head->prefix().startsWith(QStringLiteral("kv head")), qPrintable(head->prefix()));
        QCOMPARE(head->maximum(), 1);
        QVERIFY2(inspector.sliceStatsText().contains(QStringLiteral("kv head 0: min 0 \u00b7 max 23")),
            qPrintable(inspector.sliceStatsText()));
        head->setValue(1);
        QCOMPARE(inspector.tableModel()->data(inspector.tableModel()->index(2, 3)).toString(), QStringLiteral("123"));
        // Head 1: min 100, max 123, mean 111.5.
        QVERIFY2(
            inspector.sliceStatsText().contains(QStringLiteral("kv head 1: min 100 \u00b7 max 123 \u00b7 mean 111.5")),
            qPrintable(inspector.sliceStatsText()));
        // The debugger's title for a past input (no producer) and Attention's rank-5 present.
        QCOMPARE(TensorInspector::guessAxisNames(QStringLiteral("past_key_values.1.value"), { 1, 2, 16, 8 }).value(1),
            QStringLiteral("kv head"));
        QCOMPARE(TensorInspector::guessAxisNames(
                     QStringLiteral("present_0  \u2190 Attention_0 (Attention)"), { 2, 1, 4, 8, 16 })
                     .value(2),
            QStringLiteral("head"));
        // Anything else keeps "axis N".
        QVERIFY(
            TensorInspector::guessAxisNames(QStringLiteral("conv_out  \u2190 conv (Conv)"), { 1, 2, 3, 4 }).isEmpty());
        inspector.setTensor(QStringLiteral("feature"), Tensor(DataType::Float, { 1, 2, 3, 4 }));
        QCOMPARE(inspector.findChild<QSpinBox*>(QStringLiteral("sliceAxis1"))->prefix(), QStringLiteral("axis 1 = "));
    }

    void histogramAxisHasRoomForThePeakCount()
    {
        HistogramWidget w;
        w.resize(360, 200);
        Histogram h;
        h.lo = 0;
        h.hi = 1;
        h.counts = { 12, 1234567, 40 };
        w.setHistogram(h);
        // The y axis's top label, the peak count, fits left of the plot whole (no first digit lost).
        QVERIFY(w.plotRect().left() - 4 >= w.fontMetrics().horizontalAdvance(QStringLiteral("1234567")));
    }

    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        onnxscope::testing::useOwnSettings(m_settingsDir.path(), QStringLiteral("onnxscope-inspector-tests"));
    }

    void heatmapColourScalesShowPastOutliersAndAcrossMagnitudes()
    {
        // 0..98 and one outlier: min-max paints 10 and 50 alike; the percentile scale tells them apart.
        Tensor t(DataType::Float, { 10, 10 });
        auto d = t.data<float>();
        for (size_t i = 0; i < d.size(); ++i)
            d[i] = static_cast<float>(i);
        d[99] = 1e6f;
        HeatmapWidget heatmap;
        heatmap.setSlice(t, 0, 10, 10);
        // A square slice gets square cells; a 2 x 96 one is not squeezed into a strip a few pixels high (its cells
        // may be up to 8 times taller than wide).
        heatmap.resize(500, 300);
        QVERIFY2(std::abs(heatmap.imageRect().width() - heatmap.imageRect().height()) < 1,
            qPrintable(QStringLiteral("%1 x %2, image %3 x %4")
                           .arg(heatmap.imageRect().width())
                           .arg(heatmap.imageRect().height())
                           .arg(heatmap.image().width())
                           .arg(heatmap.image().height())));
        Tensor strip(DataType::Float, { 2, 96 });
        heatmap.setSlice(strip, 0, 2, 96);
        const QRectF drawn = heatmap.imageRect();
        QVERIFY2(drawn.height() >= 40 && drawn.width() > 300,
            qPrintable(QStringLiteral("%1 x %2").arg(drawn.width()).arg(drawn.height())));
        QVERIFY(drawn.height() / 2 <= 8 * drawn.width() / 96 + 1e-9);
        heatmap.setSlice(t, 0, 10, 10);
        QCOMPARE(heatmap.colourScale(), HeatmapWidget::ColourScale::MinMax);
        QCOMPARE(heatmap.high(), 1e6);
        QCOMPARE(heatmap.image().pixel(0, 1), heatmap.image().pixel(0, 5)); // 10 and 50
        heatmap.setColourScale(HeatmapWidget::ColourScale::Robust);
        QCOMPARE(heatmap.low(), 2.0); // the 2nd-percentile element of 100
        QCOMPARE(heatmap.high(), 97.0);
        QVERIFY(heatmap.image().pixel(0, 1) != heatmap.image().pixel(0, 5));
        QCOMPARE(heatmap.image().pixel(0, 0), HeatmapWidget::colourAt(0)); // below the range: the end colour
        QCOMPARE(heatmap.image().pixel(9, 9), HeatmapWidget::colourAt(1)); // the outlier
        QCOMPARE(heatmap.image().pixel(0, 5), HeatmapWidget::colourAt((50.0 - 2) / (97 - 2)));

        // Sigmoid-like outputs over 16 orders of magnitude: log |x| spreads them; zeros take the lowest colour.
        Tensor m(DataType::Float, { 1, 4 });
        auto md = m.data<float>();
        md[0] = 1e-20f;
        md[1] = -1e-10f;
        md[2] = 1e-4f;
        md[3] = 0;
        heatmap.setSlice(m, 0, 1, 4);
        QCOMPARE(heatmap.colourScale(), HeatmapWidget::ColourScale::Robust); // kept across slices
        heatmap.setColourScale(HeatmapWidget::ColourScale::Log);
        QCOMPARE(float(heatmap.low()), 1e-20f);
        QCOMPARE(float(heatmap.high()), 1e-4f);
        QCOMPARE(heatmap.image().pixel(0, 0), HeatmapWidget::colourAt(0));
        const double mid = (std::log10(double(1e-10f)) - std::log10(double(1e-20f)))
            / (std::log10(double(1e-4f)) - std::log10(double(1e-20f)));
        QCOMPARE(heatmap.image().pixel(1, 0), HeatmapWidget::colourAt(mid));
        QCOMPARE(heatmap.image().pixel(2, 0), HeatmapWidget::colourAt(1));
        QCOMPARE(heatmap.image().pixel(3, 0), HeatmapWidget::colourAt(0));
        heatmap.setColourScale(HeatmapWidget::ColourScale::MinMax); // 1e-20 and 0 one colour, at the bottom
        QCOMPARE(heatmap.image().pixel(1, 0), HeatmapWidget::colourAt(0));
        QCOMPARE(heatmap.image().pixel(0, 0), heatmap.image().pixel(3, 0));

        // The inspector's choice applies to its heatmap and is remembered.
        {
            TensorInspector inspector;
            auto* colours = inspector.findChild<QComboBox*>(QStringLiteral("heatmapColours"));
            QVERIFY(colours);
            colours->setCurrentIndex(colours->findData(static_cast<int>(HeatmapWidget::ColourScale::Log)));
            QCOMPARE(inspector.heatmap()->colourScale(), HeatmapWidget::ColourScale::Log);
        }
        TensorInspector again;
        QCOMPARE(again.heatmap()->colourScale(), HeatmapWidget::ColourScale::Log);
        // The diff view's |A − B| heatmap keeps a choice of its own.
        auto* diffColours = again.findChild<QComboBox*>(QStringLiteral("diffHeatmapColours"));
        QVERIFY(diffColours);
        QCOMPARE(diffColours->currentData().toInt(), static_cast<int>(HeatmapWidget::ColourScale::MinMax));
        again.findChild<QComboBox*>(QStringLiteral("heatmapColours"))->setCurrentIndex(0);
        QCOMPARE(again.heatmap()->colourScale(), HeatmapWidget::ColourScale::MinMax);
    }

    void hundredMillionElementsOpenInstantly()
    {
        TensorInspector inspector;
        inspector.resize(800, 600);
        inspector.show();
        Tensor big(DataType::UInt8, { 10, 100, 100'000 });
        big.data<uint8_t>()[0] = 7;
        big.data<uint8_t>()[big.size() - 1] = 9;
        inspector.setTensor(QStringLiteral("big"), big);
        QApplication::processEvents();
        // Only the visible cells are formatted; statistics come later from a worker thread, so the table is there
        // before they are.
        QVERIFY(!inspector.statsReady());
        QCOMPARE(inspector.tableModel()->rowCount(), 100);
        QCOMPARE(inspector.tableModel()->columnCount(), 100'000);
        QTRY_VERIFY_WITH_TIMEOUT(inspector.statsReady(), 30000);
        QCOMPARE(inspector.stats()->count, int64_t(100'000'000));
        QCOMPARE(inspector.stats()->max, 9.0);
        QCOMPARE(inspector.stats()->zeros, int64_t(100'000'000 - 2));
        // The heatmap samples the 100 × 100000 slice down to at most 1024 columns.
        inspector.tabs()->setCurrentIndex(TensorInspector::HeatmapTab);
        QVERIFY(inspector.heatmap()->image().width() <= HeatmapWidget::kMaxSide);
        QCOMPARE(inspector.heatmap()->image().height(), 100);
        // The last slice holds the 9.
        inspector.setSlice({ 9 });
        QCOMPARE(inspector.tableModel()->index(99, 99'999).data().toString(), QStringLiteral("9"));
    }

    void statsSlicesHeatmapAndHistogram()
    {
        TensorInspector inspector;
        Tensor t(DataType::Float, { 2, 3, 4 });
        auto d = t.data<float>();
        for (size_t i = 0; i < d.size(); ++i)
            d[i] = static_cast<float>(i);
        d[5] = NAN;
        d[6] = INFINITY;
        inspector.setTensor(QStringLiteral("t"), t);
        QAbstractItemModelTester tester(inspector.tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_VERIFY(inspector.statsReady());
        const TensorStats& s = *inspector.stats();
        QCOMPARE(s.nan, int64_t(1));
        QCOMPARE(s.posInf, int64_t(1));
        QCOMPARE(s.zeros, int64_t(1));
        QCOMPARE(s.min, 0.0);
        QCOMPARE(s.max, 23.0);
        // mean and std of 0..23 without 5 and 6, computed here directly
        double sum = 0, sq = 0;
        int n = 0;
        for (int i = 0; i < 24; ++i)
            if (i != 5 && i != 6) {
                sum += i;
                ++n;
            }
        const double mean = sum / n;
        for (int i = 0; i < 24; ++i)
            if (i != 5 && i != 6)
                sq += (i - mean) * (i - mean);
        QVERIFY(std::abs(s.mean - mean) < 1e-9);
        QVERIFY(std::abs(s.std - std::sqrt(sq / n)) < 1e-9);
        QVERIFY(inspector.statsText().contains(QStringLiteral("NaN 1")));
        QCOMPARE(inspector.tableModel()->rowCount(), 3);
        QCOMPARE(inspector.tableModel()->columnCount(), 4);
        QCOMPARE(inspector.tableModel()->index(1, 1).data().toString(), QStringLiteral("NaN"));
        inspector.setSlice({ 1 });
        QCOMPARE(inspector.tableModel()->index(0, 0).data().toString(), QStringLiteral("12"));
        auto* box = inspector.findChild<QSpinBox*>(QStringLiteral("sliceAxis0"));
        QVERIFY(box);
        QCOMPARE(box->value(), 1);
        inspector.tabs()->setCurrentIndex(TensorInspector::HeatmapTab);
        QCOMPARE(inspector.heatmap()->image().size(), QSize(4, 3));
        QCOMPARE(inspector.heatmap()->low(), 12.0);
        QCOMPARE(inspector.heatmap()->high(), 23.0);
        QCOMPARE(inspector.heatmap()->image().pixel(0, 0), HeatmapWidget::colourAt(0));
        QCOMPARE(inspector.heatmap()->image().pixel(3, 2), HeatmapWidget::colourAt(1));
        int64_t total = 0;
        for (int64_t c : inspector.histogram()->histogram().counts)
            total += c;
        QCOMPARE(total, int64_t(22)); // finite values only
    }

    // A one-element output of 5.93671e-06 showed as "5...." in a column of the default width.
    void columnsAreWideEnoughForTheirElements()
    {
        TensorInspector inspector;
        inspector.resize(800, 600);
        inspector.show();
        const auto needed
            = [&](const QString& text) { return inspector.table()->fontMetrics().horizontalAdvance(text); };
        Tensor small(DataType::Float, { 1, 1 });
        small.data<float>()[0] = -5.93671e-06f;
        inspector.setTensor(QStringLiteral("small"), small);
        const QString shown = inspector.tableModel()->index(0, 0).data().toString();
        QCOMPARE(shown, QStringLiteral("-5.93671e-06"));
        QVERIFY2(inspector.headerText().contains(QStringLiteral("\u00b7 1 element \u00b7")),
            qPrintable(inspector.headerText()));
        QVERIFY2(inspector.table()->columnWidth(0) > needed(shown),
            qPrintable(QStringLiteral("%1 <= %2").arg(inspector.table()->columnWidth(0)).arg(needed(shown))));

        Tensor wide(DataType::Int64, { 3 });
        wide.data<int64_t>()[1] = std::numeric_limits<int64_t>::min();
        inspector.setTensor(QStringLiteral("wide"), wide);
        QCOMPARE(inspector.tableModel()->columnCount(), 1); // a 1-D tensor is one column of rows
        QVERIFY(inspector.table()->columnWidth(0) > needed(QStringLiteral("-9223372036854775808")));

        // Back to small values, the columns narrow again (not below the default).
        Tensor plain(DataType::Float, { 2 });
        inspector.setTensor(QStringLiteral("plain"), plain);
        QCOMPARE(inspector.table()->columnWidth(0), 84);
    }

    void stringsBoolsAndSequences()
    {
        TensorInspector inspector;
        Tensor s(DataType::String, { 2 });
        s.data<std::string>()[0] = "hello";
        s.data<std::string>()[1] = "w\u00f6rld";
        inspector.setTensor(QStringLiteral("s"), s);
        QCOMPARE(inspector.tableModel()->index(1, 0).data().toString(), QStringLiteral("\"w\u00f6rld\""));
        QTRY_VERIFY(inspector.statsReady());
        QCOMPARE(inspector.statsText(), QStringLiteral("2 strings"));
        Tensor b = Tensor::vector1D<bool>({ true, false, true });
        inspector.setTensor(QStringLiteral("b"), b);
        QCOMPARE(inspector.tableModel()->index(0, 0).data().toString(), QStringLiteral("true"));
        QTRY_VERIFY(inspector.statsReady());
        QVERIFY(inspector.statsText().startsWith(QStringLiteral("true 2 \u00b7 false 1")));
        Sequence seq;
        seq.elementType = DataType::Float;
        seq.items = { Tensor::vector1D<float>({ 1 }), Tensor::vector1D<float>({ 2, 3 }) };
        inspector.setValue(QStringLiteral("seq"), Value(seq));
        QCOMPARE(inspector.tensor().size(), 1);
        auto* item = inspector.findChild<QSpinBox*>();
        QVERIFY(item);
        item->setValue(1);
        QCOMPARE(inspector.tensor().size(), 2);
        QVERIFY(inspector.title().contains(QStringLiteral("item 1 of 2")));

        // ZipMap's output: a sequence of maps. Each value's row is named by its key; a plain tensor after it has
        // row numbers again. The type string names the maps, not the float values alone.
        Map map;
        map.keys = Tensor(DataType::String, { 3 });
        map.keys.data<std::string>()[0] = "high";
        map.keys.data<std::string>()[1] = "low";
        map.keys.data<std::string>()[2] = "mid";
        map.values = Tensor::vector1D<float>({ 0.5f, 0.25f, 0.25f });
        Sequence maps;
        maps.elementType = DataType::Float;
        maps.items = { Value(map) };
        const Value zipMap(maps);
        QCOMPARE(QString::fromStdString(zipMap.typeString()), QStringLiteral("seq(map(string, float))[1 items]"));
        inspector.setValue(QStringLiteral("probabilities"), zipMap);
        QCOMPARE(inspector.tableModel()->rowCount(), 3);
        QCOMPARE(inspector.tableModel()->headerData(0, Qt::Vertical).toString(), QStringLiteral("\"high\""));
        QCOMPARE(inspector.tableModel()->headerData(2, Qt::Vertical).toString(), QStringLiteral("\"mid\""));
        QCOMPARE(inspector.tableModel()->index(1, 0).data().toString(), QStringLiteral("0.25"));
        QCOMPARE(inspector.tableModel()->headerData(0, Qt::Horizontal).toInt(), 0);
        inspector.setTensor(QStringLiteral("plain"), Tensor::vector1D<float>({ 1, 2 }));
        QCOMPARE(inspector.tableModel()->headerData(1, Qt::Vertical).toInt(), 1);
    }

    void compareWithValueAndFile()
    {
        QTemporaryDir dir;
        TensorInspector inspector;
        Tensor a = Tensor::fromVector<float>({ 1, 2, 3, 4, 5, 6 }, { 2, 3 });
        inspector.setTensor(QStringLiteral("a"), a);
        Tensor b = Tensor::fromVector<float>({ 1, 2, 3, 4, 5.5f, 6 }, { 2, 3 });
        const QString path = dir.filePath(QStringLiteral("b.npy"));
        writeNpy(path.toStdString(), b);
        auto diff = inspector.compareWithFile(path);
        QVERIFY(diff);
        QCOMPARE(diff->maxAbs, 0.5);
        QCOMPARE(diff->worstIndex, int64_t(4));
        QVERIFY(std::abs(diff->maxRel - 0.5 / 5.5) < 1e-12);
        QVERIFY(inspector.compareText().contains(QStringLiteral("[1, 1]")));
        QCOMPARE(inspector.table()->currentIndex().row(), 1);
        QCOMPARE(inspector.table()->currentIndex().column(), 1);
        // Different element counts are refused with a reason.
        QVERIFY(!inspector.compareWith(QStringLiteral("short"), Tensor::vector1D<float>({ 1 })));
        QVERIFY(inspector.compareText().contains(QStringLiteral("element counts differ")));
        QVERIFY(!inspector.compareWithFile(dir.filePath(QStringLiteral("missing.npy"))));
    }

    void valueConditions()
    {
        const Value v = Tensor::vector1D<float>({ -2e4f, 1, 3 });
        QVERIFY(ValueCondition::parse("any |x| > 1e4").matches(v));
        QVERIFY(!ValueCondition::parse("any x > 1e4").matches(v));
        QVERIFY(ValueCondition::parse("all x < 5").matches(v));
        QVERIFY(!ValueCondition::parse("all x >= 0").matches(v));
        QVERIFY(ValueCondition::parse("min < -1000").matches(v));
        QVERIFY(ValueCondition::parse("max == 3").matches(v));
        QVERIFY(!ValueCondition::parse("nan").matches(v));
        QVERIFY(ValueCondition::parse("nonfinite").matches(Value(Tensor::vector1D<float>({ 1, INFINITY }))));
        QVERIFY(!ValueCondition::parse("any |x| > 0").matches(Value(Tensor::vector1D<std::string>({ "a" }))));
        try {
            ValueCondition::parse("x is big");
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("not understood") != std::string::npos);
        }
    }
};

QTEST_MAIN(TestTensorInspector)
#include "test_tensor_inspector.moc"
