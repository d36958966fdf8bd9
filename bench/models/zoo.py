# SPDX-License-Identifier: Apache-2.0
"""The models of kiln's real-model benchmark: built offline from their configurations with seeded random weights.

    spec = MODELS["bert"]
    model = spec.build()                  # torch.manual_seed(0) first; an nn.Module in eval mode on the CPU
    inputs = spec.inputs(batch=32)        # name -> numpy array, seeded

Each model's forward takes its inputs positionally, in the order of spec.inputs, and returns a tuple in the order of
spec.outputs, so that the ONNX export, kiln's runner and PyTorch see the same names. torch, torchvision and
transformers are imported only inside the builders.

CNNs in eval mode would otherwise use BatchNorm's initial running statistics (mean 0, variance 1), under which
activations grow block after block (a random ResNet-50 reaches fp16's range); their statistics are set instead by a
few seeded training-mode passes (momentum None: the plain average), as a trained model's would be.
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np

SEQUENCE = 128
IMAGE = 224


@dataclass(frozen=True)
class ModelSpec:
    kind: str  # "cnn" (channels_last when timed in PyTorch), "vision" or "text"
    large_batch: int
    build: Callable  # (for_export: bool) -> nn.Module in eval mode
    inputs: Callable  # (batch: int) -> dict name -> ndarray
    outputs: tuple


def image_inputs(batch):
    rng = np.random.default_rng(1000 + batch)
    return {"images": rng.standard_normal((batch, 3, IMAGE, IMAGE), dtype=np.float32)}


def token_ids(rng, batch, vocabulary):
    return rng.integers(0, vocabulary, size=(batch, SEQUENCE), dtype=np.int64)


def bert_inputs(batch):
    """Sentence pairs: token types 0 then 1; every second row padded over its last 16 positions (mask 0)."""
    rng = np.random.default_rng(2000 + batch)
    mask = np.ones((batch, SEQUENCE), dtype=np.int64)
    mask[1::2, SEQUENCE - 16 :] = 0
    types = np.zeros((batch, SEQUENCE), dtype=np.int64)
    types[:, SEQUENCE // 2 :] = 1
    return {"input_ids": token_ids(rng, batch, 30522), "attention_mask": mask, "token_type_ids": types}


def gpt2_inputs(batch):
    return {"input_ids": token_ids(np.random.default_rng(3000 + batch), batch, 50257)}


def calibrate_batch_norm(model, passes=2, batch=8):
    """BatchNorm statistics from seeded random images (see the module's docstring); leaves model in eval mode."""
    import torch

    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None
    generator = torch.Generator().manual_seed(7)
    model.train()
    with torch.no_grad():
        for _ in range(passes):
            model(torch.randn(batch, 3, IMAGE, IMAGE, generator=generator))
    return model.eval()


def tuple_outputs(model, names):
    """model (a Hugging Face model) behind a forward that returns a tuple of the named outputs (export-friendly)."""
    import torch

    class TupleOutputs(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *inputs):
            result = self.model(*inputs, return_dict=True)
            return tuple(result[name] for name in names)

    return TupleOutputs().eval()


def torchvision_builder(name):
    def build(for_export=False):
        del for_export
        import torch
        import torchvision

        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None)
        if any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for m in model.modules()):
            calibrate_batch_norm(model)
        return model.eval()

    return build


def attention_choice(for_export):
    """Hugging Face's eager attention for the export (plain MatMul/Softmax in ONNX, no data-dependent mask checks),
    the library's default (SDPA) for PyTorch's timed runs, as a user gets it; the weights are the same."""
    return {"attn_implementation": "eager"} if for_export else {}


def build_bert(for_export=False):
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.BertConfig(**attention_choice(for_export))  # BERT-base
    model = transformers.BertModel(config).eval()
    return tuple_outputs(model, ("last_hidden_state", "pooler_output"))


def build_gpt2(for_export=False):
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.GPT2Config(use_cache=False, **attention_choice(for_export))  # GPT-2 small
    model = transformers.GPT2LMHeadModel(config).eval()
    return tuple_outputs(model, ("logits",))


def cnn(name):
    return ModelSpec("cnn", 256, torchvision_builder(name), image_inputs, ("logits",))


MODELS = {
    "resnet50": cnn("resnet50"),
    "mobilenet_v3_large": cnn("mobilenet_v3_large"),
    "efficientnet_b0": cnn("efficientnet_b0"),
    "vit_b_16": ModelSpec("vision", 32, torchvision_builder("vit_b_16"), image_inputs, ("logits",)),
    "bert": ModelSpec("text", 32, build_bert, bert_inputs, ("last_hidden_state", "pooler_output")),
    "gpt2": ModelSpec("text", 32, build_gpt2, gpt2_inputs, ("logits",)),
}
DEFAULT_MODELS = ("resnet50", "bert")
