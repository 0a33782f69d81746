// SPDX-License-Identifier: MIT
#include "ui/graphview/graph_export.h"

#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

namespace onnxscope {

bool exportSceneSvg(QGraphicsScene* scene, const QString& path, const QString& title, QString* error)
{
    const QRectF source = scene ? scene->sceneRect() : QRectF();
    if (source.isEmpty()) {
        if (error)
            *error = QStringLiteral("There is no graph to export.");
        return false;
    }
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("Exported by onnxscope"));
    generator.setSize(source.size().toSize());
    generator.setViewBox(QRectF(QPointF(0, 0), source.size()));
    generator.setResolution(72);
    QPainter painter;
    if (!painter.begin(&generator)) {
        if (error)
            *error = QStringLiteral("Cannot write %1").arg(path);
        return false;
    }
    scene->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
    painter.end();
    return true;
}

bool exportScenePng(QGraphicsScene* scene, const QString& path, double scale, QString* error)
{
    const QRectF source = scene ? scene->sceneRect() : QRectF();
    if (source.isEmpty()) {
        if (error)
            *error = QStringLiteral("There is no graph to export.");
        return false;
    }
    const double largest = std::max(source.width(), source.height()) * scale;
    if (largest > 16384)
        scale *= 16384 / largest;
    QImage image((source.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    image.fill(scene->backgroundBrush().color());
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene->render(&painter, QRectF(QPointF(0, 0), QSizeF(image.size())), source);
    painter.end();
    if (!image.save(path, "PNG")) {
        if (error)
            *error = QStringLiteral("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

} // namespace onnxscope
