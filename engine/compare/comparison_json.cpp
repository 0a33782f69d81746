// SPDX-License-Identifier: MIT
#include "engine/compare/comparison_json.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace onnxscope {

namespace {

nlohmann::json jnum(double v)
{
    if (!std::isfinite(v))
        return nullptr;
    return v;
}

bool hasStats(const CompareRow& r)
{
    return r.status == CompareStatus::Match || r.status == CompareStatus::Mismatch;
}

std::string statusText(CompareStatus s)
{
    return std::string(compareStatusName(s));
}

nlohmann::json rowJson(const CompareRow& r, size_t index)
{
    nlohmann::json j;
    j["index"] = index;
    j["status"] = statusText(r.status);
    j["origin"] = std::string(valueOriginName(r.origin));
    j["name"] = r.name;
    j["name_b"] = r.nameB;
    j["frame"] = r.framePath;
    j["iteration"] = r.iteration;
    j["node"] = r.node;
    j["op_type"] = r.opType;
    j["sequence"] = r.sequence;
    j["type_a"] = r.typeA.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.typeA);
    j["type_b"] = r.typeB.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.typeB);
    const bool stats = hasStats(r);
    const bool numeric = stats && r.stats.numeric;
    j["elements"] = stats ? nlohmann::json(r.stats.elements) : nlohmann::json(nullptr);
    j["mismatches"] = stats ? nlohmann::json(r.stats.mismatches) : nlohmann::json(nullptr);
    j["max_abs_error"] = numeric ? jnum(r.stats.maxAbsError) : nullptr;
    j["max_rel_error"] = numeric ? jnum(r.stats.maxRelError) : nullptr;
    j["mean_abs_error"] = numeric ? jnum(r.stats.meanAbsError) : nullptr;
    j["cosine"] = numeric ? jnum(r.stats.cosine) : nullptr;
    j["tolerance_ratio"] = numeric ? jnum(r.stats.toleranceRatio) : nullptr;
    j["nan_a"] = numeric ? nlohmann::json(r.stats.nanA) : nullptr;
    j["nan_b"] = numeric ? nlohmann::json(r.stats.nanB) : nullptr;
    j["inf_a"] = numeric ? nlohmann::json(r.stats.infA) : nullptr;
    j["inf_b"] = numeric ? nlohmann::json(r.stats.infB) : nullptr;
    j["nonfinite_mismatches"] = numeric ? nlohmann::json(r.stats.nonFiniteMismatches) : nullptr;
    j["worst_index"] = stats && r.stats.worstIndex >= 0 ? nlohmann::json(r.stats.worstIndex) : nullptr;
    j["note"] = r.note;
    const bool paired = r.status != CompareStatus::OnlyA && r.status != CompareStatus::OnlyB;
    j["paired_by"] = paired ? nlohmann::json(std::string(pairedByName(r.pairedBy))) : nlohmann::json(nullptr);
    j["frame_b"] = paired ? nlohmann::json(r.frameB) : nlohmann::json(nullptr);
    j["node_b"] = paired ? nlohmann::json(r.nodeB) : nlohmann::json(nullptr);
    j["op_type_b"] = paired ? nlohmann::json(r.opTypeB) : nlohmann::json(nullptr);
    j["sequence_b"] = paired ? nlohmann::json(r.sequenceB) : nlohmann::json(nullptr);
    j["align_distance"] = paired && r.pairedBy == PairedBy::Content ? jnum(r.alignDistance) : nullptr;
    return j;
}

nlohmann::json nodeJson(const ComparisonResult& res, const NodeCompare& n, size_t index)
{
    nlohmann::json j;
    j["index"] = index;
    j["sequence"] = n.sequence;
    j["frame"] = n.framePath;
    j["iteration"] = n.iteration;
    j["node"] = n.node;
    j["op_type"] = n.opType;
    j["status"] = statusText(n.status);
    const bool compared = n.status == CompareStatus::Match || n.status == CompareStatus::Mismatch;
    j["max_abs_error"] = compared ? jnum(n.maxAbsError) : nullptr;
    j["max_rel_error"] = compared ? jnum(n.maxRelError) : nullptr;
    j["cosine"] = compared ? jnum(n.minCosine) : nullptr;
    j["tolerance_ratio"] = compared ? jnum(n.toleranceRatio) : nullptr;
    j["root"] = n.root;
    j["values"] = n.rows;
    (void)res;
    return j;
}

nlohmann::json resultJson(const ComparisonResult& res, const std::string& sideBKind)
{
    nlohmann::json j;
    j["format"] = "onnxscope-compare";
    j["version"] = 1;
    j["side_a"] = res.sideA;
    j["side_b"] = res.sideB;
    j["side_b_kind"] = sideBKind;
    j["rtol"] = res.tolerance.rtol;
    j["atol"] = res.tolerance.atol;
    nlohmann::json summary;
    for (auto s : { CompareStatus::Match, CompareStatus::Mismatch, CompareStatus::ShapeMismatch,
             CompareStatus::KindMismatch, CompareStatus::OnlyA, CompareStatus::OnlyB, CompareStatus::Skipped })
        summary[statusText(s)] = res.count(s);
    summary["values"] = res.rows.size();
    summary["nodes"] = res.nodes.size();
    summary["all_match"] = res.allMatch();
    summary["diverged"] = res.hasDivergence();
    summary["peak_held_bytes"] = res.peakHeldBytes;
    summary["align"] = std::string(alignModeName(res.align));
    summary["alignment_bytes"] = res.alignmentBytes;
    nlohmann::json unpaired = nlohmann::json::array();
    for (size_t i = 0; i < res.rows.size(); ++i)
        if (res.rows[i].status == CompareStatus::OnlyA && res.rows[i].origin != ValueOrigin::Initializer)
            unpaired.push_back(i);
    j["unpaired_a"] = unpaired;
    j["summary"] = summary;
    j["error_a"] = res.errorA.empty() ? nlohmann::json(nullptr) : nlohmann::json(res.errorA);
    j["error_b"] = res.errorB.empty() ? nlohmann::json(nullptr) : nlohmann::json(res.errorB);
    if (res.firstDivergence) {
        const NodeCompare& n = res.nodes[*res.firstDivergence];
        nlohmann::json f = nodeJson(res, n, *res.firstDivergence);
        nlohmann::json outs = nlohmann::json::array();
        for (size_t r : n.rows)
            outs.push_back(res.rows[r].name);
        f["outputs"] = outs;
        // The counterpart: side B's value paired with its worst output, and the node that produced it.
        const CompareRow* worst = nullptr;
        for (size_t r : n.rows)
            if (isDivergent(res.rows[r].status)
                && (!worst || res.rows[r].stats.toleranceRatio > worst->stats.toleranceRatio))
                worst = &res.rows[r];
        f["counterpart"] = worst ? nlohmann::json(worst->nameB) : nlohmann::json(nullptr);
        f["node_b"] = worst ? nlohmann::json(worst->nodeB) : nlohmann::json(nullptr);
        f["op_type_b"] = worst ? nlohmann::json(worst->opTypeB) : nlohmann::json(nullptr);
        f["frame_b"] = worst ? nlohmann::json(worst->frameB) : nlohmann::json(nullptr);
        j["first_divergence"] = f;
    } else {
        j["first_divergence"] = nullptr;
    }
    j["differing_sources"] = res.differingSources;
    nlohmann::json values = nlohmann::json::array();
    for (size_t i = 0; i < res.rows.size(); ++i)
        values.push_back(rowJson(res.rows[i], i));
    j["values"] = std::move(values);
    nlohmann::json nodes = nlohmann::json::array();
    for (size_t i = 0; i < res.nodes.size(); ++i)
        nodes.push_back(nodeJson(res, res.nodes[i], i));
    j["nodes"] = std::move(nodes);
    return j;
}

} // namespace

std::string comparisonJson(const ComparisonResult& res, const std::string& sideBKind, int indent)
{
    return resultJson(res, sideBKind).dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace onnxscope
