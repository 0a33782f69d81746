"""A small builder for the multi-node graphs of make_llm_models.py and make_rest_models.py: named nodes, seeded
initializers, graph inputs with their feeds, and onnxruntime's outputs (optionally with past/present pairs bound to
one buffer, as onnxruntime's CPU SparseAttention requires). Needs onnx, onnxruntime and numpy; no torch.
"""

import copy
import json
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

import case_writer

MS = "com.microsoft"


class GraphBuilder:
    def __init__(self, name, seed_name=None):
        self.name = name
        self.rng = case_writer.rng_for(seed_name or name)
        self.nodes, self.inits, self.inputs, self.feeds = [], [], [], {}
        self.counts = {}

    def init(self, name, array):
        """An initializer; a name given again returns the first one (the shared shape constants)."""
        if any(t.name == name for t in self.inits):
            return name
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, name, *shape, scale=None):
        """A seeded float weight, scaled by 1/sqrt(fan-in) unless scale is given."""
        fan_in = shape[0] if len(shape) >= 1 else 1
        s = scale if scale is not None else 1.0 / np.sqrt(fan_in)
        return self.init(name, (self.rng.standard_normal(shape) * s).astype(np.float32))

    def input(self, name, array, dims=None):
        """A graph input fed with array; dims: its declared dimensions (symbolic names allowed), default the
        array's shape."""
        array = np.asarray(array)
        elem = helper.np_dtype_to_tensor_dtype(array.dtype)
        self.inputs.append(helper.make_tensor_value_info(name, elem, dims if dims is not None else list(array.shape)))
        self.feeds[name] = array
        return name

    def op(self, op, inputs, outputs=1, domain="", name=None, **attrs):
        """A node named <name or op>_<k>; outputs: a count (names made from the node's name) or a list of names
        ("" for an omitted optional output). Returns the output name, or the list when there are several."""
        if name is None:
            k = self.counts.get(op, 0)
            self.counts[op] = k + 1
            name = f"{op}_{k}"
        if isinstance(outputs, int):
            outputs = [f"{name}/out{i}" if outputs > 1 else f"{name}/out" for i in range(outputs)]
        self.nodes.append(helper.make_node(op, [i or "" for i in inputs], outputs, name=name, domain=domain, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def const_i64(self, name, values):
        return self.init(name, np.array(values, np.int64))

    def model(self, outputs, opset=21, extra_domains=((MS, 1),)):
        """outputs: (name, numpy dtype) pairs, shapes left open."""
        graph_outputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.dtype(t)), None)
                         for n, t in outputs]
        graph = helper.make_graph(self.nodes, self.name, self.inputs, graph_outputs, self.inits)
        opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_domains]
        model = helper.make_model(graph, opset_imports=opsets, producer_name="onnxscope tests")
        model.ir_version = 10
        return model


def run_onnxruntime(model, feeds, names, shared=None):
    """onnxruntime's outputs `names` (CPU provider, optimizations disabled, one thread). shared: {input: output}
    pairs bound to one buffer, as onnxruntime's CPU kernels that write a past buffer in place need."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    if not shared:
        return session.run(names, feeds)
    binding = session.io_binding()
    buffers, keep = {}, []  # an OrtValue made from numpy borrows the array's memory: keep the arrays alive
    for name, array in feeds.items():
        if name in shared:
            keep.append(np.array(array, copy=True))
            buffers[shared[name]] = ort.OrtValue.ortvalue_from_numpy(keep[-1])
            binding.bind_ortvalue_input(name, buffers[shared[name]])
        else:
            binding.bind_cpu_input(name, array)
    for o in names:
        if o in buffers:
            binding.bind_ortvalue_output(o, buffers[o])
        else:
            binding.bind_output(o)
    session.run_with_iobinding(binding)
    outputs = binding.copy_outputs_to_cpu()
    plain = iter(o for o, name in zip(outputs, names) if name not in buffers)
    return [buffers[o].numpy().copy() if o in buffers else next(plain) for o in names]


def write_case(out_dir, case_name, model, feeds, names, shared=None, check=case_writer.no_non_finite):
    """A backend test-case folder out_dir/case_name with onnxruntime's outputs; check (default: refuse non-finite
    outputs) as case_writer.save_case takes it."""
    model = copy.deepcopy(model)  # save_case types the outputs with this case's shapes
    results = run_onnxruntime(model, feeds, names, shared)
    case_writer.save_case(os.path.join(out_dir, case_name), model, feeds, names, results, check)
    return results


def op_set(model):
    """Every domain:op of the model, subgraphs included."""
    found = set()

    def walk(graph):
        for n in graph.node:
            found.add(f"{n.domain or 'ai.onnx'}:{n.op_type}")
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g)
    walk(model.graph)
    return sorted(found)


def generate_models(argv, models):
    """The generators' command line: OUT_DIR [NAME ...] (every model when none is named). Each named maker writes its
    cases into OUT_DIR and adds their operators to OUT_DIR/ops.json, which keeps the entries of earlier runs."""
    out_dir = argv[1]
    only = argv[2:] or list(models)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "ops.json")
    ops = {}
    if os.path.exists(path):
        with open(path) as f:
            ops = json.load(f)
    for name in only:
        models[name](out_dir, ops)
    with open(path, "w") as f:
        json.dump(ops, f, indent=1, sort_keys=True)
    print(", ".join(sorted(ops)))
