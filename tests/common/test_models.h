// SPDX-License-Identifier: MIT
#pragma once

// Small models in ONNX's text format that several test suites run.

namespace onnxscope::testing {

/// A Loop of 3 iterations whose body holds an If: iteration 0 takes else (acc * x), later ones then (acc + x). Its
/// outputs: the final acc, and the trace of every iteration's acc.
inline constexpr const char* kLoopWithIf = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2] x) => (float[2] out, float[3, 2] trace) {
    trip = Constant <value = int64 {3}> ()
    cond = Constant <value = bool {1}> ()
    out, trace = Loop (trip, cond, x) <body = loop_body (int64 i, bool c, float[2] acc) => (bool c_out, float[2] acc_out, float[2] s) {
        c_out = Identity(c)
        zero = Constant <value = int64 {0}> ()
        later = Greater(i, zero)
        acc_out = If (later) <then_branch = then_g () => (float[2] t) { t = Add(acc, x) }, else_branch = else_g () => (float[2] e) { e = Mul(acc, x) }>
        s = Identity(acc_out)
    }>
})";

/// A Loop of 10^8 iterations doubling a float[4]: a run that lasts until it is paused or stopped.
inline constexpr const char* kLongLoop = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[4] x) => (float[4] out) {
    trip = Constant <value = int64 {100000000}> ()
    cond = Constant <value = bool {1}> ()
    out = Loop (trip, cond, x) <body = long_body (int64 i, bool c, float[4] acc) => (bool c_out, float[4] acc_out) {
        c_out = Identity(c)
        acc_out = Add(acc, acc)
    }>
})";

} // namespace onnxscope::testing
