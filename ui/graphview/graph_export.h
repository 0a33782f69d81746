// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

class QGraphicsScene;

namespace onnxscope {

/// Writes the whole scene as SVG (vector, text kept as text). False with `error` set on failure.
bool exportSceneSvg(QGraphicsScene* scene, const QString& path, const QString& title, QString* error = nullptr);
/// Writes the whole scene as PNG at `scale` (reduced so that neither side exceeds 16384 pixels).
bool exportScenePng(QGraphicsScene* scene, const QString& path, double scale = 2.0, QString* error = nullptr);

} // namespace onnxscope
