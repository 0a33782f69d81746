// SPDX-License-Identifier: MIT
#include "ui/common/graph_style.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace onnxscope {

const GraphStyle& GraphStyle::instance()
{
    static const GraphStyle style = [] {
        GraphStyle s;
        s.titleFont = QFont(QStringLiteral("DejaVu Sans"));
        s.titleFont.setPointSizeF(8.5);
        s.titleFont.setBold(true);
        s.textFont = QFont(QStringLiteral("DejaVu Sans"));
        s.textFont.setPointSizeF(7.5);
        s.smallFont = QFont(QStringLiteral("DejaVu Sans"));
        s.smallFont.setPointSizeF(6.5);
        return s;
    }();
    return style;
}

const OpCategories& OpCategories::instance()
{
    static const OpCategories categories;
    return categories;
}

OpCategories::OpCategories()
    : m_default(0x6b, 0x72, 0x80)
{
    QFile file(QStringLiteral(":/op_categories.json"));
    if (!file.open(QIODevice::ReadOnly))
        return;
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    m_default = QColor(root.value(QStringLiteral("default")).toObject().value(QStringLiteral("colour")).toString());
    const QJsonObject categories = root.value(QStringLiteral("categories")).toObject();
    for (auto it = categories.begin(); it != categories.end(); ++it) {
        const QJsonObject entry = it.value().toObject();
        const QColor colour(entry.value(QStringLiteral("colour")).toString());
        for (const auto& op : entry.value(QStringLiteral("ops")).toArray()) {
            m_categoryOf.insert(op.toString(), it.key());
            m_colourOf.insert(op.toString(), colour);
        }
    }
}

QColor OpCategories::colour(const QString& opType) const
{
    return m_colourOf.value(opType, m_default);
}

QString OpCategories::category(const QString& opType) const
{
    return m_categoryOf.value(opType, QStringLiteral("Other"));
}

} // namespace onnxscope
