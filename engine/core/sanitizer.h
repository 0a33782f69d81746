// SPDX-License-Identifier: MIT
#pragma once

// ONNXSCOPE_ASAN is 1 in builds with AddressSanitizer: GCC defines __SANITIZE_ADDRESS__, clang (before 18) only
// answers __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define ONNXSCOPE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ONNXSCOPE_ASAN 1
#endif
#endif
#ifndef ONNXSCOPE_ASAN
#define ONNXSCOPE_ASAN 0
#endif
