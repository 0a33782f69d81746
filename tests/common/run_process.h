// SPDX-License-Identifier: MIT
#pragma once

// Test helper: runs a program to its end and keeps what it printed.

#include <QProcess>
#include <QString>
#include <QStringList>

namespace onnxscope::testing {

struct ProcessResult {
    int code = -1; // the exit code; -1: timed out (killed), -2: crashed
    QString out, err;
};

/// Runs `program` with `args`, waiting at most `timeoutMs`.
inline ProcessResult runProcess(const QString& program, const QStringList& args, int timeoutMs)
{
    QProcess p;
    p.start(program, args);
    ProcessResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    return r;
}

} // namespace onnxscope::testing
