# SPDX-License-Identifier: MIT
"""`onnxscope-cli compare --align` on the committed transformer graphs (tests/contrib/real/models) against
onnxruntime.

1. BERT against its onnxruntime-optimized version (Attention, SkipLayerNormalization, EmbedLayerNormalization,
   BiasGelu): everything pairs and matches at fp32 tolerance. onnxruntime runs both graphs with every intermediate
   exposed; every value of the fused graph that some value of the unfused graph equals must be paired, with one of
   those values, and every pair the CLI makes must hold equal values in onnxruntime.
2. BERT against its fp16 optimized version, and llama_fp32 against llama_int4 (a prefill of 16 tokens, every value
   and node of the int4 graph renamed so that names cannot help): the first divergence the CLI names is checked
   against a brute-force search over onnxruntime's intermediates.

The brute force and its trap. Pairing each value of A with its nearest-content value of B is not honest on these
graphs: a value of A that the fused graph has no counterpart for (a Q/K/V projection inside Attention, the LayerNorm
statistics) still has a nearest value in B, and in a residual network many values lie close to each other (the hidden
state before and after a layer, the two halves of a SkipLayerNormalization), so a reduced-precision B value can be
nearer to the wrong value of A than to its own. The search here therefore decides *whether* a value of A has a
counterpart, and which values of B can be it, on a model computing at A's precision, where counterparts are equal
within tolerance (exact-equality sets, as align_test.py does for BERT):
- BERT fp16: the fp32 optimized model is the fp16 model's twin: the fp16 converter keeps every value name and only
  adds Casts at the outputs (a value of the fp16 graph that the fp32 one lacks is a Cast's input whose output it
  has). A value b of B can be the counterpart of a value v of A when b's fp32 twin equals v.
- Llama int4: the model builder writes the fp32 and the int4 graph with the same value names (only MatMul becomes
  MatMulNBits), so the fp32 graph is its own twin: b can be the counterpart of v when the fp32 value of b's name equals
  v. The test checks that the twin graphs have the same value names rather than assuming it.
Among those candidates the counterpart is the nearest in content; the first divergence is the first value of A, in
A's execution order (node order of the file, which the engine keeps: checked against the report), whose counterpart
differs beyond |a - b| <= atol + rtol |b|, and the node to name is its producer, the B node its counterpart's.

usage: align_real_test.py ONNXSCOPE_CLI WORKDIR
"""
import json
import os
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

sys.dont_write_bytecode = True  # no __pycache__ in the checkout for the import below
from align_test import expose_all  # noqa: E402  (beside this script)

RTOL, ATOL = 1e-4, 1e-5
MODELS = Path(__file__).resolve().parents[2] / "contrib" / "real" / "models"
FAILURES = []
TIMINGS = []


def check(cond, message):
    if not cond:
        FAILURES.append(message)
        print("FAIL:", message)


def ort_values(model, feeds):
    """Every graph input and node output, computed by onnxruntime on the graph as written."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(expose_all(model).SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in s.get_outputs()]
    values = dict(zip(names, s.run(None, feeds)))
    values.update({vi.name: feeds[vi.name] for vi in model.graph.input})
    values.update({t.name: numpy_helper.to_array(t) for t in model.graph.initializer})
    return values


def compatible(x, y):
    if x.size != y.size:
        return False
    if x.dtype.kind == "f" and y.dtype.kind == "f":
        return True
    return x.dtype == y.dtype


def equal(x, y):
    """x equals y within the compare tolerance (elementwise, NaN equals NaN), y the reference."""
    if not compatible(x, y):
        return False
    if x.dtype.kind != "f":
        return bool(np.array_equal(x.ravel(), y.ravel()))
    a = x.astype(np.float64).ravel()
    b = y.astype(np.float64).ravel()
    both_nan = np.isnan(a) & np.isnan(b)
    return bool(np.all(both_nan | (np.abs(a - b) <= ATOL + RTOL * np.abs(b))))


def rel_error(x, y):
    a = x.astype(np.float64).ravel()
    b = y.astype(np.float64).ravel()
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b), 1e-30))


def producers(model):
    return {o: n for n in model.graph.node for o in n.output if o}


def a_values_in_order(model):
    """(value, node) for A's node outputs in file order, leaving out constants (they pair outside the order)."""
    for n in model.graph.node:
        if n.op_type == "Constant" or not n.input:
            continue
        for o in n.output:
            if o:
                yield o, n


def run_cli(cli, a, b, out, inputs, *extra):
    """Runs compare, returns (report, exit status); records the wall time and the child's peak RSS."""
    cmd = [cli, "compare", str(a), str(b), *inputs, "--json", str(out), *extra]
    start = time.monotonic()
    with open(out.with_suffix(".log"), "w+") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        stdout, stderr = log.read(), ""
    TIMINGS.append((out.stem, wall, usage.ru_maxrss / 1024, p.returncode))
    print("$", " ".join(cmd), "->", p.returncode, f"({wall:.2f} s, peak RSS {usage.ru_maxrss / 1024:.0f} MiB)")
    if p.returncode not in (0, 1):
        print(stdout, stderr)
        raise SystemExit(f"compare failed with exit status {p.returncode}")
    return json.loads(out.read_text()), p.returncode


def save_inputs(work, prefix, feeds):
    args = []
    for k, v in feeds.items():
        path = work / f"{prefix}_{k.replace('/', '_')}.npy"
        np.save(path, v)
        args.append(f"--input={k}={path}")
    return args


def bert_feeds(model):
    """As make_real_cases.py's encoder case: two sequences of 8 tokens, the last three of the second one padding."""
    rng = np.random.default_rng(zlib.crc32(b"bert"))
    batch, length = 2, 8
    feeds = {"input_ids": rng.integers(0, 128, (batch, length)).astype(np.int64)}
    mask = np.ones((batch, length), np.int64)
    mask[-1, -3:] = 0
    feeds["attention_mask"] = mask
    feeds["token_type_ids"] = (np.arange(length)[None, :] >= length // 2).repeat(batch, 0).astype(np.int64)
    assert [vi.name for vi in model.graph.input] == list(feeds)
    return feeds


def llama_feeds(model, prompt=16):
    """A prefill of `prompt` tokens with an empty KV cache (head size from the cos cache, as make_real_cases.py)."""
    rng = np.random.default_rng(zlib.crc32(b"llama"))
    vocab = next(o for o in model.graph.output if o.name == "logits").type.tensor_type.shape.dim[-1].dim_value
    inits = {i.name: i for i in model.graph.initializer}
    gqa = next(n for n in model.graph.node if n.op_type == "GroupQueryAttention")
    head = int(inits[gqa.input[7]].dims[1]) * 2
    feeds = {}
    for vi in model.graph.input:
        if vi.name == "input_ids":
            feeds[vi.name] = rng.integers(0, vocab, (1, prompt)).astype(np.int64)
        elif vi.name == "attention_mask":
            feeds[vi.name] = np.ones((1, prompt), np.int64)
        else:
            kv_heads = vi.type.tensor_type.shape.dim[1].dim_value
            feeds[vi.name] = np.zeros((1, kv_heads, 0, head), np.float32)
    return feeds


def rows_of_a(report):
    return {v["name"]: v for v in report["values"] if v["origin"] != "initializer" and v["status"] != "only_b"}


def check_order(label, report, model_a):
    """The engine executes A in file order (the brute force's order)."""
    executed = [n["node"] for n in report["nodes"]]
    in_file = [n.name for n in model_a.graph.node]
    check(executed == in_file, f"{label}: A's execution order differs from its file order")


def case_bert_optimized(cli, work):
    print("== BERT against its onnxruntime-optimized version: everything pairs and matches")
    a = onnx.load(MODELS / "bert.onnx")
    b = onnx.load(MODELS / "bert_optimized.onnx")
    feeds = bert_feeds(a)
    inputs = save_inputs(work, "bert", feeds)
    va, vb = ort_values(a, feeds), ort_values(b, feeds)
    prod_b, producers_a = producers(b), producers(a)
    # Truth: for every node output of B, the values of A that onnxruntime computes equal to it.
    equal_in_a = {}
    for bn, y in vb.items():
        if bn in prod_b and prod_b[bn].op_type != "Constant":
            equal_in_a[bn] = {an for an, x in va.items() if equal(x, y)}
    fused = [o for n in b.graph.node if n.op_type in ("Attention", "SkipLayerNormalization", "EmbedLayerNormalization",
                                                      "BiasGelu") for o in n.output if o]
    # The premise, from onnxruntime: each fused operator's output stands for a value of the unfused graph (the mask
    # output of EmbedLayerNormalization, a mask index the unfused graph never computes, aside).
    for o in fused:
        if prod_b[o].op_type == "EmbedLayerNormalization" and o != prod_b[o].output[0]:
            continue
        check(equal_in_a.get(o), f"bert optimized: onnxruntime finds no value of A equal to B's {o}")
    for mode in ("auto", "content"):
        report, rc = run_cli(cli, MODELS / "bert.onnx", MODELS / "bert_optimized.onnx",
                             work / f"bert_optimized_{mode}.json", inputs, "--align", mode)
        check(rc == 0, f"bert optimized {mode}: exit status {rc}, expected 0")
        check(report["first_divergence"] is None, f"bert optimized {mode}: first divergence {report['first_divergence']}")
        s = report["summary"]
        check(s["mismatch"] == 0 and s["shape_mismatch"] == 0 and s["kind_mismatch"] == 0,
              f"bert optimized {mode}: summary {s}")
        check_order(f"bert optimized {mode}", report, a)
        rows = rows_of_a(report)
        paired = {}
        for name, row in rows.items():
            if row["status"] in ("only_a", "skipped") or row["origin"] != "node_output":
                continue
            paired[row["name_b"]] = name
            # Every pair the CLI makes holds equal values in onnxruntime.
            check(name in va and row["name_b"] in vb and equal(va[name], vb[row["name_b"]]),
                  f"bert optimized {mode}: onnxruntime disagrees on the pair {name} ~ {row['name_b']}")
        # Every value of B that onnxruntime says has a counterpart in A pairs, with one of those values.
        for bn, same in equal_in_a.items():
            same_nodes = {x for x in same if x in producers_a}
            if not same_nodes:
                continue
            if bn in fused:
                print(f"  {prod_b[bn].op_type} {bn} <- {paired.get(bn)}")
            check(bn in paired, f"bert optimized {mode}: B's {prod_b[bn].op_type} output {bn} has no counterpart, "
                                f"onnxruntime finds it equal to {sorted(same_nodes)}")
            if bn in paired:
                check(paired[bn] in same_nodes,
                      f"bert optimized {mode}: {bn} paired with {paired[bn]}, onnxruntime's equal set {sorted(same)}")
        # The list, explicitly: 2 Attention, 4 SkipLayerNormalization, 1 EmbedLayerNormalization (its output, not the
        # mask index), 2 BiasGelu outputs, each paired with a value of A that onnxruntime finds equal.
        want = {"Attention": 2, "SkipLayerNormalization": 4, "EmbedLayerNormalization": 1, "BiasGelu": 2}
        got = {}
        for o in fused:
            if o in paired and paired[o] in equal_in_a.get(o, ()):
                got[prod_b[o].op_type] = got.get(prod_b[o].op_type, 0) + 1
        check(got == want, f"bert optimized {mode}: fused outputs paired per op type {got}, expected {want}")
        unpaired = [report["values"][i]["name"] for i in report["unpaired_a"]]
        print(f"  {mode}: {s['match']} match, {len(paired)} node outputs of A paired, {len(unpaired)} of A unpaired, "
              f"{s['only_b']} only in B")


def twin_of(model_b, twin_names):
    """For each value of B, the name of its twin at A's precision: its own name, or, for a value the twin graph lacks
    that a Cast turns into one it has (the fp16 graph's outputs), that Cast's output."""
    twins = {}
    values = {vi.name for vi in model_b.graph.input} | {o for n in model_b.graph.node for o in n.output if o}
    for v in values:
        if v in twin_names:
            twins[v] = v
    for n in model_b.graph.node:
        if n.op_type == "Cast" and n.input[0] not in twin_names and n.output[0] in twin_names:
            twins[n.input[0]] = n.output[0]
    return twins


def brute_force_first(model_a, va, vb, vtwin, twins, prod_b):
    """The first value of A (file order) with a counterpart in B that differs beyond tolerance: (A node name, value
    of A, set of B values that could be its counterpart, nearest of them, B node name). See the module docstring."""
    for o, node in a_values_in_order(model_a):
        x = va.get(o)
        if x is None:
            continue
        cands = {bn for bn, tn in twins.items() if bn in vb and equal(x, vtwin[tn])}
        if not cands:
            continue
        nearest = min(sorted(cands), key=lambda bn: rel_error(x, vb[bn]))
        if not any(equal(x, vb[bn]) for bn in cands):
            producer = prod_b[nearest].name if nearest in prod_b else ""
            return node.name, o, cands, nearest, producer
    return None


def check_pairs(label, report, model_a, va, vb, vtwin, twins, truth):
    """Every pair the CLI makes is one the twin search allows (b's twin equals A's value), and every value of A up to
    the first divergence whose counterpart no value of A took pairs. Values after it that the search pairs and the CLI
    leaves unpaired are listed: the order constraint loses them when B computes them in another order (the fp16
    converter's output Casts run after the pooler, and the output anchors hold them)."""
    rows = rows_of_a(report)
    taken = {r["name_b"] for r in rows.values() if r["status"] != "only_a"}
    past_first = False
    missed = []
    for o, node in a_values_in_order(model_a):
        row = rows.get(o)
        x = va.get(o)
        if row is None or x is None:
            continue
        cands = {bn for bn, tn in twins.items() if bn in vb and equal(x, vtwin[tn])}
        got = row["name_b"] if row["status"] != "only_a" else None
        if got is not None:
            check(got in cands, f"{label}: {o} paired with {got}, the twin search allows {sorted(cands)}")
        elif cands and not cands & taken:  # a value of A equal to another that took the counterpart is no miss
            if past_first:
                missed.append(o)
            else:
                check(False, f"{label}: {o} unpaired before the first divergence, the twin search finds {sorted(cands)}")
        if truth and o == truth[1]:
            past_first = True
    print(f"  {label}: after the first divergence, not paired though the twin search pairs them: {missed}")


def check_first(label, report, rc, truth, rename=lambda s: s):
    f = report["first_divergence"]
    check(rc == 1, f"{label}: exit status {rc}, expected 1")
    check(f is not None, f"{label}: no first divergence reported")
    if f is None or truth is None:
        return
    node, value, cands, nearest, node_b = truth
    print(f"  CLI: {f['node']} ({f['op_type']}) ~ B's {f['node_b']} ({f['op_type_b']}), counterpart {f['counterpart']}")
    check(f["node"] == node, f"{label}: first divergence {f['node']}, brute force {node}")
    check(value in f["outputs"], f"{label}: first divergence's outputs {f['outputs']}, brute force value {value}")
    check(f["counterpart"] in {rename(c) for c in cands},
          f"{label}: counterpart {f['counterpart']}, brute force candidates {sorted(cands)}")
    check(f["node_b"] == rename(node_b), f"{label}: B node {f['node_b']}, brute force {rename(node_b)}")


def case_bert_fp16(cli, work):
    print("== BERT against its fp16 optimized version: first divergence")
    a = onnx.load(MODELS / "bert.onnx")
    b = onnx.load(MODELS / "bert_optimized_fp16.onnx")
    twin = onnx.load(MODELS / "bert_optimized.onnx")
    feeds = bert_feeds(a)
    inputs = save_inputs(work, "bert", feeds)
    va, vb, vt = ort_values(a, feeds), ort_values(b, feeds), ort_values(twin, feeds)
    twins = twin_of(b, set(vt))
    # The twin is the fp16 graph at fp32: every node output of B has one, and the same producer op type.
    prod_b, prod_t = producers(b), producers(twin)
    for bn, tn in twins.items():
        if bn in prod_b and tn in prod_t and prod_b[bn].op_type != "Cast":
            check(prod_b[bn].op_type == prod_t[tn].op_type, f"bert fp16: twin of {bn} made by {prod_t[tn].op_type}")
    untwinned = [o for n in b.graph.node for o in n.output if o and o not in twins]
    check(not untwinned, f"bert fp16: values of B without an fp32 twin {untwinned}")
    truth = brute_force_first(a, va, vb, vt, twins, prod_b)
    check(truth is not None, "bert fp16: brute force finds no divergence")
    print(f"  brute force: {truth}")
    for mode in ("auto", "content"):
        report, rc = run_cli(cli, MODELS / "bert.onnx", MODELS / "bert_optimized_fp16.onnx",
                             work / f"bert_fp16_{mode}.json", inputs, "--align", mode)
        check_order(f"bert fp16 {mode}", report, a)
        check_first(f"bert fp16 {mode}", report, rc, truth)
        check_pairs(f"bert fp16 {mode}", report, a, va, vb, vt, twins, truth)


def rename_all_but_inputs(model, prefix):
    """Every node, node output and initializer renamed; graph inputs keep their names (so that B takes A's inputs)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    keep = {vi.name for vi in g.input}
    names = {o.name for o in g.output} | {t.name for t in g.initializer}
    for n in g.node:
        names.update(o for o in n.output if o)
    names -= keep

    def r(x):
        return prefix + x if x in names else x

    for v in g.output:
        v.name = r(v.name)
    for t in g.initializer:
        t.name = r(t.name)
    for n in g.node:
        n.name = prefix + n.name
        n.input[:] = [r(i) for i in n.input]
        n.output[:] = [r(o) for o in n.output]
    return m


def case_llama_int4(cli, work):
    print("== llama fp32 against llama int4, prefill: first divergence")
    a = onnx.load(MODELS / "llama_fp32.onnx")
    b = onnx.load(MODELS / "llama_int4.onnx")
    feeds = llama_feeds(a)
    inputs = save_inputs(work, "llama", feeds)
    va, vb = ort_values(a, feeds), ort_values(b, feeds)
    values_a = {vi.name for vi in a.graph.input} | {o for n in a.graph.node for o in n.output if o}
    values_b = {vi.name for vi in b.graph.input} | {o for n in b.graph.node for o in n.output if o}
    check(values_a == values_b, f"llama: the builder's graphs differ in value names {sorted(values_a ^ values_b)[:8]}")
    twins = {v: v for v in values_b}
    prod_b = producers(b)
    truth = brute_force_first(a, va, vb, va, twins, prod_b)
    check(truth is not None, "llama int4: brute force finds no divergence")
    print(f"  brute force: {truth}")
    if truth:
        # Not fooled: the nearest value of B to the diverging value, searched over all of B, is the same.
        x = va[truth[1]]
        overall = min((bn for bn, y in vb.items() if compatible(x, y)), key=lambda bn: rel_error(x, vb[bn]))
        print(f"  nearest over all of B: {overall} (relative L2 error {rel_error(x, vb[overall]):.4f})")
    renamed = rename_all_but_inputs(b, "q_")
    onnx.save(renamed, work / "llama_int4_renamed.onnx")
    report, rc = run_cli(cli, MODELS / "llama_fp32.onnx", work / "llama_int4_renamed.onnx",
                         work / "llama_int4_content.json", inputs, "--align", "content")
    check_order("llama int4 content", report, a)
    check_first("llama int4 content", report, rc, truth, rename=lambda s: "q_" + s if s else s)
    check_pairs("llama int4 content", report, a, va, {"q_" + k: v for k, v in vb.items()}, va,
                {"q_" + v: v for v in twins if v not in feeds} | {v: v for v in feeds}, truth)
    # Every value of A before the divergence pairs (the graphs have the same structure).
    rows = rows_of_a(report)
    unpaired = [report["values"][i]["name"] for i in report["unpaired_a"]]
    print(f"  content: {report['summary']['match']} match, {report['summary']['mismatch']} mismatch, "
          f"unpaired of A {unpaired}")
    for name, row in rows.items():
        if row["origin"] == "node_output" and row["status"] != "only_a" and row["name_b"] != "q_" + name:
            check(False, f"llama int4 content: {name} paired with {row['name_b']}, the builder's twin is q_{name}")
    # The models as written share every value name: auto pairs by name and names the same node.
    report, rc = run_cli(cli, MODELS / "llama_fp32.onnx", MODELS / "llama_int4.onnx", work / "llama_int4_auto.json",
                         inputs, "--align", "auto")
    check(report["summary"]["align"] == "names", f"llama int4 auto: summary.align {report['summary']['align']}")
    check_first("llama int4 auto", report, rc, truth)


def main():
    cli, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    case_bert_optimized(cli, work)
    case_bert_fp16(cli, work)
    case_llama_int4(cli, work)
    for label, wall, rss, rc in TIMINGS:
        print(f"  timing {label}: {wall:.2f} s wall, peak RSS {rss:.0f} MiB, exit {rc}")
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        sys.exit(1)
    print("all real-graph alignment checks pass")


if __name__ == "__main__":
    main()
