# SPDX-License-Identifier: MIT
"""The debugger: stepping, breakpoints, hooks, positions, recorded values (zero-copy, valid after the debugger is
gone), Ctrl+C."""
import gc
import threading
import _thread
import time

import numpy as np
import pytest
import onnx.parser
from onnx import TensorProto, helper

import onnxscope
from conftest import assert_close, loop_model, mlp_model, ort_session

X = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
N = np.array(3, np.int64)


def test_step_positions_and_values():
    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": N})
    p = dbg.position
    assert p.frame == "main" and p.node == "relu" and p.op_type == "Relu"
    p = dbg.step()
    assert p.node == "loop" and p.last_node == "relu"
    assert_close(dbg.value("x_relu"), np.maximum(X, 0), 0, 0)
    # Step into the Loop: the first node of iteration 0.
    p = dbg.step_into()
    assert 'Loop "loop" iteration 0' in p.frame and p.node == "cast_i"
    dbg.step()
    dbg.step()
    assert_close(dbg.value("y_half"), np.maximum(X, 0) * 0.5, 0, 0)
    p = dbg.step_out()
    assert p.frame == "main" and p.last_node == "loop"
    p = dbg.cont()
    assert p.reason == "finished" and dbg.finished
    exp = ort_session(loop_model()).run(None, {"x": X, "n": N})
    assert_close(dbg.outputs["total"], exp[2], 1e-6, 1e-6)


def test_run_to_and_breakpoints():
    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": N})
    p = dbg.run_to("sum")
    assert p.reason == "run to node" and p.node == "sum"
    dbg.restart()
    bp = dbg.break_on(op_type="Add")
    p = dbg.cont()
    assert p.reason == "breakpoint" and p.breakpoint == bp and p.node == "add_i" and "iteration 0" in p.frame
    p = dbg.cont()
    assert "iteration 1" in p.frame
    dbg.remove_breakpoint(bp)
    dbg.break_on("add_i", iteration=2)
    p = dbg.cont()
    assert p.node == "add_i" and "iteration 2" in p.frame


def test_condition_string_and_callable():
    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": np.array(10, np.int64)})
    dbg.break_on("add_i", when="any |x| > 6.5")
    p = dbg.cont()
    # y: relu(x) halved plus i; the first iteration whose y_out has an element above 6.5 (numpy):
    y, first = np.maximum(X, 0), None
    for i in range(10):
        y = y * np.float32(0.5) + np.float32(i)
        if first is None and np.abs(y).max() > 6.5:
            first = i
    assert p.reason == "breakpoint" and p.last_node == "add_i" and f"iteration {first}" in p.frame
    with pytest.raises(ValueError):
        dbg.break_on(when="any |x| >>> 3")

    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": np.array(10, np.int64)})
    seen = []
    dbg.break_on(op_type="Mul", when=lambda e: seen.append(e.iteration) or e.outputs[0].max() > 2)
    p = dbg.cont()
    assert p.last_node == "mul_half"
    assert seen[-1] == len(seen) - 1  # called once per iteration, in order


def test_nonfinite_breakpoint():
    graph = helper.make_graph(
        [helper.make_node("Log", ["x"], ["l"], name="log"), helper.make_node("Neg", ["l"], ["y"], name="neg")],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    model = onnxscope.load(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8))
    dbg = model.debug({"x": np.array([1, 0, -1], np.float32)})
    dbg.break_on(nonfinite=True)
    p = dbg.cont()
    assert p.reason == "non-finite value" and p.last_node == "log"
    assert np.isinf(dbg.value("l")[1]) and np.isnan(dbg.value("l")[2])


def test_hook_sees_every_node_and_can_stop():
    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": N})
    events = []
    dbg.add_hook(lambda e: events.append((e.frame, e.node, e.op_type, [o.shape for o in e.outputs])))
    dbg.cont()
    assert events[0] == ("main", "relu", "Relu", [(2, 3)])
    assert sum(1 for e in events if e[1] == "add_i") == 3
    assert events[-1][1] == "sum"

    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": N})
    dbg.add_hook(lambda e: e.node == "mul_half")
    p = dbg.cont()
    assert p.reason == "paused" and p.last_node == "mul_half"


def test_exception_in_hook_is_raised():
    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": N})

    def hook(e):
        if e.node == "add_i":
            raise RuntimeError("stop here")

    dbg.add_hook(hook)
    with pytest.raises(RuntimeError, match="stop here"):
        dbg.cont()
    assert dbg.position.last_node == "add_i"
    dbg.clear_hooks()
    assert dbg.cont().reason == "finished"


def test_values_are_zero_copy_read_only_and_outlive_the_debugger():
    model = onnxscope.load(mlp_model())
    x = np.random.default_rng(0).standard_normal((4, 16)).astype(np.float32)
    # By default a value's data is rebuilt when read: equal each time, a read-only copy.
    lean = model.debug({"x": x})
    lean.cont()
    assert lean.values.dropped("a1")
    assert np.array_equal(lean.values["a1"], lean.value("a1")) and not lean.values["a1"].flags.writeable
    # keep_data=True keeps the engine's storage, read without a copy.
    dbg = model.debug({"x": x}, keep_data=True)
    dbg.cont()
    values = dbg.values
    a1 = values["a1"]
    assert np.array_equal(a1, lean.values["a1"])
    assert not a1.flags.writeable and not a1.flags.owndata  # a view of the engine's storage
    with pytest.raises(ValueError):
        a1[0, 0] = 1
    # The same storage twice: no copy per access.
    assert np.shares_memory(dbg.values["a1"], a1)
    expected = {k.name: np.array(v) for k, v in values.items()}
    del dbg, values
    gc.collect()
    # Other runs reuse freed engine memory: the arrays still hold their values.
    for _ in range(3):
        model.run({"x": -x})
        model.debug({"x": x * 3}).cont()
    np.testing.assert_array_equal(a1, expected["a1"])
    sess = ort_session(mlp_model(), ["a1"])
    assert_close(a1, sess.run(["a1"], {"x": x})[0], 1e-5, 1e-6)


def long_loop_model():
    body = helper.make_graph(
        [helper.make_node("Add", ["y_in", "one"], ["y_out"]), helper.make_node("Identity", ["c"], ["c_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_in", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("y_out", TensorProto.FLOAT, [])],
        [helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["n", "", "y0"], ["y"], body=body)], "g",
        [helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_tensor_value_info("y0", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("how", ["run", "debug"])
def test_ctrl_c_interrupts_a_long_run(how):
    model = onnxscope.load(long_loop_model())
    feeds = {"n": np.array(10**9, np.int64), "y0": np.array(0, np.float32)}
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        if how == "run":
            model.run(feeds)
        else:
            model.debug(feeds, memory_budget=1 << 20).cont()
    assert time.monotonic() - start < 10
    timer.cancel()


def test_gil_is_released_while_running():
    # The run goes on a second thread; this one ticks (a sleep takes and gives back the GIL each time) while the run
    # has not finished. With the GIL held through the run, no tick could happen before it ends. A run that ends before
    # 20 ticks proves nothing either way, so it is made ten times longer: a faster engine does not fail this test.
    model = onnxscope.load(long_loop_model())
    n = 30000
    while True:
        started, finished = threading.Event(), threading.Event()

        def run(count=n):
            started.set()
            model.run({"n": np.array(count, np.int64), "y0": np.array(0, np.float32)})
            finished.set()

        t = threading.Thread(target=run)
        t.start()
        started.wait()
        ticks_during_run = 0
        while ticks_during_run < 20 and not finished.is_set():
            time.sleep(0.001)
            if not finished.is_set():
                ticks_during_run += 1
        t.join()
        if ticks_during_run >= 20:
            break
        assert n < 10**8, f"the other thread never ran during a run of {n} Loop iterations ({ticks_during_run} ticks)"
        n *= 10


LOOP_WITH_IF = """<ir_version: 8, opset_import: ["" : 17]>
agraph (float[2] x) => (float[2] out) {
    trip = Constant <value = int64 {5}> ()
    cond = Constant <value = bool {1}> ()
    out = Loop (trip, cond, x) <body = loop_body (int64 i, bool c, float[2] acc) => (bool c_out, float[2] acc_out) {
        c_out = Identity(c)
        zero = Constant <value = int64 {0}> ()
        later = Greater(i, zero)
        acc_out = If (later) <then_branch = then_g () => (float[2] t) { t = Add(acc, x) },
                              else_branch = else_g () => (float[2] e) { e = Mul(acc, x) }>
    }>
}"""


@pytest.mark.parametrize("how", ["string", "callable", "value"])
def test_breakpoint_iteration_is_the_enclosing_loops_inside_an_if(how):
    # The If's branch is a frame with no iteration of its own: iteration= means the enclosing Loop's, for a
    # condition breakpoint (string or callable) and a value breakpoint as for a node breakpoint.
    model = onnxscope.load(onnx.parser.parse_model(LOOP_WITH_IF))
    dbg = model.debug({"x": np.array([1, 2], np.float32)})
    seen = []
    if how == "string":
        dbg.break_on("Add_0", when="all x > 0", iteration=3)
    elif how == "callable":
        dbg.break_on("Add_0", when=lambda e: seen.append(e.iteration) or True, iteration=3)
    else:
        dbg.break_on(value="t", iteration=3)
    p = dbg.cont()
    assert p.reason == "breakpoint" and p.last_node == "Add_0", p
    assert 'Loop "Loop_2" iteration 3' in p.frame, p.frame
    assert seen == ([3] if how == "callable" else [])
    # acc after iterations 0..3 (numpy): x*x, then + x three times.
    x = np.array([1, 2], np.float32)
    assert np.array_equal(dbg.value("t"), x * x + 3 * x)
    assert dbg.cont().reason == "finished"
