// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onnxscope {

/// True if `bytes` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool isValidUtf8(std::string_view bytes);

/// `bytes` for display: valid UTF-8 sequences are kept, every other byte and every ASCII control character is written
/// as `\xNN`. The result is always valid UTF-8. String tensors keep their bytes as they are; only what is shown is
/// escaped, so a string that is not UTF-8 never turns into replacement characters or breaks a JSON writer.
std::string escapeBytes(std::string_view bytes);

/// Milliseconds with three decimals: "1.234" (or `decimals`).
std::string formatMs(double ms, int decimals = 3);
std::string formatMs(std::chrono::nanoseconds d);

/// A flat element index as a multi-dimensional one in a tensor of `shape`: "[0, 2]" ("[]" for a scalar).
std::string formatIndex(const std::vector<int64_t>& shape, int64_t flat);

} // namespace onnxscope
