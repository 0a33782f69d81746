// SPDX-License-Identifier: MIT
#include "ui/common/wheel_guard.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
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

bool WheelGuard::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::Wheel || !watched->isWidgetType())
        return false;
    auto* widget = static_cast<QWidget*>(watched);
    // A spin box's wheel events arrive at its line edit first.
    QWidget* box = widget;
    if (auto* parent = widget->parentWidget(); parent && qobject_cast<QAbstractSpinBox*>(parent))
        box = parent;
    if (!qobject_cast<QComboBox*>(box) && !qobject_cast<QAbstractSpinBox*>(box))
        return false;
    if (box->hasFocus())
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
