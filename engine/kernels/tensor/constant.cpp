// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// Constant 1, 9, 11, 12, 13, 19, 21, 23, 24, 25 (the later ones add the narrow element types): outputs the tensor
/// given by exactly one attribute: `value` (every version), `value_float(s)`, `value_int(s)`, `value_string(s)` (12+;
/// scalars and 1-D float, int64 and string tensors). `sparse_value` (11+, COO) is densified: the engine holds
/// sparse values dense, as the spec allows. The tensor is read once, when the plan is built.
class Constant final : public Kernel {
public:
    explicit Constant(const KernelInit& init)
    {
        const NodeAttributes& attrs = init.attributes();
        static const char* const kNames[] = { "value", "sparse_value", "value_float", "value_floats", "value_int",
            "value_ints", "value_string", "value_strings" };
        std::vector<std::string> present;
        for (const char* name : kNames)
            if (attrs.has(name))
                present.emplace_back(name);
        if (present.size() != 1) {
            std::string list;
            for (const auto& p : present)
                list += (list.empty() ? "" : ", ") + p;
            throw init.error("exactly one of the value attributes must be set, got "
                + (present.empty() ? std::string("none") : list));
        }
        const std::string& name = present.front();
        if (name != "value" && init.opset() < (name == "sparse_value" ? 11 : 12))
            throw init.error(
                "attribute '" + name + "' is not part of Constant in opset " + std::to_string(init.opset()));
        if (name == "value") {
            m_value = attrs.requireTensor("value");
        } else if (name == "sparse_value") {
            m_value = attrs.requireSparseTensorDense(name);
        } else if (name == "value_float") {
            m_value = Tensor::scalar<float>(attrs.requireFloat(name));
        } else if (name == "value_floats") {
            m_value = Tensor::vector1D<float>(attrs.getFloats(name));
        } else if (name == "value_int") {
            m_value = Tensor::scalar<int64_t>(attrs.requireInt(name));
        } else if (name == "value_ints") {
            m_value = Tensor::vector1D<int64_t>(attrs.getInts(name));
        } else if (name == "value_string") {
            m_value = Tensor::scalar<std::string>(attrs.requireString(name));
        } else {
            m_value = Tensor::vector1D<std::string>(attrs.getStrings(name));
        }
    }

    void compute(KernelContext& ctx) const override { ctx.setOutput(0, Value(m_value)); }

private:
    Tensor m_value;
};

} // namespace

void registerConstant(KernelRegistry& r)
{
    r.add("", "Constant", 1, 25, makeFactory<Constant>());
}

} // namespace onnxscope
