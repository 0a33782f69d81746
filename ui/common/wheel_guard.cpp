// SPDX-License-Identifier: MIT
#include "ui/common/wheel_guard.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QWheelEvent>

namespace onnxscope {

WheelGuard::WheelGuard(QObject* parent)
    : QObject(parent)
{
}

void WheelGuard::install()
{
    if (!qApp || qApp->findChild<WheelGuard*>(QString(), Qt::FindDirectChildrenOnly))
        return;
    qApp->installEventFilter(new WheelGuard(qApp));
}

namespace {

/// The box a combo box or spin box (or a spin box's line edit) belongs to, or null.
QWidget* boxOf(QObject* watched)
{
    if (!watched->isWidgetType())
        return nullptr;
    auto* widget = static_cast<QWidget*>(watched);
    // A spin box's events arrive at its line edit first.
    QWidget* box = widget;
    if (auto* parent = widget->parentWidget(); parent && qobject_cast<QAbstractSpinBox*>(parent))
        box = parent;
    return qobject_cast<QComboBox*>(box) || qobject_cast<QAbstractSpinBox*>(box) ? box : nullptr;
}

/// Set on a box the user clicked or tabbed into.
constexpr char kChosen[] = "onnxscopeWheelChosen";

} // namespace

bool WheelGuard::eventFilter(QObject* watched, QEvent* event)
{
    switch (event->type()) {
    case QEvent::KeyPress:
    case QEvent::KeyRelease: {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if (key == Qt::Key_Tab || key == Qt::Key_Backtab)
            m_tabbing = event->type() == QEvent::KeyPress;
        return false;
    }
    case QEvent::Polish:
        // Combo and spin boxes take the focus from the wheel by default (Qt::WheelFocus): scrolling over one would
        // choose it. They take it from clicks and the Tab key only.
        if (QWidget* box = boxOf(watched); box == watched && box->focusPolicy() == Qt::WheelFocus)
            box->setFocusPolicy(Qt::StrongFocus);
        return false;
    case QEvent::MouseButtonPress: // a click into a box that had the focus already
        if (QWidget* box = boxOf(watched))
            box->setProperty(kChosen, true);
        return false;
    case QEvent::FocusIn: {
        QWidget* box = boxOf(watched);
        if (!box)
            return false;
        // The focus the window gives back on activation, or a popup's, leaves the choice as it was. The window's
        // first focus, and a disabled box handing the focus on (a Tab focus without the Tab key), are not a choice.
        switch (static_cast<QFocusEvent*>(event)->reason()) {
        case Qt::MouseFocusReason:
        case Qt::ShortcutFocusReason:
            box->setProperty(kChosen, true);
            break;
        case Qt::TabFocusReason:
        case Qt::BacktabFocusReason:
            box->setProperty(kChosen, m_tabbing);
            break;
        case Qt::ActiveWindowFocusReason:
        case Qt::PopupFocusReason:
            break;
        default:
            box->setProperty(kChosen, false);
            break;
        }
        return false;
    }
    case QEvent::Wheel:
        break;
    default:
        return false;
    }
    QWidget* box = boxOf(watched);
    if (!box || (box->hasFocus() && box->property(kChosen).toBool()))
        return false;
    // Pass the wheel on to what contains the box, as if the box were not there.
    if (QWidget* container = box->parentWidget()) {
        auto* wheel = static_cast<QWheelEvent*>(event);
        const QPointF at = container->mapFromGlobal(wheel->globalPosition());
        QWheelEvent forwarded(at, wheel->globalPosition(), wheel->pixelDelta(), wheel->angleDelta(), wheel->buttons(),
            wheel->modifiers(), wheel->phase(), wheel->inverted(), wheel->source());
        QCoreApplication::sendEvent(container, &forwarded);
    }
    return true;
}

} // namespace onnxscope
