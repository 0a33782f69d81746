// SPDX-License-Identifier: MIT
#include "ui/common/separator_wrap_label.h"

#include <QFontMetrics>
#include <QResizeEvent>

#include <algorithm>

namespace onnxscope {

SeparatorWrapLabel::SeparatorWrapLabel(const QString& text, QWidget* parent)
    : QLabel(parent)
    , m_fullText(text)
{
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    relayout();
}

QSize SeparatorWrapLabel::minimumSizeHint() const
{
    return { fontMetrics().horizontalAdvance(QStringLiteral("W\u2026W")), QLabel::minimumSizeHint().height() };
}

QString SeparatorWrapLabel::wrapped(const QString& text, const QFontMetrics& metrics, int width)
{
    // Parts end after ", " or "[": "float[" "p2o.DynamicDimension.0, " "3, " "48, " "p2o.DynamicDimension.1]".
    QStringList parts;
    qsizetype start = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const bool comma = text[i] == QLatin1Char(',') && i + 1 < text.size() && text[i + 1] == QLatin1Char(' ');
        if (comma || text[i] == QLatin1Char('[')) {
            const qsizetype end = comma ? i + 2 : i + 1;
            parts << text.mid(start, end - start);
            start = end;
        }
    }
    if (start < text.size())
        parts << text.mid(start);
    QStringList lines;
    QString line;
    for (const QString& part : parts) {
        if (!line.isEmpty() && metrics.horizontalAdvance((line + part).trimmed()) > width) {
            lines << line.trimmed();
            line.clear();
        }
        line += part;
    }
    if (!line.isEmpty())
        lines << line.trimmed();
    for (QString& l : lines)
        if (metrics.horizontalAdvance(l) > width)
            l = metrics.elidedText(l, Qt::ElideMiddle, std::max(width, 1));
    return lines.join(QLatin1Char('\n'));
}

void SeparatorWrapLabel::resizeEvent(QResizeEvent* event)
{
    QLabel::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
        relayout();
}

void SeparatorWrapLabel::relayout()
{
    const int width = contentsRect().width() - 2 * margin() - 2 * std::max(indent(), 0); // indent() -1: none here
    const QString shown = width > 0 ? wrapped(m_fullText, fontMetrics(), width) : m_fullText;
    if (shown != text())
        setText(shown);
    setToolTip(shown.contains(QChar(0x2026)) ? m_fullText : QString());
}

} // namespace onnxscope
