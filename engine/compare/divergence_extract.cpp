// SPDX-License-Identifier: MIT
#include "engine/compare/divergence_extract.h"

#include "engine/core/cast.h"
#include "engine/core/error.h"
#include "engine/io/tensor_proto.h"
#include "engine/model/model.h"

#include <cstdio>
#include <fstream>
#include <map>

namespace fs = std::filesystem;

namespace onnxscope {

namespace {

constexpr const char* kMain = "main";

std::string quotedName(const std::string& s)
{
    return "\"" + s + "\"";
}

std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

bool paired(const CompareRow& r)
{
    return r.status != CompareStatus::OnlyA && r.status != CompareStatus::OnlyB && r.status != CompareStatus::Skipped;
}

/// The values a case's test_data_set_0 holds, by name, in the case's order.
std::vector<std::pair<std::string, Value>> readCaseValues(
    const ExtractedCase& c, const std::vector<std::string>& names, const char* prefix)
{
    std::vector<std::pair<std::string, Value>> values;
    for (size_t i = 0; i < names.size(); ++i)
        values.emplace_back(
            names[i], Value(readTensorProtoFile(c.folder / "test_data_set_0" / (prefix + std::to_string(i) + ".pb"))));
    return values;
}

void writeReadme(const DivergenceExtract& x, const ComparisonResult& result, const NodeCompare& n, const fs::path& path)
{
    std::ofstream out(path);
    if (!out)
        throw Error("cannot write " + path.string());
    out << "The first divergence of a comparison, as two standalone test cases (ONNX backend test layout).\n\n";
    out << "A: " << result.sideA << "\nB: " << result.sideB << "\n";
    out << "tolerance: rtol " << num(result.tolerance.rtol) << ", atol " << num(result.tolerance.atol) << "\n\n";
    out << "In the whole runs, node " << quotedName(x.nodeA) << " (" << x.opTypeA
        << ") of A is the first whose outputs "
        << "diverge while all its inputs computed by nodes match: max abs error " << num(n.maxAbsError)
        << ", max rel error " << num(n.maxRelError) << ". Its counterpart in B is node " << quotedName(x.nodeB) << " ("
        << x.opTypeB << ").\n\n";
    out << "a/  A's node, fed the values A's run gave its inputs.\n";
    out << "b/  B's node, fed A's values wherever the comparison paired them, so that its outputs differ from a/'s "
           "by the node's own error:\n";
    for (const auto& in : x.inputs) {
        out << "    input " << quotedName(in.nameB) << ": ";
        if (in.fromA)
            out << "A's value " << quotedName(in.nameA) << " (paired by " << pairedByName(in.pairedBy)
                << (in.note.empty() ? "" : ", " + in.note) << ")\n";
        else
            out << "B's own value (" << in.note << ")\n";
    }
    out << "\nThe two cases' expected outputs, A against B (B as the reference):\n";
    for (const auto& o : x.outputs) {
        out << "    " << quotedName(o.nameA) << " ~ " << quotedName(o.nameB) << ": "
            << compareStatusName(o.comparison.status);
        if (!o.comparison.note.empty())
            out << " (" << o.comparison.note << ")";
        out << ", max abs error " << num(o.comparison.stats.maxAbsError) << ", max rel error "
            << num(o.comparison.stats.maxRelError) << ", " << o.comparison.stats.mismatches << " of "
            << o.comparison.stats.elements << " elements outside the tolerance\n";
    }
    out << "max abs error between the cases: " << num(x.maxAbsError) << "\n\n";
    out << "Run either with `onnxscope-cli test a` (or b), or onnxruntime's onnx_test_runner.\n";
}

} // namespace

DivergenceExtract extractFirstDivergence(
    const ComparisonResult& result, const RunSide& a, const RunSide& b, const fs::path& folder, ThreadPool* pool)
{
    DivergenceExtract x;
    if (!result.firstDivergence) {
        if (!result.hasDivergence())
            x.message = "no divergence: every value present on both sides matches; nothing written";
        else if (!result.differingSources.empty())
            x.message = "no divergent node: only graph inputs or initializers differ; nothing written";
        else
            x.message = "no divergent node (a side failed or stopped before one diverged); nothing written";
        return x;
    }
    if (!a.program || !b.program || !result.programB)
        throw Error("extracting the first divergence needs two models (side B is not a model)");
    const NodeCompare& n = result.nodes[*result.firstDivergence];
    const Graph& graphA = a.program->model().graph();
    const Graph& graphB = b.program->model().graph();
    if (n.framePath != kMain || n.graph != &graphA)
        throw Error("the first divergence, node " + quotedName(n.node) + " (" + n.opType + ") at " + n.framePath
            + ", runs inside a subgraph; extract works on nodes of the main graph: extract the enclosing node with "
              "`onnxscope-cli extract --node`");
    const CompareRow* rowB = nullptr;
    for (size_t r : n.rows) {
        const CompareRow& row = result.rows[r];
        if (isDivergent(row.status) && paired(row)) {
            rowB = &row;
            break;
        }
    }
    if (!rowB)
        throw Error("the outputs of node " + quotedName(n.node) + " have no counterpart in B");
    if (!rowB->graphB || rowB->nodeIdB < 0)
        throw Error("output " + quotedName(rowB->name) + " of node " + quotedName(n.node) + " pairs with "
            + quotedName(rowB->nameB) + " of B, which no node of B computes");
    if (rowB->frameB != kMain || rowB->graphB != &graphB)
        throw Error("the counterpart of node " + quotedName(n.node) + " in B, node " + quotedName(rowB->nodeB) + " at "
            + rowB->frameB + ", runs inside a subgraph; extract works on nodes of the main graph");
    x.found = true;
    x.nodeA = n.node;
    x.opTypeA = n.opType;
    x.nodeB = rowB->nodeB;
    x.opTypeB = rowB->opTypeB;

    fs::create_directories(folder);
    fs::remove_all(folder / "a"); // a case left by an earlier extract would keep its extra inputs
    fs::remove_all(folder / "b");
    const SubgraphBoundary partA = subgraphOfNodes(graphA, { graphA.node(n.nodeId).displayName() });
    const SubgraphBoundary partB = subgraphOfNodes(graphB, { graphB.node(rowB->nodeIdB).displayName() });
    x.caseA = extractTestCase(a.program, partA, a.inputs, folder / "a", {}, pool);
    const auto inputsA = readCaseValues(x.caseA, partA.inputs, "input_");
    const auto outputsA = readCaseValues(x.caseA, partA.outputs, "output_");

    // Side B's node with its own inputs first: its model, and the values that have no counterpart on A.
    const fs::path own = folder / ".b-own";
    fs::remove_all(own);
    const ExtractedCase ownB = extractTestCase(b.program, partB, b.inputs, own, {}, pool);
    const auto inputsOwnB = readCaseValues(ownB, partB.inputs, "input_");

    std::map<std::string, const CompareRow*> rowOfB; // B's main-graph value name -> its pair
    for (const auto& row : result.rows)
        if (paired(row) && row.framePath == kMain && row.frameB == kMain && !row.nameB.empty())
            rowOfB.emplace(row.nameB, &row);
    std::map<std::string, Value> valueOfA;
    for (const auto& [name, value] : inputsA)
        valueOfA.emplace(name, value);

    std::map<std::string, Value> feeds;
    for (const auto& [nameB, ownValue] : inputsOwnB) {
        DivergenceInput in;
        in.nameB = nameB;
        auto pair = rowOfB.find(nameB);
        if (pair == rowOfB.end()) {
            in.note = "the comparison paired no value of A with it";
        } else {
            in.nameA = pair->second->name;
            in.pairedBy = pair->second->pairedBy;
            auto va = valueOfA.find(in.nameA);
            if (va == valueOfA.end() && a.inputs.count(in.nameA))
                va = valueOfA.emplace(in.nameA, a.inputs.at(in.nameA)).first;
            const Tensor& own = ownValue.tensor();
            if (va == valueOfA.end()) {
                in.note = "its counterpart " + quotedName(in.nameA)
                    + " is none of the values A's node reads (only those are captured)";
            } else if (!va->second.isTensor() || va->second.tensor().shape() != own.shape()) {
                in.note = "its counterpart " + quotedName(in.nameA) + " is " + va->second.typeString()
                    + " where B's node reads " + ownValue.typeString();
            } else if (va->second.tensor().dtype() != own.dtype()) {
                const DataType from = va->second.tensor().dtype();
                if (isFloatingPoint(from) && isFloatingPoint(own.dtype())) {
                    // An fp16 or bf16 copy: A's value rounded to B's type, as compare feeds B's graph inputs.
                    in.fromA = true;
                    in.note = "cast from " + std::string(dataTypeName(from)) + " to "
                        + std::string(dataTypeName(own.dtype()));
                    feeds.emplace(nameB, Value(castTensor(va->second.tensor(), own.dtype())));
                } else {
                    in.note = "its counterpart " + quotedName(in.nameA) + " is " + va->second.typeString()
                        + " where B's node reads " + ownValue.typeString();
                }
            } else {
                in.fromA = true;
                feeds.emplace(nameB, va->second);
            }
        }
        if (!in.fromA)
            feeds.emplace(nameB, ownValue);
        if (!in.fromA)
            in.nameA.clear();
        x.inputs.push_back(std::move(in));
    }
    {
        // B's node alone (the model just written), run on the chosen values: its expected outputs for those inputs.
        auto program = std::make_shared<Program>(Model::load(ownB.folder / "model.onnx"));
        const SubgraphBoundary whole = subgraphBetween(program->model().graph(), partB.inputs, partB.outputs);
        x.caseB = extractTestCase(program, whole, feeds, folder / "b", {}, pool);
    }
    fs::remove_all(own);
    x.caseB.part = partB;
    const auto outputsB = readCaseValues(x.caseB, partB.outputs, "output_");

    // Pair the outputs as the comparison did; by position when it paired none of them.
    std::map<std::string, std::string> bOfA;
    for (const auto& row : result.rows)
        if (paired(row) && row.framePath == kMain && row.frameB == kMain)
            bOfA.emplace(row.name, row.nameB);
    for (size_t i = 0; i < outputsA.size(); ++i) {
        const auto& [nameA, valueA] = outputsA[i];
        const std::pair<std::string, Value>* match = nullptr;
        if (auto it = bOfA.find(nameA); it != bOfA.end())
            for (const auto& o : outputsB)
                if (o.first == it->second)
                    match = &o;
        if (!match && outputsA.size() == outputsB.size())
            match = &outputsB[i];
        if (!match)
            continue;
        DivergenceOutput o;
        o.nameA = nameA;
        o.nameB = match->first;
        o.comparison = compareValuePair(valueA, match->second, result.tolerance);
        if (o.comparison.stats.numeric)
            x.maxAbsError = std::max(x.maxAbsError, o.comparison.stats.maxAbsError);
        x.outputs.push_back(std::move(o));
    }
    x.readme = folder / "README.txt";
    writeReadme(x, result, n, x.readme);
    return x;
}

} // namespace onnxscope
