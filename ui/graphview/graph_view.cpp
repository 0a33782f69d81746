// SPDX-License-Identifier: MIT
#include "ui/graphview/graph_view.h"

#include "ui/common/model_document.h"
#include "ui/graphview/breadcrumb_bar.h"
#include "ui/graphview/graph_canvas.h"
#include "ui/graphview/graph_scene.h"

#include <QApplication>
#include <QClipboard>
#include <QFileInfo>
#include <QFrame>
#include <QFutureWatcher>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace onnxscope {

namespace {

template <class F> F makeKeep()
{
    F focus;
    focus.kind = F::Kind::Keep;
    return focus;
}

// Boxes visible when a graph is first shown; beyond this, name scopes start collapsed.
constexpr int kDefaultVisibleBudget = 320;

QString graphLabel(const Graph* graph)
{
    const Node* owner = graph->ownerNode();
    if (!owner)
        return graph->name().empty() ? QStringLiteral("main graph") : QString::fromStdString(graph->name());
    QString attribute = QStringLiteral("body");
    if (owner->functionBody.get() == graph)
        attribute = QStringLiteral("function %1").arg(QString::fromStdString(owner->opType));
    for (const auto& [name, sub] : owner->subgraphs)
        if (sub.get() == graph)
            attribute = QString::fromStdString(name);
    return QStringLiteral("%1 \u201c%2\u201d \u203a %3")
        .arg(QString::fromStdString(owner->opType), QString::fromStdString(owner->displayName()), attribute);
}

} // namespace

GraphView::GraphView(QWidget* parent)
    : QWidget(parent)
    , m_breadcrumb(new BreadcrumbBar(this))
    , m_canvas(new GraphCanvas(this))
    , m_scene(new GraphScene(this))
    , m_overview(nullptr)
    , m_overlay(new QFrame(this))
    , m_overlayLabel(new QLabel(m_overlay))
    , m_overlayCancel(new QPushButton(QStringLiteral("Cancel"), m_overlay))
    , m_overlayRetry(new QPushButton(QStringLiteral("Lay out again"), m_overlay))
    , m_overlayTimer(new QTimer(this))
    , m_overviewResize(new QTimer(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* line = new QFrame(this);
    line->setFrameShape(QFrame::HLine);
    line->setFrameShadow(QFrame::Plain);
    line->setStyleSheet(QStringLiteral("color: #d0d5dc;"));
    layout->addWidget(m_breadcrumb);
    layout->addWidget(line);
    layout->addWidget(m_canvas, 1);
    m_canvas->setScene(m_scene);
    m_overview = new GraphOverview(m_canvas, m_canvas);
    m_overview->hide();
    m_overviewResize->setSingleShot(true);
    m_overviewResize->setInterval(150);
    connect(m_overviewResize, &QTimer::timeout, this, [this] {
        m_overview->refresh();
        positionOverlays();
    });
    m_canvas->viewport()->installEventFilter(this);

    m_overlay->setObjectName(QStringLiteral("layoutOverlay"));
    m_overlay->setStyleSheet(QStringLiteral(
        "#layoutOverlay { background: rgba(255,255,255,240); border: 1px solid #c4cbd4; border-radius: 6px; }"));
    auto* overlayLayout = new QVBoxLayout(m_overlay);
    overlayLayout->setContentsMargins(16, 12, 16, 12);
    auto* progress = new QProgressBar(m_overlay);
    progress->setRange(0, 0);
    progress->setTextVisible(false);
    progress->setFixedHeight(8);
    m_overlayLabel->setAlignment(Qt::AlignCenter);
    overlayLayout->addWidget(m_overlayLabel);
    overlayLayout->addWidget(progress);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_overlayCancel);
    buttons->addWidget(m_overlayRetry);
    buttons->addStretch(1);
    overlayLayout->addLayout(buttons);
    m_overlay->setFixedWidth(320);
    m_overlay->hide();
    m_overlayTimer->setSingleShot(true);
    m_overlayTimer->setInterval(250);
    connect(m_overlayTimer, &QTimer::timeout, this, [this, progress] {
        progress->show();
        m_overlayCancel->show();
        m_overlayRetry->hide();
        m_overlay->show();
        m_overlay->raise();
        positionOverlays();
    });
    connect(m_overlayCancel, &QPushButton::clicked, this, &GraphView::cancelLayout);
    connect(m_overlayRetry, &QPushButton::clicked, this, [this] {
        m_overlay->hide();
        relayout(Focus {});
    });

    connect(m_breadcrumb, &BreadcrumbBar::levelClicked, this, [this](int level) {
        std::vector<const Graph*> chain;
        for (const Graph* g = m_graph; g; g = g->parent())
            chain.insert(chain.begin(), g);
        if (level >= 0 && static_cast<size_t>(level) < chain.size())
            showGraph(chain[static_cast<size_t>(level)]);
    });
    connect(m_scene, &QGraphicsScene::selectionChanged, this, &GraphView::onSelectionChanged);
    connect(m_scene, &GraphScene::itemActivated, this, &GraphView::onItemActivated);
    connect(m_scene, &GraphScene::clusterActivated, this, &GraphView::onClusterActivated);
    connect(m_scene, &GraphScene::contextMenuRequested, this, &GraphView::onContextMenu);
    connect(m_canvas, &GraphCanvas::navigateRequested, this, &GraphView::navigate);
    connect(m_canvas, &GraphCanvas::activateRequested, this, [this] {
        if (NodeItem* item = m_scene->selectedNode())
            onItemActivated(item->index());
    });
    connect(m_canvas, &GraphCanvas::parentRequested, this, &GraphView::leaveSubgraph);
    connect(m_canvas, &GraphCanvas::painted, this, [this] {
        if (m_awaitingPaint) {
            m_awaitingPaint = false;
            emit graphDrawn();
        }
    });
    updateBreadcrumb();
}

GraphView::~GraphView()
{
    // Layouts still running finish on their worker and are ignored.
    ++m_generation;
}

void GraphView::setModel(std::shared_ptr<const Model> model, const ModelDocument* document)
{
    clear();
    m_model = std::move(model);
    if (m_document)
        disconnect(m_document, &ModelDocument::typesChanged, this, nullptr);
    m_document = document;
    if (m_document)
        connect(m_document, &ModelDocument::typesChanged, this, [this] {
            // Edge labels and input/output boxes now know their shapes.
            if (!m_graph || m_document->model() != m_model)
                return;
            if (m_layoutRunning)
                m_relayoutPending = true; // after the one on its way, so that something is drawn first
            else
                relayout(makeKeep<Focus>());
        });
    if (m_model)
        showGraph(&m_model->graph());
}

void GraphView::clear()
{
    ++m_generation;
    m_relayoutPending = false;
    m_layoutRunning = false;
    m_overlayTimer->stop();
    m_overlay->hide();
    m_scene->clearGraph();
    m_canvas->updateScrollArea();
    m_overview->refresh();
    m_states.clear();
    m_nodeStates.clear();
    m_graph = nullptr;
    m_model.reset();
    updateBreadcrumb();
}

GraphView::GraphState& GraphView::stateFor(const Graph* graph)
{
    auto& slot = m_states[graph];
    if (!slot) {
        slot = std::make_unique<GraphState>();
        slot->outline = GraphOutline::build(*graph, m_foldConstants);
        slot->expanded = slot->outline.scopes.defaultExpansion(kDefaultVisibleBudget);
    }
    return *slot;
}

void GraphView::setFoldConstants(bool fold)
{
    if (fold == m_foldConstants)
        return;
    m_foldConstants = fold;
    m_states.clear();
    if (m_graph)
        showGraph(m_graph);
}

void GraphView::showGraph(const Graph* graph)
{
    if (!graph)
        return;
    m_graph = graph;
    stateFor(graph);
    updateBreadcrumb();
    emit currentGraphChanged(graph);
    relayout(Focus {});
}

bool GraphView::enterSubgraph(NodeId nodeId, const std::string& attribute)
{
    if (!m_graph || nodeId < 0 || static_cast<size_t>(nodeId) >= m_graph->nodes().size())
        return false;
    const Node& node = m_graph->node(nodeId);
    if (attribute.empty() && node.functionBody) {
        showGraph(node.functionBody.get());
        return true;
    }
    for (const auto& [name, sub] : node.subgraphs)
        if (attribute.empty() || name == attribute) {
            showGraph(sub.get());
            return true;
        }
    return false;
}

bool GraphView::leaveSubgraph()
{
    if (!m_graph || !m_graph->parent())
        return false;
    const Graph* child = m_graph;
    const Graph* parent = m_graph->parent();
    m_graph = parent;
    updateBreadcrumb();
    emit currentGraphChanged(parent);
    Focus focus;
    focus.kind = Focus::Kind::Node;
    focus.node = child->ownerNode() ? child->ownerNode()->id : -1;
    if (focus.node < 0)
        focus.kind = Focus::Kind::Fit;
    revealNode(focus.node);
    relayout(focus);
    return true;
}

void GraphView::updateBreadcrumb()
{
    QStringList labels, tips;
    for (const Graph* g = m_graph; g; g = g->parent()) {
        QString label = graphLabel(g);
        QString tip = QStringLiteral("%1 nodes").arg(g->nodes().size());
        // The main graph goes by its file's name: exporters fill the graph's name with a description ("Model from
        // PaddlePaddle."), which the tooltip keeps.
        if (!g->parent() && m_model && !m_model->displayName().empty() && m_model->displayName().front() != '<') {
            tip = QStringLiteral("%1 \u2014 graph \u201c%2\u201d, %3")
                      .arg(QString::fromStdString(m_model->displayName()), label, tip);
            label = QFileInfo(QString::fromStdString(m_model->displayName())).fileName();
        }
        labels.prepend(label);
        tips.prepend(tip);
    }
    if (labels.isEmpty())
        labels << QStringLiteral("No model");
    m_breadcrumb->setPath(labels, tips);
}

void GraphView::relayout(Focus focus)
{
    if (!m_graph)
        return;
    GraphState& state = stateFor(m_graph);
    const ModelDocument* document = m_document;
    ValueTypeFunction typeOf
        = [document](const Graph& g, ValueId v) { return document ? document->valueType(g, v) : g.value(v).type; };
    auto view = std::make_shared<ViewGraph>(buildViewGraph(state.outline, state.expanded, typeOf));
    const quint64 generation = ++m_generation;
    m_layoutRunning = true;
    if (focus.kind == Focus::Kind::Keep) {
        focus.anchorScene = m_canvas->mapToScene(m_canvas->viewport()->rect().center());
        focus.node = selectedNode();
        focus.value = m_scene->selectedEdge() ? selectedValue() : kNoValue;
        focus.hadScene = !m_scene->nodeItems().empty();
    }
    m_overlayLabel->setText(
        QStringLiteral("Laying out %1 boxes and %2 edges\u2026").arg(view->items.size()).arg(view->edges.size()));
    m_overlayTimer->start();
    emit layoutStarted(static_cast<int>(view->items.size()));
    auto* watcher = new QFutureWatcher<LayoutResult>(this);
    connect(watcher, &QFutureWatcher<LayoutResult>::finished, this, [this, watcher, generation, view, focus] {
        watcher->deleteLater();
        onLayoutDone(generation, view, watcher->result(), focus);
    });
    watcher->setFuture(QtConcurrent::run(computeLayout, view->layoutRequest()));
}

void GraphView::onLayoutDone(
    quint64 generation, std::shared_ptr<ViewGraph> view, const LayoutResult& result, Focus focus)
{
    if (generation != m_generation)
        return;
    m_layoutRunning = false;
    m_overlayTimer->stop();
    m_overlay->hide();
    if (!result.ok) {
        m_scene->clearGraph();
        m_canvas->updateScrollArea();
        showOverlay(QStringLiteral("Layout failed: %1").arg(result.error), false);
        emit layoutFinished(false, result.milliseconds);
        return;
    }
    // A selection that goes with the old drawing is reported as cleared; with none before or after, nothing is
    // reported, so what the inspector shows without a selection (the node the debugger is paused before) stays.
    const bool hadSelection = !m_scene->selectedItems().isEmpty();
    {
        const QSignalBlocker blocker(m_scene);
        m_scene->populate(*view, result);
    }
    stateFor(m_graph).laidOut = stateFor(m_graph).expanded;
    applyStates();
    applyHighlights();
    if (m_overviewWanted) {
        m_overview->setVisible(m_scene->sceneRect().width() > m_canvas->viewport()->width()
            || m_scene->sceneRect().height() > m_canvas->viewport()->height() || view->items.size() > 30);
        m_overview->refresh();
    }
    positionOverlays(); // before the focus: it sets how far the view may scroll past the drawing's edges
    applyFocus(focus);
    if (hadSelection || !m_scene->selectedItems().isEmpty())
        onSelectionChanged();
    m_awaitingPaint = true;
    m_canvas->viewport()->update();
    emit layoutFinished(true, result.milliseconds);
    if (m_relayoutPending) {
        m_relayoutPending = false;
        relayout(makeKeep<Focus>());
    }
}

double GraphView::topNodesCenterX(double visibleWidth) const
{
    // The boxes at the top of the drawing, not its middle: a drawing that is wider further down (ocr_rec's head) has
    // its first nodes off its centre, and empty paper at the top of its middle.
    const NodeItem* first = nullptr;
    for (const NodeItem* item : m_scene->nodeItems())
        if (!first || item->sceneBoundingRect().top() < first->sceneBoundingRect().top())
            first = item;
    if (!first)
        return m_scene->sceneRect().center().x();
    const QRectF firstBox = first->sceneBoundingRect();
    QRectF row; // the boxes level with the first one: the graph's entry row
    for (const NodeItem* item : m_scene->nodeItems())
        if (const QRectF box = item->sceneBoundingRect(); box.top() < firstBox.bottom())
            row = row.isNull() ? box : row.united(box);
    // The whole row when it fits, else the first box in the middle.
    return row.width() <= visibleWidth ? row.center().x() : firstBox.center().x();
}

void GraphView::applyFocus(const Focus& focus)
{
    switch (focus.kind) {
    case Focus::Kind::Fit:
        m_canvas->fitAll();
        // Very large drawings: start readable at the top instead of a fit that shows nothing legible.
        if (m_canvas->zoom() < 0.45) {
            m_canvas->setZoom(0.85);
            const QRectF r = m_scene->sceneRect();
            const QSizeF visible = QSizeF(m_canvas->viewport()->size()) / 0.85;
            m_canvas->centerOn(QPointF(topNodesCenterX(visible.width()), r.top() + visible.height() / 2));
        }
        break;
    case Focus::Kind::Keep:
        if (!focus.hadScene) {
            Focus fit;
            applyFocus(fit);
            break;
        }
        m_canvas->centerOn(focus.anchorScene);
        if (NodeItem* item = focus.node >= 0 ? m_scene->itemForNode(focus.node) : nullptr)
            item->setSelected(true);
        else if (EdgeItem* edge = focus.value != kNoValue ? m_scene->edgeForValue(focus.value) : nullptr)
            edge->setSelected(true);
        break;
    case Focus::Kind::Node:
        if (NodeItem* item = m_scene->itemForNode(focus.node)) {
            if (focus.select) {
                m_scene->clearSelection();
                item->setSelected(true);
            }
            if (m_canvas->zoom() < 0.6)
                m_canvas->setZoom(0.85);
            m_canvas->centerOn(item);
        } else {
            m_canvas->fitAll();
        }
        break;
    case Focus::Kind::Value:
        if (EdgeItem* edge = m_scene->edgeForValue(focus.value)) {
            m_scene->clearSelection();
            edge->setSelected(true);
            if (m_canvas->zoom() < 0.6)
                m_canvas->setZoom(0.85);
            m_canvas->centerOn(edge->labelPosition());
        } else if (m_graph && m_graph->value(focus.value).producer >= 0) {
            Focus f;
            f.kind = Focus::Kind::Node;
            f.node = m_graph->value(focus.value).producer;
            applyFocus(f);
        } else {
            m_canvas->fitAll();
        }
        break;
    case Focus::Kind::Scope:
        for (NodeItem* item : m_scene->nodeItems())
            if (item->viewItem().kind == ViewItem::Kind::Group && item->viewItem().scope == focus.scope) {
                m_canvas->centerOn(item);
                return;
            }
        for (ClusterItem* cluster : m_scene->clusterItems())
            if (cluster->cluster().scope == focus.scope) {
                m_canvas->centerOn(cluster->boundingRect().center().x(),
                    cluster->headerRect().top() + m_canvas->viewport()->height() / (2 * m_canvas->zoom()) - 20);
                return;
            }
        break;
    }
}

void GraphView::applyStates()
{
    auto it = m_nodeStates.find(m_graph);
    for (NodeItem* item : m_scene->nodeItems())
        item->setState(NodeState::NotRun);
    if (it != m_nodeStates.end())
        for (const auto& [node, state] : it->second) {
            NodeItem* item = m_scene->itemForNode(node);
            if (item && item->viewItem().kind == ViewItem::Kind::Node && item->viewItem().node == node)
                item->setState(state);
        }
    applyCurrentInside();
}

void GraphView::applyCurrentInside()
{
    std::map<NodeItem*, QString> inside;
    if (auto it = m_nodeStates.find(m_graph); it != m_nodeStates.end())
        for (const auto& [node, state] : it->second)
            if (state == NodeState::Current)
                if (NodeItem* item = m_scene->itemForNode(node); item && item->viewItem().node != node)
                    inside[item] = QString::fromStdString(m_graph->node(node).displayName());
    for (NodeItem* item : m_scene->nodeItems()) {
        auto found = inside.find(item);
        item->setCurrentInside(found == inside.end() ? QString() : found->second);
    }
}

void GraphView::setHighlightedNodes(std::vector<std::pair<const Graph*, NodeId>> nodes)
{
    m_highlighted = std::move(nodes);
    applyHighlights();
}

void GraphView::applyHighlights()
{
    for (NodeItem* item : m_scene->nodeItems())
        item->setHighlighted(false);
    for (const auto& [graph, node] : m_highlighted)
        if (graph == m_graph)
            if (NodeItem* item = m_scene->itemForNode(node))
                item->setHighlighted(true);
}

void GraphView::setNodeState(const Graph* graph, NodeId node, NodeState state)
{
    std::map<NodeId, NodeState>& states = m_nodeStates[graph];
    auto old = states.find(node);
    const bool wasCurrent = old != states.end() && old->second == NodeState::Current;
    if (state == NodeState::NotRun)
        states.erase(node);
    else
        states[node] = state;
    if (graph != m_graph)
        return;
    NodeItem* item = m_scene->itemForNode(node);
    if (item && item->viewItem().node == node)
        item->setState(state);
    else if (item && (wasCurrent || state == NodeState::Current))
        applyCurrentInside();
}

void GraphView::clearNodeStates()
{
    m_nodeStates.clear();
    for (NodeItem* item : m_scene->nodeItems()) {
        item->setState(NodeState::NotRun);
        item->setCurrentInside({});
    }
}

const Graph* GraphView::drawnGraph() const
{
    return m_scene->viewGraph().graph;
}

int GraphView::boxCount() const
{
    return static_cast<int>(m_scene->nodeItems().size());
}

GraphDecorations::Box GraphView::box(int index) const
{
    const NodeItem* item = m_scene->nodeItems()[static_cast<size_t>(index)];
    const ViewItem& vi = item->viewItem();
    Box b;
    switch (vi.kind) {
    case ViewItem::Kind::Node:
        b.kind = Box::Kind::Node;
        break;
    case ViewItem::Kind::Group:
        b.kind = Box::Kind::Group;
        break;
    case ViewItem::Kind::Input:
        b.kind = Box::Kind::Input;
        break;
    case ViewItem::Kind::Output:
        b.kind = Box::Kind::Output;
        break;
    }
    b.node = vi.node;
    b.value = vi.value;
    b.declaredType = vi.subtitle;
    b.state = item->state();
    return b;
}

int GraphView::boxOfNode(NodeId node) const
{
    const NodeItem* item = m_scene->itemForNode(node);
    return item ? item->index() : -1;
}

int GraphView::edgeCount() const
{
    return static_cast<int>(m_scene->edgeItems().size());
}

std::vector<ValueId> GraphView::edgeValues(int edge) const
{
    return m_scene->edgeItems()[static_cast<size_t>(edge)]->viewEdge().values;
}

void GraphView::setBreakpointMarker(int box, bool marker)
{
    m_scene->nodeItems()[static_cast<size_t>(box)]->setBreakpointMarker(marker);
}

void GraphView::setHeatColour(int box, const QColor& colour)
{
    m_scene->nodeItems()[static_cast<size_t>(box)]->setHeatColour(colour);
}

void GraphView::setRunNote(int box, const QString& note)
{
    m_scene->nodeItems()[static_cast<size_t>(box)]->setDebugNote(note);
}

void GraphView::setActualType(int box, const QString& type)
{
    m_scene->nodeItems()[static_cast<size_t>(box)]->setActualSubtitle(type);
}

void GraphView::setEdgeActualType(int edge, const QString& type)
{
    m_scene->edgeItems()[static_cast<size_t>(edge)]->setActualLabel(type);
    m_scene->schedulePlaceEdgeLabels();
}

void GraphView::setCompareMark(int box, const CompareMark& mark)
{
    m_scene->nodeItems()[static_cast<size_t>(box)]->setCompareMark(mark);
    m_scene->schedulePlaceEdgeLabels();
}

CompareMark GraphView::compareMark(int box) const
{
    return m_scene->nodeItems()[static_cast<size_t>(box)]->compareMark();
}

void GraphView::setRiskMark(int box, const RiskMark& mark)
{
    m_scene->nodeItems()[static_cast<size_t>(box)]->setRiskMark(mark);
}

RiskMark GraphView::riskMark(int box) const
{
    return m_scene->nodeItems()[static_cast<size_t>(box)]->riskMark();
}

bool GraphView::revealNode(NodeId node, std::set<int>* opened)
{
    if (!m_graph || node < 0 || static_cast<size_t>(node) >= m_graph->nodes().size())
        return false;
    GraphState& state = stateFor(m_graph);
    NodeId shown = node;
    if (state.outline.folded[static_cast<size_t>(node)]) {
        for (ValueId out : m_graph->node(node).outputs)
            if (out != kNoValue && !m_graph->value(out).consumers.empty()) {
                shown = m_graph->value(out).consumers.front();
                break;
            }
    }
    bool changed = false;
    std::set<int> needed;
    for (int s = state.outline.scopes.scopeOfNode[static_cast<size_t>(shown)]; s > 0;
         s = state.outline.scopes.scopes[static_cast<size_t>(s)].parent) {
        needed.insert(s);
        if (state.expanded.insert(s).second) {
            changed = true;
            if (opened)
                opened->insert(s);
        }
    }
    if (opened) // close what an earlier pause opened and this one does not need
        for (auto it = opened->begin(); it != opened->end();) {
            if (needed.count(*it)) {
                ++it;
                continue;
            }
            changed |= state.expanded.erase(*it) > 0;
            it = opened->erase(it);
        }
    return changed;
}

void GraphView::centerOnNode(const Graph* graph, NodeId node, bool select)
{
    if (!graph)
        return;
    Focus focus;
    focus.kind = Focus::Kind::Node;
    focus.node = node;
    focus.select = select;
    std::set<int>* opened = select ? nullptr : &stateFor(graph).opened;
    if (graph != m_graph) {
        m_graph = graph;
        updateBreadcrumb();
        emit currentGraphChanged(graph);
        revealNode(node, opened);
        relayout(focus);
        return;
    }
    if (revealNode(node, opened) || m_layoutRunning || stateFor(graph).laidOut != stateFor(graph).expanded) {
        relayout(focus);
        return;
    }
    applyFocus(focus);
}

void GraphView::centerOnValue(const Graph* graph, ValueId value)
{
    if (!graph || value < 0 || static_cast<size_t>(value) >= graph->values().size())
        return;
    Focus focus;
    focus.kind = Focus::Kind::Value;
    focus.value = value;
    const bool switched = graph != m_graph;
    if (switched) {
        m_graph = graph;
        updateBreadcrumb();
        emit currentGraphChanged(graph);
    }
    const ValueInfo& v = graph->value(value);
    bool changed = v.producer >= 0 && revealNode(v.producer);
    if (!v.consumers.empty())
        changed |= revealNode(v.consumers.front());
    if (switched || changed || m_layoutRunning || stateFor(graph).laidOut != stateFor(graph).expanded)
        relayout(focus);
    else
        applyFocus(focus);
}

const ScopeTree* GraphView::scopeTree() const
{
    auto it = m_states.find(m_graph);
    return it == m_states.end() ? nullptr : &it->second->outline.scopes;
}

std::set<int> GraphView::expandedScopes() const
{
    auto it = m_states.find(m_graph);
    return it == m_states.end() ? std::set<int> {} : it->second->expanded;
}

void GraphView::setScopeExpanded(int scope, bool expanded)
{
    if (!m_graph || scope <= 0)
        return;
    GraphState& state = stateFor(m_graph);
    state.opened.erase(scope); // the user's choice now
    if (expanded ? !state.expanded.insert(scope).second : state.expanded.erase(scope) == 0)
        return;
    Focus focus;
    focus.kind = Focus::Kind::Scope;
    focus.scope = scope;
    relayout(focus);
}

void GraphView::expandAll()
{
    if (!m_graph)
        return;
    GraphState& state = stateFor(m_graph);
    state.opened.clear();
    for (size_t s = 0; s < state.outline.scopes.scopes.size(); ++s)
        state.expanded.insert(static_cast<int>(s));
    relayout(Focus {});
}

void GraphView::collapseAll()
{
    if (!m_graph)
        return;
    stateFor(m_graph).expanded = { 0 };
    stateFor(m_graph).opened.clear();
    relayout(Focus {});
}

void GraphView::cancelLayout()
{
    if (!m_layoutRunning)
        return;
    ++m_generation;
    m_layoutRunning = false;
    m_overlayTimer->stop();
    GraphState& state = stateFor(m_graph);
    if (m_scene->viewGraph().graph == m_graph) {
        state.expanded = state.laidOut; // back to what is on screen
        m_overlay->hide();
    } else {
        m_scene->clearGraph();
        m_canvas->updateScrollArea();
        showOverlay(QStringLiteral("Layout cancelled. Collapse groups (View menu) or lay out again."), false);
    }
    emit layoutFinished(false, 0);
}

void GraphView::showOverlay(const QString& text, bool cancellable)
{
    m_overlayLabel->setText(text);
    m_overlayLabel->setWordWrap(true);
    m_overlay->findChild<QProgressBar*>()->setVisible(cancellable);
    m_overlayCancel->setVisible(cancellable);
    m_overlayRetry->setVisible(!cancellable);
    m_overlay->show();
    m_overlay->raise();
    positionOverlays();
}

void GraphView::zoomIn()
{
    m_canvas->zoomBy(1.25);
}
void GraphView::zoomOut()
{
    m_canvas->zoomBy(0.8);
}
void GraphView::zoomToFit()
{
    m_canvas->fitAll();
}
void GraphView::zoomToActualSize()
{
    m_canvas->setZoom(1.0);
}

void GraphView::setOverviewVisible(bool visible)
{
    m_overviewWanted = visible;
    m_overview->setVisible(visible && !m_scene->nodeItems().empty());
    if (visible)
        m_overview->refresh();
    positionOverlays();
}

bool GraphView::isOverviewVisible() const
{
    return m_overviewWanted;
}

NodeId GraphView::selectedNode() const
{
    NodeItem* item = m_scene->selectedNode();
    return item && item->viewItem().kind == ViewItem::Kind::Node ? item->viewItem().node : -1;
}

ValueId GraphView::selectedValue() const
{
    if (EdgeItem* edge = m_scene->selectedEdge())
        return edge->viewEdge().values.empty() ? kNoValue : edge->viewEdge().values.front();
    if (NodeItem* item = m_scene->selectedNode())
        if (item->viewItem().kind == ViewItem::Kind::Input || item->viewItem().kind == ViewItem::Kind::Output)
            return item->viewItem().value;
    return kNoValue;
}

QString GraphView::selectedName() const
{
    if (!m_graph)
        return {};
    if (NodeId node = selectedNode(); node >= 0)
        return QString::fromStdString(m_graph->node(node).displayName());
    if (ValueId value = selectedValue(); value != kNoValue) {
        if (EdgeItem* edge = m_scene->selectedEdge(); edge && edge->viewEdge().values.size() > 1) {
            QStringList names;
            for (ValueId v : edge->viewEdge().values)
                names << QString::fromStdString(m_graph->value(v).name);
            return names.join(QLatin1Char('\n'));
        }
        return QString::fromStdString(m_graph->value(value).name);
    }
    if (NodeItem* item = m_scene->selectedNode(); item && item->viewItem().kind == ViewItem::Kind::Group)
        if (const ScopeTree* tree = scopeTree())
            return tree->path(item->viewItem().scope);
    return {};
}

void GraphView::onSelectionChanged()
{
    if (EdgeItem* edge = m_scene->selectedEdge()) {
        if (!edge->viewEdge().values.empty())
            emit valueSelected(m_graph, edge->viewEdge().values.front());
        return;
    }
    if (NodeItem* item = m_scene->selectedNode()) {
        const ViewItem& v = item->viewItem();
        switch (v.kind) {
        case ViewItem::Kind::Node:
            emit nodeSelected(m_graph, v.node);
            return;
        case ViewItem::Kind::Input:
        case ViewItem::Kind::Output:
            emit valueSelected(m_graph, v.value);
            return;
        case ViewItem::Kind::Group:
            emit groupSelected(m_graph, v.scope);
            return;
        }
    }
    emit selectionCleared();
}

void GraphView::onItemActivated(int index)
{
    if (index < 0 || static_cast<size_t>(index) >= m_scene->nodeItems().size())
        return;
    const ViewItem& item = m_scene->nodeItems()[static_cast<size_t>(index)]->viewItem();
    if (item.kind == ViewItem::Kind::Group) {
        setScopeExpanded(item.scope, true);
        return;
    }
    if (item.kind != ViewItem::Kind::Node)
        return;
    const Node& node = m_graph->node(item.node);
    if (node.functionBody) {
        enterSubgraph(node.id);
        return;
    }
    if (node.subgraphs.size() == 1) {
        enterSubgraph(node.id, node.subgraphs.front().first);
        return;
    }
    if (node.subgraphs.size() > 1) {
        QMenu menu(this);
        for (const auto& [name, sub] : node.subgraphs) {
            const std::string attribute = name;
            const NodeId id = node.id;
            menu.addAction(
                QStringLiteral("Open %1 (%2 nodes)").arg(QString::fromStdString(name)).arg(sub->nodes().size()), this,
                [this, id, attribute] { enterSubgraph(id, attribute); });
        }
        menu.exec(QCursor::pos());
        return;
    }
    emit nodeActivated(m_graph, node.id);
}

void GraphView::onClusterActivated(int index)
{
    const auto& clusters = m_scene->viewGraph().clusters;
    if (index >= 0 && static_cast<size_t>(index) < clusters.size())
        setScopeExpanded(clusters[static_cast<size_t>(index)].scope, false);
}

void GraphView::onContextMenu(int itemIndex, int edgeIndex, const QPoint& screenPos)
{
    QMenu menu(this);
    if (itemIndex >= 0) {
        const ViewItem& item = m_scene->nodeItems()[static_cast<size_t>(itemIndex)]->viewItem();
        if (item.kind == ViewItem::Kind::Group) {
            const int scope = item.scope;
            menu.addAction(QStringLiteral("Expand group"), this, [this, scope] { setScopeExpanded(scope, true); });
        }
        if (item.kind == ViewItem::Kind::Node) {
            const Node& node = m_graph->node(item.node);
            const NodeId id = node.id;
            for (const auto& [name, sub] : node.subgraphs) {
                const std::string attribute = name;
                menu.addAction(QStringLiteral("Open %1").arg(QString::fromStdString(name)), this,
                    [this, id, attribute] { enterSubgraph(id, attribute); });
            }
            if (node.functionBody)
                menu.addAction(QStringLiteral("Open function body"), this, [this, id] { enterSubgraph(id); });
            const int scope = stateFor(m_graph).outline.scopes.scopeOfNode[static_cast<size_t>(id)];
            if (scope > 0)
                menu.addAction(QStringLiteral("Collapse group \u201c%1\u201d")
                                   .arg(stateFor(m_graph).outline.scopes.scopes[static_cast<size_t>(scope)].name),
                    this, [this, scope] { setScopeExpanded(scope, false); });
            if (!m_nodeActions.isEmpty()) {
                menu.addSeparator();
                menu.addActions(m_nodeActions);
            }
            if (!m_extraNodeActions.isEmpty()) {
                menu.addSeparator();
                menu.addActions(m_extraNodeActions);
            }
        }
    }
    if (edgeIndex >= 0) {
        const ViewEdge& edge = m_scene->viewGraph().edges[static_cast<size_t>(edgeIndex)];
        for (ValueId v : edge.values) {
            const ValueInfo& info = m_graph->value(v);
            for (NodeId consumer : info.consumers)
                menu.addAction(QStringLiteral("Go to consumer %1")
                                   .arg(QString::fromStdString(m_graph->node(consumer).displayName())),
                    this, [this, consumer] { centerOnNode(m_graph, consumer); });
            if (info.producer >= 0) {
                const NodeId producer = info.producer;
                menu.addAction(QStringLiteral("Go to producer %1")
                                   .arg(QString::fromStdString(m_graph->node(producer).displayName())),
                    this, [this, producer] { centerOnNode(m_graph, producer); });
            }
            if (menu.actions().size() > 12)
                break;
        }
    }
    menu.addSeparator();
    menu.addAction(QStringLiteral("Copy name"), this, [this] { QApplication::clipboard()->setText(selectedName()); });
    menu.exec(screenPos);
}

void GraphView::navigate(int key)
{
    NodeItem* current = m_scene->selectedNode();
    if (!current) {
        if (EdgeItem* edge = m_scene->selectedEdge()) {
            const int target = key == Qt::Key_Up ? edge->viewEdge().from : edge->viewEdge().to;
            current = m_scene->nodeItems()[static_cast<size_t>(target)];
            m_scene->clearSelection();
            current->setSelected(true);
            m_canvas->ensureVisible(current, 40, 40);
            return;
        }
        if (m_scene->nodeItems().empty())
            return;
        // Start at the top of the graph.
        current = *std::min_element(m_scene->nodeItems().begin(), m_scene->nodeItems().end(),
            [](const NodeItem* a, const NodeItem* b) { return a->pos().y() < b->pos().y(); });
        m_scene->clearSelection();
        current->setSelected(true);
        m_canvas->ensureVisible(current, 40, 40);
        return;
    }
    NodeItem* next = nullptr;
    if (key == Qt::Key_Down || key == Qt::Key_Up) {
        const auto candidates = m_scene->neighbours(current, key == Qt::Key_Down);
        if (!candidates.empty()) {
            // The candidate closest to straight below/above.
            next = *std::min_element(
                candidates.begin(), candidates.end(), [current](const NodeItem* a, const NodeItem* b) {
                    return std::abs(a->pos().x() - current->pos().x()) < std::abs(b->pos().x() - current->pos().x());
                });
        }
    } else {
        next = m_scene->sideNeighbour(current, key == Qt::Key_Right);
    }
    if (!next)
        return;
    m_scene->clearSelection();
    next->setSelected(true);
    m_canvas->ensureVisible(next, 60, 60);
}

void GraphView::positionOverlays()
{
    const QRect area = m_canvas->geometry();
    m_overlay->adjustSize();
    m_overlay->move(area.center().x() - m_overlay->width() / 2, area.center().y() - m_overlay->height() / 2);
    const QRect vp = m_canvas->viewport()->rect();
    m_overview->move(vp.right() - m_overview->width() - 12, vp.bottom() - m_overview->height() - 12);
    m_canvas->setCornerReserve(m_overview->isVisible() ? m_overview->size() + QSize(12, 12) : QSize());
}

void GraphView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    positionOverlays();
}

bool GraphView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_canvas->viewport() && event->type() == QEvent::Resize) {
        positionOverlays();
        if (m_overview->isVisible() && m_overview->preferredSize() != m_overview->size())
            m_overviewResize->start();
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace onnxscope
