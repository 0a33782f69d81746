# SPDX-License-Identifier: MIT
"""No leak: reference counts and resident memory stay flat over 1,000 runs."""
import gc
import sys

import numpy as np

import onnxscope
from conftest import loop_model, mlp_model


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_refcounts_and_rss_flat_over_1000_runs():
    model = onnxscope.load(mlp_model())
    loop = onnxscope.load(loop_model())
    x = np.random.default_rng(0).standard_normal((64, 16)).astype(np.float32)
    feeds = {"x": x}
    loop_feeds = {"x": np.ones((2, 3), np.float32), "n": np.array(4, np.int64)}

    def one_round():
        out = model.run(feeds)
        values = model.run(feeds, intermediate=True)
        dbg = loop.debug(loop_feeds)
        dbg.add_hook(lambda e: None)
        dbg.break_on(when=lambda e: False)
        dbg.cont()
        _ = dbg.values
        return out, values

    for _ in range(50):  # warm up: allocator caches, the engine's storage cache
        one_round()
    gc.collect()
    refs_x, refs_feeds, refs_model = sys.getrefcount(x), sys.getrefcount(feeds), sys.getrefcount(model)
    objects = len(gc.get_objects())
    rss = rss_kib()
    for _ in range(1000):
        one_round()
    gc.collect()
    assert (sys.getrefcount(x), sys.getrefcount(feeds), sys.getrefcount(model)) == (refs_x, refs_feeds, refs_model)
    assert len(gc.get_objects()) - objects < 100
    growth = rss_kib() - rss
    # Each round allocates ~70 KiB of values; a leak of one round's values would grow RSS by ~70 MiB.
    assert growth < 8 * 1024, f"RSS grew by {growth} KiB over 1000 runs"


def test_a_hook_that_refers_to_its_debugger_is_collected():
    import weakref
    model = onnxscope.load(loop_model())
    dbg = model.debug({"x": np.ones((2, 3), np.float32), "n": np.array(2, np.int64)})
    # Cycles through the extension's hook list and breakpoint conditions (default arguments: `del dbg` below does
    # not clear them, as it would a closure's cell).
    dbg.add_hook(lambda e, d=dbg: d.position and None)
    dbg.break_on(when=lambda e, d=dbg: d is None)
    dbg.cont()
    ref = weakref.ref(dbg)
    del dbg
    gc.collect()
    assert ref() is None
