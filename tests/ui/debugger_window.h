// SPDX-License-Identifier: MIT
#pragma once

// A shown MainWindow with the debugger's UI attached, as the GUI suites that drive the debugger build it, and the
// waits for a model to be open and laid out.

#include "ui/graphview/graph_view.h"
#include "ui/mainwindow/compare_ui.h"
#include "ui/mainwindow/debugger_ui.h"
#include "ui/mainwindow/main_window.h"

#include <QSignalSpy>
#include <QStringList>
#include <QtTest>

#include <memory>

namespace onnxscope::testing {

/// The window and its DebuggerUi; every error the window or the comparison would show in a dialog is kept in
/// `errors` instead.
struct DebuggerWindow {
    std::unique_ptr<MainWindow> window;
    DebuggerUi* debugger = nullptr;
    QStringList errors;

    /// Makes the window (1400 x 900) and shows it; false if it was never exposed.
    [[nodiscard]] bool create()
    {
        errors.clear();
        window = std::make_unique<MainWindow>();
        const auto keep = [this](const QString& title, const QString& message) {
            errors << title + QStringLiteral(": ") + message;
        };
        window->setErrorReporter(keep);
        debugger = new DebuggerUi(window.get());
        debugger->compare()->setErrorReporter(keep);
        window->resize(1400, 900);
        window->show();
        return QTest::qWaitForWindowExposed(window.get());
    }

    void destroy()
    {
        window.reset();
        debugger = nullptr;
    }

    /// Opens a model file and waits until it is open and its layout has finished.
    [[nodiscard]] bool openFile(const QString& file, int timeoutMs = 20000)
    {
        QSignalSpy opened(window.get(), &MainWindow::modelOpened);
        window->openModel(file);
        return opened.wait(timeoutMs)
            && QTest::qWaitFor([&] { return !window->graphView()->isLayoutRunning(); }, timeoutMs);
    }
};

} // namespace onnxscope::testing
