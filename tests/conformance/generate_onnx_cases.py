"""Writes the backend test cases of the pinned onnx release (scripts/test-requirements.txt) into OUT_DIR.

Usage: <test venv>/bin/python generate_onnx_cases.py OUT_DIR

- node/ and simple/: generated from onnx's own case code (onnx.backend.test.case), as onnx's backend-test-tools
  does for its model cases; the node cases are not shipped as data since onnx 1.14.
- pytorch-converted/, pytorch-operator/: copied from the package's test data.
- light/: the package's light models, each given onnx's generated input (arange(n)/n in the input's shape and
  element type) as test_data_set_0/input_0.pb next to its output_0.pb.
"""
import argparse
import os
import shutil
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.test import cmd_tools
from onnx.backend.test.case import model as model_cases
from onnx.backend.test.case import node as node_cases

warnings.simplefilter("ignore")
out = sys.argv[1]
stamp = os.path.join(out, ".generated-" + onnx.__version__)
if not os.path.exists(stamp):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    # cmd_tools.generate_data writes every case that model_cases.collect_testcases returns; give it the node cases
    # and the python-defined model cases ("simple"), without the "real" ones (they are downloads).
    everything = model_cases.collect_testcases
    model_cases.collect_testcases = lambda: node_cases.collect_testcases() + [
        c for c in everything() if c.kind != "real"
    ]
    cmd_tools.generate_data(argparse.Namespace(output=out))
    data = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    for kind in ("pytorch-converted", "pytorch-operator"):
        shutil.copytree(os.path.join(data, kind), os.path.join(out, kind))
    light = os.path.join(data, "light")
    for file in sorted(os.listdir(light)):
        if not file.endswith(".onnx"):
            continue
        name = file[: -len(".onnx")]
        case = os.path.join(out, "light", name)
        os.makedirs(os.path.join(case, "test_data_set_0"))
        shutil.copy(os.path.join(light, file), os.path.join(case, "model.onnx"))
        model = onnx.load(os.path.join(light, file), load_external_data=False)
        initializers = {i.name for i in model.graph.initializer}
        inputs = [i for i in model.graph.input if i.name not in initializers]
        for index, value in enumerate(inputs):
            tensor_type = value.type.tensor_type
            shape = [d.dim_value for d in tensor_type.shape.dim]
            dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
            n = int(np.prod(shape))
            array = (np.arange(n) / n).astype(dtype).reshape(shape)
            with open(os.path.join(case, "test_data_set_0", f"input_{index}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(array, value.name).SerializeToString())
        for index in range(len(model.graph.output)):
            shutil.copy(os.path.join(light, f"{name}_output_{index}.pb"),
                        os.path.join(case, "test_data_set_0", f"output_{index}.pb"))
    open(stamp, "w").close()
for kind in ("node", "simple", "pytorch-converted", "pytorch-operator", "light"):
    print(f"{len(os.listdir(os.path.join(out, kind)))} {kind} cases in {out}/{kind}")
