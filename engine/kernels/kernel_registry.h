// SPDX-License-Identifier: MIT
#pragma once

#include "engine/kernels/kernel.h"

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace onnxscope {

using KernelFactory = std::function<std::unique_ptr<Kernel>(const KernelInit&)>;

/// A registered kernel and its factory. In the domains that onnx's schema registry defines (isSchemaDomain), the
/// range is one of schema since-versions: the kernel implements the meaning of every version of the op whose
/// since-version lies in [sinceVersion, lastVersion], and a node runs with it when its opset resolves to one of them.
/// Elsewhere (custom domains) the range is one of opsets, and may be open (kLatest).
struct KernelEntry {
    std::string domain; // "" for the default domain
    std::string opType;
    int64_t sinceVersion = 1;
    int64_t lastVersion = std::numeric_limits<int64_t>::max();
    KernelFactory factory;
};

/// Maps (domain, op type, opset) to kernel factories. builtin() holds every kernel of the engine.
class KernelRegistry {
public:
    static constexpr int64_t kLatest = std::numeric_limits<int64_t>::max();

    void add(const std::string& domain, const std::string& opType, int64_t sinceVersion, int64_t lastVersion,
        KernelFactory factory);
    /// Removes every entry of (domain, op type); for tests and for builds that leave an op to its function body.
    void remove(const std::string& domain, const std::string& opType) { m_entries.erase({ domain, opType }); }
    /// The version of the op that a node of `opset` has: the schema since-version in schema domains, else `opset`.
    static int64_t implementedVersion(const std::string& domain, const std::string& opType, int64_t opset);
    /// The entry implementing the version of the op that `opset` resolves to, or null.
    const KernelEntry* find(const std::string& domain, const std::string& opType, int64_t opset) const;
    /// "the versions of Op with a kernel: 1-13, 18", for messages about unsupported nodes.
    std::string describeVersions(const std::string& domain, const std::string& opType) const;
    /// Builds the kernel for a node; Error naming op, domain, opset, node and the supported versions if unsupported.
    std::unique_ptr<Kernel> create(const Node& node, const Graph* graph = nullptr) const;
    std::vector<KernelEntry> entries() const;

    static const KernelRegistry& builtin();

private:
    std::map<std::pair<std::string, std::string>, std::vector<KernelEntry>> m_entries;
};

/// Creates a kernel of type K from its constructor K(const KernelInit&).
template <class K> KernelFactory makeFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<K>(init); };
}

/// Registers every kernel family (kernels/register_all.cpp).
void registerAllKernels(KernelRegistry& registry);

} // namespace onnxscope
