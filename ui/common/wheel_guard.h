// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

namespace onnxscope {

/// Keeps the mouse wheel from changing a combo box or spin box that does not have the keyboard focus: the wheel
/// scrolls what contains it instead (a dock of inputs scrolls past its drop-downs). Click or tab into the box first to
/// change it with the wheel. Installed once on the application.
class WheelGuard : public QObject {
    Q_OBJECT
public:
    explicit WheelGuard(QObject* parent = nullptr);
    /// Installs one guard on the application (again: nothing).
    static void install();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

} // namespace onnxscope
