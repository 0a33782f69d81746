# SPDX-License-Identifier: MIT
"""Issue #43: with no hook, cont() and run_to() run quiet stretches (a plain run between the places where they can
stop, the value log filled in after the stop). Their values and stops are those of the node-by-node run (a debugger
with a hook added, and model.run(intermediate=True)), the outputs onnxruntime's, and Ctrl+C stops a long one promptly."""
import threading
import _thread
import time

import numpy as np
import pytest
from onnx import TensorProto, helper

import onnxscope
from conftest import OCR, assert_close, loop_model, mlp_model, npm_model, ort_session
from test_debugger import long_loop_model

X = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)


def same_value(a, b):
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def assert_same_values(actual, expected):
    assert list(actual.keys()) == list(expected.keys())
    for key in expected:
        assert same_value(actual[key], expected[key]), key


def node_by_node(dbg):
    """A hook that never asks to stop: the debugger then runs node by node, as before quiet stretches."""
    seen = []
    dbg.add_hook(lambda e: seen.append(e.node) and None)
    return seen


def cases():
    yield "loop", loop_model(), {"x": X, "n": np.array(4, np.int64)}
    yield "mlp", mlp_model(), {"x": np.random.default_rng(1).standard_normal((4, 16)).astype(np.float32)}


@pytest.mark.parametrize("name,proto,feeds", list(cases()), ids=lambda v: v if isinstance(v, str) else "")
def test_run_to_the_end_records_every_value_of_the_node_by_node_run(name, proto, feeds):
    model = onnxscope.load(proto)
    dbg = model.debug(feeds)
    p = dbg.cont()
    assert p.reason == "finished" and dbg.finished
    assert dbg.memory_report["quiet_stretches"] == 1
    # Every intermediate, in every frame and iteration, bit-identical to the run that records them as they are made.
    assert_same_values(dbg.values, model.run(feeds, intermediate=True))
    slow = model.debug(feeds)
    node_by_node(slow)
    assert slow.cont().reason == "finished"
    assert slow.memory_report["quiet_stretches"] == 0
    assert_same_values(dbg.values, slow.values)
    # The outputs against onnxruntime.
    session = ort_session(proto)
    expected = session.run(None, feeds)
    for out, exp in zip(session.get_outputs(), expected):
        assert_close(dbg.outputs[out.name], exp, 1e-5, 1e-6, out.name)


@pytest.mark.parametrize(
    "where", [dict(op_type="Add"), dict(node="add_i", iteration=2), dict(run_to="sum"), dict(value="y_half")]
)
def test_breakpoints_stop_where_the_node_by_node_run_stops(where):
    model = onnxscope.load(loop_model())
    feeds = {"x": X, "n": np.array(4, np.int64)}
    runs = []
    for hooked in (False, True):
        dbg = model.debug(feeds)
        if hooked:
            node_by_node(dbg)
        stops = []
        if "run_to" in where:
            stops.append(dbg.run_to(where["run_to"]))
        else:
            if "value" in where:
                dbg.break_on(value=where["value"])
            else:
                dbg.break_on(**where)
            for _ in range(3):
                stops.append(dbg.cont())
        positions = [(p.reason, p.frame, p.node, p.last_node, p.step, p.depth) for p in stops]
        runs.append((positions, dbg.values, dbg.memory_report["quiet_stretches"]))
        assert dbg.cont().reason in ("finished", "breakpoint")
    (quiet, quiet_values, stretches), (slow, slow_values, none) = runs
    assert stretches >= 1 and none == 0
    assert quiet == slow
    assert_same_values(quiet_values, slow_values)


def test_ocr_cls_to_a_breakpoint_and_the_end():
    path = npm_model(OCR, "ch_ppocr_mobile_v2.0_cls_infer.onnx")
    model = onnxscope.load(path)
    x = np.random.default_rng(3).random((1, 3, 48, 192), np.float32)
    feeds = {model.inputs[0].name: x}
    dbg = model.debug(feeds)
    dbg.break_on(op_type="Softmax")
    p = dbg.cont()
    assert p.reason == "breakpoint" and p.op_type == "Softmax"
    assert dbg.cont().reason == "finished"
    assert dbg.memory_report["quiet_stretches"] == 2
    assert_same_values(dbg.values, model.run(feeds, intermediate=True))


@pytest.mark.parametrize("how", ["cont", "run_to"])
def test_ctrl_c_stops_a_quiet_run_within_a_second(how):
    model = onnxscope.load(long_loop_model())
    dbg = model.debug({"n": np.array(10**9, np.int64), "y0": np.array(0, np.float32)}, memory_budget=1 << 20)
    interrupted = []
    timer = threading.Timer(0.3, lambda: (interrupted.append(time.monotonic()), _thread.interrupt_main()))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        dbg.cont() if how == "cont" else dbg.run_to("no such node")
    stopped = time.monotonic()
    timer.join()
    assert interrupted and stopped - interrupted[0] < 1.0, stopped - interrupted[0]
    assert not dbg.finished and dbg.memory_report["quiet_stretches"] == 1
    # The run stopped inside the Loop (its frame entered or not, depending on where the pause met it); the value log
    # is filled in up to the stop: y_out of iteration i is i + 1, and the position counts one step per node.
    p = dbg.position
    assert p.reason == "paused" and p.step > 100, p
    y = float(dbg.value("y_out"))
    assert y >= 1.0 and y == int(y), y
    assert dbg.position.step == p.step


def nan_in_loop_model():
    """A Loop of 4 iterations: y = y * 3 * (i - 2) / (i - 2), a 0/0 (NaN) in iteration 2 only; then Relu."""
    body = helper.make_graph(
        [
            helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT, name="cast_i"),
            helper.make_node("Sub", ["i_f", "two"], ["d"], name="sub_two"),
            helper.make_node("Div", ["d", "d"], ["q"], name="div_self"),
            helper.make_node("Mul", ["y_in", "three"], ["y3"], name="mul_three"),
            helper.make_node("Mul", ["y3", "q"], ["y_out"], name="mul_q"),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [2, 3]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [2, 3]),
        ],
        [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]),
         helper.make_tensor("three", TensorProto.FLOAT, [], [3.0])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Abs", ["x"], ["x_abs"], name="abs"),
            helper.make_node("Loop", ["n", "", "x_abs"], ["y"], body=body, name="loop"),
            helper.make_node("Relu", ["y"], ["r"], name="relu"),
        ],
        "nan_in_loop",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("n", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, 3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("how", ["nonfinite", "max", "callable", "nonfinite_iteration_3"])
def test_breakpoints_after_every_node_stop_quietly_where_the_node_by_node_run_stops(how):
    """NaN/Inf breakpoints, conditions on any node and Python callables on any node run quiet stretches (tested after
    each node, no summaries made), and stop where the node-by-node run stops: same node, frame, step and message."""
    model = onnxscope.load(nan_in_loop_model())
    feeds = {"x": X, "n": np.array(4, np.int64)}
    runs = []
    for hooked in (False, True):
        dbg = model.debug(feeds)
        if hooked:
            node_by_node(dbg)
        if how == "nonfinite":
            dbg.break_on(nonfinite=True)
        elif how == "nonfinite_iteration_3":
            dbg.break_on(nonfinite=True, iteration=3)
        elif how == "max":
            dbg.break_on(when="max > 100")
        else:
            # Reads an input (the node runs on its own, not in place, for the callable).
            dbg.break_on(when=lambda e: e.op_type == "Div" and float(e.inputs[0].flat[0]) == 0.0)
        first = dbg.cont()
        stretches = dbg.memory_report["quiet_stretches"]
        stops = [first] + [dbg.cont() for _ in range(2)]
        positions = [(p.reason, p.message, p.frame, p.node, p.last_node, p.step, p.depth) for p in stops]
        runs.append((positions, dbg.values, stretches))
    (quiet, quiet_values, stretches), (slow, slow_values, none) = runs
    assert stretches == 1 and none == 0
    assert quiet == slow
    assert_same_values(quiet_values, slow_values)
    reason, _, frame, _, last, _, _ = quiet[0]
    if how == "max":
        # |x| up to 6, times 3 per iteration: 54 after iteration 1, 162 in iteration 2's first Mul.
        assert (reason, last) == ("breakpoint", "mul_three") and "iteration 2" in frame, quiet[0]
    elif how == "nonfinite_iteration_3":
        assert (reason, last) == ("non-finite value", "mul_three") and "iteration 3" in frame, quiet[0]
    else:
        assert last == "div_self" and "iteration 2" in frame, quiet[0]
        assert reason == ("non-finite value" if how == "nonfinite" else "breakpoint"), quiet[0]
