"""Do a paper's venue, authors and year rank the screening queue better? (issue 46, third round)

    python benchmarks/screening_meta.py [--seeds 3] [--candidates NAME ...] [--reviews NAME ...]

A review's includes share venues and authors far more than its papers do (on the nine SYNERGY
reviews, papers in a venue of two or more includes are 1.4-13x as likely to be included as the
review's papers are), and many reviews include papers of a few years only. This measures
whether that helps the ranked queue: the metadata become tokens (``v_<venue>``, ``a_<author>``,
``y_<year>`` with ``y2_``/``y5_`` two- and five-year bins), their TF-IDF (tokens of two or more
papers) sits beside the texts' TF-IDF and the embeddings at a weight, in the block a
title-weighted model reads (``ModelSpec.title_weight``; the titles' own block is not used here).

Candidates, by name: ``m<parts><weight>-<features>``, parts from ``v`` (venue), ``a`` (authors),
``y`` (year), features ``both`` (``svm-both``'s embeddings and weights) or ``tfidf``; e.g.
``mva0.3-both``. Also ``svm-tfidf`` (ELAS u4's twin, the reference), ``svm-both`` (the default),
``hedge-3`` / ``hedge-mva`` (``svm-hedge``'s fusion, with ``mva0.3-both`` in place of
``svm-both`` in the second), ``exp3-3`` (``hedge-3``'s members, one drawn per refit as EXP3
draws: fusion ``exp3``), ``exp3-meta`` (the same with ``svm-both``, ``mvay0.3-both`` and
``mvay0.6-both``: members of one block, venue, authors and year, or none), each with EXP3's
rate gamma / K or ``-r<rate>`` (e.g. ``exp3-3-r0.3``), and ``tmix<a>-both``: ``svm-both`` on
each paper's MiniLM vector plus ``a`` times its title's own (normalised), the title's meaning weighted apart. Only the SYNERGY reviews carry metadata (the made tasks of
benchmarks/_tasks.py have none: there every candidate is its model without the block).

Each candidate replays every review from ASReview's prior include and exclude for seeds
1..--seeds until WSS@95 and recall@10 % are settled (benchmarks/screening_loo.py's replay). The
report: per review the paired difference to ``svm-tfidf`` (mean over seeds), the means and the
worst review; then the leave-one-review-out choice by screening_loo's J over the candidates
measured (each review's figures from the candidate best on the other eight). Runs are kept
under benchmarks/out/screening/meta/.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synergy import SYNERGY, embeddings, load_reviews
from screening import OUT
from screening_loo import GOAL_LOSS, replay

META = OUT / "meta"
REFERENCE = "svm-tfidf"
DEFAULT_CANDIDATES = ["svm-tfidf", "svm-both", "mvay0.3-both", "mvay0.6-both", "mvay0.15-both", "mv0.3-both",
                      "ma0.3-both", "my0.3-both", "mva0.2-both", "mva0.3-both", "mva0.5-both", "mva0.3-tfidf",
                      "hedge-3", "hedge-mva", "tmix0.5-both", "tmix1.0-both"]


def _token(text) -> str:
    return re.sub(r"[^0-9a-z]+", "_", str(text).lower()).strip("_")


def metadata_tokens(records, parts: str) -> list[str]:
    """One string of tokens per record (rows of the SYNERGY table: venue, authors "; "-joined,
    year), of the ``parts`` asked for."""
    out = []
    for venue, authors, year in zip(records["venue"], records["authors"], records["year"]):
        tokens = []
        if "v" in parts and isinstance(venue, str) and venue.strip():
            tokens.append("v_" + _token(venue))
        if "a" in parts and isinstance(authors, str):
            tokens += ["a_" + _token(a) for a in authors.split(";") if a.strip()]
        if "y" in parts and year == year:  # (not NaN)
            y = int(year)
            tokens += [f"y_{y}", f"y2_{y // 2}", f"y5_{y // 5}"]
        out.append(" ".join(tokens))
    return out


def metadata_block(tokens: list[str]):
    """TF-IDF of the tokens (sublinear, those of two or more papers; one empty column if none)."""
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import TfidfVectorizer

    try:
        vectorizer = TfidfVectorizer(token_pattern=r"\S+", lowercase=False, sublinear_tf=True, min_df=2)
        return vectorizer.fit_transform(tokens).tocsr().astype(np.float32)
    except ValueError:  # no token in two papers
        return sp.csr_matrix((len(tokens), 1), dtype=np.float32)


def candidate(name: str):
    """(ModelSpec, metadata parts or ``tmix``) for a candidate's name (see the module docstring)."""
    from dataclasses import replace

    from workbench.screening import MODELS, ModelSpec

    def both(label, **kw):  # svm-both as it is, renamed, with ``kw`` changed
        return replace(MODELS["svm-both"], name=label, **kw)

    if name in ("svm-tfidf", "svm-both"):
        return MODELS[name], ""
    if name in ("hedge-3", "hedge-mva"):
        second = MODELS["svm-both"] if name == "hedge-3" else both("mva0.3-both", title_weight=0.3)
        return ModelSpec(name, "fuse", "both", components=("svm-tfidf", second, "svm-emb"), fusion="hedge"), \
            ("" if name == "hedge-3" else "va")
    match = re.fullmatch(r"exp3-(3|meta)(?:-r([0-9.]+))?", name)
    if match:  # EXP3, gamma 0.1, rate gamma / K or as named
        rate = float(match.group(2) or 0.0)
        if match.group(1) == "3":  # hedge-3's members
            return ModelSpec(name, "fuse", "both", components=("svm-tfidf", "svm-both", "svm-emb"),
                             fusion="exp3", exp3_rate=rate), ""
        # members that read one metadata block (venue, authors, year) or none
        members = ("svm-both", both("mvay0.3-both", title_weight=0.3), both("mvay0.6-both", title_weight=0.6))
        return ModelSpec(name, "fuse", "both", components=members, fusion="exp3", exp3_rate=rate), "vay"
    if re.fullmatch(r"tmix[0-9.]+-both", name):
        return both(name), "tmix"
    match = re.fullmatch(r"m([vay]+)([0-9.]+)-(both|tfidf)", name)
    if not match:
        raise SystemExit(f"unknown candidate {name!r}: expected svm-tfidf, svm-both, hedge-3, hedge-mva, "
                         "exp3-<3|meta>[-r<rate>], tmix<a>-both or m<parts><weight>-<both|tfidf>, e.g. mva0.3-both")
    parts, weight, kind = match.group(1), float(match.group(2)), match.group(3)
    spec = both(name, title_weight=weight) if kind == "both" else ModelSpec(name, "svm", "tfidf", title_weight=weight)
    return spec, parts


def run(names, seeds, only) -> dict:
    """{(candidate, review): {seed: row}}, kept per candidate and review under META."""
    import pandas as pd

    from sklearn.preprocessing import normalize

    from workbench.screening import Features

    META.mkdir(parents=True, exist_ok=True)
    table = pd.read_csv(SYNERGY)
    out = {}
    for review, df in sorted(load_reviews().items(), key=lambda kv: len(kv[1])):
        if only and review not in only:
            continue
        records = table[table["dataset"] == review].reset_index(drop=True)  # the same rows, in file order
        texts, labels = list(df["text"]), df["label_included"].to_numpy()
        emb = embeddings(texts, "minilm")
        plain = Features.from_texts(texts, embeddings=emb)
        for name in names:
            spec, parts = candidate(name)
            path = META / f"{name}__{review}.json"
            old = json.loads(path.read_text()) if path.exists() else {}
            kept = {r["seed"]: r for r in old["runs"]} if old.get("version") == spec.version else {}
            if parts == "tmix":  # the text's vector plus a times the title's (a paper without one: its text)
                mix = float(name[4:].split("-")[0])
                titled = embeddings([t or x for t, x in zip(df["title"], texts)], "minilm")
                features = Features.from_texts(texts, embeddings=normalize(emb) + mix * normalize(titled))
            else:
                features = plain if not parts else Features(
                    tfidf=plain.tfidf, terms=plain.terms, embeddings=emb,
                    titles=metadata_block(metadata_tokens(records, parts)))
            for seed in seeds:
                if seed not in kept:
                    kept[seed] = replay(features, labels, seed, spec)
                    path.write_text(json.dumps({"version": spec.version, "runs": [kept[s] for s in sorted(kept)]}))
                    print(f"  {name} {review} seed {seed}: wss {kept[seed]['wss@95']:.3f} "
                          f"r10 {kept[seed]['recall@10%']:.3f}", file=sys.stderr, flush=True)
            out[name, review] = kept
    return out


def report(runs, names, seeds) -> str:
    reviews = list(dict.fromkeys(r for _, r in runs))  # as run: the smallest first
    diff = {(c, r): tuple(float(np.mean([runs[c, r][s][k] - runs[REFERENCE, r][s][k] for s in seeds]))
                          for k in ("wss@95", "recall@10%")) for c in names for r in reviews}

    def J(c, rs):  # screening_loo's score on one group of reviews
        dw = np.array([diff[c, r][0] for r in rs])
        dr = np.array([diff[c, r][1] for r in rs])
        return dw.mean() + dr.mean() - np.maximum(0.0, GOAL_LOSS - dw).mean()

    lines = [f"Paired WSS@95 / recall@10 % difference to `{REFERENCE}`, mean over seeds {seeds[0]}-{seeds[-1]}:", "",
             "| review | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for r in reviews:
        lines.append(f"| {r} | " + " | ".join(f"{diff[c, r][0]:+.3f} / {diff[c, r][1]:+.3f}" for c in names) + " |")
    lines.append("| **mean** | " + " | ".join(
        f"**{np.mean([diff[c, r][0] for r in reviews]):+.3f} / {np.mean([diff[c, r][1] for r in reviews]):+.3f}**"
        for c in names) + " |")
    lines.append("| worst review (WSS@95) | " + " | ".join(f"{min(diff[c, r][0] for r in reviews):+.3f}" for c in names) + " |")
    lines += ["", "Leave one review out (J on the other reviews, over the candidates above):", "",
              "| review | chosen without it | WSS@95 difference | recall@10 % difference |", "|---|---|---:|---:|"]
    held = []
    for h in reviews:
        best = max(names, key=lambda c: J(c, [r for r in reviews if r != h]))
        held.append(diff[best, h])
        lines.append(f"| {h} | {best} | {diff[best, h][0]:+.3f} | {diff[best, h][1]:+.3f} |")
    lines.append(f"| **mean** | | **{np.mean([w for w, _ in held]):+.3f}** | **{np.mean([r for _, r in held]):+.3f}** |")
    lines.append(f"| reviews below {GOAL_LOSS} | | {sum(w < GOAL_LOSS for w, _ in held)} | |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--candidates", nargs="+", default=DEFAULT_CANDIDATES)
    ap.add_argument("--reviews", nargs="+", default=None, help="SYNERGY reviews (default: all nine)")
    args = ap.parse_args()
    if not SYNERGY.exists():
        raise SystemExit(f"{SYNERGY} is not here: the SYNERGY reviews are what this measures (see ../shared/data)")
    names = list(dict.fromkeys([REFERENCE, *args.candidates]))
    seeds = list(range(1, args.seeds + 1))
    print(report(run(names, seeds, args.reviews), names, seeds))


if __name__ == "__main__":
    main()
