// SPDX-License-Identifier: MIT
#include "ui/mainwindow/about_text.h"

#include "engine/core/version.h"

#include <QGuiApplication>
#include <QIcon>

// Set on this file alone by packaging/CMakeLists.txt from pkg-config's libgvc version.
#ifndef ONNXSCOPE_GRAPHVIZ_VERSION
#error "ONNXSCOPE_GRAPHVIZ_VERSION missing: see packaging/CMakeLists.txt"
#endif

namespace onnxscope {

QString versionSummary()
{
    return QStringLiteral("%1 (onnx %2, Qt %3, Graphviz %4)")
        .arg(QLatin1String(onnxscopeVersion()), QLatin1String(onnxLibraryVersion()), QLatin1String(qVersion()),
            QStringLiteral(ONNXSCOPE_GRAPHVIZ_VERSION));
}

QString aboutText()
{
    return QStringLiteral("<h3>onnxscope %1</h3>"
                          "<p>A debugger for ONNX models.</p>"
                          "<p>Built with onnx %2 and protobuf %3; running on Qt %4 (built with %5); "
                          "graphs laid out by Graphviz %6.</p>"
                          "<p>Released under the MIT licence.</p>")
        .arg(QLatin1String(onnxscopeVersion()), QLatin1String(onnxLibraryVersion()),
            QLatin1String(protobufLibraryVersion()), QLatin1String(qVersion()), QStringLiteral(QT_VERSION_STR),
            QStringLiteral(ONNXSCOPE_GRAPHVIZ_VERSION));
}

void setApplicationIdentity()
{
    const QString appId = QLatin1String(kDesktopAppId);
    QGuiApplication::setApplicationVersion(versionSummary());
    QGuiApplication::setDesktopFileName(appId);
    // Installed into the hicolor theme by packaging/; from a build tree the theme has no such icon and Qt keeps
    // its default.
    const QIcon icon = QIcon::fromTheme(appId);
    if (!icon.isNull())
        QGuiApplication::setWindowIcon(icon);
}

} // namespace onnxscope
