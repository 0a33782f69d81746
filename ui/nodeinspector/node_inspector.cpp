// SPDX-License-Identifier: MIT
#include "ui/nodeinspector/node_inspector.h"

#include "ui/common/full_text_delegate.h"

#include "ui/common/graph_style.h"
#include "ui/common/model_document.h"
#include "ui/nodeinspector/inspector_content.h"
#include "ui/nodeinspector/property_tree_model.h"

#include <QApplication>
#include <QClipboard>
#include <QDesktopServices>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

namespace onnxscope {

namespace {

QTreeView* makeTree(QWidget* parent, PropertyTreeModel* model)
{
    auto* view = new QTreeView(parent);
    view->setModel(model);
    view->setUniformRowHeights(true);
    view->setAlternatingRowColors(true);
    view->setRootIsDecorated(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    FullTextDelegate::install(view);
    view->header()->setStretchLastSection(true);
    view->header()->setSectionResizeMode(QHeaderView::Interactive);
    view->setColumnWidth(0, 110);
    view->setColumnWidth(1, 170);
    QObject::connect(model, &QAbstractItemModel::modelReset, view, [view] {
        view->expandAll();
        view->resizeColumnToContents(0);
        if (view->columnWidth(0) > 180)
            view->setColumnWidth(0, 180);
    });
    return view;
}

} // namespace

NodeInspector::NodeInspector(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_model(new PropertyTreeModel(this))
    , m_docs(new QTextBrowser(this))
{
    m_view = makeTree(this, m_model);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_title->setTextFormat(Qt::RichText);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    splitter->addWidget(m_docs);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    layout->addWidget(splitter, 1);
    m_docs->setOpenExternalLinks(true);
    connect(m_view, &QTreeView::doubleClicked, this, &NodeInspector::activated);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex index = m_view->indexAt(pos);
        const PropertyRow* row = m_model->row(index);
        if (!row)
            return;
        QMenu menu(this);
        menu.addAction(QStringLiteral("Copy"), this, [this, index] { copyRow(index); });
        if (!row->sourceFile.isEmpty()) {
            QAction* open = menu.addAction(QStringLiteral("Open in Editor"), this,
                [file = row->sourceFile, line = row->sourceLine] { openSource(file, line); });
            open->setEnabled(QFileInfo::exists(row->sourceFile));
        }
        menu.exec(m_view->viewport()->mapToGlobal(pos));
    });
    clear();
}

QString NodeInspector::copyRow(const QModelIndex& index) const
{
    const PropertyRow* row = m_model->row(index);
    if (!row)
        return {};
    const QString text = row->copyText.isEmpty() ? row->value : row->copyText;
    QApplication::clipboard()->setText(text);
    return text;
}

bool NodeInspector::openSource(const QString& file, int line)
{
    if (!QFileInfo::exists(file)) {
        QMessageBox::information(nullptr, QStringLiteral("Source not found"),
            QStringLiteral("%1 does not exist on this machine.").arg(file));
        return false;
    }
    // A terminal editor started without a terminal shows nothing: $VISUAL or $EDITOR only when set, else the desktop's
    // handler for the file type (which cannot take a line).
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QString editor = env.value(QStringLiteral("VISUAL"));
    if (editor.isEmpty())
        editor = env.value(QStringLiteral("EDITOR"));
    if (!editor.isEmpty()) {
        QStringList args = QProcess::splitCommand(editor);
        if (!args.isEmpty()) {
            const QString program = args.takeFirst();
            args << QStringLiteral("+%1").arg(line) << file;
            if (QProcess::startDetached(program, args))
                return true;
        }
    }
    return QDesktopServices::openUrl(QUrl::fromLocalFile(file));
}

void NodeInspector::setTitle(const QString& kind, const QString& name, const QString& colour)
{
    m_title->setText(
        QStringLiteral("<span style='background:%3;color:white;padding:2px 6px;border-radius:3px'>&nbsp;%1&nbsp;</span>"
                       "&nbsp;<b>%2</b>")
            .arg(kind.toHtmlEscaped(), name.toHtmlEscaped(), colour));
}

QString NodeInspector::title() const
{
    return m_title->text();
}

QString NodeInspector::documentation() const
{
    return m_docs->toPlainText();
}

void NodeInspector::clear()
{
    m_graph = nullptr;
    m_title->setText(QStringLiteral("<span style='color:#6b7280'>Select a node or an edge in the graph.</span>"));
    m_model->setSections({});
    m_docs->clear();
    m_docs->hide();
}

void NodeInspector::showNode(const Graph* graph, NodeId node)
{
    if (!graph || node < 0 || static_cast<size_t>(node) >= graph->nodes().size()) {
        clear();
        return;
    }
    m_graph = graph;
    const Node& n = graph->node(node);
    setTitle(QString::fromStdString(n.opType), QString::fromStdString(n.displayName()),
        OpCategories::instance().colour(QString::fromStdString(n.opType)).name());
    m_model->setSections(describeNode(*graph, node, m_document));
    m_docs->setMarkdown(operatorDocumentationMarkdown(n));
    m_docs->show();
}

void NodeInspector::showValue(const Graph* graph, ValueId value)
{
    if (!graph || value < 0 || static_cast<size_t>(value) >= graph->values().size()) {
        clear();
        return;
    }
    m_graph = graph;
    setTitle(QStringLiteral("tensor"), QString::fromStdString(graph->value(value).name), QStringLiteral("#4b5563"));
    m_model->setSections(describeValue(*graph, value, m_document));
    m_docs->clear();
    m_docs->hide();
}

void NodeInspector::showText(const QString& title, const QString& text)
{
    m_graph = nullptr;
    setTitle(QStringLiteral("group"), title, QStringLiteral("#4b6e9a"));
    m_model->setSections({});
    m_docs->setPlainText(text);
    m_docs->show();
}

void NodeInspector::activated(const QModelIndex& index)
{
    const PropertyRow* row = m_model->row(index);
    if (!row)
        return;
    if (!row->sourceFile.isEmpty()) {
        openSource(row->sourceFile, row->sourceLine);
        return;
    }
    if (row->tensor) {
        try {
            emit tensorRequested(row->tensorTitle.isEmpty() ? row->value : row->tensorTitle, row->tensor());
        } catch (const std::exception& e) {
            QMessageBox::warning(this, QStringLiteral("Cannot read tensor"), QString::fromStdString(e.what()));
        }
        return;
    }
    if (row->nodeRef >= 0 && m_graph) {
        emit goToNode(m_graph, row->nodeRef);
        return;
    }
    if (row->valueRef != kNoValue && m_graph)
        emit goToValue(m_graph, row->valueRef);
}

ModelProperties::ModelProperties(QWidget* parent)
    : QWidget(parent)
    , m_model(new PropertyTreeModel(this))
{
    m_view = makeTree(this, m_model);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_view);
}

void ModelProperties::showModel(const ModelDocument* document)
{
    if (!document || !document->model()) {
        m_model->setSections({});
        return;
    }
    m_model->setSections(describeModel(*document->model(), document->path()));
}

} // namespace onnxscope
