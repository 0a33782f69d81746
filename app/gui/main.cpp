// SPDX-License-Identifier: MIT
#include "ui/mainwindow/main_window.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("onnxscope"));
    QApplication::setApplicationVersion(QStringLiteral(ONNXSCOPE_VERSION));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("A debugger for ONNX models"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("The .onnx file to open"));
    parser.process(app);
    onnxscope::MainWindow window;
    window.show();
    if (!parser.positionalArguments().isEmpty())
        window.openModel(parser.positionalArguments().first());
    return app.exec();
}
