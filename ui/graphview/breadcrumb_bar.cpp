// SPDX-License-Identifier: MIT
#include "ui/graphview/breadcrumb_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace onnxscope {

BreadcrumbBar::BreadcrumbBar(QWidget* parent)
    : QWidget(parent)
    , m_layout(new QHBoxLayout(this))
{
    m_layout->setContentsMargins(6, 2, 6, 2);
    m_layout->setSpacing(2);
    m_layout->addStretch(1);
    setAutoFillBackground(true);
}

void BreadcrumbBar::setPath(const QStringList& labels, const QStringList& toolTips)
{
    m_labels = labels;
    while (QLayoutItem* item = m_layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (qsizetype i = 0; i < labels.size(); ++i) {
        if (i > 0) {
            auto* separator = new QLabel(QStringLiteral("\u203a"), this);
            separator->setStyleSheet(QStringLiteral("color: #8a94a6; font-size: 13px; padding: 0 2px;"));
            m_layout->addWidget(separator);
        }
        auto* button = new QToolButton(this);
        button->setText(labels[i]);
        button->setAutoRaise(true);
        if (i < toolTips.size())
            button->setToolTip(toolTips[i]);
        const bool last = i + 1 == labels.size();
        if (last) {
            QFont f = button->font();
            f.setBold(true);
            button->setFont(f);
        }
        const int level = static_cast<int>(i);
        connect(button, &QToolButton::clicked, this, [this, level] { emit levelClicked(level); });
        m_layout->addWidget(button);
    }
    m_layout->addStretch(1);
}

} // namespace onnxscope
