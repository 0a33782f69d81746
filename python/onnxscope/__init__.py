# SPDX-License-Identifier: MIT
"""onnxscope: run, step through and compare ONNX models with onnxscope's engine.

    import numpy as np, onnxscope
    model = onnxscope.load("model.onnx")
    outputs = model.run({"x": np.zeros((1, 3, 224, 224), np.float32)})
    values = model.run(feeds, intermediate=True)       # every value, by (frame, name, iteration)
    dbg = model.debug(feeds); dbg.break_on(op_type="Conv"); dbg.cont(); dbg.position
    report = onnxscope.compare(model, "model_fp16.onnx", feeds); report.first_divergence

The API is documented in docs/python.md. Arrays returned by ``Model.run`` are writable and owned by the caller;
arrays of the debugger's recorded values are read-only views of the engine's memory that stay valid after the
debugger is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _onnxscope as _core
from ._onnxscope import Error, InputError, UnsupportedModelError

__version__: str = _core.__version__

__all__ = [
    "load",
    "compare",
    "Model",
    "Debugger",
    "Position",
    "NodeEvent",
    "ValueInfo",
    "ValueKey",
    "Values",
    "Diagnostic",
    "CompareReport",
    "ModuleCompareReport",
    "Error",
    "InputError",
    "UnsupportedModelError",
]

PathLike = Union[str, "os.PathLike[str]"]
Feeds = Mapping[str, Any]


class ValueKey(NamedTuple):
    """Identifies one value of a run: the frame it was produced in (``"main"``, ``'main / Loop "l" iteration 3'``),
    its name, and the iteration of the nearest enclosing Loop/Scan (-1 outside loops)."""

    frame: str
    name: str
    iteration: int = -1


@dataclass(frozen=True)
class ValueInfo:
    """A graph input or output as the model declares it."""

    name: str
    kind: str  # "tensor", "sequence", "map", "optional" or "unknown"
    type: str  # "float[batch, 3, 224, 224]"
    elem_type: Optional[str]  # ONNX spelling: "float", "int64", "float16", ...
    dtype: Optional[str]  # numpy spelling: "float32", "int64", "float16", "bfloat16" (ml_dtypes), ...
    shape: Optional[list]  # ints, symbols (str) or None per dim; None if no shape is declared
    has_default: bool  # an input with an initializer: optional in feeds


@dataclass(frozen=True)
class Diagnostic:
    """A finding of onnx's checker, shape inference or the loader. Never blocks running."""

    severity: str  # "warning" or "error"
    source: str
    message: str


@dataclass(frozen=True)
class Position:
    """Where the debugger stopped and why."""

    reason: str  # "step", "breakpoint", "non-finite value", "run to node", "paused", "finished", ...
    message: str
    frame: str  # frame path of the innermost frame: "main", 'main / If "If_0" then_branch', ...
    node: Optional[str]  # the node that runs next (stopped before it), else the one that completed last
    op_type: Optional[str]
    next_node: Optional[str]
    last_node: Optional[str]
    breakpoint: int  # id of the breakpoint that stopped, 0 if none
    depth: int  # frames on the stack
    finished: bool
    step: int = 0  # session steps since the start: the position Debugger.go_to() takes


@dataclass(frozen=True)
class NodeEvent:
    """What a hook or a callable breakpoint condition receives after a node ran. Arrays are read-only."""

    node: str
    op_type: str
    domain: str
    frame: str
    iteration: int
    input_names: list
    inputs: list
    output_names: list
    outputs: list


def _event(d: dict) -> NodeEvent:
    return NodeEvent(**d)


class Values(Mapping[ValueKey, Any]):
    """Values of a run, keyed by :class:`ValueKey` in execution order. A plain name looks the value up in the main
    graph (or, if it is only in subgraphs, its last occurrence); ``find(name)`` lists every occurrence."""

    def __init__(
        self,
        items: Sequence[tuple],
        digests: Optional[dict] = None,
        loader: Optional[Callable[[int], Any]] = None,
        load_all: Optional[Callable[[], Sequence[tuple]]] = None,
    ) -> None:
        self._digests: dict = digests or {}
        self._items: dict[ValueKey, Any] = {}
        self._by_name: dict[str, ValueKey] = {}
        self._nodes: dict[ValueKey, str] = {}
        self._dropped: set = set()
        # Values whose data the debugger did not keep: rebuilt by `loader` (from their ordinal) when first read.
        self._loader = loader
        self._load_all = load_all  # every value, rebuilt with as few replays as possible: for items() and values()
        self._lazy: dict[ValueKey, int] = {}
        for item in items:
            frame, name, iteration, node, _sequence, value, dropped = item[:7]
            key = ValueKey(frame, name, iteration)
            self._items[key] = value
            if dropped and value is None and loader is not None and len(item) > 7:
                self._lazy[key] = item[7]
            self._nodes[key] = node
            if dropped:
                self._dropped.add(key)
            if frame == "main" or self._by_name.get(name, ValueKey("", "")).frame != "main":
                self._by_name[name] = key

    def _key(self, key: Union[ValueKey, tuple, str]) -> ValueKey:
        if isinstance(key, str):
            if key not in self._by_name:
                raise KeyError(key)
            return self._by_name[key]
        return ValueKey(*key)

    def __getitem__(self, key: Union[ValueKey, tuple, str]) -> Any:  # type: ignore[override]
        k = self._key(key)
        if k in self._lazy:
            assert self._loader is not None
            self._items[k] = self._loader(self._lazy[k])
            del self._lazy[k]
        return self._items[k]

    def _rebuild_all(self) -> None:
        if not self._lazy:
            return
        if self._load_all is None:
            for k in list(self._lazy):
                self[k]
            return
        for item in self._load_all():
            key = ValueKey(item[0], item[1], item[2])
            if key in self._lazy:
                self._items[key] = item[5]
                del self._lazy[key]

    def items(self):  # type: ignore[override]
        self._rebuild_all()
        return self._items.items()

    def values(self):  # type: ignore[override]
        self._rebuild_all()
        return self._items.values()

    def __contains__(self, key: object) -> bool:
        try:
            self._key(key)  # type: ignore[arg-type]
        except (KeyError, TypeError):
            return False
        return self._key(key) in self._items  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[ValueKey]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def find(self, name: str) -> list:
        """Every (key, value) with this name, in execution order (one per frame and iteration)."""
        return [(k, self[k]) for k in self._items if k.name == name]

    def producer(self, key: Union[ValueKey, tuple, str]) -> str:
        """The display name of the node that produced the value ("" for graph inputs)."""
        return self._nodes[self._key(key)]

    def dropped(self, key: Union[ValueKey, tuple, str]) -> bool:
        """Whether the debugger dropped the value's data to stay under its memory budget. Reading it still gives the
        data: the debugger rebuilt it by replay, bit-identical to the first time."""
        return self._key(key) in self._dropped

    def digest(self, key: Union[ValueKey, tuple, str]) -> Optional[dict]:
        """What the debugger recorded of a dropped value before dropping its data (None for a kept value): type,
        shape, bytes, count, finite, nan, posinf, neginf, zeros, min, max, mean, std (over the finite elements, for
        numeric tensors), sample (the first elements), histogram and histogram_range (histogram_sampled: the
        histogram bins an even spread of 256 elements of a larger float tensor, not all of them)."""
        return self._digests.get(self._key(key))

    def __repr__(self) -> str:
        return f"<onnxscope.Values: {len(self._items)} values>"


# ---- feeds ---------------------------------------------------------------------------------------------------------


def _to_value(name: str, x: Any) -> "_core.Value":
    if isinstance(x, _core.Value):
        return x
    if x is None:
        return _core.make_optional(None)
    if isinstance(x, (list, tuple)) and (len(x) == 0 or all(isinstance(i, np.ndarray) for i in x)):
        items = [_to_value(name, i) for i in x]
        elem = x[0].dtype.name if len(x) else ""
        return _core.make_sequence(elem, items)
    array = np.asarray(x)
    if array.dtype.kind in "OUS":
        _core.check_string_shape(list(array.shape))
        flat = [i.decode() if isinstance(i, bytes) else str(i) for i in array.reshape(-1).tolist()]
        return _core.make_string_tensor(list(array.shape), flat)
    # Non-contiguous arrays (slices, transposes) are copied here, never read with the wrong strides.
    if not array.flags.c_contiguous:
        array = array.copy(order="C")  # (np.ascontiguousarray would turn a 0-d array into 1-d)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    raw = array.reshape(-1).view(np.uint8) if array.size else np.zeros(0, np.uint8)
    return _core.make_tensor(array.dtype.name, list(array.shape), raw)


def _convert_feeds(model: "Model", feeds: Optional[Feeds]) -> dict:
    if feeds is None:
        feeds = {}
    if not isinstance(feeds, Mapping):
        raise TypeError(f"feeds must be a dict of input name -> array, got {type(feeds).__name__}")
    out = {}
    for name, x in feeds.items():
        if not isinstance(name, str):
            raise TypeError(f"feed names must be strings, got {name!r}")
        try:
            out[name] = _to_value(name, x)
        except InputError as e:
            raise InputError(f'input "{name}": {e}{model._expected_inputs()}') from None
    return out


# ---- model ---------------------------------------------------------------------------------------------------------


class Model:
    """A loaded ONNX model. Create it with :func:`onnxscope.load`."""

    def __init__(self, core: "_core.Model") -> None:
        self._core = core
        self._inputs = [ValueInfo(**d) for d in core.inputs]
        self._outputs = [ValueInfo(**d) for d in core.outputs]

    @property
    def name(self) -> str:
        """The model's display name (its file name, or what was given to load())."""
        return self._core.name

    @property
    def inputs(self) -> list:
        """The main graph's inputs (list of :class:`ValueInfo`), in declaration order."""
        return list(self._inputs)

    @property
    def outputs(self) -> list:
        """The main graph's outputs (list of :class:`ValueInfo`)."""
        return list(self._outputs)

    @property
    def opsets(self) -> dict:
        """Imported opset version per domain ("" for the default domain)."""
        return dict(self._core.opsets)

    @property
    def op_histogram(self) -> dict:
        """Node count per operator ("Conv", "com.microsoft.FusedConv"), over the main graph and its subgraphs."""
        return dict(self._core.op_histogram)

    @property
    def unsupported_nodes(self) -> list:
        """Nodes (at any depth) the engine has no kernel for, e.g. 'node "x" (Foo, domain "", opset 13)'. A model
        with any cannot run: run(), debug() and compare() raise UnsupportedModelError listing them."""
        return list(self._core.unsupported_nodes())

    def default_feeds(self, *, seed: int = 0, dims: Optional[Mapping[str, int]] = None) -> dict:
        """Made-up values for every required input, as ``onnxscope-cli run --random-inputs --seed SEED`` makes them:
        inputs whose role is known get values that mean something (an attention mask ones, token ids seeded integers
        below the vocabulary size read from the embedding table they index, position ids 0..n-1), the others seeded
        random values (floats in [-1, 1), integers in [0, 9]). dims: sizes of symbolic dimensions (others are 1).
        :meth:`input_rules` says which rule chose each."""
        return {name: value for name, value, _rule in self._core.default_inputs(int(seed), dict(dims or {}), [])}

    def input_rules(self, *, dims: Optional[Mapping[str, int]] = None) -> dict:
        """Which rule :meth:`default_feeds` uses for each required input, e.g. ``{"attention_mask": 'attention mask
        ("attention_mask"): ones (attend to every position)', "x": "random"}``."""
        return {name: rule for name, _value, rule in self._core.default_inputs(0, dict(dims or {}), [])}

    def extract(
        self,
        folder: PathLike,
        *,
        node: Union[str, Sequence[str], None] = None,
        inputs: Optional[Sequence[str]] = None,
        outputs: Optional[Sequence[str]] = None,
        feeds: Optional[Feeds] = None,
        seed: int = 0,
        threads: int = 1,
    ) -> dict:
        """Writes a standalone repro of a node (``node``, a name or several) or of the subgraph between ``inputs``
        and ``outputs`` (value names), as ``onnxscope-cli extract`` does: ``folder/model.onnx`` (just that part, with
        only the initializers it reads, external data past 2 GiB) and ``folder/test_data_set_0/`` (input_<i>.pb and
        output_<i>.pb: the values a run of the whole model on ``feeds`` gave them), the layout ``onnxscope-cli test``
        and onnxruntime's onnx_test_runner read. Inputs missing from ``feeds`` get :meth:`default_feeds` values.
        Returns ``folder``, ``inputs``, ``outputs``, ``nodes``, ``initializers``, ``initializer_bytes`` and
        ``external_data``. Raises Error when the boundary is not a subgraph (naming the missing value) or the run
        fails."""
        if (node is None) == (outputs is None):
            raise ValueError("give either node=, or outputs= (with inputs=)")
        if node is not None and inputs is not None:
            raise ValueError("inputs= goes with outputs=; node= takes the node's own inputs")
        nodes = [node] if isinstance(node, str) else list(node or [])
        given = dict(feeds or {})
        for name, value, _rule in self._core.default_inputs(int(seed), {}, list(given)):
            given[name] = value
        values = self._feeds(given)
        path = os.fspath(folder)
        if os.path.isdir(path) and os.listdir(path):
            raise ValueError(f"{path!r} exists and is not empty")
        with self._input_errors():
            return dict(self._core.extract(nodes, list(inputs or []), list(outputs or []), values, path, int(threads)))

    def check_precision(
        self,
        to: str = "fp16",
        feeds: Optional[Feeds] = None,
        *,
        underflow_share: float = 0.5,
        write: Optional[PathLike] = None,
        seed: int = 0,
        threads: int = 1,
    ) -> dict:
        """Precision advice, as ``onnxscope-cli check-precision`` gives it: runs the model once in float32 on ``feeds``
        (inputs missing from them get :meth:`default_feeds` values) and reads every float32 value's range.

        to: "fp16" or "bf16".
        underflow_share: a value mostly flushes to zero when more than this share of its non-zero elements are below
            the target's smallest subnormal.
        write: also write the mixed-precision model there (the nodes not kept in the target type, Casts at the
            boundaries, float32 inputs and outputs), run it and report each output's error under ``"mixed"``.

        Returns the CLI's ``--json`` report as a dict: ``target``, ``max_finite``, ``smallest_subnormal``,
        ``underflow_threshold``, ``values_checked``, ``flagged`` (one dict per value: ``name``, ``producer``,
        ``overflow``, ``underflow_share``, ``min``, ``max``, ...), ``keep_in_fp32`` (``node``, ``op_type``,
        ``reason``, ``evidence``), ``node_block_list`` (the names to pass to the float16 converters'
        ``node_block_list``) and ``notes``; with ``write``, ``mixed`` (``lowered``, ``kept_fp32``, ``casts``,
        ``outputs``: ``name``, ``max_abs_error``, ``max_abs_value`` (the float32 output's largest magnitude),
        ``non_finite``). Raises ValueError for an unknown
        target, InputError for bad feeds, Error when the run fails."""
        given = dict(feeds or {})
        for name, value, _rule in self._core.default_inputs(int(seed), {}, list(given)):
            given[name] = value
        values = self._feeds(given)
        with self._input_errors():
            return dict(
                self._core.check_precision(
                    str(to), float(underflow_share), values, os.fspath(write) if write is not None else "", int(threads)
                )
            )

    def check_quantization(
        self,
        quantized: Union["Model", PathLike],
        feeds: Optional[Feeds] = None,
        *,
        seed: int = 0,
        threads: int = 1,
    ) -> dict:
        """Int8 per-layer error, as ``onnxscope-cli check-quantization`` gives it, this model being the float one and
        ``quantized`` its QDQ or QOperator copy (a Model or a path). Both run once on ``feeds`` (inputs missing from
        them get :meth:`default_feeds` values); then each quantized layer runs alone on the float run's values,
        quantized with the layer's own input scales, its output dequantized with its own.

        Returns the CLI's ``--json`` report as a dict: ``format`` ("QDQ", "QOperator"), ``layers`` ranked by their own
        relative L2 error, largest first (each: ``rank``, ``node``, ``op_type``, ``output``, ``float_value``,
        ``paired_by`` ("name", "name+activation", "content"), ``inputs``, ``own`` and ``accumulated`` as
        ``max_abs_error``, ``relative_l2``, ``cosine``, ``float_max_abs`` (None when not computed),
        ``accumulated_rank``, ``error``), and ``unpaired``. Raises Error when no layer pairs with a float value."""
        other = quantized if isinstance(quantized, Model) else load(quantized)
        given = dict(feeds or {})
        for name, value, _rule in self._core.default_inputs(int(seed), {}, list(given)):
            given[name] = value
        values = self._feeds(given)
        with self._input_errors():
            return dict(self._core.check_quantization(other._core, values, int(threads)))

    def node(self, name: str) -> dict:
        """One node of the main graph by name: ``name``, ``op_type``, ``domain``, ``opset``, ``inputs``, ``outputs``,
        ``metadata_props`` (dict, as the file has them) and ``pytorch``: for a ``torch.onnx.export(..., dynamo=True)``
        file, where the node came from (``module`` "model.layers.0.self_attn.q_proj", ``module_class``, ``modules``
        [(path, class), ...] from the root down, ``fx_name``, ``fx_target``, ``fx_node``, ``stack`` [(file, line,
        function, code), ...] outermost first, ``source`` "file.py:123" (the innermost frame), ``error`` when the
        metadata does not parse), else None. Raises Error for an unknown name."""
        d = dict(self._core.node(name))
        if d["pytorch"] is not None:
            d["pytorch"] = dict(d["pytorch"])
        return d

    @property
    def node_names(self) -> list:
        """Names of the main graph's nodes, in topological order ("<OpType>_<n>" for an unnamed node)."""
        return list(self._core.node_names())

    @property
    def torch_modules(self) -> list:
        """For a dynamo export: every PyTorch module its nodes name, parents first, as dicts ``path``, ``class``
        (full class name) and ``nodes`` (nodes made inside it, its submodules' included). [] for other models."""
        return [{"path": p, "class": c, "nodes": n} for p, c, n in self._core.torch_modules()]

    def torch_module_nodes(self, path: str) -> list:
        """Names of the main graph's nodes made inside the PyTorch module ``path`` (or its submodules)."""
        return list(self._core.torch_module_nodes(path))

    @property
    def diagnostics(self) -> list:
        """What onnx's checker and shape inference report (list of :class:`Diagnostic`; computed on demand)."""
        return [Diagnostic(*d) for d in self._core.diagnostics()]

    def _expected_inputs(self) -> str:
        return "; the model expects:" + "".join(
            f'\n  "{i.name}": {i.type}' + (" (optional)" if i.has_default or i.kind == "optional" else "")
            for i in self._inputs
        )

    def run(
        self, feeds: Optional[Feeds] = None, *, intermediate: bool = False, threads: int = 1
    ) -> Union[dict, Values]:
        """Runs the model.

        feeds: input name -> numpy array (any array-like; lists of arrays for sequence inputs, None for an empty
            optional). Non-contiguous arrays are copied. Inputs with a default (initializer) may be left out.
        intermediate: False returns the outputs, {name: array}. True returns every value the run produced
            (graph inputs, every node output in every frame, Loop iterations and If branches included) as
            :class:`Values` keyed by ``ValueKey(frame, name, iteration)``; ``values["y"]`` finds a main-graph value by
            name, as ``onnx.reference.ReferenceEvaluator.run(None, feeds, intermediate=True)`` would.
        threads: intra-op threads for kernels.

        Output arrays are writable and belong to the caller. The GIL is released while the model runs; Ctrl+C
        (KeyboardInterrupt) stops it at the next node.

        Raises InputError (a ValueError) for feeds of the wrong name, element type or rank, listing the expected
        inputs; UnsupportedModelError before running a model with unsupported nodes; Error when a node fails.
        """
        values = self._feeds(feeds)
        with self._input_errors():
            if intermediate:
                _outputs, records = self._core.run_intermediate(values, threads)
                return Values(records)
            return self._core.run(values, threads)

    def debug(
        self,
        feeds: Optional[Feeds] = None,
        *,
        threads: int = 1,
        memory_budget: Union[int, str, None] = None,
        keep_data: bool = False,
    ) -> "Debugger":
        """A :class:`Debugger` stopped before the first node, with these feeds bound.

        The debugger keeps a digest of every value (made as its node finishes) and checkpoints; a value's data is
        read back from the frames of the current position, or by replay from the nearest checkpoint, bit-identical
        (:meth:`Debugger.values`, :meth:`Debugger.value`).
        keep_data: keep the data of every value too, the newest within the budget (no replay to read them, but the run
        writes every value to fresh memory, 1.4-2.1x a plain run on the OCR models on AMD EPYC Zen 4 at AVX-512 and
        AVX2, docs/performance.md).
        memory_budget: bytes of checkpoints (and with keep_data, values) the debugger keeps, as an int or a string like
        the CLI's ``--memory-budget`` (``"512M"``, ``"4G"``, ``"1048576"``; K, M, G, T, P are powers of 1024); None: a
        quarter of the machine's memory. ValueError for a size that is not positive or not a size."""
        budget = _parse_memory_budget(memory_budget)
        values = self._feeds(feeds)
        with self._input_errors():
            return Debugger(self, values, threads, budget, bool(keep_data))

    @contextlib.contextmanager
    def _input_errors(self) -> Iterator[None]:
        """InputErrors name the model's inputs."""
        try:
            yield
        except InputError as e:
            message = str(e)
            if "expects:" in message or "inputs are:" in message:
                raise
            raise InputError(message + self._expected_inputs()) from None

    def _feeds(self, feeds: Optional[Feeds]) -> dict:
        self._core.prepare()
        values = _convert_feeds(self, feeds)
        return values

    def __repr__(self) -> str:
        ins = ", ".join(f"{i.name}: {i.type}" for i in self._inputs)
        outs = ", ".join(f"{o.name}: {o.type}" for o in self._outputs)
        return f"<onnxscope.Model {self.name!r} ({ins}) -> ({outs})>"


def load(model: Union[PathLike, bytes, Any], *, base_dir: Optional[PathLike] = None) -> Model:
    """Loads a model from a file path, serialized bytes, or an ``onnx.ModelProto``.

    base_dir: where external data is looked up for bytes and ModelProto (default: the current directory).
    Raises FileNotFoundError for a missing file, Error for a model the loader refuses (its message names the node
    and field). A model with unsupported operators loads; see Model.unsupported_nodes.
    """
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no model file {path!r}")
        return Model(_core.Model.load_path(path))
    base = os.fspath(base_dir) if base_dir is not None else os.getcwd()
    if isinstance(model, (bytes, bytearray, memoryview)):
        return Model(_core.Model.load_bytes(bytes(model), base, "<bytes>"))
    if hasattr(model, "SerializeToString") and hasattr(model, "graph"):
        name = getattr(model.graph, "name", "") or "<ModelProto>"
        return Model(_core.Model.load_bytes(model.SerializeToString(), base, name))
    raise TypeError(f"load() takes a path, bytes or an onnx.ModelProto, got {type(model).__name__}")


# ---- debugger ------------------------------------------------------------------------------------------------------

def _parse_memory_budget(budget: Union[int, str, None]) -> int:
    """Bytes (0: the engine's default) from an int or a size string as the CLI's --memory-budget takes it."""
    if budget is None:
        return 0
    if isinstance(budget, bool):
        raise ValueError(f"memory_budget expects a positive size such as 1048576, '512M' or '4G', got {budget!r}")
    if isinstance(budget, int):
        if budget <= 0:
            raise ValueError(f"memory_budget expects a positive number of bytes, got {budget}")
        return budget
    if not isinstance(budget, str):
        raise TypeError(f"memory_budget takes an int, a string such as '512M' or None, got {type(budget).__name__}")
    # The engine's one grammar for sizes (engine/core/byte_size.h), as the CLI and the GUI read them.
    value = _core.parse_byte_size(budget)
    if value is None:
        raise ValueError(f"memory_budget expects a positive size such as 1048576, '512M', '1.5G' or '64KiB' "
                         f"(K, M, G, T, P are powers of 1024), got {budget!r}")
    return value



class Debugger:
    """Steps through a model. Created by :meth:`Model.debug`, stopped before the first node.

    Stepping methods return the new :attr:`position`. A node that fails raises Error (the debugger stays at the
    failure); Ctrl+C, or an exception raised in a hook or a callable condition, stops at the next node boundary and is
    raised from the stepping method. The GIL is released while nodes run.
    """

    def __init__(self, model: Model, feeds: dict, threads: int, memory_budget: int, keep_data: bool = False) -> None:
        self._model = model
        self._core = _core.Debugger(model._core, feeds, threads, float(memory_budget), keep_data)

    @staticmethod
    def _position(d: dict) -> Position:
        # Stops after a node (NaN/Inf, value conditions, a hook's pause, the end, a failure) are about the node that
        # ran; the others (steps, node and op-type breakpoints, run to) about the node that runs next.
        after = d["reason"] in ("non-finite value", "DEBUG node", "finished", "failed", "paused") or (
            d["reason"] == "breakpoint" and d["last_node"] is not None
        )
        if after or d["next_node"] is None:
            node, op = d["last_node"], d["last_op_type"]
        else:
            node, op = d["next_node"], d["next_op_type"]
        return Position(
            reason=d["reason"],
            message=d["message"],
            frame=d["frame"],
            node=node,
            op_type=op,
            next_node=d["next_node"],
            last_node=d["last_node"],
            breakpoint=d["breakpoint"],
            depth=d["depth"],
            finished=d["finished"],
            step=d["step"],
        )

    @property
    def position(self) -> Position:
        """Where execution stopped: frame path, node (the next one, or the last one after a stop after a node), and
        why."""
        return self._position(self._core.position())

    @property
    def finished(self) -> bool:
        return self._core.position()["finished"]

    def step(self) -> Position:
        """Runs the next node of the current frame; a node with subgraphs runs whole (breakpoints inside still stop)."""
        return self._position(self._core.step())

    def step_into(self) -> Position:
        """Enters the subgraph of the next node (If branch taken, first Loop iteration), else like step()."""
        return self._position(self._core.step_into())

    def step_out(self) -> Position:
        """Finishes the current frame and stops when the node that owns it completes."""
        return self._position(self._core.step_out())

    def cont(self) -> Position:
        """Runs until a breakpoint, a hook asks to stop, or the end. With no hook, it runs as a plain run does between
        the places where it can stop (the values are recorded after the stop, when first read); Ctrl+C still stops it
        within a few milliseconds."""
        return self._position(self._core.cont())

    def run_to(self, node: str) -> Position:
        """Runs until just before the node with this display name (in any frame), unless a breakpoint stops first."""
        return self._position(self._core.run_to(node))

    # Reverse execution: each restores the nearest checkpoint before the target and replays forward to it without
    # stopping (no breakpoints, no hooks), recording the values again. Positions count session steps since the start.

    def step_back(self) -> Position:
        """Back to where the previous step() stopped: a node with subgraphs is stepped back over whole."""
        return self._position(self._core.step_back())

    def step_back_into(self) -> Position:
        """Back one position where any step could have stopped, entering subgraphs from their end (the reverse of
        step_into())."""
        return self._position(self._core.step_back_into())

    def step_back_out(self) -> Position:
        """Back to just before the node that runs the current frame (the reverse of step_out()); in the main graph,
        to the start."""
        return self._position(self._core.step_back_out())

    def reverse_cont(self) -> Position:
        """The reverse of cont(): back to the latest earlier position where cont() would have stopped on a breakpoint;
        to the start if there is none."""
        return self._position(self._core.reverse_cont())

    def run_back_to(self, node: str) -> Position:
        """Back to the latest earlier position just before the node with this display name; to the start if none."""
        return self._position(self._core.run_back_to(node))

    def go_to(self, step: int) -> Position:
        """Goes to a position (a :attr:`Position.step`), earlier or later than the current one (later: runs forward
        without stopping at breakpoints)."""
        if step < 0:
            raise ValueError(f"go_to expects a step >= 0, got {step}")
        return self._position(self._core.go_to(int(step)))

    @property
    def memory_report(self) -> dict:
        """What the memory budget cost the run so far: budget, kept_values, dropped_values, forgotten_values (dropped
        so long ago that only their count is left), recorded_bytes, checkpoints, checkpoint_bytes, checkpoint_interval,
        rematerializations, replayed_steps, rematerialization_seconds, notice (set when the budget could not hold
        even one node's values, which the run then kept anyway), and quiet_stretches (how many times cont() or run_to()
        ran as a plain run between the places where it can stop, its values recorded after the stop: so they run when
        no hook is added)."""
        return dict(self._core.memory_report())

    def digest(self, key: Union[ValueKey, tuple, str]) -> Optional[dict]:
        """The digest the debugger kept of a dropped value (see :meth:`Values.digest`); None for a kept value."""
        return self._values(materialize=False).digest(key)

    def restart(self) -> None:
        """Starts again with the same feeds; breakpoints and hooks stay."""
        self._core.restart()

    def break_on(
        self,
        node: Optional[str] = None,
        *,
        op_type: Optional[str] = None,
        value: Optional[str] = None,
        nonfinite: bool = False,
        when: Union[str, Callable[[NodeEvent], bool], None] = None,
        iteration: Optional[int] = None,
    ) -> int:
        """Adds a breakpoint and returns its id.

        - ``break_on("conv_3")``: before the node with this display name (any frame);
        - ``break_on(op_type="Conv")``: before every node of this op type;
        - ``break_on(value="y")``: after the node that produces the value ``y`` (with ``when=``, only if it meets the
          condition);
        - ``break_on(nonfinite=True)``: after the first node that produces NaN or Inf;
        - ``break_on(when="any |x| > 1e4")``: after the first node (or the given node / op type) one of whose outputs
          meets the condition: ``any |x| > T``, ``all x >= 0``, ``max > 100`` (min, max, mean, std, absmax, sum,
          count), ``nan``, ``inf``, ``nonfinite``;
        - ``break_on(when=lambda e: e.outputs[0].max() > 3)``: after a node for which the callable, given a
          :class:`NodeEvent`, returns True.

        iteration: only in this iteration of the nearest enclosing Loop/Scan (an If branch or a function body inside
        that iteration is in it), for every kind of breakpoint: the rule the GUI and the CLI follow too.
        """
        it = -1 if iteration is None else int(iteration)
        if nonfinite:
            if node or op_type or value or when is not None:
                raise ValueError("nonfinite=True takes no node, op_type, value or when")
            return self._core.add_breakpoint("nonfinite", "", "", "", None, it)
        if value is not None:
            if node or op_type or not isinstance(value, str) or not value:
                raise ValueError("value= takes the name of a value, and no node or op_type")
            if when is not None and not isinstance(when, str):
                raise ValueError("value= takes a condition string as when=")
            try:
                return self._core.add_breakpoint("value", value, "", when or "", None, it)
            except Error as e:
                raise ValueError(str(e)) from None
        if when is not None:
            if callable(when):
                wrapped = lambda d: bool(when(_event(d)))  # noqa: E731
                return self._core.add_breakpoint("condition", node or "", op_type or "", "", wrapped, it)
            if not isinstance(when, str) or not when.strip():
                raise ValueError("when must be a condition string or a callable")
            try:
                return self._core.add_breakpoint("condition", node or "", op_type or "", when, None, it)
            except Error as e:
                raise ValueError(str(e)) from None
        if node and op_type:
            raise ValueError("give node or op_type, not both (or use when= to filter)")
        if node:
            return self._core.add_breakpoint("node", node, "", "", None, it)
        if op_type:
            return self._core.add_breakpoint("op_type", "", op_type, "", None, it)
        raise ValueError("break_on needs node=, op_type=, value=, nonfinite=True or when=")

    def remove_breakpoint(self, breakpoint_id: int) -> bool:
        return self._core.remove_breakpoint(breakpoint_id)

    def enable_breakpoint(self, breakpoint_id: int, enabled: bool = True) -> bool:
        return self._core.set_breakpoint_enabled(breakpoint_id, enabled)

    @property
    def breakpoints(self) -> list:
        """(id, description, enabled) of every breakpoint."""
        return list(self._core.breakpoints())

    def add_hook(self, hook: Callable[[NodeEvent], Optional[bool]]) -> None:
        """Calls ``hook(event)`` after every node (a :class:`NodeEvent`). Returning True stops there (reason
        "paused"). An exception it raises stops the run and is raised from the stepping method."""
        self._core.add_hook(lambda d: hook(_event(d)))

    def clear_hooks(self) -> None:
        self._core.clear_hooks()

    @property
    def values(self) -> Values:
        """Every value recorded so far, keyed by ``ValueKey(frame, name, iteration)``: read-only numpy arrays that
        share the engine's memory without a copy and stay valid after the debugger is gone; sequences as lists, maps
        as dicts, an empty optional as None. Values dropped to stay under the memory budget are rebuilt by replay
        (bit-identical, as few replays as possible) and are copies; :meth:`Values.dropped` tells which."""
        return self._values()

    def _values(self, materialize: bool = True) -> Values:
        # A value whose data was not kept is rebuilt when it is read (from the frames of this position, or by replay
        # from the nearest checkpoint), not when the mapping is made.
        digests = {ValueKey(*k): d for k, d in self._core.digests()}
        if not materialize:
            return Values(self._core.values(False), digests)
        return Values(
            self._core.values(False), digests, self._core.materialize_ordinal, lambda: self._core.values(True)
        )

    def value(self, name: str) -> Any:
        """The latest recorded value with this name (in any frame), rebuilt if it was dropped. KeyError if none."""
        records = self._core.values(False)
        for index in range(len(records) - 1, -1, -1):
            if records[index][1] == name:
                value, dropped = records[index][5], records[index][6]
                return self._core.materialize(index) if dropped else value
        raise KeyError(name)

    @property
    def outputs(self) -> dict:
        """The model's outputs once finished (read-only arrays), else {}."""
        return self._core.outputs()

    @property
    def recorded_bytes(self) -> int:
        return self._core.recorded_bytes()

    def __repr__(self) -> str:
        p = self.position
        return f"<onnxscope.Debugger at {p.frame} / {p.node} ({p.reason})>"


# ---- compare -------------------------------------------------------------------------------------------------------


@dataclass
class CompareReport:
    """The result of :func:`compare`, with the fields of the CLI's ``compare --json`` (docs/compare-format.md)."""

    data: dict = field(repr=False)
    divergence_extract: Optional[dict] = None
    """What ``compare(..., extract_divergence=DIR)`` wrote: ``found`` (False: no node diverged, nothing written,
    ``message`` says why), ``folder_a``, ``folder_b``, ``readme``, ``node_a``/``op_type_a``, ``node_b``/``op_type_b``,
    ``inputs`` (per input of B's node: ``name_b``, ``name_a`` or None, ``paired_by``, ``from_a``, ``note``),
    ``outputs`` (A's against B's: ``name_a``, ``name_b``, ``status``, ``max_abs_error``, ...) and ``max_abs_error``.
    None when not asked."""

    @property
    def first_divergence(self) -> Optional[dict]:
        """The first node whose outputs diverge while all its inputs computed by nodes match (keys: node, op_type,
        frame, iteration, status, max_abs_error, max_rel_error, cosine, outputs, ...), or None."""
        return self.data["first_divergence"]

    @property
    def values(self) -> list:
        """Per-value rows (name, frame, node, status, max_abs_error, max_rel_error, cosine, mismatches, ...)."""
        return self.data["values"]

    @property
    def nodes(self) -> list:
        """Per executed node of side A: its worst output."""
        return self.data["nodes"]

    @property
    def summary(self) -> dict:
        return self.data["summary"]

    @property
    def diverged(self) -> bool:
        """Some value diverged, or a side failed (what the CLI's exit status 1 means)."""
        return bool(self.data["summary"]["diverged"])

    @property
    def all_match(self) -> bool:
        return bool(self.data["summary"]["all_match"])

    @property
    def error_a(self) -> Optional[str]:
        return self.data["error_a"]

    @property
    def error_b(self) -> Optional[str]:
        return self.data["error_b"]

    def errors(self) -> dict:
        """ValueKey -> max abs error of every value compared on both sides."""
        return {
            ValueKey(r["frame"], r["name"], r["iteration"]): r["max_abs_error"]
            for r in self.values
            if r["status"] in ("match", "mismatch")
        }

    def to_json(self, indent: Optional[int] = 2) -> str:
        """The report as ``onnxscope-cli compare --json`` writes it."""
        return json.dumps(self.data, indent=indent)

    def __repr__(self) -> str:
        f = self.first_divergence
        where = f'first divergence at {f["frame"]} / {f["node"]} ({f["op_type"]})' if f else "no divergent node"
        s = self.summary
        return f"<onnxscope.CompareReport {s['match']} match, {s['mismatch']} mismatch; {where}>"


@dataclass(frozen=True)
class ModuleCompareReport:
    """The result of ``compare(..., by="module")``: each PyTorch module's captured outputs against the values leaving
    its scope in the graph, with the fields of ``onnxscope-cli compare --by module --json`` (docs/torch-compare.md)."""

    data: dict = field(repr=False)

    @property
    def first_divergence(self) -> Optional[dict]:
        """The first module call (execution order) whose outputs diverge (keys: module, class, call, status,
        max_abs_error, max_rel_error, cosine, outputs: [{key, value, node, op_type, status, ...}]), or None."""
        return self.data["first_divergence"]

    @property
    def modules(self) -> list:
        """Every module call of the reference, in execution order."""
        return self.data["modules"]

    @property
    def unmatched_keys(self) -> list:
        """Keys of the reference that name no module of the graph: [{key, nearest: [module paths]}]."""
        return self.data["unmatched_keys"]

    @property
    def summary(self) -> dict:
        return self.data["summary"]

    @property
    def diverged(self) -> bool:
        """Some module's outputs diverged, or the run failed (the CLI's exit status 1)."""
        return bool(self.data["summary"]["has_divergence"])

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self.data, indent=indent)

    def __repr__(self) -> str:
        f = self.first_divergence
        where = f'first divergent module {f["module"]!r} ({f["class"]})' if f else "no divergent module"
        s = self.summary
        return f"<onnxscope.ModuleCompareReport {s['match']} match, {s['diverged']} diverged; {where}>"


def _as_model(x: Any) -> Model:
    return x if isinstance(x, Model) else load(x)


def _feeds_for(model: Model, feeds: dict) -> dict:
    """A's feeds for B: by name, cast to B's declared floating-point type (an fp16 copy takes fp16 inputs)."""
    out = {}
    for info in model.inputs:
        if info.name not in feeds:
            continue
        x = feeds[info.name]
        if isinstance(x, np.ndarray) and info.dtype and x.dtype.kind == "f" and info.dtype.startswith("float"):
            try:
                target = np.dtype(info.dtype)
            except TypeError:
                target = None
            if target is not None and target.kind == "f" and target != x.dtype:
                x = x.astype(target)
        out[info.name] = x
    return out


def compare(
    a: Union[Model, PathLike, bytes, Any],
    b: Union[Model, PathLike, bytes, Mapping, Any],
    feeds: Optional[Feeds] = None,
    *,
    rtol: float = 1e-4,
    atol: float = 1e-5,
    feeds_b: Optional[Feeds] = None,
    names: Optional[Mapping[str, str]] = None,
    initializers: bool = True,
    align: str = "auto",
    threads: int = 1,
    by: str = "value",
    extract_divergence: Optional[PathLike] = None,
) -> Union[CompareReport, ModuleCompareReport]:
    """Runs model ``a`` and compares every value it produces with side ``b``, matched by frame path and name, or,
    for a second model whose names differ (fused, renamed, fp16, quantized), by shape and content.

    b: a second model (Model, path to an .onnx, bytes or ModelProto), run on the same feeds (cast to its declared
        floating-point input types, so an fp16 copy takes them; or ``feeds_b``); or reference values: a folder
        written by ``onnxscope-cli run --dump-all``, an ``.npz`` file (array names are value names, or
        "FRAME / NAME" inside subgraphs), or a dict {name or ValueKey: array}.
    rtol, atol: an element mismatches when ``|a - b| > atol + rtol * |b|``.
    names: side A name -> side B name for renamed values. initializers: also compare the weights.
    align: how the values of two models pair, as ``onnxscope-cli compare --align``: "names", "content", or "auto"
        (names when every name of A is in B, else names and then content; docs/compare-format.md). Reference values
        always pair by name.

    by: "value" (the above), or "module" (``onnxscope-cli compare --by module``): ``b`` is what
        ``onnxscope.torch.capture`` wrote (an .npz path, or the dict it returned), keyed by PyTorch module path; each
        module's outputs are compared with the values leaving that module's scope in ``a``, a dynamo export
        (docs/torch-compare.md). Raises :class:`Error` when no key names a module of the graph (the message lists the
        nearest module paths). Returns a :class:`ModuleCompareReport`.

    extract_divergence: a folder; after comparing two models, writes the first divergent node as two test cases, as
        ``onnxscope-cli compare --extract-divergence`` does: ``a/`` (A's node) and ``b/`` (B's counterpart), both fed
        the values A's run gave A's node, and ``README.txt``. Nothing is written when no node diverged. The report's
        ``divergence_extract`` says what was written. ValueError for reference values or a folder that is not empty.

    Returns a :class:`CompareReport`; ``report.to_json()`` is the CLI's ``--json`` format.
    """
    if by not in ("value", "module"):
        raise ValueError(f"by must be 'value' or 'module', got {by!r}")
    extract_folder = "" if extract_divergence is None else os.fspath(extract_divergence)
    if extract_folder and (by == "module" or isinstance(b, Mapping)):
        raise ValueError("extract_divergence needs a second model: it extracts side A's and side B's nodes")
    if extract_folder and os.path.isdir(extract_folder) and os.listdir(extract_folder):
        raise ValueError(f"{extract_folder!r} exists and is not empty")
    if by == "module":
        model_a = _as_model(a)
        values_a = model_a._feeds(feeds)
        if isinstance(b, Mapping):
            refs = [(str(key), _to_value(str(key), value)) for key, value in b.items()]
            with model_a._input_errors():
                data = _core.compare_modules_reference(model_a._core, values_a, "", refs, rtol, atol, threads)
            return ModuleCompareReport(data)
        if not isinstance(b, (str, os.PathLike)):
            raise TypeError("by='module' compares with an .npz path or a dict written by onnxscope.torch.capture")
        path = os.fspath(b)
        if not os.path.exists(path):
            raise FileNotFoundError(f"no reference {path!r}")
        with model_a._input_errors():
            data = _core.compare_modules_reference(model_a._core, values_a, path, [], rtol, atol, threads)
        return ModuleCompareReport(data)
    if align not in ("names", "content", "auto"):
        raise ValueError(f"align must be 'names', 'content' or 'auto', got {align!r}")
    model_a = _as_model(a)
    values_a = model_a._feeds(feeds)
    name_map = dict(names or {})
    if isinstance(b, Mapping):
        refs = []
        for key, value in b.items():
            k = ValueKey("main", key) if isinstance(key, str) else ValueKey(*key)
            refs.append((k.frame, k.name, _to_value(k.name, value)))
        with model_a._input_errors():
            data = _core.compare_reference(model_a._core, values_a, "", refs, rtol, atol, initializers, name_map, threads)
        return CompareReport(data)
    if isinstance(b, (str, os.PathLike)):
        path = os.fspath(b)
        if os.path.isdir(path) or path.endswith(".npz"):
            if not os.path.exists(path):
                raise FileNotFoundError(f"no reference {path!r}")
            if extract_folder:
                raise ValueError("extract_divergence needs a second model: it extracts side A's and side B's nodes")
            with model_a._input_errors():
                data = _core.compare_reference(
                    model_a._core, values_a, path, [], rtol, atol, initializers, name_map, threads
                )
            return CompareReport(data)
    model_b = _as_model(b)
    if feeds_b is None:
        feeds_b = _feeds_for(model_b, dict(feeds or {}))
    values_b = model_b._feeds(feeds_b)
    with model_a._input_errors():
        data = _core.compare_models(
            model_a._core,
            values_a,
            model_b._core,
            values_b,
            rtol,
            atol,
            initializers,
            name_map,
            align,
            threads,
            extract_folder,
        )
    extracted = data.pop("divergence_extract", None)
    return CompareReport(data, extracted)
