// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace onnxscope {

namespace {

struct Box {
    double y1, x1, y2, x2;
};

/// NonMaxSuppression 10 and 11: boxes [B, N, 4], scores [B, C, N], optional max_output_boxes_per_class (default
/// 0: select nothing), iou_threshold (default 0) and score_threshold (default: none) -> selected_indices
/// [K, 3] int64 of (batch, class, box). center_point_box 0 reads boxes as corners in either order, 1 as (x, y, w,
/// h). Greedy per batch and class, as onnxruntime does it: boxes with score > score_threshold in descending score
/// order (ties keep the lower index first), dropping a box whose IoU with a kept one is > iou_threshold.
class NonMaxSuppression final : public Kernel {
public:
    explicit NonMaxSuppression(const KernelInit& init)
    {
        const int64_t cpb = init.attributes().getInt("center_point_box", 0);
        if (cpb != 0 && cpb != 1)
            throw init.attributes().error("center_point_box", "expected 0 or 1, got " + std::to_string(cpb));
        m_centerPoint = cpb == 1;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& boxes = ctx.input(0);
        const Tensor& scores = ctx.input(1);
        if (boxes.rank() != 3 || boxes.dim(2) != 4)
            throw ctx.error("boxes must be [batch, boxes, 4], got " + boxes.typeString());
        if (scores.rank() != 3 || scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1))
            throw ctx.error("scores must be [" + std::to_string(boxes.dim(0)) + ", classes, "
                + std::to_string(boxes.dim(1)) + "], got " + scores.typeString());
        int64_t maxOut = 0;
        if (ctx.hasInput(2)) {
            const Tensor& t = ctx.input(2);
            if (t.size() != 1 || (t.dtype() != DataType::Int64 && t.dtype() != DataType::Int32))
                throw ctx.error("max_output_boxes_per_class must be one int64, got " + t.typeString());
            maxOut = t.dtype() == DataType::Int64 ? t.data<int64_t>()[0] : t.data<int32_t>()[0];
        }
        const double iouThreshold = ctx.hasInput(3) ? scalar(ctx, 3, "iou_threshold") : 0.0;
        const bool hasScoreThreshold = ctx.hasInput(4);
        const double scoreThreshold = hasScoreThreshold ? scalar(ctx, 4, "score_threshold") : 0.0;
        if (iouThreshold < 0 || iouThreshold > 1)
            throw ctx.error("iou_threshold must be in [0, 1], got " + std::to_string(iouThreshold));

        const int64_t batches = boxes.dim(0), n = boxes.dim(1), classes = scores.dim(1);
        std::vector<double> b = toDouble(ctx, boxes, "boxes"), s = toDouble(ctx, scores, "scores");
        std::vector<int64_t> selected;
        std::vector<size_t> order;
        std::vector<int64_t> kept;
        for (int64_t bi = 0; bi < batches; ++bi) {
            std::vector<Box> bx(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i)
                bx[static_cast<size_t>(i)] = corners(b.data() + (bi * n + i) * 4);
            for (int64_t ci = 0; ci < classes && maxOut > 0; ++ci) {
                const double* sc = s.data() + (bi * classes + ci) * n;
                order.clear();
                for (int64_t i = 0; i < n; ++i)
                    if (!hasScoreThreshold || sc[i] > scoreThreshold)
                        order.push_back(static_cast<size_t>(i));
                // NaN scores sort last, so the comparison stays a strict weak order.
                auto key = [&](size_t i) { return std::isnan(sc[i]) ? -INFINITY : sc[i]; };
                std::stable_sort(order.begin(), order.end(), [&](size_t l, size_t r) { return key(l) > key(r); });
                kept.clear();
                for (size_t i : order) {
                    if (static_cast<int64_t>(kept.size()) >= maxOut)
                        break;
                    bool suppressed = false;
                    for (int64_t k : kept)
                        if (iou(bx[static_cast<size_t>(k)], bx[i]) > iouThreshold) {
                            suppressed = true;
                            break;
                        }
                    if (suppressed)
                        continue;
                    kept.push_back(static_cast<int64_t>(i));
                    selected.insert(selected.end(), { bi, ci, static_cast<int64_t>(i) });
                }
            }
        }
        Tensor& out = ctx.allocateOutput(0, DataType::Int64, { static_cast<int64_t>(selected.size() / 3), 3 });
        std::copy(selected.begin(), selected.end(), out.data<int64_t>().begin());
    }

private:
    static double scalar(const KernelContext& ctx, size_t i, const char* what)
    {
        const Tensor& t = ctx.input(i);
        if (t.size() != 1)
            throw ctx.error(std::string(what) + " must hold one value, got " + t.typeString());
        return toDouble(ctx, t, what)[0];
    }

    static std::vector<double> toDouble(const KernelContext& ctx, const Tensor& t, const char* what)
    {
        std::vector<double> v(static_cast<size_t>(t.size()));
        dispatch<FloatTypes>(t.dtype(), ctx.node().label() + ": " + what, [&]<class T>() {
            auto d = t.data<T>();
            for (size_t i = 0; i < d.size(); ++i)
                v[i] = static_cast<double>(d[i]);
        });
        return v;
    }

    Box corners(const double* p) const
    {
        if (m_centerPoint) {
            const double xc = p[0], yc = p[1], w = p[2], h = p[3];
            return { yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2 };
        }
        return { std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]), std::max(p[1], p[3]) };
    }

    static double iou(const Box& a, const Box& b)
    {
        const double areaA = (a.y2 - a.y1) * (a.x2 - a.x1), areaB = (b.y2 - b.y1) * (b.x2 - b.x1);
        if (!(areaA > 0) || !(areaB > 0))
            return 0;
        const double ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1), iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
        if (ih <= 0 || iw <= 0)
            return 0;
        const double inter = ih * iw;
        return inter / (areaA + areaB - inter);
    }

    bool m_centerPoint = false;
};

} // namespace

void registerNonMaxSuppression(KernelRegistry& r)
{
    r.add("", "NonMaxSuppression", 10, 11, makeFactory<NonMaxSuppression>());
}

} // namespace onnxscope
