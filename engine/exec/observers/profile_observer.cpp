// SPDX-License-Identifier: MIT
#include "engine/exec/observers/profile_observer.h"

#include "engine/core/text.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <regex>

namespace onnxscope {

void ProfileObserver::afterNode(const NodeEvent& e)
{
    if (m_childTime.size() < e.depth + 2)
        m_childTime.resize(e.depth + 2, std::chrono::nanoseconds(0));
    auto self = e.elapsed - m_childTime[e.depth + 1];
    if (self.count() < 0)
        self = std::chrono::nanoseconds(0);
    m_childTime[e.depth + 1] = std::chrono::nanoseconds(0);
    m_childTime[e.depth] += e.elapsed;

    const Graph* graph = &e.frame.graph();
    std::vector<NodeTiming>& nodes = m_byGraph[graph];
    if (nodes.empty())
        nodes.resize(graph->nodes().size());
    NodeTiming& t = nodes.at(static_cast<size_t>(e.node.id));
    if (t.calls == 0) {
        t.graph = graph;
        t.node = e.node.id;
        m_order.emplace_back(graph, e.node.id);
        if (m_recordPaths) {
            // Nodes in loop iterations are aggregated: the path drops the iteration.
            static const std::regex iteration(R"((iteration|step|batch) \d+)");
            std::vector<std::string>& paths = m_paths[graph];
            if (paths.empty())
                paths.resize(graph->nodes().size());
            paths[static_cast<size_t>(e.node.id)] = std::regex_replace(e.nodePath(), iteration, "$1 *");
        }
    }
    ++t.calls;
    t.total += e.elapsed;
    t.self += self;
    if (e.depth == 1)
        m_mainTotal += e.elapsed;
}

const NodeTiming& ProfileObserver::at(const std::pair<const Graph*, NodeId>& key) const
{
    return m_byGraph.at(key.first).at(static_cast<size_t>(key.second));
}

std::vector<NodeTiming> ProfileObserver::timings() const
{
    std::vector<NodeTiming> out;
    out.reserve(m_order.size());
    for (const auto& key : m_order)
        out.push_back(at(key));
    return out;
}

void ProfileObserver::clear()
{
    m_byGraph.clear();
    m_order.clear();
    m_paths.clear();
    m_childTime.clear();
    m_mainTotal = std::chrono::nanoseconds(0);
}

void ProfileObserver::printReport(std::ostream& out, size_t runs) const
{
    const double total = static_cast<double>(m_mainTotal.count()) / 1e6;
    auto pct = [&](double ms) { return total > 0 ? 100.0 * ms / total : 0.0; };
    std::vector<std::pair<const Graph*, NodeId>> nodes = m_order;
    std::stable_sort(nodes.begin(), nodes.end(), [&](const auto& a, const auto& b) { return at(a).self > at(b).self; });
    const auto path = [&](const std::pair<const Graph*, NodeId>& key) -> const std::string& {
        static const std::string none;
        const auto it = m_paths.find(key.first);
        return it == m_paths.end() ? none : it->second.at(static_cast<size_t>(key.second));
    };
    out << "profile over " << runs << " run" << (runs == 1 ? "" : "s") << ", " << formatMs(total)
        << " ms in the main graph's nodes\n";
    out << "per node (self time excludes subgraphs):\n";
    out << std::right << std::setw(12) << "total ms" << std::setw(12) << "self ms" << std::setw(8) << "self %"
        << std::setw(8) << "calls"
        << "  op / node\n";
    for (const auto& key : nodes) {
        const NodeTiming& n = at(key);
        const std::string& opType = n.graph->node(n.node).opType;
        double ms = static_cast<double>(n.total.count()) / 1e6, selfMs = static_cast<double>(n.self.count()) / 1e6;
        out << std::setw(12) << formatMs(ms) << std::setw(12) << formatMs(selfMs) << std::setw(8) << std::fixed
            << std::setprecision(1) << pct(selfMs) << std::setw(8) << n.calls << "  " << opType << "  " << path(key)
            << "\n";
    }
    std::map<std::string, std::pair<size_t, std::chrono::nanoseconds>> byOp;
    for (const auto& key : m_order) {
        const NodeTiming& n = at(key);
        auto& op = byOp[n.graph->node(n.node).opType];
        op.first += static_cast<size_t>(n.calls);
        op.second += n.self;
    }
    std::vector<std::pair<std::string, std::pair<size_t, std::chrono::nanoseconds>>> ops(byOp.begin(), byOp.end());
    std::stable_sort(ops.begin(), ops.end(), [](auto& a, auto& b) { return a.second.second > b.second.second; });
    out << "per op type (self time):\n";
    out << std::setw(12) << "self ms" << std::setw(8) << "%" << std::setw(8) << "calls"
        << "  op\n";
    for (const auto& [op, stats] : ops) {
        double ms = static_cast<double>(stats.second.count()) / 1e6;
        out << std::setw(12) << formatMs(ms) << std::setw(8) << std::fixed << std::setprecision(1) << pct(ms)
            << std::setw(8) << stats.first << "  " << op << "\n";
    }
    out << std::defaultfloat;
}

} // namespace onnxscope
