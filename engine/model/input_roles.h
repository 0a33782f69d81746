// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"
#include "engine/model/graph.h"

#include <map>
#include <random>
#include <set>
#include <string>

namespace onnxscope {

/// What a graph input is for, as far as its name, its type and what reads it tell, so that values made up for it mean
/// something: a transformer run on all-zero token ids and a zero attention mask gives every logit 0.
struct InputRole {
    enum class Kind {
        Generic, // nothing known: the caller's own default (random floats, small integers)
        TokenIds, // input_ids: seeded integers below the vocabulary size
        AttentionMask, // attention_mask: ones
        PositionIds, // position_ids, cache_position: 0, 1, …, n-1 along the last axis
        TokenTypeIds, // token_type_ids, segment_ids: zeros (one segment)
    };
    Kind kind = Kind::Generic;
    /// TokenIds: rows of the embedding table the ids index (0 when no table was found: small integers instead).
    int64_t vocabulary = 0;
    std::string table; // TokenIds: that table's name
    /// Which rule chose the role and what values it gives, for the user: `attention mask ("attention_mask"): ones`.
    std::string rule;
};

/// The role of the main-graph input `input`. TokenIds is chosen for an integer input named like token ids
/// (input_ids, decoder_input_ids, token_ids, ids, tokens) or whose values index the rows of an embedding table (a
/// Gather of a 2-D initializer, through Cast/Reshape/Unsqueeze/Squeeze/Flatten/Identity); the vocabulary is that
/// table's row count. The others are chosen by name, for integer, bool or (masks) float inputs.
InputRole inputRole(const Graph& graph, ValueId input);

/// The values `role` gives an input of `dtype` and `shape` (TokenIds uniform in [0, vocabulary) from `rng`); an
/// undefined tensor for Generic, which the caller fills its own way.
Tensor roleTensor(const InputRole& role, DataType dtype, const Shape& shape, std::mt19937_64& rng);

/// Seeded random values: floats uniform in [-1, 1), integers in [0, 9], random lowercase strings. The CLI's `run`
/// and `compare` and Python share these so that the same --seed feeds the same values to both.
Tensor randomTensor(DataType type, const Shape& shape, std::mt19937_64& rng);
/// A random value of a declared type; symbolic dims come from `dims` (recorded in `usedDims`), else 1 (recorded in
/// `defaultedDims` when given: the symbol, or "(unnamed, of "NAME")").
Value randomValue(const std::string& name, const ValueType& type, const std::map<std::string, int64_t>& dims,
    std::set<std::string>& usedDims, std::mt19937_64& rng, std::set<std::string>* defaultedDims = nullptr);

/// The value of main-graph input `id` made up when none is given: what its role asks for (inputRole():
/// ones for an attention mask, token ids below the vocabulary, positions 0..n-1), else randomValue(). `rule` gets
/// the rule that chose the values, for the user.
Value defaultInputValue(const Graph& graph, ValueId id, const std::map<std::string, int64_t>& dims,
    std::set<std::string>& usedDims, std::mt19937_64& rng, std::set<std::string>* defaultedDims, std::string& rule);

} // namespace onnxscope
