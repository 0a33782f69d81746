// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace onnxscope {

/// The one grammar for a size in bytes, as the CLI (--memory-budget, --allocation-limit), the GUI (Debug › Memory
/// Budget…) and Python (memory_budget=) read it: a positive number, whole or decimal, then an optional unit K, M, G,
/// T or P, optionally followed by "i" and/or "B", in any case, with spaces allowed around it: "1048576", "100B",
/// "512M", "1.5G", "4 GiB", "64kb". Units are powers of 1024 whether written "M", "MB" or "MiB": a budget is a share
/// of RAM, which is counted in those. A fraction of a byte is dropped. nullopt for anything else, for 0 and for sizes
/// of 2^64 bytes or more.
std::optional<uint64_t> parseByteSize(std::string_view text);

/// parseByteSize, or an Error naming `what` (the option or parameter) and the text.
uint64_t parseByteSizeOrThrow(std::string_view text, std::string_view what);

/// The one way a byte count is written: "312 B" below 1 KiB, then one decimal and a binary unit: "1.5 KiB",
/// "233.0 MiB", "1.5 GiB", up to EiB. The unit names say 1024, so "MB" (10^6) is never written for 2^20.
std::string formatByteCount(uint64_t bytes);
std::string formatByteCount(double bytes);

} // namespace onnxscope
