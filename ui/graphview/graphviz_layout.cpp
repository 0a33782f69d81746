// SPDX-License-Identifier: MIT
// The only file that includes Graphviz headers (see ARCHITECTURE.md).
#include "ui/graphview/graphviz_layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <QElapsedTimer>

#include <cstdio>
#include <mutex>
#include <string>

namespace onnxscope {

namespace {

std::mutex& graphvizMutex()
{
    static std::mutex mutex;
    return mutex;
}

// One context for the process, created on first use under the mutex; loading plugins each time is slow.
GVC_t* graphvizContext()
{
    static GVC_t* context = gvContext();
    return context;
}

std::string number(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4f", value);
    return buffer;
}

void set(void* object, const char* name, const std::string& value)
{
    agsafeset(object, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

LayoutResult runDot(const LayoutRequest& request, bool useClusters)
{
    LayoutResult result;
    GVC_t* gvc = graphvizContext();
    Agraph_t* graph = agopen(const_cast<char*>("g"), Agdirected, nullptr);
    set(graph, "rankdir", "TB");
    set(graph, "nodesep", number(request.nodeSeparation / 72.0));
    set(graph, "ranksep", number(request.rankSeparation / 72.0));
    set(graph, "splines", "spline");
    // Fewer crossing-minimisation passes on big graphs: the default iterations grow superlinearly.
    const size_t n = request.nodes.size();
    if (n > 300)
        set(graph, "mclimit", n > 1500 ? "0.2" : "0.5");
    if (n > 1500)
        set(graph, "nslimit", "2");

    std::vector<Agraph_t*> clusters(request.clusters.size(), nullptr);
    if (useClusters) {
        // Parents are created before children as long as parent indices are smaller; handle any order anyway.
        std::vector<int> order;
        std::vector<bool> done(clusters.size(), false);
        while (order.size() < clusters.size()) {
            size_t before = order.size();
            for (size_t i = 0; i < clusters.size(); ++i) {
                int parent = request.clusters[i].parent;
                if (!done[i] && (parent < 0 || done[static_cast<size_t>(parent)])) {
                    done[i] = true;
                    order.push_back(static_cast<int>(i));
                }
            }
            if (order.size() == before)
                break; // a cycle in parents: leave the rest out
        }
        for (int i : order) {
            const auto& c = request.clusters[static_cast<size_t>(i)];
            Agraph_t* parent = c.parent >= 0 ? clusters[static_cast<size_t>(c.parent)] : graph;
            if (!parent)
                continue;
            std::string name = "cluster_";
            name += std::to_string(i);
            Agraph_t* sub = agsubg(parent, const_cast<char*>(name.c_str()), 1);
            // An invisible label reserves the header; its size comes from fontsize (we draw the title ourselves).
            set(sub, "label", " ");
            set(sub, "labeljust", "l");
            set(sub, "fontsize", number(c.headerHeight * 0.8));
            set(sub, "margin", "10");
            clusters[static_cast<size_t>(i)] = sub;
        }
    }

    std::vector<Agnode_t*> nodes(n, nullptr);
    for (size_t i = 0; i < n; ++i) {
        const auto& node = request.nodes[i];
        std::string name = "n";
        name += std::to_string(i);
        Agraph_t* owner = graph;
        if (useClusters && node.cluster >= 0 && static_cast<size_t>(node.cluster) < clusters.size()
            && clusters[static_cast<size_t>(node.cluster)])
            owner = clusters[static_cast<size_t>(node.cluster)];
        Agnode_t* agn = agnode(owner, const_cast<char*>(name.c_str()), 1);
        set(agn, "shape", "box");
        set(agn, "fixedsize", "true");
        set(agn, "label", "");
        set(agn, "width", number(std::max(node.width, 1.0) / 72.0));
        set(agn, "height", number(std::max(node.height, 1.0) / 72.0));
        nodes[i] = agn;
    }
    std::vector<Agedge_t*> edges(request.edges.size(), nullptr);
    for (size_t i = 0; i < request.edges.size(); ++i) {
        const auto& e = request.edges[i];
        if (e.from < 0 || e.to < 0 || static_cast<size_t>(e.from) >= n || static_cast<size_t>(e.to) >= n)
            continue;
        std::string name = "e";
        name += std::to_string(i);
        Agedge_t* age = agedge(graph, nodes[static_cast<size_t>(e.from)], nodes[static_cast<size_t>(e.to)],
            const_cast<char*>(name.c_str()), 1);
        set(age, "arrowhead", "none");
        if (!e.constraint)
            set(age, "constraint", "false");
        edges[i] = age;
    }

    if (gvLayout(gvc, graph, "dot") != 0) {
        agclose(graph);
        result.error = QStringLiteral("Graphviz dot failed to lay out the graph");
        return result;
    }

    const boxf bb = GD_bb(graph);
    const double top = bb.UR.y;
    auto toScene = [&](pointf p) { return QPointF(p.x - bb.LL.x, top - p.y); };
    result.bounds = QRectF(0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
    result.centres.resize(n);
    for (size_t i = 0; i < n; ++i)
        result.centres[i] = toScene(ND_coord(nodes[i]));
    result.edgePaths.resize(edges.size());
    for (size_t i = 0; i < edges.size(); ++i) {
        if (!edges[i])
            continue;
        const splines* spl = ED_spl(edges[i]);
        if (!spl || spl->size < 1)
            continue;
        const bezier& bz = spl->list[0];
        auto& path = result.edgePaths[i];
        path.reserve(static_cast<size_t>(bz.size));
        for (int k = 0; k < bz.size; ++k)
            path.push_back(toScene(bz.list[k]));
    }
    result.clusterRects.resize(request.clusters.size());
    for (size_t i = 0; i < clusters.size(); ++i) {
        if (!clusters[i])
            continue;
        const boxf cb = GD_bb(clusters[i]);
        const QPointF a = toScene(cb.LL);
        const QPointF b = toScene(cb.UR);
        result.clusterRects[i] = QRectF(a, b).normalized();
    }
    gvFreeLayout(gvc, graph);
    agclose(graph);
    result.ok = true;
    return result;
}

} // namespace

LayoutResult computeLayout(const LayoutRequest& request)
{
    std::lock_guard<std::mutex> lock(graphvizMutex());
    QElapsedTimer timer;
    timer.start();
    LayoutResult result;
    if (request.nodes.empty()) {
        result.ok = true;
        result.clusterRects.resize(request.clusters.size());
        result.edgePaths.resize(request.edges.size());
    } else {
        result = runDot(request, !request.clusters.empty());
        if (!result.ok && !request.clusters.empty())
            result = runDot(request, false);
    }
    result.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return result;
}

} // namespace onnxscope
