// SPDX-License-Identifier: MIT
#pragma once

// float16 <-> float conversion of whole arrays (F16C where the CPU has it, else Eigen's scalar conversion; both round
// to nearest even), and a kernel's cache of a constant input converted to float once.

#include "engine/core/half.h"
#include "engine/core/tensor.h"

#include <cstdint>
#include <mutex>
#include <vector>

namespace onnxscope {

struct KernelInit;

/// out[i] = in[i] as float, for i in [0, n).
void halfToFloat(const Float16* in, float* out, int64_t n);
/// out[i] = in[i] rounded to float16 (nearest even), for i in [0, n).
void floatToHalf(const float* in, Float16* out, int64_t n);

/// Whether input `index` of the node being planned is an initializer the caller cannot replace (not a graph input
/// with a default): its tensor is then the program's own, the same storage on every run.
bool isConstantInput(const KernelInit& init, size_t index);

/// The elements of a constant float16 or bfloat16 input as float, converted on the first run and kept by the kernel
/// (a weight's conversion otherwise costs every run as much as using it). Keyed by the tensor's storage: a different
/// tensor is converted again. Thread-safe: sessions of one program share its kernels.
class ConstantFloats {
public:
    /// The elements of `t` (float16 or bfloat16) as float; valid as long as the kernel and `t`.
    const float* get(const Tensor& t) const;

private:
    mutable std::mutex m_mutex;
    mutable const void* m_key = nullptr;
    mutable int64_t m_size = -1;
    mutable std::vector<float> m_data;
};

} // namespace onnxscope
