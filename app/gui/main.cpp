// SPDX-License-Identifier: MIT
#include "app/gui/debug_benchmark.h"
#include "ui/common/model_document.h"
#include "ui/common/settings.h"
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/search_panel.h"
#include "ui/inputeditor/inputs_panel.h"
#include "ui/mainwindow/about_text.h"
#include "ui/mainwindow/compare_ui.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/extract_ui.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/precision_ui.h"
#include "ui/mainwindow/quant_error_ui.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("onnxscope"));
    QApplication::setOrganizationName(QStringLiteral("onnxscope"));
    onnxscope::setApplicationIdentity();
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("A debugger for ONNX models"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("model"), QStringLiteral("The .onnx file to open (default: the bundled sample)"));
    QCommandLineOption benchmark(QStringLiteral("benchmark-open"),
        QStringLiteral("Print the time from open to the first drawn graph as JSON, then quit."));
    benchmark.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption benchmarkDebug(QStringLiteral("benchmark-debug"),
        QStringLiteral("Once opened, press F5 <runs> times (inputs from --debug-input) and print each run's times as "
                       "JSON, then quit."),
        QStringLiteral("runs"));
    QCommandLineOption benchmarkThreads(QStringLiteral("benchmark-threads"),
        QStringLiteral("Threads of --benchmark-debug's runs."), QStringLiteral("n"), QStringLiteral("1"));
    QCommandLineOption benchmarkProfile(QStringLiteral("benchmark-record-profile"),
        QStringLiteral("--benchmark-debug with Debug > Record Profile on."));
    QCommandLineOption find(QStringLiteral("find"),
        QStringLiteral("Search for <text> once the graph is drawn and go to the first match."), QStringLiteral("text"));
    parser.addOption(benchmark);
    parser.addOption(find);
    // For demos and screenshots: set inputs, run to a node and inspect a value once the model is open.
    QCommandLineOption debugInput(
        QStringLiteral("debug-input"), QStringLiteral("Input <name=file.npy|.pb>."), QStringLiteral("name=file"));
    QCommandLineOption debugRunTo(
        QStringLiteral("debug-run-to"), QStringLiteral("Run to <node> once opened."), QStringLiteral("node"));
    QCommandLineOption debugInspect(
        QStringLiteral("debug-inspect"), QStringLiteral("Inspect <value> when stopped."), QStringLiteral("value"));
    QCommandLineOption compareWith(QStringLiteral("compare-with"),
        QStringLiteral("Compare with <model.onnx|reference> once opened."), QStringLiteral("other"));
    QCommandLineOption compareDiff(QStringLiteral("compare-diff"),
        QStringLiteral("Open <value>'s diff after comparing."), QStringLiteral("value"));
    QCommandLineOption compareByModule(QStringLiteral("compare-by-module"),
        QStringLiteral("--compare-with's .npz holds PyTorch module outputs (onnxscope.torch.capture)."));
    QCommandLineOption checkPrecision(QStringLiteral("check-precision"),
        QStringLiteral("Check precision (fp16 or bf16) once opened."), QStringLiteral("target"));
    for (QCommandLineOption* option : { &debugInput, &debugRunTo, &debugInspect, &compareWith, &compareDiff,
             &compareByModule, &checkPrecision, &benchmarkDebug, &benchmarkThreads, &benchmarkProfile }) {
        option->setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(*option);
    }
    parser.process(app);
    // Measuring and scripted runs start from the defaults and leave the user's settings as they were: no layout,
    // recent file or choice of theirs is read or written.
    for (const QCommandLineOption* option : { &benchmark, &debugInput, &debugRunTo, &debugInspect, &compareWith,
             &compareDiff, &checkPrecision, &benchmarkDebug })
        if (parser.isSet(*option))
            onnxscope::Settings::useMemory();

    onnxscope::MainWindow window;
    auto* debugger = new onnxscope::DebuggerUi(&window);
    new onnxscope::ExtractUi(&window, debugger->inputs(), debugger->compare());
    new onnxscope::QuantErrorUi(&window, debugger->compare());
    auto* precision = new onnxscope::PrecisionUi(&window, debugger);
    if (parser.isSet(checkPrecision)) {
        if (!parser.isSet(debugRunTo) && !parser.isSet(compareWith))
            for (const QString& item : parser.values(debugInput))
                QObject::connect(&window, &onnxscope::MainWindow::modelOpened, debugger, [debugger, item] {
                    debugger->inputs()->setFile(
                        item.section(QLatin1Char('='), 0, 0), item.section(QLatin1Char('='), 1));
                });
        precision->scheduleCheck(parser.value(checkPrecision).startsWith(QStringLiteral("bf"))
                ? onnxscope::DataType::BFloat16
                : onnxscope::DataType::Float16);
    }
    if (parser.isSet(benchmarkDebug))
        onnxscope::scheduleDebugBenchmark(window, *debugger, parser.values(debugInput),
            parser.value(benchmarkDebug).toInt(), parser.value(benchmarkThreads).toInt(),
            parser.isSet(benchmarkProfile));
    else if (parser.isSet(debugRunTo))
        debugger->scheduleRun(parser.values(debugInput), parser.value(debugRunTo), parser.value(debugInspect));
    if (parser.isSet(compareWith)) {
        if (!parser.isSet(debugRunTo))
            for (const QString& item : parser.values(debugInput))
                QObject::connect(&window, &onnxscope::MainWindow::modelOpened, debugger, [debugger, item] {
                    debugger->inputs()->setFile(
                        item.section(QLatin1Char('='), 0, 0), item.section(QLatin1Char('='), 1));
                });
        debugger->compare()->scheduleCompare(
            parser.value(compareWith), parser.value(compareDiff), parser.isSet(compareByModule));
    }
    QString path = parser.positionalArguments().isEmpty() ? onnxscope::MainWindow::bundledSamplePath()
                                                          : parser.positionalArguments().first();
    QElapsedTimer timer;
    bool firstDraw = true;
    double layoutMs = 0;
    QObject::connect(
        window.graphView(), &onnxscope::GraphView::layoutFinished, &window, [&](bool, double ms) { layoutMs = ms; });
    QObject::connect(window.graphView(), &onnxscope::GraphView::graphDrawn, &window, [&] {
        if (!firstDraw)
            return;
        firstDraw = false;
        if (parser.isSet(find)) {
            window.searchPanel()->setQuery(parser.value(find));
            window.searchPanel()->next();
        }
        if (parser.isSet(benchmark)) {
            const double drawnMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
            const double firstLayout = layoutMs;
            const size_t boxes = window.graphView()->scene()->nodeItems().size();
            const size_t edges = window.graphView()->scene()->edgeItems().size();
            // Then wait for shape inference and the relabelling layout it starts, and report both.
            auto* poll = new QTimer(&window);
            QObject::connect(poll, &QTimer::timeout, &window, [&, poll, drawnMs, firstLayout, boxes, edges] {
                if (!window.document()->typesReady() || window.graphView()->isLayoutRunning())
                    return;
                poll->stop();
                std::printf("{\"model\": \"%s\", \"open_to_first_draw_ms\": %.1f, \"load_ms\": %.1f, "
                            "\"first_layout_ms\": %.1f, "
                            "\"boxes\": %zu, \"edges\": %zu, \"with_inferred_types_ms\": %.1f}\n",
                    path.toUtf8().constData(), drawnMs, window.document()->loadMilliseconds(), firstLayout, boxes,
                    edges, static_cast<double>(timer.nsecsElapsed()) / 1e6);
                std::fflush(stdout);
                QTimer::singleShot(0, &app, &QApplication::quit);
            });
            poll->start(2);
        }
    });
    if (parser.isSet(benchmark))
        QObject::connect(
            &window, &onnxscope::MainWindow::modelOpenFailed, &app, [&](const QString&, const QString& message) {
                std::fprintf(stderr, "%s\n", message.toUtf8().constData());
                QCoreApplication::exit(1);
            });
    if (parser.isSet(benchmark))
        window.setErrorReporter([](const QString&, const QString&) {});
    window.show();
    timer.start();
    if (!path.isEmpty())
        window.openModel(path);
    return app.exec();
}
