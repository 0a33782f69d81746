// SPDX-License-Identifier: MIT
#include "engine/model/debug_model.h"

#include "engine/core/error.h"
#include "engine/io/tensor_proto.h"
#include "engine/model/model.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <set>

namespace onnxscope {

namespace fs = std::filesystem;

size_t writeDebugModel(
    const fs::path& path, const Model& source, const std::vector<std::pair<std::string, Tensor>>& values)
{
    onnx::ModelProto model = source.proto();
    onnx::GraphProto* graph = model.mutable_graph();
    bool hasDomain = false;
    for (const auto& op : model.opset_import())
        hasDomain = hasDomain || op.domain() == "mlprodict";
    if (!hasDomain) {
        auto* op = model.add_opset_import();
        op->set_domain("mlprodict");
        op->set_version(1);
    }
    std::set<std::string> names;
    for (const auto& n : graph->node())
        for (const auto& o : n.output())
            names.insert(o);
    for (const auto& i : graph->initializer())
        names.insert(i.name());
    for (const auto& i : graph->input())
        names.insert(i.name());
    auto unique = [&](std::string base) {
        std::string name = base;
        for (int n = 2; names.count(name); ++n)
            name = base + "_" + std::to_string(n);
        names.insert(name);
        return name;
    };
    size_t count = 0;
    for (const auto& [name, tensor] : values) {
        const std::string init = unique(name + "__debug_value");
        tensorToProto(tensor, *graph->add_initializer(), init);
        auto* node = graph->add_node();
        node->set_op_type("DEBUG");
        node->set_domain("mlprodict");
        node->set_name(unique("DEBUG_" + name));
        node->add_input(init);
        node->add_output(unique(name + "__debug"));
        node->set_doc_string("value of \"" + name + "\" computed by onnxscope");
        ++count;
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw Error("cannot write \"" + path.string() + "\"");
    if (model.ByteSizeLong() > (size_t(2) << 30) - 1)
        throw Error("the debug model would be over protobuf's 2 GB limit; export the values as .npz instead");
    if (!model.SerializeToOstream(&out))
        throw Error("cannot write \"" + path.string() + "\"");
    return count;
}

} // namespace onnxscope
