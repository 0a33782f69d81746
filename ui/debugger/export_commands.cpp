// SPDX-License-Identifier: MIT
#include "ui/debugger/export_commands.h"

#include "ui/debugger/debug_controller.h"
#include "ui/debugger/value_export.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QMenu>
#include <QProgressDialog>
#include <QScopeGuard>

#include <algorithm>

namespace onnxscope {

ExportCommands::ExportCommands(DebugController* controller, QWidget* dialogParent, QObject* parent)
    : QObject(parent)
    , m_controller(controller)
    , m_dialogParent(dialogParent)
    , m_exportAllAction(new QAction(QStringLiteral("Export A&ll\u2026"), this))
    , m_menu(new QMenu(QStringLiteral("&Export Values"), dialogParent))
{
    // Every intermediate to a folder, dropped values rebuilt as the writing reaches them, within the budget.
    m_exportAllAction->setObjectName(QStringLiteral("exportAllAction"));
    m_exportAllAction->setToolTip(
        QStringLiteral("Write every intermediate of this run to a folder: one .npy per value and manifest.json, as "
                       "onnxscope-cli run --dump-all writes them; values dropped to stay under the memory budget are "
                       "rebuilt on the way"));
    connect(m_exportAllAction, &QAction::triggered, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(
            m_dialogParent, QStringLiteral("Folder for every value (.npy files and manifest.json)"));
        if (!folder.isEmpty())
            exportAllValues(folder);
    });
    connect(m_controller, &DebugController::exportProgress, this, [this](qint64 done, qint64 total) {
        if (!m_progress)
            return;
        m_progress->setMaximum(static_cast<int>(std::max<qint64>(total, 1)));
        m_progress->setValue(static_cast<int>(done));
    });
    connect(m_controller, &DebugController::exportFinished, this,
        [this](bool ok, bool cancelled, const QString& message, qint64) {
            if (m_progress) {
                m_progress->reset();
                m_progress->deleteLater();
            }
            m_folder.clear();
            m_lastMessage = message;
            emit busyChanged();
            if (ok)
                emit statusMessage(QStringLiteral("Exported: %1").arg(message), 10000);
            else if (cancelled)
                emit statusMessage(QStringLiteral("Export cancelled: %1").arg(message), 10000);
            else
                emit exportAllFailed(message);
            emit exportFinished(ok);
        });
    const std::pair<const char*, const char*> exports[] = {
        { "Selected Tensor (.npy, .pb, .csv)\u2026", "tensor" },
        { "All Values as .npz\u2026", "npz" },
        { "All Values as .npy Files\u2026", "npy" },
        { "All Values as TensorProto .pb Files\u2026", "pb" },
        { "Summary of All Values (JSON)\u2026", "json" },
        { "Debug Model (values as initializers)\u2026", "debug-model" },
    };
    for (const auto& [text, format] : exports) {
        QAction* a = m_menu->addAction(QString::fromUtf8(text));
        const QString f = QString::fromLatin1(format);
        connect(a, &QAction::triggered, this, [this, f] { emit exportRequested(f); });
        m_formatActions << a;
    }
}

void ExportCommands::updateActions(bool haveValues, bool haveTensor)
{
    for (QAction* a : m_formatActions)
        a->setEnabled(haveValues || (a == m_formatActions.first() && haveTensor));
    m_exportAllAction->setEnabled(haveValues && !m_controller->exporting());
}

bool ExportCommands::exportAllValues(const QString& folder)
{
    if (!m_controller->exportValues(folder)) {
        emit statusText(m_controller->exporting() ? QStringLiteral("An export is under way.")
                                                  : QStringLiteral("Nothing to export: run the model first."));
        return false;
    }
    m_folder = folder;
    emit busyChanged();
    m_progress = new QProgressDialog(
        QStringLiteral("Writing every value to %1\u2026").arg(folder), QStringLiteral("Cancel"), 0, 0, m_dialogParent);
    m_progress->setObjectName(QStringLiteral("exportAllProgress"));
    m_progress->setWindowTitle(QStringLiteral("Export All"));
    m_progress->setWindowModality(Qt::WindowModal);
    m_progress->setMinimumDuration(500);
    m_progress->setAutoClose(false);
    m_progress->setAutoReset(false);
    connect(m_progress, &QProgressDialog::canceled, m_controller, &DebugController::cancelExport);
    return true;
}

bool ExportCommands::exportTensor(const QString& path, const Tensor& tensor, const QString& name)
{
    try {
        onnxscope::exportTensor(path, tensor, name);
        emit statusMessage(QStringLiteral("Exported %1").arg(path), 5000);
        return true;
    } catch (const std::exception& e) {
        emit failed(QStringLiteral("Export failed"), QString::fromStdString(e.what()));
        return false;
    }
}

bool ExportCommands::exportAll(const QString& path, const QString& format)
{
    if (!m_controller->snapshot()) {
        emit failed(QStringLiteral("Export failed"), QStringLiteral("Nothing to export: run the model first."));
        return false;
    }
    try {
        // Every value's data: those the run kept only as summaries are rebuilt first.
        DebugSnapshotPtr s;
        {
            QApplication::setOverrideCursor(Qt::WaitCursor);
            const auto restore = qScopeGuard([] { QApplication::restoreOverrideCursor(); });
            s = m_controller->snapshotWithData();
        }
        if (!s)
            throw Error("a command or an export is under way");
        int count = 0;
        if (format == QStringLiteral("npz"))
            count = exportAllNpz(path, *s);
        else if (format == QStringLiteral("npy"))
            count = exportAllToFolder(path, *s, QStringLiteral(".npy"));
        else if (format == QStringLiteral("pb"))
            count = exportAllToFolder(path, *s, QStringLiteral(".pb"));
        else if (format == QStringLiteral("json")) {
            exportJsonSummary(path, *s);
            count = static_cast<int>(s->values.size());
        } else if (format == QStringLiteral("debug-model"))
            count = exportDebugModel(path, *s);
        else
            throw Error("unknown export format " + format.toStdString());
        emit statusMessage(QStringLiteral("Exported %1 values to %2").arg(count).arg(path), 5000);
        return true;
    } catch (const std::exception& e) {
        emit failed(QStringLiteral("Export failed"), QString::fromStdString(e.what()));
        return false;
    }
}

void ExportCommands::showDialog(
    const QString& format, const QString& baseName, const Tensor& tensor, const QString& tensorName)
{
    QString path;
    if (format == QStringLiteral("tensor")) {
        path = QFileDialog::getSaveFileName(m_dialogParent, QStringLiteral("Export tensor"),
            safeFileName(tensorName) + QStringLiteral(".npy"),
            QStringLiteral("numpy (*.npy);;TensorProto (*.pb);;CSV (*.csv)"));
        if (!path.isEmpty())
            exportTensor(path, tensor, tensorName);
        return;
    }
    if (format == QStringLiteral("npy") || format == QStringLiteral("pb"))
        path = QFileDialog::getExistingDirectory(m_dialogParent, QStringLiteral("Folder for the %1 files").arg(format));
    else if (format == QStringLiteral("npz"))
        path = QFileDialog::getSaveFileName(m_dialogParent, QStringLiteral("Export all values"),
            baseName + QStringLiteral("_values.npz"), QStringLiteral("numpy archive (*.npz)"));
    else if (format == QStringLiteral("json"))
        path = QFileDialog::getSaveFileName(m_dialogParent, QStringLiteral("Export summary"),
            baseName + QStringLiteral("_values.json"), QStringLiteral("JSON (*.json)"));
    else
        path = QFileDialog::getSaveFileName(m_dialogParent, QStringLiteral("Export debug model"),
            baseName + QStringLiteral("_debug.onnx"), QStringLiteral("ONNX (*.onnx)"));
    if (!path.isEmpty())
        exportAll(path, format);
}

} // namespace onnxscope
