// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/session.h"

#include <chrono>
#include <ostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace onnxscope {

/// Accumulated time of one node over a run (every frame and iteration that ran it).
struct NodeTiming {
    const Graph* graph = nullptr;
    NodeId node = -1;
    int64_t calls = 0;
    std::chrono::nanoseconds total { 0 }; // wall time, subgraphs included
    std::chrono::nanoseconds self { 0 }; // without the nodes of its subgraphs (equal to total for other nodes)
};

/// Times every node a session runs: calls, total and self time per node of each graph. Control-flow nodes report
/// their total and, separately, their self time (without the nodes of their subgraphs), so that a per-op-type sum of
/// self times does not count subgraph time twice. Recording a node allocates nothing once its graph was seen (the
/// per-graph table is sized once), unless paths are recorded.
class ProfileObserver : public SessionObserver {
public:
    /// With `recordPaths`, each node's path is kept from its first run, its Loop iteration or Scan step written as
    /// "*" (`main / Loop "l" iteration * / add_7`), for printReport().
    explicit ProfileObserver(bool recordPaths = false)
        : m_recordPaths(recordPaths)
    {
    }

    void afterNode(const NodeEvent& e) override;

    /// Every node run so far, in the order each first ran.
    std::vector<NodeTiming> timings() const;
    /// Wall time of the main graph's nodes so far.
    std::chrono::nanoseconds mainGraphTime() const { return m_mainTotal; }
    /// Forgets everything recorded.
    void clear();

    /// The report of `onnxscope-cli run --profile`: per node sorted by self time, then per op type. `runs` is the
    /// number of runs the observer saw, for the heading. Needs recordPaths for the node paths.
    void printReport(std::ostream& out, size_t runs) const;

private:
    const NodeTiming& at(const std::pair<const Graph*, NodeId>& key) const;

    bool m_recordPaths;
    /// By graph, by NodeId (calls 0: not run).
    std::unordered_map<const Graph*, std::vector<NodeTiming>> m_byGraph;
    std::vector<std::pair<const Graph*, NodeId>> m_order;
    std::unordered_map<const Graph*, std::vector<std::string>> m_paths; // recordPaths only, by NodeId
    std::vector<std::chrono::nanoseconds> m_childTime; // by depth: time of the nodes run below the node in progress
    std::chrono::nanoseconds m_mainTotal { 0 };
};

} // namespace onnxscope
