// SPDX-License-Identifier: MIT
#include "ui/common/elided_label.h"

#include <QPainter>
#include <QStyle>
#include <QStyleOption>

#include <algorithm>

namespace onnxscope {

ElidedLabel::ElidedLabel(QWidget* parent)
    : QLabel(parent)
{
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

QSize ElidedLabel::minimumSizeHint() const
{
    return { fontMetrics().horizontalAdvance(QStringLiteral("Wait\u2026")), QLabel::minimumSizeHint().height() };
}

QString ElidedLabel::shownText() const
{
    const int width = contentsRect().width() - 2 * margin();
    return fontMetrics().elidedText(text(), Qt::ElideRight, std::max(width, 0));
}

void ElidedLabel::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    QStyleOption option;
    option.initFrom(this);
    style()->drawItemText(&painter, contentsRect().adjusted(margin(), 0, -margin(), 0),
        int(alignment() | Qt::AlignVCenter), option.palette, isEnabled(), shownText(), foregroundRole());
}

} // namespace onnxscope
