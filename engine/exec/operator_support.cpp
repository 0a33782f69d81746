// SPDX-License-Identifier: MIT
#include "engine/exec/operator_support.h"

#include "engine/kernels/kernel_registry.h"
#include "engine/model/op_schema.h"

#include <algorithm>
#include <tuple>

namespace onnxscope {

static_assert(SupportedOperator::kLatest == KernelRegistry::kLatest);

std::vector<SupportedOperator> supportedOperators()
{
    std::vector<SupportedOperator> out;
    for (const KernelEntry& e : KernelRegistry::builtin().entries()) {
        SupportedOperator op { e.domain, e.opType, e.sinceVersion, e.lastVersion, {} };
        if (isSchemaDomain(e.domain))
            for (int v : schemaVersions(e.opType, e.domain))
                if (v >= e.sinceVersion && v <= e.lastVersion)
                    op.versions.push_back(v);
        out.push_back(std::move(op));
    }
    std::sort(out.begin(), out.end(), [](const SupportedOperator& a, const SupportedOperator& b) {
        return std::tie(a.domain, a.opType, a.sinceVersion) < std::tie(b.domain, b.opType, b.sinceVersion);
    });
    return out;
}

OperatorCoverage operatorCoverage(const std::string& domain, const std::string& opType, int sinceVersion)
{
    if (KernelRegistry::builtin().find(domain, opType, sinceVersion))
        return OperatorCoverage::Kernel;
    for (const SchemaVersion& v : allSchemaVersions())
        if (v.domain == domain && v.opType == opType && v.sinceVersion == sinceVersion)
            return v.functionBody ? OperatorCoverage::FunctionBody : OperatorCoverage::Unsupported;
    return OperatorCoverage::Unsupported;
}

} // namespace onnxscope
