// SPDX-License-Identifier: MIT
#pragma once

#include <QMainWindow>

namespace onnxscope {

/// The application window (placeholder until the GUI issues land).
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    bool openModel(const QString& path);
};

} // namespace onnxscope
