// SPDX-License-Identifier: MIT
#include "engine/exec/operator_support.h"

#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <tuple>

namespace onnxscope {

static_assert(SupportedOperator::kLatest == KernelRegistry::kLatest);

std::vector<SupportedOperator> supportedOperators()
{
    std::vector<SupportedOperator> out;
    for (const KernelEntry& e : KernelRegistry::builtin().entries())
        out.push_back({ e.domain, e.opType, e.sinceVersion, e.lastVersion });
    std::sort(out.begin(), out.end(), [](const SupportedOperator& a, const SupportedOperator& b) {
        return std::tie(a.domain, a.opType, a.sinceVersion) < std::tie(b.domain, b.opType, b.sinceVersion);
    });
    return out;
}

} // namespace onnxscope
