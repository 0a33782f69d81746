// SPDX-License-Identifier: MIT
#pragma once

// Decoding of encoded images (BMP, JPEG, JPEG 2000, PNG, PNM, TIFF, WebP) into 8-bit RGB, for ImageDecoder. Include
// only from kernel .cpp files.

#include <cstdint>
#include <span>
#include <vector>

namespace onnxscope::image {

/// An image as rows of interleaved 8-bit R, G, B (height * width * 3 bytes).
struct RgbImage {
    int64_t height = 0;
    int64_t width = 0;
    std::vector<uint8_t> rgb;
};

/// Decodes `bytes`, recognising the format by its signature; Error naming the format and the reason otherwise.
RgbImage decodeImage(std::span<const uint8_t> bytes);

} // namespace onnxscope::image
