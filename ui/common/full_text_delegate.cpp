// SPDX-License-Identifier: MIT
#include "ui/common/full_text_delegate.h"

#include <QAbstractItemView>
#include <QHelpEvent>
#include <QToolTip>

namespace onnxscope {

FullTextDelegate::FullTextDelegate(QObject* parent)
    : QStyledItemDelegate(parent)
{
}

void FullTextDelegate::install(QAbstractItemView* view)
{
    view->setTextElideMode(Qt::ElideMiddle);
    view->setItemDelegate(new FullTextDelegate(view));
}

QString FullTextDelegate::toolTipFor(const QModelIndex& index, const QFontMetrics& metrics, int width)
{
    const QString own = index.data(Qt::ToolTipRole).toString();
    const QString text = index.data(Qt::DisplayRole).toString();
    // The cell's margins and a decoration take some of the width.
    const bool cut = !text.isEmpty() && metrics.horizontalAdvance(text) > width - 8;
    if (!cut || own.contains(text))
        return own;
    return own.isEmpty() ? text : text + QStringLiteral("\n\n") + own;
}

bool FullTextDelegate::helpEvent(
    QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option, const QModelIndex& index)
{
    if (!event || !view || event->type() != QEvent::ToolTip || !index.isValid())
        return QStyledItemDelegate::helpEvent(event, view, option, index);
    const QString tip = toolTipFor(index, option.fontMetrics, option.rect.width());
    if (tip.isEmpty()) {
        QToolTip::hideText();
        return false;
    }
    QToolTip::showText(event->globalPos(), tip, view);
    return true;
}

} // namespace onnxscope
