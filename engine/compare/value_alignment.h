// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onnxscope {

/// How compare pairs the values of side A with those of side B.
enum class AlignMode {
    Names, // by frame path and name (after the name map) only
    Content, // by shape and content, in execution order on both sides; graph inputs by name, outputs by position
    Auto, // by name where the names pair, then by content for the rest; by name alone when every name of A is in B
};
std::string_view alignModeName(AlignMode mode);
/// "names", "content" or "auto"; throws Error otherwise.
AlignMode parseAlignMode(std::string_view text);

/// Why a pair was made.
enum class PairedBy { None, Name, Content, Input, Output };
/// "name", "content", "input", "output" ("" for None).
std::string_view pairedByName(PairedBy by);

/// What the alignment knows of one value produced on one side: where it was produced and a sketch of its content.
/// Values are numbered in the order their side produces them (main inputs and initializers first, then node outputs in
/// execution order, subgraph frames included): that order is the stream order the alignment keeps monotone.
struct ValueSignature {
    bool source = false; // a main-graph input or initializer
    bool input = false; // a main-graph input
    int output = -1; // index among the main graph's outputs, -1 if none
    std::string framePath, name;
    size_t depth = 1; // frame depth, 1 for the main graph
    int64_t iteration = -1;
    std::string opType; // producer's, "" for sources
    bool constant = false; // made by a node without inputs (Constant): where it runs says nothing
    bool numeric = false; // a tensor of a real-valued element type: content alignment applies
    DataType dtype = DataType::Undefined;
    Shape shape;
    int64_t elements = 0;
    std::vector<float> samples; // at most kAlignmentSamples elements at evenly spread flat positions
    double mean = 0, rms = 0; // over all finite elements
    bool allZero = true;
};

inline constexpr int64_t kAlignmentSamples = 256;

/// Fills the content part of a signature (kind, dtype, shape, samples, moments) from a value: one pass over it.
void sketchValue(const Value& value, ValueSignature& signature);

struct AlignmentOptions {
    /// Pair same-named values (same frame path) first, whatever their content (Auto).
    bool pairNames = true;
    /// Pair the rest by content (Content, Auto).
    bool pairContent = true;
    /// A content pair needs its sketch distance (relative L2 error of the samples, or of the moments) at most this.
    double maxDistance = 1.0;
    /// Above this distance a content pair also needs both values made by the same operator type.
    double closeDistance = 0.05;
};

/// For each value of A the index of its counterpart in B (-1 for none) and why, and the reverse map.
struct Alignment {
    std::vector<int64_t> bOfA;
    std::vector<PairedBy> byA;
    std::vector<int64_t> aOfB;
    std::vector<double> distance; // per A value: the sketch distance of its pair (0 for name pairs)
};

/// Aligns the two streams: a one-to-one matching, monotone in both streams' order for everything but name pairs.
/// `nameOfAInB` maps side A's value names to the names side B uses (CompareOptions::nameMap applied).
Alignment alignValues(const std::vector<ValueSignature>& a, const std::vector<ValueSignature>& b,
    const std::vector<std::string>& nameOfAInB, const AlignmentOptions& options);

} // namespace onnxscope
