// SPDX-License-Identifier: MIT
#pragma once

// Test helper: a GUI test's QSettings (window layout, recent files, breakpoints, the memory budget) in a folder of
// its own, under an organization of its own, so that no test reads what another test or the user saved.

#include <QCoreApplication>
#include <QSettings>
#include <QString>

namespace onnxscope::testing {

inline void useOwnSettings(const QString& folder, const QString& organization)
{
    QCoreApplication::setOrganizationName(organization);
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, folder);
}

} // namespace onnxscope::testing
