// SPDX-License-Identifier: MIT
#include "ui/graphview/graph_scene.h"
#include "ui/graphview/graph_view.h"
#include "ui/graphview/search_panel.h"
#include "ui/mainwindow/main_window.h"

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
    QApplication::setApplicationVersion(QStringLiteral(ONNXSCOPE_VERSION));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("A debugger for ONNX models"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("The .onnx file to open (default: the bundled sample)"));
    QCommandLineOption benchmark(QStringLiteral("benchmark-open"),
        QStringLiteral("Print the time from open to the first drawn graph as JSON, then quit."));
    benchmark.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption find(QStringLiteral("find"), QStringLiteral("Search for <text> once the graph is drawn and go to the first match."),
        QStringLiteral("text"));
    parser.addOption(benchmark);
    parser.addOption(find);
    parser.process(app);

    onnxscope::MainWindow window;
    QString path = parser.positionalArguments().isEmpty() ? onnxscope::MainWindow::bundledSamplePath() : parser.positionalArguments().first();
    QElapsedTimer timer;
    bool firstDraw = true;
    QObject::connect(window.graphView(), &onnxscope::GraphView::graphDrawn, &window, [&] {
        if (!firstDraw)
            return;
        firstDraw = false;
        if (parser.isSet(find)) {
            window.searchPanel()->setQuery(parser.value(find));
            window.searchPanel()->next();
        }
        if (parser.isSet(benchmark)) {
            std::printf("{\"model\": \"%s\", \"open_to_first_draw_ms\": %.1f, \"boxes\": %zu, \"edges\": %zu}\n",
                path.toUtf8().constData(), static_cast<double>(timer.nsecsElapsed()) / 1e6,
                window.graphView()->scene()->items().size() ? static_cast<size_t>(window.graphView()->scene()->nodeItems().size()) : size_t(0),
                window.graphView()->scene()->edgeItems().size());
            std::fflush(stdout);
            QTimer::singleShot(0, &app, &QApplication::quit);
        }
    });
    if (parser.isSet(benchmark))
        QObject::connect(&window, &onnxscope::MainWindow::modelOpenFailed, &app, [&](const QString&, const QString& message) {
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
