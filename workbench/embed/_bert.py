"""A sentence-transformers BERT folder's vectors from torch alone, without importing transformers.

sentence-transformers builds its model through transformers, whose import pulls
``torch._dynamo``, ``torch.distributed.tensor``, ``scipy.stats`` and ``sklearn.metrics``: 3-4 s
here, longer than a cold build of the seeds spends on anything but the model's arithmetic. The
model itself is small and fixed: BERT's embeddings and layers (``torch.nn`` modules and
``scaled_dot_product_attention``, named as in the checkpoint so that it loads as it is), mean
pooling over the real tokens, unit length. ``tokenizers`` reads ``tokenizer.json`` and
``safetensors`` the weights.

:func:`load` gives an :class:`Encoder` only for a folder that is exactly this (a ``bert`` config
with absolute positions and GELU; the modules Transformer, mean Pooling and Normalize; a
``model.safetensors`` holding every weight; a ``tokenizer.json`` whose normaliser agrees with
``tokenizer_config.json``), else ``None`` and the caller loads sentence-transformers.
``tests/test_minilm.py`` compares the vectors with sentence-transformers' own.

``bf16=True`` runs the linear layers under ``torch.autocast`` in bfloat16 (norms and pooling
stay float32): ~2x faster on a CPU with AVX512-BF16 or AMX, vectors within a cosine of 1e-4 of
float32's. Attention stays float32. torch's bfloat16 flash-attention kernel becomes ~10x slower
(3 s -> 30 s for the seeds) once numba has started its own OpenMP runtime, which every UMAP fit
does (``UMAP.fit`` calls ``numba.set_num_threads``). The two runtimes then share the process, and
a kernel refits topics before it embeds a query or label words. The float32 kernel is not
affected (``benchmarks/bench_minilm_threads.py``).
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
import warnings
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

__all__ = ["Encoder", "load", "int8"]

MODULES = ["sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
           "sentence_transformers.models.Normalize"]
CONFIG = {"position_embedding_type": "absolute", "hidden_act": "gelu"}  # as transformers defaults them
IGNORED = ("embeddings.position_ids", "pooler.")  # in the checkpoint, unused by a sentence encoder


class _Attention(nn.Module):
    def __init__(self, hidden: int, heads: int, eps: float):
        super().__init__()
        self.heads = heads
        self.self = nn.ModuleDict({n: nn.Linear(hidden, hidden) for n in ("query", "key", "value")})
        self.output = nn.ModuleDict({"dense": nn.Linear(hidden, hidden), "LayerNorm": nn.LayerNorm(hidden, eps=eps)})

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, length, hidden = x.shape
        q, k, v = (self.self[n](x).view(batch, length, self.heads, -1).transpose(1, 2) for n in ("query", "key", "value"))
        with torch.autocast("cpu", enabled=False):  # float32: see the module's docstring
            attended = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=mask)
        attended = attended.transpose(1, 2).reshape(batch, length, hidden)
        return self.output["LayerNorm"](x + self.output["dense"](attended))


class _Layer(nn.Module):
    def __init__(self, hidden: int, heads: int, intermediate: int, eps: float):
        super().__init__()
        self.attention = _Attention(hidden, heads, eps)
        self.intermediate = nn.ModuleDict({"dense": nn.Linear(hidden, intermediate)})
        self.output = nn.ModuleDict({"dense": nn.Linear(intermediate, hidden), "LayerNorm": nn.LayerNorm(hidden, eps=eps)})

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.attention(x, mask)
        return self.output["LayerNorm"](x + self.output["dense"](F.gelu(self.intermediate["dense"](x))))


class _Bert(nn.Module):
    """BERT's embeddings and encoder layers, the parameters named as a ``BertModel`` checkpoint's."""

    def __init__(self, config: dict):
        super().__init__()
        hidden, eps = config["hidden_size"], config["layer_norm_eps"]
        self.embeddings = nn.ModuleDict({
            "word_embeddings": nn.Embedding(config["vocab_size"], hidden),
            "position_embeddings": nn.Embedding(config["max_position_embeddings"], hidden),
            "token_type_embeddings": nn.Embedding(config["type_vocab_size"], hidden),
            "LayerNorm": nn.LayerNorm(hidden, eps=eps),
        })
        layer = (hidden, config["num_attention_heads"], config["intermediate_size"], eps)
        self.encoder = nn.ModuleDict({"layer": nn.ModuleList(_Layer(*layer) for _ in range(config["num_hidden_layers"]))})

    def forward(self, ids: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
        """Mean of the real tokens' last hidden states (float32), one row per sequence."""
        e = self.embeddings
        x = e["word_embeddings"](ids) + e["position_embeddings"].weight[: ids.shape[1]] + e["token_type_embeddings"].weight[0]
        x = e["LayerNorm"](x)
        mask = torch.zeros(real.shape).masked_fill_(~real, float("-inf"))[:, None, None, :]
        for layer in self.encoder["layer"]:
            x = layer(x, mask)
        weights = real.unsqueeze(-1).float()
        return (x.float() * weights).sum(1) / weights.sum(1).clamp(min=1e-9)


class _Int8Linear(nn.Module):
    """A linear layer in int8: weights quantised once per output channel (symmetric), each input
    quantised on the fly over its whole tensor to the full 8 bits (fbgemm's dynamic kernel).

    torch's own ``quantize_dynamic`` asks the kernel for 7-bit inputs (``reduce_range``) and
    quantises weights per tensor: on MiniLM that costs a cosine of 0.15 (per tensor) or 0.03 (per
    channel) against float32's vectors; per channel at 8 bits stays within 0.011.
    """

    def __init__(self, linear: nn.Linear):
        super().__init__()
        w = linear.weight.detach().float()
        scales = (w.abs().amax(dim=1) / 127.0).clamp(min=1e-12).double()
        zeros = torch.zeros(w.shape[0], dtype=torch.long)
        bias = None if linear.bias is None else linear.bias.detach().float()
        with warnings.catch_warnings():  # (torch marks its quantised tensors deprecated, in favour of torchao)
            warnings.simplefilter("ignore")
            qweight = torch.quantize_per_channel(w, scales, zeros, 0, torch.qint8)
            self.packed = torch.ops.quantized.linear_prepack(qweight, bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.quantized.linear_dynamic(x, self.packed, False)


#: The linear layers :func:`int8` leaves in float32: each layer's feed-forward output (its input,
#: GELU's output, has the widest outliers). Quantising them too saves ~10 % more time and drops the
#: lowest cosine to float32's vectors from 0.994 to 0.989 (benchmarks/bench_minilm.py).
FLOAT_LINEARS = re.compile(r"(^|\.)layer\.\d+\.output\.dense$")


def int8(model: nn.Module) -> nn.Module:
    """``model`` (modified in place) with its linear layers in int8 (:class:`_Int8Linear`) but those
    :data:`FLOAT_LINEARS` names. Works for this module's ``_Bert`` and for transformers' BERT."""
    for name, module in list(model.named_modules()):
        if isinstance(module, nn.Linear) and not FLOAT_LINEARS.search(name) and not name.endswith("pooler.dense"):
            parent, _, child = name.rpartition(".")
            owner = model.get_submodule(parent) if parent else model
            if isinstance(owner, (nn.ModuleDict, nn.ModuleList)):
                owner[child] = _Int8Linear(module)
            else:
                setattr(owner, child, _Int8Linear(module))
    return model


#: A call with at most this many tokens in all (a search query, a few label words) runs on one
#: thread: on so little work torch's threads mostly wait for each other, and on a busy machine
#: for a core (a query took 10-30 times longer on two threads than on one, at a load of 9).
FEW_TOKENS = 256


@contextmanager
def _threads(n: int):
    """torch's intra-op threads set to ``n`` inside the block (the number is the process's: the
    review's embedder lock keeps other embedding out meanwhile)."""
    before = torch.get_num_threads()
    if n == before:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class Encoder:
    """Texts to unit-length float32 rows, as ``SentenceTransformer(folder).encode(texts,
    normalize_embeddings=True)`` gives them: batches of texts of similar token length."""

    def __init__(self, model: _Bert, tokenizer, dimension: int):
        self.model, self.tokenizer, self.dimension = model, tokenizer, dimension

    def encode(self, texts: Sequence[str], batch_size: int = 32, bf16: bool = False, progress=None) -> np.ndarray:
        ids = self._ids(texts)
        lengths = np.fromiter(map(len, ids), np.int64, len(ids))
        order = np.argsort(-lengths, kind="stable")
        out = np.zeros((len(ids), self.dimension), np.float32)
        threads = 1 if lengths.sum() <= FEW_TOKENS else torch.get_num_threads()
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16), _threads(threads):
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                batch = torch.zeros((len(rows), int(lengths[rows[0]])), dtype=torch.long)
                for i, row in enumerate(rows):
                    batch[i, : lengths[row]] = torch.from_numpy(ids[row])
                real = torch.arange(batch.shape[1]) < torch.from_numpy(lengths[rows])[:, None]
                out[rows] = F.normalize(self.model(batch, real), dim=1).numpy()
                if progress is not None:
                    progress.update(len(rows))
        return out

    def _ids(self, texts: Sequence[str], chunk: int = 2048) -> list[np.ndarray]:
        """Each text's token ids (special tokens added, truncated), tokenised a chunk at a time:
        a tokenizer's ``Encoding`` keeps offsets and token strings too, ~20 kB an abstract."""
        encode = getattr(self.tokenizer, "encode_batch_fast", self.tokenizer.encode_batch)  # fast: no offsets
        ids: list[np.ndarray] = []
        for start in range(0, len(texts), chunk):
            ids.extend(np.asarray(e.ids, dtype=np.int32) for e in encode(list(texts[start : start + chunk])))
        return ids


def _json(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _tokenizer(folder: Path, settings: dict, max_tokens: int):
    """``tokenizer.json`` truncating at ``max_tokens``, unpadded; None when its normaliser is not
    the one ``settings`` (``tokenizer_config.json``) asks for (transformers would rebuild it)."""
    from tokenizers import Tokenizer

    spec = _json(folder / "tokenizer.json")
    normaliser = (spec or {}).get("normalizer") or {}
    wanted = {"lowercase": settings.get("do_lower_case", True), "strip_accents": settings.get("strip_accents"),
              "handle_chinese_chars": settings.get("tokenize_chinese_chars", True)}
    if normaliser.get("type") != "BertNormalizer" or any(normaliser.get(k) != v for k, v in wanted.items()):
        return None
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.no_padding()
    return tokenizer


def _max_tokens(folder: Path, config: dict, settings: dict) -> int | None:
    """sentence-transformers' length limit: its config's, within the tokenizer's and the model's."""
    limit = (_json(folder / "sentence_bert_config.json") or {}).get("max_seq_length")
    model_max = settings.get("model_max_length", limit)
    if not isinstance(limit, int):
        return None
    return min(limit, model_max if isinstance(model_max, int) else limit, config["max_position_embeddings"])


def _pooling_is_mean(folder: Path, modules: list) -> bool:
    pooling = _json(folder / modules[1].get("path", "") / "config.json") or {}
    modes = {k: v for k, v in pooling.items() if k.startswith("pooling_mode_")}
    return modes.get("pooling_mode_mean_tokens") is True and not any(v for k, v in modes.items() if k != "pooling_mode_mean_tokens")


def load(folder: str | Path) -> Encoder | None:
    """The encoder of a sentence-transformers folder this module implements exactly, else None."""
    folder = Path(folder)
    config, modules = _json(folder / "config.json"), _json(folder / "modules.json")
    if not isinstance(config, dict) or not isinstance(modules, list) or [m.get("type") for m in modules] != MODULES:
        return None
    if config.get("model_type") != "bert" or any(config.get(k, v) != v for k, v in CONFIG.items()):
        return None
    settings = _json(folder / "tokenizer_config.json")
    settings = settings if isinstance(settings, dict) else {}
    max_tokens = _max_tokens(folder, config, settings)
    if max_tokens is None or not _pooling_is_mean(folder, modules) or not (folder / "model.safetensors").is_file():
        return None
    tokenizer = _tokenizer(folder, settings, max_tokens)
    if tokenizer is None:
        return None
    from safetensors.torch import load_file

    weights = {k.removeprefix("bert."): v for k, v in load_file(str(folder / "model.safetensors")).items()}
    model = _Bert(config)
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if missing or any(not k.startswith(IGNORED) for k in unexpected):
        return None
    return Encoder(model.eval(), tokenizer, config["hidden_size"])
