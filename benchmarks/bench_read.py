"""Reading benchmark: ``read_sources`` (read + clean + deduplicate) against a naive pandas baseline.

    python benchmarks/bench_read.py [--records 50000] [--seed 0]

Inputs (from ../shared/data/corpora; the script stops with a message when they are absent):

- SYNERGY: the 7,234-row flat CSV of nine systematic reviews (OpenAlex metadata).
- 50,000 records: a CSV generated in a temporary folder from all three corpora. Every corpus
  record is written once (SYNERGY, arxiv_lite with ``summary`` as abstract, medical abstracts
  with their first sentence as title); the rest are, half and half,
    * planted duplicates of a random corpus record: one character of the title changed, or its
      case and final punctuation, or a word dropped from a title of 10+ words; the DOI kept,
      written as a ``https://doi.org/`` URL in capitals, or left out; authors and year kept;
    * new distinct records: the first half of one title joined to the second half of another,
      likewise for two other records' abstracts, a random year and a fresh DOI.
  Every text is on one line (so CSV line numbers are rows). Planted duplicates repeat their
  original's abstract, as the same paper exported by two databases does; distinct records'
  abstracts are all different, so LaTeX conversion is not spared by repetition.
  The number of planted duplicates is known, so each method's share of them found is shown.

Methods, each in a fresh Python process (time excludes start-up; peak RSS is the child's own
high-water mark, ``VmHWM``, imports included):

- naive: ``pandas.read_csv`` + ``drop_duplicates`` on the DOI column (rows without a DOI kept;
  no cleaning, no ids, no titles compared) — what a quick script does;
- workbench, ids only: ``read_sources(..., duplicates=DuplicateRules(fuzzy=False))``: read, clean, ids, and merges by
  shared DOI / arXiv id / PMID / record id / identical title and abstract;
- workbench: ``read_sources(...)``, adding near-identical titles (rapidfuzz, blocked).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / ".." / "shared" / "data" / "corpora"
SYNERGY = CORPORA / "synergy" / "synergy_v1_flat.csv"

NAIVE = r"""
import json, sys, time
t = time.perf_counter()
import pandas as pd
df = pd.read_csv(sys.argv[1])
kept = df[df["doi"].isna() | ~df["doi"].duplicated()]
print(json.dumps({"records": len(df), "papers": len(kept), "seconds": time.perf_counter() - t}))
"""

WORKBENCH = r"""
import json, sys, time
t = time.perf_counter()
from workbench.dedupe import deduplicate
from workbench.readers import read_file_report
records, report = read_file_report(sys.argv[1])  # what read_sources does, timed in two parts
t_read = time.perf_counter() - t
papers, found = deduplicate(records, fuzzy=sys.argv[2] == "fuzzy")
seconds = time.perf_counter() - t
planted = json.loads(open(sys.argv[3]).read()) if len(sys.argv) > 3 else None
hits = None
if planted is not None:
    # a planted duplicate is found when its line ended up among the sources of its original's paper
    paper_of = {s.rsplit(":", 1)[1]: p.id for p in papers for s in p.sources}
    hits = sum(paper_of.get(str(dup)) == paper_of.get(str(orig)) for dup, orig in planted)
print(json.dumps({"records": report.read, "skipped": len(report.skipped), "papers": len(papers), "found": hits,
                  "seconds": seconds, "read_seconds": t_read, "comparisons": found.comparisons}))
"""

NAIVE_FOUND = r"""
import json, sys, time
import pandas as pd
df = pd.read_csv(sys.argv[1])
planted = json.loads(open(sys.argv[2]).read())
first = {}
for i, doi in enumerate(df["doi"]):
    if isinstance(doi, str):
        first.setdefault(doi, i)
row = lambda line: line - 2
rep = [first.get(df["doi"].iat[row(i)], row(i)) if isinstance(df["doi"].iat[row(i)], str) else row(i) for i in range(2, len(df) + 2)]
print(json.dumps({"found": sum(rep[row(d)] == rep[row(o)] for d, o in planted)}))
"""


PEAK = r"""
def _peak_mb():
    # VmHWM: this process's own high-water mark (ru_maxrss would include the parent's, inherited
    # through fork and exec)
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""


def run_child(code: str, args: list[str]) -> tuple[dict, float]:
    """Run ``code`` in a fresh interpreter; its JSON result and its peak RSS in MB."""
    code = PEAK + code.replace("print(json.dumps({", 'print(json.dumps({"peak_mb": _peak_mb(), ')
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    chunks: dict[str, str] = {}
    threads = [threading.Thread(target=lambda n, s: chunks.__setitem__(n, s.read()), args=(n, s))
               for n, s in (("out", proc.stdout), ("err", proc.stderr))]
    for t in threads:
        t.start()
    status = proc.wait()
    for t in threads:
        t.join()
    if status:
        raise SystemExit(f"benchmark child failed:\n{chunks['err'][-3000:]}")
    result = json.loads(chunks["out"].strip().splitlines()[-1])
    return result, result.pop("peak_mb")


def _corpus_rows() -> list[dict]:
    import pandas as pd

    rows = pd.read_csv(SYNERGY, dtype=str, keep_default_na=False)[["title", "abstract", "authors", "year", "venue", "doi"]]
    out = rows.to_dict("records")
    arxiv = pd.read_csv(CORPORA / "arxiv_lite_8fields" / "arxiv_lite.csv", dtype=str, keep_default_na=False)
    out += [{"title": r.title, "abstract": r.summary, "authors": r.authors, "year": "", "venue": "arXiv", "doi": ""}
            for r in arxiv.itertuples()]
    medical = pd.read_csv(CORPORA / "medical_abstracts_tc" / "medical_tc_test.csv", dtype=str, keep_default_na=False)
    for text in medical.medical_abstract:
        title, _, rest = text.partition(". ")
        out.append({"title": title, "abstract": rest, "authors": "", "year": "", "venue": "", "doi": ""})
    # one physical line per record, so CSV line numbers name rows
    return [{k: " ".join(v.split()) for k, v in r.items()} for r in out if r["title"].strip()]


def _variant(row: dict, rng: random.Random) -> dict:
    title = row["title"]
    kind = rng.randrange(3)
    if kind == 0 and len(title) > 20:
        i = rng.randrange(5, len(title) - 5)
        title = title[:i] + rng.choice("abcdefghijklmnopqrstuvwxyz") + title[i + 1:]
    elif kind == 1:
        title = title.upper() if rng.random() < 0.5 else title.rstrip(".") + "."
    else:
        words = title.split()
        if len(words) >= 10:
            del words[rng.randrange(1, len(words) - 1)]
        title = " ".join(words)
    doi = row["doi"]
    if doi and rng.random() < 0.5:
        doi = "" if rng.random() < 0.5 else "https://doi.org/" + doi.removeprefix("https://doi.org/").upper()
    return {**row, "title": title, "doi": doi}


def make_large(path: Path, n: int, seed: int) -> list[tuple[int, int]]:
    """Write ``n`` records to ``path``; returns the planted (duplicate line, original line) pairs."""
    import pandas as pd

    rng = random.Random(seed)
    base = _corpus_rows()
    rows = list(base)
    planted = []
    while len(rows) < n:
        if rng.random() < 0.5:
            i = rng.randrange(len(base))
            rows.append(_variant(base[i], rng))
            planted.append((len(rows) + 1, i + 2))  # CSV lines: header is line 1
        else:
            a, b, c, d = rng.sample(base, 4)
            ta, tb = a["title"].split(), b["title"].split()
            ac, ad = c["abstract"].split(), d["abstract"].split()
            rows.append({"title": " ".join(ta[: len(ta) // 2 + 1] + tb[len(tb) // 2:]),
                         "abstract": " ".join(ac[: len(ac) // 2] + ad[len(ad) // 2:]),
                         "authors": c["authors"], "year": str(rng.randrange(1990, 2024)), "venue": c["venue"],
                         "doi": f"10.99999/synthetic.{len(rows)}"})
    pd.DataFrame(rows).to_csv(path, index=False)
    return planted


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not SYNERGY.is_file():
        print(f"no corpora at {CORPORA}; this benchmark needs ../shared/data/corpora", file=sys.stderr)
        return 1
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        large = Path(tmp) / f"generated_{args.records}.csv"
        started = time.perf_counter()
        planted = make_large(large, args.records, args.seed)
        print(f"generated {large.name}: {args.records} records, {len(planted)} planted duplicates "
              f"({time.perf_counter() - started:.1f} s)", file=sys.stderr)
        truth_file = Path(tmp) / "planted.json"
        truth_file.write_text(json.dumps(planted))
        for label, path, truth in (("SYNERGY 7,234", SYNERGY, None), (f"generated {args.records:,}", large, str(truth_file))):
            extra = [truth] if truth else []
            result, rss = run_child(NAIVE, [str(path)])
            if truth:
                result.update(run_child(NAIVE_FOUND, [str(path), truth])[0])
            table.append((label, "naive: read_csv + drop_duplicates(doi)", result, rss))
            for mode, name in (("ids", "workbench, ids only (fuzzy=False)"), ("fuzzy", "workbench read_sources")):
                result, rss = run_child(WORKBENCH, [str(path), mode, *extra])
                table.append((label, name, result, rss))
                print(f"  {label} / {name}: {result['seconds']:.1f} s", file=sys.stderr)
    n_planted = len(planted)
    print("| input | method | records | papers | merged | planted duplicates found | title comparisons "
          "| read+clean s | total s | peak RSS MB |")
    print("|" + "---|" * 10)
    for label, name, r, rss in table:
        merged = r["records"] - r.get("skipped", 0) - r["papers"]
        found = "" if r.get("found") is None else f"{r['found']:,} / {n_planted:,}"
        comparisons = f"{r['comparisons']:,}" if "comparisons" in r else ""
        read = f"{r['read_seconds']:.2f}" if "read_seconds" in r else ""
        print(f"| {label} | {name} | {r['records']:,} | {r['papers']:,} | {merged:,} | {found} | {comparisons} "
              f"| {read} | {r['seconds']:.2f} | {rss:.0f} |")
    print("\nTimes are inside the child process: imports included, interpreter start-up not. "
          "'read+clean' is read_file_report; 'total' adds deduplicate (what read_sources does).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
