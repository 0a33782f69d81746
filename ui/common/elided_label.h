// SPDX-License-Identifier: MIT
#pragma once

#include <QLabel>

namespace onnxscope {

/// A one-line label that ends its text with "…" when it is wider than the label, instead of cutting it off mid-word,
/// and can shrink below its text's width (a status bar gives it what the permanent widgets leave). text() keeps the
/// whole of it.
class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;
    /// The text as drawn at the current width.
    QString shownText() const;

protected:
    void paintEvent(QPaintEvent* event) override;
};

} // namespace onnxscope
