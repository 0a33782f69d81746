// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QFont>
#include <QHash>
#include <QString>

namespace onnxscope {

/// Fonts, colours and metrics shared by the graph items and by the code that measures them before layout.
struct GraphStyle {
    QFont titleFont;
    QFont textFont;
    QFont smallFont;
    double headerHeight = 22;
    double rowHeight = 14;
    double padding = 8;
    double minNodeWidth = 64;
    double maxNodeWidth = 260;
    QColor accent { 0x1e, 0x88, 0xe5 };
    QColor edgeColour { 0x70, 0x76, 0x80 };
    QColor textColour { 0x1f, 0x29, 0x37 };
    QColor mutedText { 0x6b, 0x72, 0x80 };
    QColor actualText { 0x1b, 0x5e, 0x20 }; // what a run produced: executed edges' and terminals' actual types
    QColor background { 0xfa, 0xfb, 0xfc };

    static const GraphStyle& instance();
};

/// Operator categories and their header colours, read from resources/op_categories.json.
class OpCategories {
public:
    static const OpCategories& instance();
    QColor colour(const QString& opType) const;
    QString category(const QString& opType) const;

private:
    OpCategories();
    QHash<QString, QString> m_categoryOf;
    QHash<QString, QColor> m_colourOf;
    QColor m_default;
};

} // namespace onnxscope
