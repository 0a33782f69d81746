// SPDX-License-Identifier: MIT
#pragma once

// The interpolation shared by Resize and Upsample. Include only from kernel .cpp files.

#include "engine/kernels/kernel.h"

#include <vector>

namespace onnxscope {

enum class ResizeMode { Nearest, Linear, Cubic };
enum class CoordinateMode {
    HalfPixel,
    HalfPixelSymmetric,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    TfHalfPixelForNn,
    TfCropAndResize,
};
/// Legacy is Upsample's and Resize-10's rounding (as onnxruntime does it): floor when upsampling an axis, ceil when
/// downsampling it.
enum class NearestMode { RoundPreferFloor, RoundPreferCeil, Floor, Ceil, Legacy };

struct ResizeParams {
    ResizeMode mode = ResizeMode::Nearest;
    CoordinateMode coordinates = CoordinateMode::HalfPixel;
    NearestMode nearest = NearestMode::RoundPreferFloor;
    double cubicA = -0.75;
    bool excludeOutside = false;
    double extrapolationValue = 0.0;
    /// Resize-18's antialias for linear and cubic: the filter is widened by 1 / scale when downsampling.
    bool antialias = false;
};

/// One axis of a resize: the scale, the output length, and for tf_crop_and_resize the roi start and end.
/// `resizedLength` is the length that the coordinate formulas divide by: the output length when it was given as
/// 'sizes', otherwise input length * scale (* roi extent) unrounded, as ONNX's reference implementation does.
struct ResizeAxis {
    double scale = 1.0;
    int64_t outLength = 0;
    double resizedLength = 0.0;
    double roiStart = 0.0;
    double roiEnd = 1.0;
};

/// Resizes `x` (any element type for nearest, numeric types for linear and cubic) into a new tensor of the same
/// element type whose dims are axes[d].outLength. Errors name the node through `ctx`.
Tensor resizeTensor(
    const KernelContext& ctx, const ResizeParams& params, const Tensor& x, const std::vector<ResizeAxis>& axes);

/// Parses ResizeMode / CoordinateMode / NearestMode names; nullopt-like false return when unknown.
bool parseCoordinateMode(const std::string& name, CoordinateMode& out);
bool parseNearestMode(const std::string& name, NearestMode& out);

} // namespace onnxscope
