// SPDX-License-Identifier: MIT
#include "ui/inputeditor/number_edit.h"

#include <QLocale>

#include <cmath>
#include <limits>

namespace onnxscope {

NumberEdit::NumberEdit(bool integral, QWidget* parent)
    : QLineEdit(parent)
    , m_integral(integral)
{
    setValue(0);
    connect(this, &QLineEdit::textEdited, this, &NumberEdit::onTextEdited);
}

std::optional<double> NumberEdit::parse(const QString& text, bool integral)
{
    QString t = text.trimmed().toLower();
    double sign = 1;
    if (t.startsWith(QLatin1Char('-')) || t.startsWith(QLatin1Char('+'))) {
        sign = t.startsWith(QLatin1Char('-')) ? -1 : 1;
        t = t.mid(1);
    }
    double v = 0;
    if (t == QStringLiteral("nan")) {
        v = std::numeric_limits<double>::quiet_NaN();
    } else if (t == QStringLiteral("inf") || t == QStringLiteral("infinity")) {
        v = std::numeric_limits<double>::infinity();
    } else {
        if (t.isEmpty() || t.startsWith(QLatin1Char('-')) || t.startsWith(QLatin1Char('+')))
            return std::nullopt;
        bool ok = false;
        v = QLocale::c().toDouble(t, &ok);
        if (!ok)
            return std::nullopt;
    }
    v *= sign;
    if (integral && (!std::isfinite(v) || v != std::floor(v) || std::abs(v) > 9.2233720368547758e18))
        return std::nullopt;
    return v;
}

QString NumberEdit::format(double value)
{
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value < 0 ? QStringLiteral("-inf") : QStringLiteral("inf");
    // The shortest text that reads back as the same double, as numpy prints it.
    for (int precision = 6; precision < 17; ++precision) {
        const QString text = QString::number(value, 'g', precision);
        if (QLocale::c().toDouble(text) == value)
            return text;
    }
    return QString::number(value, 'g', 17);
}

void NumberEdit::setValue(double value)
{
    m_value = value;
    m_acceptable = true;
    setText(format(value));
    setStyleSheet(QString());
    setToolTip(QString());
}

void NumberEdit::onTextEdited(const QString& text)
{
    const std::optional<double> v = parse(text, m_integral);
    m_acceptable = v.has_value();
    if (!v) {
        setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #c62828; }"));
        setToolTip(m_integral ? QStringLiteral("Not a whole number: type e.g. 3, -1 or 1e6")
                              : QStringLiteral("Not a number: type e.g. 0.5, -3, 1e38, nan, inf or -inf"));
        return;
    }
    setStyleSheet(QString());
    setToolTip(QString());
    const bool changed = !(*v == m_value || (std::isnan(*v) && std::isnan(m_value)));
    m_value = *v;
    if (changed)
        emit valueChanged(m_value);
}

} // namespace onnxscope
