// SPDX-License-Identifier: MIT
#include "ui/mainwindow/main_window.h"

#include "engine/model/model.h"

#include <QLabel>
#include <QMessageBox>

namespace onnxscope {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("onnxscope"));
    resize(1200, 800);
}

bool MainWindow::openModel(const QString& path)
{
    try {
        auto model = Model::load(path.toStdString());
        auto* label = new QLabel(QStringLiteral("%1: %2 nodes").arg(path).arg(model->graph().totalNodeCount()), this);
        setCentralWidget(label);
        return true;
    } catch (const Error& e) {
        QMessageBox::critical(this, QStringLiteral("Cannot open model"), QString::fromStdString(e.what()));
        return false;
    }
}

} // namespace onnxscope
