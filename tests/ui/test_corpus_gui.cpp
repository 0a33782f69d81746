// SPDX-License-Identifier: MIT
// The GUI over the reliability corpus (tests/reliability/make_corpus.py): MainWindow, headless, opens every hostile
// model one after the other. Files the loader refuses show their error (naming the file, node or tensor) and leave
// the previous model on screen; the others open with their graph. The window keeps working after each.
#include "engine/core/tensor.h"
#include "tests/common/test_settings.h"
#include "ui/common/model_document.h"
#include "ui/common/tensor_format.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/search_panel.h"
#include "ui/mainwindow/main_window.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace onnxscope;

class TestCorpusGui : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_corpusDir;
    nlohmann::json m_entries;
    std::unique_ptr<MainWindow> m_window;
    QStringList m_errors;

    bool waitForGraph()
    {
        GraphView* view = m_window->graphView();
        const bool settled = QTest::qWaitFor(
            [&] {
                return !m_window->document()->isLoading() && m_window->document()->typesReady()
                    && !view->isLayoutRunning();
            },
            30000);
        return settled && !view->scene()->nodeItems().empty();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid() && m_corpusDir.isValid());
        onnxscope::testing::useOwnSettings(m_settingsDir.path(), QStringLiteral("onnxscope-tests"));
        // The corpus is generated here, so this test needs no fixture from tests/reliability.
        QProcess gen;
        gen.start(QStringLiteral("/usr/bin/python3"),
            { QStringLiteral(ONNXSCOPE_SOURCE_DIR "/tests/reliability/make_corpus.py"), m_corpusDir.path() });
        QVERIFY(gen.waitForFinished(120000));
        QVERIFY2(gen.exitCode() == 0, gen.readAllStandardError().constData());
        std::ifstream in((m_corpusDir.path() + QStringLiteral("/manifest.json")).toStdString());
        m_entries = nlohmann::json::parse(in)["entries"];
        QVERIFY(m_entries.size() > 50);

        m_window = std::make_unique<MainWindow>();
        m_window->setErrorReporter([this](const QString&, const QString& message) { m_errors << message; });
        m_window->resize(1200, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanupTestCase() { m_window.reset(); }

    void stringsThatAreNotUtf8AreShownEscaped()
    {
        Tensor t(DataType::String, { 3 });
        t.data<std::string>()[0] = "plain";
        t.data<std::string>()[1] = std::string("bad\xff\xfe", 5);
        t.data<std::string>()[2] = std::string("nul\0tab\t\xc3\xa9", 10);
        QCOMPARE(formatElement(t, 0), QStringLiteral("\"plain\""));
        QCOMPARE(formatElement(t, 1), QStringLiteral("\"bad\\xff\\xfe\""));
        QCOMPARE(formatElement(t, 2), QStringLiteral("\"nul\\x00tab\\x09\u00e9\""));
        QCOMPARE(formatTensorValues(t), QStringLiteral("[\"plain\", \"bad\\xff\\xfe\", \"nul\\x00tab\\x09\u00e9\"]"));
    }

    void opensEveryCorpusModel()
    {
        const QString relu = m_corpusDir.path() + QStringLiteral("/valid/relu.onnx");
        QSignalSpy opened(m_window.get(), &MainWindow::modelOpened);
        QSignalSpy failed(m_window.get(), &MainWindow::modelOpenFailed);
        m_window->openModel(relu);
        QVERIFY(opened.wait(20000));
        QVERIFY(waitForGraph());

        std::set<std::string> seen;
        int refused = 0, shown = 0;
        for (const auto& e : m_entries) {
            const std::string file = e["file"].get<std::string>();
            if (!seen.insert(file).second)
                continue;
            const QString name = QString::fromStdString(e["name"].get<std::string>());
            const QString path = m_corpusDir.path() + QLatin1Char('/') + QString::fromStdString(file);
            const bool refusedOnLoad = e["api"]["stage"] == "load";
            const auto* modelBefore = m_window->document()->model().get();
            const int operatorsBefore = m_window->graphView()->scene()->operatorItemCount();
            opened.clear();
            failed.clear();
            m_errors.clear();
            m_window->openModel(path);
            QVERIFY2(QTest::qWaitFor([&] { return !opened.isEmpty() || !failed.isEmpty(); }, 60000), qPrintable(name));
            if (refusedOnLoad) {
                ++refused;
                QVERIFY2(!failed.isEmpty(), qPrintable(name + QStringLiteral(": expected the load to fail")));
                QCOMPARE(m_errors.size(), 1);
                for (const auto& text : e["api"]["message"].get<std::vector<std::string>>()) {
                    const QString expected = QString::fromStdString(text);
                    QVERIFY2(m_errors.first().contains(expected),
                        qPrintable(name + QStringLiteral(": \"") + m_errors.first() + QStringLiteral("\" lacks \"")
                            + expected + QLatin1Char('"')));
                }
                // The previous model stays on screen.
                QCOMPARE(m_window->document()->model().get(), modelBefore);
                QCOMPARE(m_window->graphView()->scene()->operatorItemCount(), operatorsBefore);
            } else {
                ++shown;
                QVERIFY2(!opened.isEmpty(),
                    qPrintable(name + QStringLiteral(": did not open: ") + m_errors.join(QLatin1Char('\n'))));
                QVERIFY2(waitForGraph(), qPrintable(name + QStringLiteral(": no graph")));
                QVERIFY(m_window->graphView()->scene()->operatorItemCount() > 0);
            }
            // Still responsive: the search panel answers over whatever model is shown.
            m_window->searchPanel()->setQuery(QStringLiteral("r"));
            QApplication::processEvents();
            QVERIFY(m_window->isVisible());
        }
        QVERIFY(refused > 10 && shown > 10);

        // After all that, a good model opens and is fully usable.
        opened.clear();
        m_window->openModel(relu);
        QVERIFY(opened.wait(20000));
        QVERIFY(waitForGraph());
        QCOMPARE(m_window->graphView()->scene()->operatorItemCount(), 1);
        m_window->searchPanel()->setQuery(QStringLiteral("relu"));
        QVERIFY(m_window->searchPanel()->model()->rowCount() >= 1);
    }
};

QTEST_MAIN(TestCorpusGui)
#include "test_corpus_gui.moc"
