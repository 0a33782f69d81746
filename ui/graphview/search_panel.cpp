// SPDX-License-Identifier: MIT
#include "ui/graphview/search_panel.h"

#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QTimer>
#include <QVBoxLayout>

namespace onnxscope {

SearchPanel::SearchPanel(QWidget* parent)
    : QWidget(parent)
    , m_edit(new QLineEdit(this))
    , m_status(new QLabel(this))
    , m_list(new QListView(this))
    , m_model(new SearchResultsModel(this))
    , m_debounce(new QTimer(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_edit->setPlaceholderText(QStringLiteral("Node name, op type or tensor name"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    layout->addWidget(m_edit);
    m_status->setStyleSheet(QStringLiteral("color: #6b7280;"));
    layout->addWidget(m_status);
    m_list->setModel(m_model);
    m_list->setUniformItemSizes(true);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setTextElideMode(Qt::ElideMiddle);
    layout->addWidget(m_list, 1);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(180);
    connect(m_debounce, &QTimer::timeout, this, &SearchPanel::search);
    connect(m_edit, &QLineEdit::textChanged, this, [this] { m_debounce->start(); });
    connect(m_list, &QListView::activated, this, [this](const QModelIndex& index) { go(index.row()); });
    connect(m_list, &QListView::clicked, this, [this](const QModelIndex& index) { go(index.row()); });
    updateStatus();
}

void SearchPanel::setGraph(const Graph* graph)
{
    m_graph = graph;
    m_searched.clear();
    m_model->setResults({});
    m_current = -1;
    if (!m_edit->text().isEmpty())
        search();
    updateStatus();
    emit resultsChanged();
}

void SearchPanel::setQuery(const QString& query)
{
    m_edit->setText(query);
    search();
}

QString SearchPanel::query() const
{
    return m_edit->text();
}

void SearchPanel::search()
{
    m_debounce->stop();
    m_searched = m_edit->text();
    m_model->setResults(m_graph ? searchGraph(*m_graph, m_searched) : std::vector<SearchResult> {});
    m_current = -1;
    updateStatus();
    emit resultsChanged();
}

void SearchPanel::focusQuery()
{
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

void SearchPanel::next()
{
    if (m_searched != m_edit->text())
        search();
    const int n = m_model->rowCount();
    if (n > 0)
        go((m_current + 1) % n);
}

void SearchPanel::previous()
{
    if (m_searched != m_edit->text())
        search();
    const int n = m_model->rowCount();
    if (n > 0)
        go(m_current <= 0 ? n - 1 : m_current - 1);
}

void SearchPanel::go(int index)
{
    if (index < 0 || index >= m_model->rowCount())
        return;
    m_current = index;
    m_list->setCurrentIndex(m_model->index(index));
    updateStatus();
    emit resultActivated(m_model->results()[static_cast<size_t>(index)]);
}

void SearchPanel::updateStatus()
{
    const int n = m_model->rowCount();
    if (m_searched.trimmed().isEmpty())
        m_status->setText(QStringLiteral("Enter / F3: next match, Shift+Enter / Shift+F3: previous"));
    else if (n == 0)
        m_status->setText(QStringLiteral("No matches"));
    else if (m_current < 0)
        m_status->setText(n == 1 ? QStringLiteral("1 match") : QStringLiteral("%1 matches").arg(n));
    else
        m_status->setText(QStringLiteral("%1 of %2").arg(m_current + 1).arg(n));
}

bool SearchPanel::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            if (key->modifiers() & Qt::ShiftModifier)
                previous();
            else
                next();
            return true;
        }
        if (key->key() == Qt::Key_Down) {
            m_list->setFocus();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace onnxscope
