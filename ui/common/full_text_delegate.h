// SPDX-License-Identifier: MIT
#pragma once

#include <QStyledItemDelegate>

class QAbstractItemView;

namespace onnxscope {

/// Draws a cell's text elided in the middle, so that the end of a long name (where names differ: "…then_branch_Relu_3")
/// stays visible, and shows the whole text as the tooltip of a cell that is cut (after the model's own tooltip, if
/// it has one).
class FullTextDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit FullTextDelegate(QObject* parent = nullptr);
    /// Puts a delegate on `view` and elides its cells in the middle.
    static void install(QAbstractItemView* view);

    bool helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
        const QModelIndex& index) override;
    /// The tooltip of a cell drawn in `width` pixels: the model's tooltip, plus the whole text when it is cut.
    static QString toolTipFor(const QModelIndex& index, const QFontMetrics& metrics, int width);
};

} // namespace onnxscope
