"""The README's PRISMA 2020 diagram: the seeds review after a scripted two-reviewer screening.

Builds the seeds review (fake embedder) in a temporary folder, with each seed file's search
provenance, turns on blind mode, and screens it through the notebooks' state classes
(:class:`workbench.widgets.Session`, :class:`~workbench.widgets.ScreeningQueue`) as two
reviewers, Ana and Ben, who disagree on about one paper in eight; a third, Cleo, resolves most
conflicts from the conflicts queue; the papers included at title/abstract then go through full
text (include, exclude with a reason, not retrieved). Prints the agreement and the counts.

    WORKBENCH_DOC_IMAGES=1 python tools/make_prisma_image.py   # writes docs/images/prisma_seeds.png

With ``--update`` the review is built from the larger seed file only, screened as above, then
updated with the other (a new search, its provenance given, five records of the first file
added again as duplicates; ``Review.update``), whose new papers are screened the same way: PRISMA 2020's diagram for an updated review (``prisma_update.png``).
Without ``WORKBENCH_DOC_IMAGES=1`` the diagram goes to test-output/ only.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import workbench  # noqa: E402
from workbench.widgets import ScreeningQueue, Session  # noqa: E402

PROVENANCE = {
    "000_190025daee690182.txt": {"database": "arXiv", "query": "reward model AND safety", "searched_on": "2024-06-01"},
    "003_b7a42b67bb98ef1d.txt": {"database": "Semantic Scholar", "query": "RLHF alignment",
                                 "searched_on": "2024-06-02"},
}
REASONS = ("wrong topic", "not a study", "wrong population")


def votes(ids: list[str], rng: random.Random) -> tuple[dict, dict, dict]:
    """Ana's and Ben's title/abstract decisions (about a quarter included, one in eight
    differing), and each paper's reason for an exclusion (both give the same one)."""
    ana, ben, reasons = {}, {}, {}
    for pid in ids:
        ana[pid] = rng.choices(("include", "exclude", "maybe"), (0.25, 0.7, 0.05))[0]
        ben[pid] = ana[pid] if rng.random() > 0.125 else rng.choice(("include", "exclude", "maybe"))
        reasons[pid] = rng.choice(REASONS)
    return ana, ben, reasons


def screen_title_abstract(review, rng: random.Random) -> None:
    ana_s, ben_s = Session.open(review, reviewer="Ana"), Session.open(review, reviewer="Ben")
    ana, ben, reasons = votes(ana_s.ids, rng)
    for session, decided in ((ana_s, ana), (ben_s, ben)):
        queue = ScreeningQueue(session, order="relevance")  # one paper at a time, ranked, as in 02
        while queue.current_id is not None and queue.current_id not in session.own_decisions():
            pid = queue.current_id
            queue.decide(decided[pid], reasons[pid] if decided[pid] == "exclude" else None)
    cleo = Session.open(review, reviewer="Cleo")
    conflicts = ScreeningQueue(cleo, show="conflicts")
    for _ in range(len(conflicts.ids) * 3 // 4):  # a quarter left for the team meeting
        queue_votes = {v.decision for v in conflicts.card().votes}
        final = "include" if "include" in queue_votes and rng.random() < 0.5 else "exclude"
        conflicts.resolve(final, None if final == "include" else rng.choice(REASONS))
    for s in (ana_s, ben_s, cleo):
        s.close()


def screen_full_text(review, rng: random.Random) -> None:
    ana_s, ben_s = Session.open(review, reviewer="Ana"), Session.open(review, reviewer="Ben")
    queue = ScreeningQueue(ana_s, stage="full_text")
    for pid in list(queue.ids):
        draw = rng.random()
        decision, reason = ("not retrieved", None) if draw < 0.08 else \
            ("exclude", rng.choice(REASONS)) if draw < 0.4 else ("include", None)
        for s in (ana_s, ben_s):
            s.decide(pid, decision, reason, stage="full_text")
    for s in (ana_s, ben_s):
        s.close()


def main(update: bool = False) -> Path:
    rng = random.Random(17)
    second, first = sorted(PROVENANCE)  # the larger file first, the smaller one as the update
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "review"
        sources = [ROOT / "seeds" / first] if update else [ROOT / "seeds"]
        provenance = {first: PROVENANCE[first]} if update else PROVENANCE
        workbench.build(sources, review=folder, embedder="fake", seed=42, provenance=provenance)
        review = workbench.open_review(folder)
        with review.store("lead") as store:
            store.team.set_blind(True)
            for reason in REASONS:
                store.team.add_exclusion_reason(reason)
        screen_title_abstract(review, rng)
        screen_full_text(review, rng)
        if update:  # a new search (the other file, and five records of the first again): new papers screened
            search = Path(tmp) / second
            again = [p.abstract for p in workbench.read_sources([ROOT / "seeds" / first])[0][:5]]
            search.write_text((ROOT / "seeds" / second).read_text(encoding="utf-8").rstrip() + "\n\n"
                              + "\n\n".join(again) + "\n", encoding="utf-8")
            review = review.update([search], {second: PROVENANCE[second]}, today="2024-06-15")
            print("\n".join(review.update_report.lines()))
            screen_title_abstract(review, rng)
            screen_full_text(review, rng)
        print("\n".join(review.agreement().lines()))
        counts = review.prisma(folder / "report")
        print(counts.markdown())
        name = "prisma_update.png" if update else "prisma_seeds.png"
        out = ROOT / "test-output" / name
        out.parent.mkdir(exist_ok=True)
        shutil.copy(folder / "report" / "prisma.png", out)
        if os.environ.get("WORKBENCH_DOC_IMAGES") == "1":  # a palette PNG, to stay small
            from PIL import Image

            doc = ROOT / "docs" / "images" / name
            Image.open(out).convert("RGB").quantize(64, method=Image.Quantize.FASTOCTREE).save(doc, optimize=True)
            out = doc
    print(f"wrote {out}")
    return out


if __name__ == "__main__":
    main(update="--update" in sys.argv[1:])
