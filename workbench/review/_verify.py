"""Verifying a review's current files: what ``workbench check`` reads and what opening a review
compares, each problem named by its file.

build.json, written last by a save, records every other file of its generation with its size and
SHA-256 (:func:`workbench.review._folder.record_files`). :func:`verify` compares each file with that
record and reads each one the way the review will: every line of papers.jsonl (whole JSON, a
paper, as many as the build wrote), the arrays' safetensors header and shapes (a pickle is named
and never loaded), the JSON files. :func:`rebuild_command` is the command that writes a whole new
set from the sources the build recorded.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from ._folder import FILES, GENERATIONS, LEGACY_FILES, files_dir, sha256

__all__ = ["FileProblem", "rebuild_command", "verify"]


@dataclass(frozen=True)
class FileProblem:
    """A file of the review's current set that is missing or damaged."""

    file: str  # the path inside the review folder, e.g. generations/<name>/arrays.safetensors
    what: str  # e.g. "missing", "truncated: 1,200 of 5,852 bytes"

    def __str__(self) -> str:
        return f"{self.file} is {self.what}" if self.what == "missing" else f"{self.file}: {self.what}"


_PICKLE = (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05")


def _check_papers(path: Path, n_papers: int | None) -> str | None:
    count = 0
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                return f"line {number} is not whole JSON (the file is truncated or damaged)"
            if not isinstance(record, dict) or "id" not in record or "title" not in record:
                return f"line {number} is not a paper (no id or title)"
            count += 1
    if n_papers is not None and count != n_papers:
        return f"{count:,} papers, but the build wrote {n_papers:,} (the file is truncated)"
    return None


def _check_arrays(path: Path, n_papers: int | None, deep: bool) -> str | None:
    from safetensors import safe_open

    with open(path, "rb") as fh:
        head = fh.read(8)
    if head.startswith(_PICKLE) or head.startswith(b"PK\x03\x04"):
        kind = "a Python pickle" if head.startswith(_PICKLE) else "a zip archive (a torch save?)"
        return f"{kind}, not safetensors (never loaded: a pickle can run code)"
    try:
        with safe_open(str(path), framework="numpy") as arrays:
            shapes = {k: list(arrays.get_slice(k).get_shape()) for k in arrays.keys()}
            if deep:
                for k in shapes:
                    arrays.get_tensor(k)
    except Exception as err:  # SafetensorError and the rest: not readable
        return f"not a readable safetensors file ({type(err).__name__}: {err})"
    for key in ("labels", "coords"):
        if key not in shapes:
            return f"has no {key!r} array (it has {sorted(shapes)})"
    if n_papers is not None and (shapes["labels"] != [n_papers] or shapes["coords"] != [n_papers, 2]):
        return (f"its arrays are for {shapes['labels'][0] if shapes['labels'] else 0:,} papers, "
                f"the build wrote {n_papers:,}")
    return None


def _check_json(path: Path) -> str | None:
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        return f"not whole JSON ({err})"
    return None


def _check_file(path: Path, name: str, n_papers: int | None, deep: bool) -> str | None:
    if name == "papers.jsonl":
        return _check_papers(path, n_papers)
    if name == "arrays.safetensors":
        return _check_arrays(path, n_papers, deep)
    if name.endswith(".safetensors"):
        return _check_safetensors(path)
    if name.endswith(".json"):
        return _check_json(path)
    return None


def _check_safetensors(path: Path) -> str | None:
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="numpy") as data:
            list(data.keys())
    except Exception as err:
        return f"not a readable safetensors file ({type(err).__name__}: {err})"
    return None


def _inside(name: str) -> bool:
    parts = Path(name).parts
    return bool(parts) and not Path(name).is_absolute() and ".." not in parts


def verify(review_path: Path, generation: str | None, *, deep: bool = True) -> list[FileProblem]:
    """The problems of the review's current files (``generation``; None: the top level): each
    file build.json recorded, with its size and (``deep``) its SHA-256, and each file the review
    reads, read as the review reads it. ``deep=False`` (opening a review) compares sizes only
    and leaves reading to the loaders."""
    review_path = Path(review_path)
    folder = files_dir(review_path, generation)

    def shown(name: str) -> str:
        return f"{GENERATIONS}/{generation}/{name}" if generation else name

    try:
        manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
        if not isinstance(manifest, dict):
            raise ValueError("not a JSON object")
    except FileNotFoundError:
        return [FileProblem(shown("build.json"), "missing")]
    except (OSError, ValueError, UnicodeDecodeError) as err:
        return [FileProblem(shown("build.json"), f"not whole JSON ({err})")]
    n_papers = manifest.get("n_papers") if isinstance(manifest.get("n_papers"), int) else None
    recorded = manifest.get(FILES) if isinstance(manifest.get(FILES), dict) else {}
    names = list(dict.fromkeys([*recorded, *(n for n in LEGACY_FILES if n not in ("build.json", "model"))]))
    problems = []
    for name in names:
        if not _inside(name):  # a hand-edited or hostile build.json: never read outside the folder
            problems.append(FileProblem(shown("build.json"), f"records a file outside its folder ({name!r})"))
            continue
        path = folder / name
        record = recorded.get(name) or {}
        if not path.is_file():
            problems.append(FileProblem(shown(name), "missing"))
            continue
        size = path.stat().st_size
        found = []
        if "size" in record and size != record["size"]:
            found.append(f"{size:,} bytes, but the build wrote {record['size']:,} (truncated or "
                         "replaced)")
        elif deep and "sha256" in record and sha256(path) != record["sha256"]:
            found.append("changed since the build wrote it (its SHA-256 differs)")
        if deep:
            what = _check_file(path, name, n_papers, deep)
            found += [] if what is None else [what]
        if found:
            problems.append(FileProblem(shown(name), "; ".join(found)))
    return problems


def rebuild_command(review_path: Path, manifest: dict | None) -> str:
    """The command that writes the review's files again from its sources (as its build.json
    recorded them; tags, notes and decisions are in the store and are kept)."""
    manifest = manifest or {}
    argv = ["workbench", "build", *[str(s) for s in manifest.get("sources") or []],
            "--review", str(review_path)]
    embedder = (manifest.get("embedder") or {}).get("name")
    if embedder:
        argv += ["--embedder", embedder]
    if manifest.get("seed") not in (None, 42):
        argv += ["--seed", str(manifest["seed"])]
    params = manifest.get("topic_params") or {}
    for key, flag in (("min_cluster_size", "--min-cluster-size"), ("nr_topics", "--nr-topics")):
        if params.get(key) is not None:
            argv += [flag, str(params[key])]
    return shlex.join(argv)
