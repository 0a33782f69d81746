// SPDX-License-Identifier: MIT
#pragma once

#include <QStringList>
#include <QWidget>

class QHBoxLayout;

namespace onnxscope {

/// "main › If "check" › then_branch": one button per enclosing graph; clicking one goes back to it.
class BreadcrumbBar : public QWidget {
    Q_OBJECT
public:
    explicit BreadcrumbBar(QWidget* parent = nullptr);
    void setPath(const QStringList& labels, const QStringList& toolTips = {});
    QStringList path() const { return m_labels; }

signals:
    void levelClicked(int level);

private:
    QHBoxLayout* m_layout;
    QStringList m_labels;
};

} // namespace onnxscope
