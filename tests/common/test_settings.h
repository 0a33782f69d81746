// SPDX-License-Identifier: MIT
#pragma once

// Test helper: a GUI test's settings (window layout, recent files, breakpoints, the memory budget) in a folder of its
// own, so that no test reads what another test or the user saved. CTest also gives every test its own
// XDG_CONFIG_HOME (tests/CMakeLists.txt); this keeps a test run by hand off the user's settings too.

#include "ui/common/settings.h"

#include <QCoreApplication>
#include <QSettings>
#include <QString>

namespace onnxscope::testing {

inline void useOwnSettings(const QString& folder, const QString& organization)
{
    QCoreApplication::setOrganizationName(organization);
    Settings::useFile(folder + QStringLiteral("/onnxscope.conf"));
    // What Qt itself keeps (QFileDialog's "QtProject" settings) goes there too.
    for (const QSettings::Format format : { QSettings::NativeFormat, QSettings::IniFormat })
        QSettings::setPath(format, QSettings::UserScope, folder);
}

} // namespace onnxscope::testing
