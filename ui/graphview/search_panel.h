// SPDX-License-Identifier: MIT
#pragma once

#include "ui/graphview/graph_search.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QListView;
class QTimer;

namespace onnxscope {

/// The Find dock: a query field and the list of matches. Enter / F3 go to the next match, Shift+Enter / Shift+F3
/// to the previous one; each jump emits resultActivated() so the graph view can centre on it.
class SearchPanel : public QWidget {
    Q_OBJECT
public:
    explicit SearchPanel(QWidget* parent = nullptr);

    /// The graph searched (with its subgraphs); null clears.
    void setGraph(const Graph* graph);
    void setQuery(const QString& query);
    QString query() const;
    /// Runs the search now (typing runs it after a short pause).
    void search();
    void focusQuery();
    void next();
    void previous();
    int currentIndex() const { return m_current; }
    SearchResultsModel* model() const { return m_model; }
    QLineEdit* queryEdit() const { return m_edit; }

signals:
    void resultActivated(const onnxscope::SearchResult& result);
    /// A new search ran (the list may be empty).
    void resultsChanged();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void go(int index);
    void updateStatus();

    const Graph* m_graph = nullptr;
    QLineEdit* m_edit;
    QLabel* m_status;
    QListView* m_list;
    SearchResultsModel* m_model;
    QTimer* m_debounce;
    int m_current = -1;
    QString m_searched;
};

} // namespace onnxscope
