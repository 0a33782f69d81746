// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

namespace onnxscope {

/// Keeps the mouse wheel from changing a combo box or spin box that the user has not clicked or tabbed into: the wheel
/// scrolls what contains it instead (a dock of inputs scrolls past its drop-downs). A box that got the keyboard focus
/// otherwise (the window's first focus, or from a neighbour being disabled) ignores the wheel too, and the wheel itself
/// gives no box the focus. Installed once on the application.
class WheelGuard : public QObject {
    Q_OBJECT
public:
    explicit WheelGuard(QObject* parent = nullptr);
    /// Installs one guard on the application (again: nothing).
    static void install();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    bool m_tabbing = false; ///< between the Tab key's press and release
};

} // namespace onnxscope
