"""ASReview LAB in its own virtualenv, driven from the screening benchmark.

ASReview is never a dependency of the workbench: ``ensure_venv()`` creates
``benchmarks/.venv-asreview`` (gitignored) and installs the pinned versions below into it.
``simulate()`` runs ``asreview simulate`` and ``asreview metrics`` on one review file and
seed and returns its screening order (read from the project file's results table), its
metrics, and the seconds it took; results are kept as JSON under ``benchmarks/out`` and reused
when the same review, seed and ASReview version come again (``--fresh`` reruns them).
``UpdateTimer`` times ASReview's own model update (ELAS u4's fit and ranking of the pool)
in that virtualenv, on given labelled sets.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv-asreview"
PINS = ["asreview==2.2", "asreview-insights==1.6.1"]
BIN = VENV / "bin"


def ensure_venv() -> str:
    """Create the virtualenv once; return ASReview's version."""
    if not (BIN / "asreview").exists():
        print(f"creating {VENV} with {' '.join(PINS)} (once)", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(BIN / "pip"), "install", "--quiet", *PINS], check=True)
    # (importing asreview leaves a synergy_cache.sqlite in the working directory: not ours)
    out = subprocess.run([str(BIN / "python"), "-c", "import asreview; print(asreview.__version__)"],
                         capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return out.stdout.strip()


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": "", "TQDM_DISABLE": "1"}


def simulate(csv: Path, seed: int, out_dir: Path, version: str, fresh: bool = False) -> dict:
    """One ``asreview simulate`` run with one prior include and exclude from ``--prior-seed``
    (kept, and reused while ASReview's version and the file's bytes are the same)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    done = out_dir / f"{csv.stem}_s{seed}.json"
    digest = hashlib.sha256(csv.read_bytes()).hexdigest()[:16]
    if done.exists() and not fresh:
        result = json.loads(done.read_text())
        if result.get("asreview") == version and result.get("data", digest) == digest:
            return result
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "sim.asreview"
        t0 = time.perf_counter()
        subprocess.run([str(BIN / "asreview"), "simulate", str(csv), "--n-prior-included", "1",
                        "--n-prior-excluded", "1", "--prior-seed", str(seed), "--seed", str(seed),
                        "-o", str(project)], check=True, capture_output=True, text=True, env=_env(), cwd=tmp)
        seconds = time.perf_counter() - t0
        metrics_file = Path(tmp) / "metrics.json"
        subprocess.run([str(BIN / "asreview"), "metrics", str(project), "-o", str(metrics_file)],
                       check=True, capture_output=True, text=True, env=_env(), cwd=tmp)
        metrics = {item["id"]: item["value"] for item in json.loads(metrics_file.read_text())["data"]["items"]}
        with zipfile.ZipFile(project) as z:
            name = next(n for n in z.namelist() if n.endswith("results.db"))
            z.extract(name, tmp)
        with sqlite3.connect(Path(tmp) / name) as db:
            rows = db.execute("SELECT record_id, label, querier, time FROM results ORDER BY rowid").fetchall()
    times = [r[3] for r in rows]
    result = {
        "asreview": version, "data": digest, "review": csv.stem, "seed": seed, "seconds": seconds,
        "order": [int(r[0]) for r in rows], "labels": [int(r[1]) for r in rows],
        "priors": [int(r[0]) for r in rows if r[2] is None],
        # wall time between consecutive labels after the first model: fit + rank + bookkeeping
        "label_seconds": [b - a for a, b in itertools.pairwise(times[2:])],
        "metrics": {"wss@95": metrics["wss"][0][1], "recall@10%": dict(map(tuple, metrics["recall"]))[0.1],
                    "atd": metrics["atd"]},
    }
    done.write_text(json.dumps(result))
    return result


TIMER = r"""
import json, sys, time
import numpy as np, pandas as pd
from asreview.learner import ActiveLearningCycle
from asreview.models.models import get_ai_config
csv, plan = sys.argv[1], np.load(sys.argv[2])
df = pd.read_csv(csv).fillna("")
cycle = ActiveLearningCycle.from_meta(get_ai_config("elas_u4")["value"])
t = time.perf_counter(); X = cycle.transform(df[["title", "abstract"]]); features_s = time.perf_counter() - t
y_all = plan["labels"]
print(json.dumps({"features_s": features_s, "n": int(X.shape[0])}), flush=True)
for line in sys.stdin:  # one labelled sequence's name per line; answers its steps' seconds
    key = line.strip()
    start, seq, secs = int(key[4:]), plan[key], []
    for end in range(start, len(seq)):
        labelled = seq[:end]
        t = time.perf_counter()
        cycle.fit(X[labelled], y_all[labelled])
        pool = np.setdiff1d(np.arange(X.shape[0]), labelled)
        ranked = pool[cycle.rank(X[pool])]
        secs.append(time.perf_counter() - t)
    print(json.dumps({"key": key, "secs": secs}), flush=True)
"""


class UpdateTimer:
    """ELAS u4's update (fit on the labelled rows, rank the pool) timed in ASReview's own
    virtualenv, in a process that builds its TF-IDF once and then times, on request, each step
    of a labelled sequence of ``plan_file`` (``seq_<start>``; see the benchmark's latency
    section), so ours and ASReview's can take turns under the same load."""

    def __init__(self, csv: Path, plan_file: Path):
        self.proc = subprocess.Popen([str(BIN / "python"), "-c", TIMER, str(csv), str(plan_file)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=_env(), cwd=plan_file.parent)
        self.features_s = self._answer()["features_s"]

    def _answer(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"ASReview timing failed:\n{self.proc.stderr.read()[-3000:]}")
        return json.loads(line)

    def time(self, key: str) -> list[float]:
        self.proc.stdin.write(key + "\n")
        self.proc.stdin.flush()
        return self._answer()["secs"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
