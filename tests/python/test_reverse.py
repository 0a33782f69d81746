# SPDX-License-Identifier: MIT
"""Reverse execution and the memory budget through the Python API: stepping back reproduces the positions and values
of the forward run (inside a Loop and an If), reverse_cont() goes back to the previous breakpoint hit, and values
dropped under a tiny budget read back bit-identical to an unlimited run's. Expected values come from the forward run
(the engine's own, checked against onnxruntime in test_debugger.py and test_models.py) and from numpy."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import onnxscope
from conftest import OCR, assert_close, loop_model, npm_model, ort_session

X = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
N = np.array(3, np.int64)


def if_model():
    """z = If(sum(x) > 0): then (x * 2) + 1, else -(x) * 3; then a Relu after it."""
    then_branch = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "two"], ["t_mul"], name="then_mul"),
            helper.make_node("Add", ["t_mul", "one"], ["t_out"], name="then_add"),
        ],
        "then", [], [helper.make_tensor_value_info("t_out", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]), helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])],
    )
    else_branch = helper.make_graph(
        [
            helper.make_node("Neg", ["x"], ["e_neg"], name="else_neg"),
            helper.make_node("Mul", ["e_neg", "three"], ["e_out"], name="else_mul"),
        ],
        "else", [], [helper.make_tensor_value_info("e_out", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor("three", TensorProto.FLOAT, [], [3.0])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0, name="sum"),
            helper.make_node("Greater", ["s", "zero"], ["c"], name="positive"),
            helper.make_node("If", ["c"], ["z"], then_branch=then_branch, else_branch=else_branch, name="branch"),
            helper.make_node("Relu", ["z"], ["y"], name="relu"),
        ],
        "if_model",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def snapshot(dbg):
    """The position and a copy of every recorded value."""
    p = dbg.position
    values = {k: np.array(v, copy=True) for k, v in dbg.values.items()}
    return (p.frame, p.node, p.next_node, p.last_node, p.depth), values


def assert_same(actual, expected, what, last_node=True):
    (pos_a, values_a), (pos_e, values_e) = actual, expected
    if not last_node:  # stops before a node by name (run to, run back to) name no last node
        pos_a, pos_e = pos_a[:3] + pos_a[4:], pos_e[:3] + pos_e[4:]
    assert pos_a == pos_e, what
    assert set(values_a) == set(values_e), what
    for key, value in values_e.items():
        assert values_a[key].dtype == value.dtype and np.array_equal(values_a[key], value), f"{what}: {key}"


def walk_forward(dbg, step):
    """Steps with `step` until finished; {position step: snapshot} of every stop, the first included."""
    seen = {dbg.position.step: snapshot(dbg)}
    while not dbg.finished:
        p = step()
        seen[p.step] = snapshot(dbg)
    return seen


def walk_back(dbg, step_back, forward):
    """Steps back to the start, checking each stop against the forward run's stop at the same position; the positions
    visited."""
    visited = []
    while dbg.position.step > 0:
        before = dbg.position.step
        p = step_back()
        assert p.step < before, "a step back must move back"
        assert p.step in forward, f"step back stopped at {p.step}, where no forward step stopped"
        assert_same(snapshot(dbg), forward[p.step], f"back at {p.step}")
        visited.append(p.step)
    return visited


CASES = [
    ("loop", loop_model, {"x": X, "n": N}),
    ("if_then", if_model, {"x": np.abs(X)}),
    ("if_else", if_model, {"x": -np.abs(X)}),
]


@pytest.mark.parametrize("budget", [None, 1])
@pytest.mark.parametrize("name,make,feeds", CASES, ids=[c[0] for c in CASES])
def test_step_back_into_retraces_step_into(name, make, feeds, budget):
    dbg = onnxscope.load(make()).debug(feeds, memory_budget=budget)
    forward = walk_forward(dbg, dbg.step_into)
    # The run went inside the subgraph (a Loop iteration or the If branch taken).
    assert any(pos[4] > 1 for pos, _ in forward.values())
    visited = walk_back(dbg, dbg.step_back_into, forward)
    # Every forward stop is revisited on the way back, in reverse order.
    assert visited == sorted(forward)[-2::-1]
    # And forward again: the same stops, the same values.
    p = dbg.position
    while not dbg.finished:
        p = dbg.step_into()
        assert_same(snapshot(dbg), forward[p.step], f"forward again at {p.step}")
    exp = ort_session(make()).run(None, feeds)
    assert_close(dbg.outputs[make().graph.output[0].name], exp[0], 1e-6, 1e-6)


@pytest.mark.parametrize("name,make,feeds", CASES, ids=[c[0] for c in CASES])
def test_step_back_retraces_step(name, make, feeds):
    dbg = onnxscope.load(make()).debug(feeds, memory_budget=1)
    forward = walk_forward(dbg, dbg.step)
    assert all(pos[4] <= 1 for pos, _ in forward.values())  # step() runs subgraphs whole (depth 0: finished)
    visited = walk_back(dbg, dbg.step_back, forward)
    assert visited == sorted(forward)[-2::-1]


def test_step_back_out_of_a_loop_iteration():
    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": N})
    dbg.step()
    before_loop = snapshot(dbg)
    assert before_loop[0][1] == "loop"
    dbg.step_into()
    dbg.step()
    p = dbg.step()
    assert 'Loop "loop" iteration 0' in p.frame and p.node == "add_i"
    p = dbg.step_back_out()
    assert p.frame == "main" and p.node == "loop"
    assert_same(snapshot(dbg), before_loop, "back out of the iteration")
    p = dbg.step_back_out()
    assert p.step == 0 and p.node == "relu"


def test_reverse_cont_goes_back_to_the_previous_breakpoint_hit():
    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": N}, memory_budget="1K")
    dbg.break_on(op_type="Add")
    hits = []
    while True:
        p = dbg.cont()
        if p.finished:
            break
        assert p.reason == "breakpoint" and p.node == "add_i"
        hits.append((p.step, p.frame, snapshot(dbg)))
    assert len(hits) == 3  # one Add per iteration
    for step, frame, snap in reversed(hits):
        p = dbg.reverse_cont()
        assert p.reason == "breakpoint" and p.node == "add_i" and p.step == step and p.frame == frame
        assert_same(snapshot(dbg), snap, f"reverse_cont to {frame}")
        # The iteration's y_in is the carried value: 0.5^k * relu(x) + the sum of the earlier i.
    p = dbg.reverse_cont()
    assert p.step == 0 and p.node == "relu"
    # Forward again stops at the first hit.
    p = dbg.cont()
    assert p.step == hits[0][0]


def test_run_back_to_and_go_to():
    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": N})
    forward = walk_forward(dbg, dbg.step_into)
    # The latest mul_half ran in iteration 2.
    p = dbg.run_back_to("mul_half")
    assert p.node == "mul_half" and 'iteration 2' in p.frame
    assert p.last_node is None
    assert_same(snapshot(dbg), forward[p.step], "run_back_to", last_node=False)
    y_in = dbg.value("y_in")
    relu = np.maximum(X, 0)
    np.testing.assert_array_equal(y_in, (relu * 0.5 + 0) * 0.5 + 1)
    p = dbg.run_back_to("no_such_node")
    assert p.step == 0
    target = sorted(forward)[len(forward) // 2]
    p = dbg.go_to(target)
    assert p.step == target
    assert_same(snapshot(dbg), forward[target], "go_to")
    with pytest.raises(ValueError):
        dbg.go_to(-1)


# 256K: nothing but the start is checkpointed, every dropped value is replayed from it; 32M: from checkpoints.
# keep_data=False (the default) keeps only digests; keep_data=True the data too, within the budget.
@pytest.mark.parametrize("keep_data", [False, True])
@pytest.mark.parametrize("budget,checkpoints", [("256K", 1), ("32M", 2)])
@pytest.mark.parametrize("name,shape", [("ch_PP-OCRv4_rec_infer.onnx", (1, 3, 48, 320)),
                                        ("ch_PP-OCRv4_det_infer.onnx", (1, 3, 160, 160))])
def test_values_dropped_under_a_tiny_budget_read_back_bit_identical(name, shape, budget, checkpoints, keep_data):
    path = npm_model(OCR, name)
    model = onnxscope.load(path)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    unlimited = model.run({"x": x}, intermediate=True)
    dbg = model.debug({"x": x}, memory_budget=budget, keep_data=keep_data)
    assert dbg.cont().finished
    report = dbg.memory_report
    assert report["budget"] == int(budget[:-1]) << (10 if budget[-1] == "K" else 20)
    assert report["dropped_values"] > 100 and report["checkpoints"] >= checkpoints, report
    values = dbg.values
    assert set(values) == set(unlimited)
    dropped = [k for k in values if values.dropped(k)]
    assert len(dropped) > 100
    for key in unlimited:
        a, e = values[key], unlimited[key]
        assert a.dtype == e.dtype and a.shape == e.shape and np.array_equal(a, e, equal_nan=True), key
    assert dbg.memory_report["rematerializations"] > 0
    # A dropped value's digest describes its data.
    checked = 0
    for key in dropped:
        data = np.asarray(unlimited[key])
        d = values.digest(key)
        assert d is not None and d["shape"] == list(data.shape) and d["bytes"] == data.nbytes, key
        if data.dtype == np.float32 and data.size and np.isfinite(data).all():
            assert d["count"] == data.size and d["nan"] == 0
            assert d["min"] == pytest.approx(float(data.min())) and d["max"] == pytest.approx(float(data.max()))
            assert d["mean"] == pytest.approx(float(data.astype(np.float64).mean()), rel=1e-4, abs=1e-5)  # a single pass
            checked += 1
    assert checked > 50
    assert values.digest(next(k for k in values if not values.dropped(k))) is None
    # value(name) of a dropped main-graph value rebuilds it too.
    name = next(k.name for k in dropped if k.frame == "main")
    assert np.array_equal(dbg.value(name), unlimited[name], equal_nan=True)


@pytest.mark.parametrize("budget", ["abc", "0", "-5", "12X", "", "1.5.5G", "1e3", "M", "99999999999999999999", "16E", 0,
                                    -1])
def test_bad_memory_budget_raises_value_error(budget):
    model = onnxscope.load(loop_model())
    with pytest.raises(ValueError):
        model.debug({"x": X, "n": N}, memory_budget=budget)


@pytest.mark.parametrize("budget,expected", [("512M", 512 << 20), ("4g", 4 << 30), ("64KiB", 64 << 10),
                                             ("1048576", 1048576), (12345, 12345), ("100B", 100),
                                             ("1.5G", 3 << 29), (" 2 MiB ", 2 << 20)])
def test_memory_budget_sizes(budget, expected):
    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": N}, memory_budget=budget)
    assert dbg.memory_report["budget"] == expected


def test_reverse_moves_call_no_hooks_and_leave_no_pause():
    dbg = onnxscope.load(loop_model()).debug({"x": X, "n": N}, memory_budget=1)
    seen = []
    armed = [False]

    def hook(event):
        seen.append(event.node)
        return armed[0]

    dbg.add_hook(hook)
    assert dbg.cont().finished
    assert len(seen) == 18  # relu, 3 x 5 body nodes, the Loop, sum
    armed[0] = True  # a hook called while replaying would ask to pause
    for move in (dbg.step_back_into, lambda: dbg.run_back_to("mul_half"), lambda: dbg.go_to(5), dbg.reverse_cont,
                 dbg.step_back_out):
        move()
    assert len(seen) == 18
    armed[0] = False
    p = dbg.cont()
    assert p.finished and p.reason == "finished"
    assert len(seen) == 36
