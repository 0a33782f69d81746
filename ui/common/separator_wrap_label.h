// SPDX-License-Identifier: MIT
#pragma once

#include <QLabel>

class QFontMetrics;

namespace onnxscope {

/// A label for a type or a shape ("float[p2o.DynamicDimension.0, 3, 48, p2o.DynamicDimension.1]") that breaks its
/// lines only after a separator (", " or "[") and cuts a part wider than the label in the middle, never inside a
/// name; the whole text is its tooltip when a part is cut. It can shrink to any width (the dock scrolls otherwise).
class SeparatorWrapLabel : public QLabel {
    Q_OBJECT
public:
    explicit SeparatorWrapLabel(const QString& text, QWidget* parent = nullptr);

    /// The text as given, without the line breaks and cuts of the current width.
    const QString& fullText() const { return m_fullText; }
    QSize minimumSizeHint() const override;

    /// `text` broken into lines of at most `width` pixels after its separators, each part still too wide cut in
    /// the middle with "…".
    static QString wrapped(const QString& text, const QFontMetrics& metrics, int width);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void relayout();

    QString m_fullText;
};

} // namespace onnxscope
