// SPDX-License-Identifier: MIT
#pragma once

#include <QLineEdit>

#include <optional>

namespace onnxscope {

/// A number typed as numpy writes it: "0.5", "-3", "1e38", "nan", "inf", "-inf" (any case), over the whole range of a
/// double. Text that is not a number is refused visibly (a red frame and a tooltip that says why), and value() keeps
/// the last good number. With `integral`, only whole numbers within ±2^63 are accepted.
class NumberEdit : public QLineEdit {
    Q_OBJECT
public:
    explicit NumberEdit(bool integral, QWidget* parent = nullptr);

    double value() const { return m_value; }
    void setValue(double value);
    /// Whether the text is a number this box accepts.
    bool isAcceptable() const { return m_acceptable; }

    /// The number `text` holds as numpy writes it, if any.
    static std::optional<double> parse(const QString& text, bool integral);
    /// `value` as numpy writes it: "nan", "inf", "-inf", "1e+38", "0.5".
    static QString format(double value);

signals:
    void valueChanged(double value);

private:
    void onTextEdited(const QString& text);
    bool m_integral;
    double m_value = 0;
    bool m_acceptable = true;
};

} // namespace onnxscope
