# SPDX-License-Identifier: MIT
"""PyTorch side of "compare by module" (docs/torch-compare.md).

    import onnxscope.torch
    onnxscope.torch.capture(model, x, path="acts.npz")      # every submodule's outputs, keyed by module path
    torch.onnx.export(model, (x,), "model.onnx", dynamo=True)
    report = onnxscope.compare("model.onnx", "acts.npz", {"x": x.numpy()}, by="module")
    report.first_divergence                                  # the first module whose outputs differ

Only this module needs torch, and it imports it when called: ``import onnxscope`` works without torch.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Mapping, Optional, Union

import numpy as np

__all__ = ["capture", "output_key"]


def output_key(module_path: str, call: int = 0, output: Optional[int] = None) -> str:
    """The archive key of one output of one call of a module: ``PATH`` for the first call of a module with one tensor
    output, ``PATH@CALL`` for later calls (from 1), ``#K`` appended when the call returned several tensors (K-th of them
    in ``torch.utils._pytree`` flattening order, non-tensors left out)."""
    key = module_path if call == 0 else f"{module_path}@{call}"
    return key if output is None else f"{key}#{output}"


def _to_numpy(tensor: Any) -> np.ndarray:
    import torch

    t = tensor.detach()
    if t.layout != torch.strided:
        t = t.to_dense()
    t = t.cpu()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: widened exactly to float32
        t = t.float()
    return t.numpy().copy()


def capture(
    module: Any,
    *inputs: Any,
    path: Union[str, "os.PathLike[str]"],
    kwargs: Optional[Mapping[str, Any]] = None,
) -> Dict[str, np.ndarray]:
    """Runs ``module(*inputs, **kwargs)`` once under ``torch.no_grad()`` with a forward hook on every submodule
    (``named_modules()``, the root left out: its outputs are the model's outputs) and writes what each returned to
    the .npz ``path``, keyed by module path as ``torch.onnx.export(..., dynamo=True)`` writes it in
    ``pkg.torch.onnx.name_scopes`` (see :func:`output_key` for calls and several outputs). Keys are in the order the
    hooks fired, which is execution order with a child before its parent. The hooks are removed afterwards, also when
    the forward pass raises. Returns the arrays written.
    """
    import torch
    from torch.utils._pytree import tree_flatten

    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"capture expects a torch.nn.Module, got {type(module).__name__}")
    arrays: Dict[str, np.ndarray] = {}
    calls: Dict[str, int] = {}

    def make_hook(name: str):
        def hook(_mod, _args, output):
            call = calls.get(name, 0)
            calls[name] = call + 1
            leaves, _ = tree_flatten(output)
            tensors = [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)]
            if len(tensors) == 1:
                arrays[output_key(name, call)] = _to_numpy(tensors[0])
            else:
                for k, t in enumerate(tensors):
                    arrays[output_key(name, call, k)] = _to_numpy(t)

        return hook

    handles = []
    try:
        for name, sub in module.named_modules():
            if name:
                handles.append(sub.register_forward_hook(make_hook(name)))
        with torch.no_grad():
            module(*inputs, **dict(kwargs or {}))
    finally:
        for h in handles:
            h.remove()
    np.savez(os.fspath(path), **arrays)
    return arrays
