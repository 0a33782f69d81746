"""Writes the real exported models that tests/models/exports tests (run by hand, with torch; CTest never needs it).

    HF_HUB_OFFLINE=1 <python> tests/models/exports/make_exports.py tests/models/exports/models [family ...]

<python> is a venv with torch 2.15.0, torchvision 0.29.2, onnxscript 0.7.2, transformers 5.24.0 and onnx 1.23.2
(the committed models were made with those); the families are resnet18, mobilenet_v3_small, bert, gpt2, whisper
(default: all, about a minute on 2 cores). Then run make_cases.py once to see that they still pass.

Each model is exported with torch.onnx.export(..., dynamo=True) from random weights (torch.manual_seed), in eval
mode; nothing is downloaded. transformers models are built from config objects written here.

To keep git small, every float initializer over 4 KiB leaves the graph: it becomes ONNX external data in
`<name>.weights` (never committed), and `<name>.recipe.json` records how make_cases.py writes that file again: each
tensor's offset and length, shape, seed, and the mean and standard deviation of the exported tensor (per output
channel for convolution kernels, into which the exporter folds batch norm). The regenerated tensor is seeded normal
noise with those moments: other values than torch's, but as numerically sane (batch-norm statistics are
calibrated on random images before export, so activations neither vanish nor explode). onnxruntime on the same
graph and weights gives the expected outputs. Small tensors and every non-float tensor stay inline and exact.
The committed .onnx is a valid ONNX model that loads once the weights file exists.
"""

import json
import os
import sys
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
import onnx
import torch
from onnx import numpy_helper

INLINE_LIMIT = 4096


def split_weights(model, name, out_dir):
    """Moves float initializers over INLINE_LIMIT bytes to external data described by a recipe."""
    recipe = {"weights": name + ".weights", "tensors": []}
    offset = 0
    for index, init in enumerate(model.graph.initializer):
        if init.data_type not in (onnx.TensorProto.FLOAT,):
            continue
        array = numpy_helper.to_array(init)
        if array.nbytes <= INLINE_LIMIT:
            continue
        if not np.all(np.isfinite(array)):
            raise SystemExit(f"{name}: initializer {init.name} holds non-finite values; keep it inline")
        length = array.nbytes
        # Convolution kernels (rank >= 3) keep the moments of each output channel (batch norm folded in by the
        # exporter's optimizer scales each channel); other tensors keep the moments of the whole tensor.
        axes = tuple(range(1, array.ndim)) if array.ndim >= 3 else None
        values = array.astype(np.float64)
        recipe["tensors"].append({
            "name": init.name,
            "shape": list(array.shape),
            "dtype": "float32",
            "offset": offset,
            "length": length,
            "seed": index,
            "mean": [float(f"{v:.4g}") for v in np.atleast_1d(values.mean(axis=axes))],
            "std": [float(f"{v:.4g}") for v in np.atleast_1d(values.std(axis=axes))],
        })
        init.ClearField("raw_data")
        init.ClearField("float_data")
        init.data_location = onnx.TensorProto.EXTERNAL
        del init.external_data[:]
        for key, value in (("location", recipe["weights"]), ("offset", str(offset)), ("length", str(length))):
            entry = init.external_data.add()
            entry.key = key
            entry.value = value
        offset += (length + 63) // 64 * 64
    return recipe


def export(name, module, args, opset, out_dir, input_names=None, output_names=None, optimize=True,
           dynamic_shapes=None, test_shape=None):
    module.eval()
    with torch.no_grad():
        program = torch.onnx.export(module, args, dynamo=True, opset_version=opset, input_names=input_names,
                                    output_names=output_names, optimize=optimize, dynamic_shapes=dynamic_shapes)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.onnx")
        program.save(path)
        model = onnx.load(path, load_external_data=True)
    model.producer_name = model.producer_name or "pytorch"
    model.doc_string = f"onnxscope test model {name}: torch {torch.__version__} dynamo export, opset {opset}, " \
        "random weights (tests/models/exports/make_exports.py)"
    recipe = split_weights(model, name, out_dir)
    # The shapes of the inputs the test feeds: the example's, or test_shape for every input of a symbolic graph.
    recipe["inputs"] = {n: list(test_shape or a.shape) for n, a in zip(input_names or [], args)}
    onnx.save(model, os.path.join(out_dir, name + ".onnx"))
    with open(os.path.join(out_dir, name + ".recipe.json"), "w") as f:
        tensors = ",\n".join(json.dumps(t, separators=(",", ":")) for t in recipe["tensors"])
        f.write(f'{{"weights": {json.dumps(recipe["weights"])},\n"inputs": {json.dumps(recipe["inputs"])},\n'
                f'"tensors": [\n{tensors}\n]}}\n')
    nodes = len(model.graph.node)
    print(f"{name}: opset {opset}, {nodes} nodes, {len(model.functions)} functions, "
          f"{os.path.getsize(os.path.join(out_dir, name + '.onnx'))} bytes, {len(recipe['tensors'])} external",
          flush=True)


def calibrate_batch_norm(module):
    """Sets each batch norm's running statistics to those of random images, as training would."""
    for layer in module.modules():
        if isinstance(layer, torch.nn.modules.batchnorm._BatchNorm):
            layer.reset_running_stats()
            layer.momentum = None  # a cumulative average over the batches below
    module.train()
    with torch.no_grad():
        for _ in range(4):
            module(torch.randn(16, 3, 64, 64))
    module.eval()


def vision(out_dir, which):
    import torchvision
    for opset in (18, 20, 23):
        torch.manual_seed(0)
        if which == "resnet18":
            module = torchvision.models.resnet18(weights=None)
        else:
            module = torchvision.models.mobilenet_v3_small(weights=None)
        calibrate_batch_norm(module)
        export(f"{which}_opset{opset}", module, (torch.randn(1, 3, 64, 64),), opset, out_dir,
               input_names=["image"], output_names=["logits"])
    if which == "resnet18":
        # The exporter's graph before its optimizer runs: BatchNormalization, CastLike, Expand, Shape, Constant.
        torch.manual_seed(0)
        module = torchvision.models.resnet18(weights=None)
        calibrate_batch_norm(module)
        export("resnet18_opset18_unoptimized", module, (torch.randn(1, 3, 64, 64),), 18, out_dir,
               input_names=["image"], output_names=["logits"], optimize=False)


def bert(out_dir, opset=18):
    from transformers import BertConfig, BertModel
    torch.manual_seed(1)
    config = BertConfig(vocab_size=1000, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=512, max_position_embeddings=128, attn_implementation="eager")
    module = BertModel(config, add_pooling_layer=True)
    ids = torch.randint(0, 1000, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    types = torch.zeros(2, 16, dtype=torch.int64)
    export(f"bert_opset{opset}", module, (ids, mask, types), opset, out_dir,
           input_names=["input_ids", "attention_mask", "token_type_ids"],
           output_names=["last_hidden_state", "pooler_output"])
    # The same encoder with a symbolic batch and sequence length, as exports for serving are made.
    batch, sequence = torch.export.Dim("batch", max=64), torch.export.Dim("sequence", max=128)
    dims = {0: batch, 1: sequence}
    export("bert_dynamic_opset20", module, (ids, mask, types), 20, out_dir,
           input_names=["input_ids", "attention_mask", "token_type_ids"],
           output_names=["last_hidden_state", "pooler_output"], dynamic_shapes=(dims, dims, dims), test_shape=[3, 11])


class GPT2WithPast(torch.nn.Module):
    """GPT-2 LM over a key/value cache given as plain tensors (one key and one value per layer)."""

    def __init__(self, model, layers):
        super().__init__()
        self.model = model
        self.layers = layers

    def forward(self, input_ids, attention_mask, *past):
        from transformers import DynamicCache
        cache = DynamicCache()
        for layer in range(self.layers):
            cache.update(past[2 * layer], past[2 * layer + 1], layer)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, past_key_values=cache, use_cache=True)
        present = []
        for layer in range(self.layers):
            k, v = out.past_key_values.layers[layer].keys, out.past_key_values.layers[layer].values
            present += [k, v]
        return (out.logits, *present)


def gpt2(out_dir, opset=20):
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(2)
    layers, heads, hidden = 2, 4, 128
    config = GPT2Config(vocab_size=1000, n_positions=128, n_embd=hidden, n_layer=layers, n_head=heads,
                        bos_token_id=0, eos_token_id=0, attn_implementation="eager")
    module = GPT2WithPast(GPT2LMHeadModel(config), layers)
    past_len, new_len = 8, 4
    ids = torch.randint(0, 1000, (1, new_len))
    mask = torch.ones(1, past_len + new_len, dtype=torch.int64)
    past = [torch.randn(1, heads, past_len, hidden // heads) for _ in range(2 * layers)]
    names = ["input_ids", "attention_mask"]
    outs = ["logits"]
    for layer in range(layers):
        names += [f"past_key_{layer}", f"past_value_{layer}"]
        outs += [f"present_key_{layer}", f"present_value_{layer}"]
    export(f"gpt2_opset{opset}", module, (ids, mask, *past), opset, out_dir, input_names=names, output_names=outs)


def whisper(out_dir, opset=23):
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    torch.manual_seed(3)
    # whisper-tiny's sizes, with 150 positions (3 s of audio, 300 mel frames) instead of 1500 to keep tests fast.
    config = WhisperConfig(d_model=384, encoder_layers=4, encoder_attention_heads=6, encoder_ffn_dim=1536,
                           num_mel_bins=80, max_source_positions=150, vocab_size=1000,
                           pad_token_id=0, bos_token_id=0, eos_token_id=0, decoder_start_token_id=0,
                           attn_implementation="eager")
    module = WhisperEncoder(config)
    features = torch.randn(1, 80, 300)
    export(f"whisper_encoder_opset{opset}", module, (features,), opset, out_dir, input_names=["input_features"],
           output_names=["last_hidden_state"])


def main():
    out_dir = sys.argv[1]
    only = sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    jobs = {
        "resnet18": lambda: vision(out_dir, "resnet18"),
        "mobilenet_v3_small": lambda: vision(out_dir, "mobilenet_v3_small"),
        "bert": lambda: bert(out_dir),
        "gpt2": lambda: gpt2(out_dir),
        "whisper": lambda: whisper(out_dir),
    }
    for key, job in jobs.items():
        if not only or key in only:
            job()


if __name__ == "__main__":
    main()
