// SPDX-License-Identifier: MIT
#pragma once

// Test helper: runs a script with Debian's python3 (which has onnx and numpy).

#include <QProcess>
#include <QString>

namespace onnxscope::testing {

/// Runs `/usr/bin/python3 -c script`; returns its trimmed stdout, or a message starting "python timed out" /
/// "python failed: " with its stderr.
inline QString runPython(const QString& script, int timeoutMs = 120000)
{
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"), { QStringLiteral("-c"), script });
    if (!p.waitForFinished(timeoutMs))
        return QStringLiteral("python timed out");
    const QString err = QString::fromUtf8(p.readAllStandardError());
    if (p.exitCode() != 0)
        return QStringLiteral("python failed: ") + err;
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

} // namespace onnxscope::testing
