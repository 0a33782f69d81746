# SPDX-License-Identifier: MIT
"""Writes the two exports of one small BERT that align_test.py compares (run by hand, with torch; CTest never needs it).

    HF_HUB_OFFLINE=1 <python> tests/cli/align/make_bert_exports.py tests/cli/align/models

<python>: a venv with torch 2.15, transformers and onnxscript (the committed models were made with /work/venv-torch).
The same model (random weights, seed 0; LayerNorm scales and shifts randomised so that a LayerNorm's last steps are
not no-ops) is exported twice, as two exporters write it:
- bert_ts16.onnx: torch.onnx.export(dynamo=False, opset 16): LayerNorm as ReduceMean/Sub/Pow/Sqrt/Div/Mul/Add and
  Gelu as Div/Erf/Add/Mul/Mul, names like /encoder/layer.0/...;
- bert_dyn20.onnx: torch.onnx.export(dynamo=True, opset 20): LayerNormalization and Gelu, names like val_12.
Weights are stored inline (each file about 100 KB).
"""
import os
import sys
import warnings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
warnings.filterwarnings("ignore")

import onnx
import torch
from transformers import BertConfig, BertModel


class Encoder(torch.nn.Module):
    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=64, max_position_embeddings=32)
    bert = BertModel(cfg).eval()
    with torch.no_grad():
        for name, p in bert.named_parameters():
            if "LayerNorm.weight" in name:
                p.copy_(1 + 0.3 * torch.randn_like(p))
            elif "LayerNorm.bias" in name:
                p.copy_(0.3 * torch.randn_like(p))
    model = Encoder(bert).eval()
    ids = torch.randint(0, 100, (1, 12))
    mask = torch.ones(1, 12, dtype=torch.int64)
    names = dict(input_names=["input_ids", "attention_mask"], output_names=["hidden"])
    ts = os.path.join(out, "bert_ts16.onnx")
    torch.onnx.export(model, (ids, mask), ts, opset_version=16, dynamo=False, **names)
    dyn = os.path.join(out, "bert_dyn20.onnx")
    torch.onnx.export(model, (ids, mask), dyn, opset_version=20, dynamo=True, **names)
    for path in (ts, dyn):
        m = onnx.load(path)  # external data, if any, comes back inline
        onnx.save(m, path, save_as_external_data=False)
        data = path + ".data"
        if os.path.exists(data):
            os.remove(data)


if __name__ == "__main__":
    main()
