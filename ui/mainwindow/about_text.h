// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace onnxscope {

/// The desktop application id: the .desktop file, AppStream component and icon names in packaging/.
inline constexpr const char* kDesktopAppId = "io.github.onnxscope.Onnxscope";

/// "0.1.0 (onnx 1.12.0, Qt 6.4.2, Graphviz 2.43.0)": onnxscope's version and the library versions in use.
QString versionSummary();
/// The About dialog's rich text: the version summary, what onnxscope is, and its licence.
QString aboutText();
/// Makes the running application identify itself: application version (so that QCommandLineParser's --version
/// prints versionSummary()), desktop file name (window-to-launcher matching on Wayland) and the themed icon.
/// Call after constructing the QApplication and before parsing the command line.
void setApplicationIdentity();

} // namespace onnxscope
