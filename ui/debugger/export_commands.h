// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

class QAction;
class QMenu;
class QProgressDialog;
class QWidget;

namespace onnxscope {

class DebugController;

/// The debugger's export commands: Debug › Export All… (every intermediate of the stopped run to a folder, dropped
/// values rebuilt, with a progress dialog that cancels), the Debug › Export Values menu (a tensor, every value as .npz,
/// .npy or .pb files, a JSON summary, a debug model) and their file dialogs. Failures are reported through failed()
/// and exportAllFailed(), successes through statusMessage(); what the composition root owns (the inspected tensor, the
/// model's name) is given to each call.
class ExportCommands : public QObject {
    Q_OBJECT
public:
    ExportCommands(DebugController* controller, QWidget* dialogParent, QObject* parent);

    QAction* exportAllAction() const { return m_exportAllAction; }
    /// Debug › Export Values; its first action is "Selected Tensor".
    QMenu* menu() const { return m_menu; }
    const QList<QAction*>& formatActions() const { return m_formatActions; }
    /// Enables the actions: `haveValues` a stopped run to export, `haveTensor` a tensor in the inspector.
    void updateActions(bool haveValues, bool haveTensor);

    /// Every intermediate to `folder` (.npy per value and manifest.json, as run --dump-all); whether it started.
    bool exportAllValues(const QString& folder);
    bool exportTensor(const QString& path, const Tensor& tensor, const QString& name);
    bool exportAll(const QString& path, const QString& format); // "npz", "npy", "pb", "json", "debug-model"
    /// Asks where to write `format` and exports: for "tensor", `tensor` named `tensorName`; `baseName` names the files.
    void showDialog(const QString& format, const QString& baseName, const Tensor& tensor, const QString& tensorName);

    QProgressDialog* progressDialog() const { return m_progress; }
    /// What the last Export All said when it ended (its count and folder, or why it failed).
    const QString& lastMessage() const { return m_lastMessage; }
    /// Whether an Export All is under way.
    bool exporting() const { return !m_folder.isEmpty(); }

signals:
    /// A menu entry was chosen: the composition root calls showDialog() with what it owns.
    void exportRequested(const QString& format);
    /// For the status bar, for `timeout` ms.
    void statusMessage(const QString& text, int timeout);
    /// For the debugger's own status line.
    void statusText(const QString& text);
    void failed(const QString& title, const QString& message);
    /// Export All failed: a problem to show with a hint.
    void exportAllFailed(const QString& message);
    /// Export All started or ended: the actions' state changes.
    void busyChanged();
    void exportFinished(bool ok);

private:
    DebugController* m_controller;
    QWidget* m_dialogParent;
    QAction* m_exportAllAction;
    QMenu* m_menu;
    QList<QAction*> m_formatActions;
    QPointer<QProgressDialog> m_progress;
    QString m_folder;
    QString m_lastMessage;
};

} // namespace onnxscope
