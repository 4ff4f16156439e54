"""Blind mode on every read (issue 43): as reviewer bob, no command and no public method of
Store, Session or Review (or of their parts) shows what alice did on a paper bob has not screened.

The review: 30 seed abstracts (fake embedder), blind mode on. On paper P alice decided include
with a secret reason (ranked by a model with a secret name), tagged it with a secret tag and
noted a secret note; bob has not screened P. On paper Q both screened (so each sees the other's
work there). Every command of ``workbench.cli.parser()`` runs as bob (``WORKBENCH_REVIEWER=bob``)
unless it is listed in ``CLI_NOT_READING`` with the reason; every public method of the three
classes and of their parts (``review.team``, ``session.map``, and each part of a Store:
``store.tags``, ``store.team``..., ``"Store.tags"`` below) is called as bob in a second Python
process unless listed as not reading annotations. A new command, method or part fails
:func:`test_every_command_is_checked`, :func:`test_every_public_method_is_checked` or
:func:`test_every_public_method_of_every_part_of_the_store_is_checked` until it is added to one of
the lists.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, seed_abstracts, write_seed_file

import workbench
from workbench.cli import main, parser
from workbench.review import Review, ReviewField, ReviewScreening, ReviewTeam, ReviewUpdates
from workbench.store import FORMATS, Shown, Store
from workbench.session import LivingWork, MapScreening, TeamWork, TopicWork
from workbench.widgets import Session

SECRETS = ("SECRETREASON-a1", "SECRETTAG-b2", "SECRETNOTE-c3", "SECRETMODEL-d4")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("blind-routes")
    abstracts = seed_abstracts()
    write_seed_file(folder / "a.txt", abstracts[:30])
    write_seed_file(folder / "new.txt", abstracts[30:36])
    workbench.build([folder / "a.txt"], review=folder / "review", embedder="fake", seed=1)
    return folder


def secret_review(built: Path, where: Path) -> tuple[Path, str, str]:
    """A fresh copy of the built review with alice's secrets on P and both reviewers' work on Q."""
    for name in ("a.txt", "new.txt"):
        shutil.copy(built / name, where / name)
    review = shutil.copytree(built / "review", where / "review")
    P, Q = workbench.open_review(review).ids[:2]
    with Store.open(review, reviewer="lead") as lead:
        lead.team.set_blind(True)
    with Store.open(review, reviewer="alice") as alice:
        alice.decisions.decide(P, "include", reason=SECRETS[0], shown=Shown(rank=7, score=0.9, model=SECRETS[3], model_version="1"))
        alice.tags.add(P, SECRETS[1])
        alice.notes.add(P, SECRETS[2])
        alice.decisions.decide(Q, "exclude", reason="off topic")
        alice.tags.add(Q, "alices-visible")
    with Store.open(review, reviewer="bob") as bob:
        bob.decisions.decide(Q, "include", reason="on topic")
        bob.tags.add(Q, "bobs")
    return review, P, Q


@pytest.fixture
def secret(built, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_REVIEWER", "bob")
    return secret_review(built, tmp_path)


def leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def written_text(folder: Path, since: float) -> str:
    """The text of every file under ``folder`` changed since ``since``, but the store itself and
    its snapshots (which hold everyone's work by design)."""
    out = []
    for path in sorted(folder.rglob("*")):
        if (not path.is_file() or path.stat().st_mtime < since or "annotations.sqlite" in path.name
                or "backups" in path.parts or path.suffix in (".png", ".safetensors", ".npy", ".pkl")):
            continue
        out.append(f"--- {path}\n" + path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


# ----------------------------------------------------------------------------- the command line

#: Commands that read no annotations, and why.
CLI_NOT_READING = {
    "read": "reads source files only; it opens no review",
    "simulate": "replays a labelled file; it opens no review",
    "notebooks": "executes the notebooks with papermill (minutes); they read through the Session and "
                 "Review methods checked in test_no_public_method_shows_what_blind_mode_hides",
}

_R = ("--review", "{review}")
#: Each command's runs as bob, in order ({review}, {P}, {Q}, {out}, {src} filled in).
CLI_RUNS: dict[str, list[list[str]]] = {
    "build": [["build", "{src}/a.txt", *_R, "--embedder", "fake", "--seed", "1"]],
    "papers": [["papers", *_R, "--format", "json"]],
    "topics": [["topics", *_R, "--format", "json"]],
    "update": [["update", "--new", "--unscreened", *_R, "--format", "json"], ["update", "{src}/new.txt", *_R],
               ["update", "--new", *_R, "--format", "json"]],
    "duplicates": [["duplicates", *_R, "--format", "json"]],
    "tag": [["tag", "{P}", "bobs-own", *_R], ["tag", "{Q}", "more", *_R]],
    "untag": [["untag", "{P}", "not-there", *_R], ["untag", "{Q}", "bobs", *_R]],
    "note": [["note", "{P}", "bob's own note", *_R]],
    "decide": [["decide", "{Q}", "maybe", *_R]],
    "rename-tag": [["rename-tag", "not-there", "x", *_R], ["rename-tag", "bobs", "bobs2", *_R]],
    "rename-topic": [["rename-topic", "0", "renamed by bob", *_R]],
    "rank": [["rank", "--next", "40", "--format", "json", *_R], ["rank", "--sample", *_R]],
    "stopping": [["stopping", "--format", "json", "--no-log", *_R], ["stopping", *_R]],
    "history": [["history", *_R], ["history", "--paper", "{P}", *_R], ["history", "--limit", "1000", *_R]],
    "undo": [["undo", "--everyone", *_R], ["undo", "2", "--everyone", *_R]],
    "export": [["export", "--format", f, *_R] for f in FORMATS] + [
        ["export", "--format", "csv", "-o", "{out}/bob.csv", *_R]],
    "backup": [["backup", *_R]],
    "restore": [["backup", *_R], ["restore", *_R]],
    "check": [["check", *_R]],
    "import-annotations": [["export", "--format", "jsonl", "-o", "{out}/bob.jsonl", *_R],
                           ["import-annotations", "{out}/bob.jsonl", *_R]],
    "title": [["title", *_R]],
    "agreement": [["agreement", *_R], ["agreement", "--format", "json", *_R]],
    "conflicts": [["conflicts", *_R], ["conflicts", "--format", "json", *_R]],
    "prisma": [["prisma", "--output", "{out}", *_R]],
    "criteria": [["criteria", *_R]],
    "reasons": [["reasons", *_R]],
    "blind": [["blind", *_R]],
    "reviewers-per-paper": [["reviewers-per-paper", *_R]],
    "sources": [["sources", *_R]],
    "links": [["links", *_R]],
    "trends": [["trends", *_R]],
    "who": [["who", *_R]],
    "methods": [["methods", *_R], ["methods", "--format", "text", "-o", "{out}/methods.txt", *_R]],
    "snowball": [["snowball", *_R, "--from", "all", "--format", "json"],
                 ["snowball", *_R, "--lookup", "openalex", "-o", "{out}/lookup.txt"]],
}


def commands() -> set[str]:
    """Every command ``workbench --help`` lists (argparse keeps them in its sub-parsers action)."""
    return {name for action in parser()._actions if isinstance(action, argparse._SubParsersAction)
            for name in action.choices}


def test_every_command_is_checked():
    assert not set(CLI_RUNS) & set(CLI_NOT_READING)
    missing = commands() - set(CLI_RUNS) - set(CLI_NOT_READING)
    assert not missing, f"commands neither checked nor listed as reading no annotations: {sorted(missing)}"
    assert not (set(CLI_RUNS) | set(CLI_NOT_READING)) - commands(), "a listed command no longer exists"


@pytest.mark.parametrize("command", sorted(CLI_RUNS))
def test_no_command_shows_what_blind_mode_hides(command, secret, tmp_path, capsys):
    review, P, Q = secret
    out = tmp_path / "out"
    out.mkdir()
    since = os.stat(review / "annotations.sqlite").st_mtime
    fill = {"review": str(review), "P": P, "Q": Q, "out": str(out), "src": str(tmp_path)}
    said = []
    for argv in CLI_RUNS[command]:
        code = main([a.format(**fill) for a in argv])
        got = capsys.readouterr()
        said.append(f"$ {' '.join(argv)} -> {code}\n{got.out}\n{got.err}")
        assert "this is a bug" not in got.err, got.err
    text = "\n".join(said) + written_text(out, 0) + written_text(review, since)
    assert not leaks(text), f"{command} shows what blind mode hides: {leaks(text)}\n{text[:3000]}"


# ----------------------------------------------------------------------------- the Python API

#: Public members that read no annotations (or only return what their write did), and why.
NOT_READING = {
    "Store": {
        "open": "opens the store", "close": "closes it", "transaction": "groups writes",
        "read_only": "why the store may not be written", "reviewer_given": "whether a name was given",
        "path": "the store's file", "reviewer": "the reviewer's own name",
        "sync_papers": "a build's papers", "review_id": "the review's random id",
    },
    "Store.tags": {"remove": "returns a bool (blind: only one's own)", "merge": "returns a count, like rename"},
    "Store.notes": {"add_each": "returns the new notes' ids"},
    "Store.decisions": {},
    "Store.team": {
        "set_blind": "a setting", "set_criteria": "a setting", "add_exclusion_reason": "the team's list",
        "remove_exclusion_reason": "the team's list", "set_final": "a final decision ends blindness",
        "clear_final": "returns a bool",
    },
    "Store.sources": {"record": "a build's sources", "set_provenance": "a source's provenance"},
    "Store.duplicates": {"settle": "a verdict on two papers"},
    "Store.topics": {
        "record": "a build's topics", "apply_edits": "topic edits (shared, not blind)",
        "rename": "topics are shared", "merge": "topics are shared", "move_paper": "topics are shared",
    },
    "Store.settings": {"set": "a setting"},
    "Store.stopping": {"log": "the reviewer's own claim"},
    "Store.files": {
        "set_generation": "the review's files", "backup": "returns the snapshot's path",
        "restore": "returns the snapshot restored",
    },
    "Review": {
        "store": "the Store, checked method by method", "apply_topic_edits": "topics only", "replace": "a new review of the same data",
        "refresh_topics": "topics only", "publish_map": "writes map.html of papers and topics",
        "embeddings": "an array", "embed_texts": "an array",
        "embedder": "the embedder", "word_vectors": "the embedder", "files": "a folder", "cache_path": "a path",
        "embeddings_loaded": "a bool", "is_current": "a bool", "texts": "paper text", "haystack": "paper text",
        "text": "paper text", "text_starts": "paper text", "texts_digest": "a digest of the papers file",
        "papers_with_texts": "paper text", "topic_stability": "topic refits, no annotations",
        "recluster": "topics of a selection, no annotations",
    },
    "ReviewScreening": {"ranker": "the model behind rank", "decide": "returns a count"},
    "ReviewTeam": {"resolve": "a final decision ends blindness"},
    "ReviewField": {"coauthor_figure": "a figure of authors", "field_figure": "a figure of venues",
                    "over_time_figure": "a figure of years"},
    "ReviewUpdates": {"settle_duplicates": "a verdict on two papers"},
    "Session": {
        "open": "opens it", "close": "closes it", "subscribe": "adds a listener",
        "save_selection": "writes ids", "send_to_queue": "writes ids",
        "decide": "returns a count", "tag": "returns a count",
        "untag": "returns a count", "toggle_tag": "returns a bool", "note": "returns ids",
        "publish_map": "writes map.html", "notify": "tells the listeners",
    },
    "TopicWork": {"rename": "topics are shared", "merge": "topics are shared", "move": "topics are shared",
                  "show_themes": "topics only", "save_themes": "topics only", "discard_themes": "topics only",
                  "stability": "topic refits, no annotations"},
    "MapScreening": {"decide_bulk": "returns a count", "colour_map": "fixed colours",
                     "relevance_legend": "a legend of a ranking given"},
    "TeamWork": {"set_reviewer": "changes the name", "resolve": "a final decision ends blindness"},
    "LivingWork": {"update": "a new search (checked as `workbench update`)", "settle_duplicates": "a verdict on two papers"},
}

#: (class, method, args, kwargs, bob may not even learn that P was annotated): run in this order.
CALLS = [
    ("Store.duplicates", "apart_pairs", [], {}, True), ("Store.team", "blind", None, {}, False),
    ("Store.files", "check", [], {}, True), ("Store.team", "criteria", [], {}, True),
    ("Store.topics", "current", [], {}, False), ("Store.decisions", "of", ["{P}"], {}, False),
    ("Store.decisions", "of", ["{P}", "alice"], {}, False), ("Store.decisions", "votes", ["{P}"], {"stage": None}, False),
    ("Store.duplicates", "verdicts", [], {}, True), ("Store.decisions", "every", [None], {}, True),
    ("Store.decisions", "every", [], {}, True), ("Store.team", "exclusion_reasons", [], {}, True),
    *[("Store.files", "export", [f], {}, False) for f in FORMATS],
    ("Store.files", "export", ["jsonl", "{root}/bob.jsonl"], {}, False),
    ("Store.team", "final", ["{P}"], {}, False), ("Store.team", "finals", [None], {}, True),
    ("Store.files", "generation", [], {}, True), ("Store", "history", [None], {}, True),
    ("Store", "history", [None, "{P}"], {}, True), ("Store.files", "integrity_check", [], {}, True),
    ("Store", "latest_change", [], {}, True), ("Store.duplicates", "merged_into", [], {}, True),
    ("Store.notes", "of", ["{P}"], {}, False), ("Store.notes", "by_reviewer", ["{P}"], {}, False),
    ("Store", "orphaned", [], {}, True), ("Store", "paper", ["{P}"], {}, False),
    *[("Store", "papers_changed", [i], {}, True) for i in range(1, 16)],
    ("Store.tags", "papers_with", [SECRETS[1]], {}, True), ("Store", "resolve", ["{P}"], {}, False),
    ("Store.team", "reviewers_per_paper", [], {}, True), ("Store.decisions", "records", [], {}, True),
    ("Store", "resolve_ids", [["{P}"]], {}, False), ("Store.duplicates", "votes_kept", [], {}, True), ("Store.duplicates", "votes_kept", [None], {}, True),
    ("Store.decisions", "records", ["alice"], {}, True), ("Store.decisions", "records", [], {"everyone": True}, True),
    ("Store.settings", "read", [], {}, True), ("Store.files", "snapshots", [], {}, True),
    ("Store.sources", "recorded", [False], {}, True), ("Store.stopping", "claims", [], {}, True),
    ("Store", "summary", [], {}, True), ("Store.tags", "of", ["{P}"], {}, False),
    ("Store.tags", "by_reviewer", ["{P}"], {}, False), ("Store.tags", "vocabulary", [], {}, True),
    ("Store.decisions", "votes", ["{P}"], {"stage": None}, False), ("Store.decisions", "votes", ["{P}"], {}, False),
    ("ReviewTeam", "agreement", [], {}, True), ("ReviewTeam", "agreement", ["full_text"], {}, True),
    ("Review", "annotation_columns", ["{store}"], {}, False), ("Review", "frame", ["{store}"], {}, False),
    ("ReviewTeam", "conflicts", [], {}, True), ("ReviewUpdates", "duplicate_candidates", [], {}, True),
    ("ReviewUpdates", "latest", [], {}, True), ("ReviewUpdates", "merged_away", [], {}, True),
    ("ReviewUpdates", "new_papers", [], {"unscreened": True}, True), ("ReviewUpdates", "new_since", [], {}, True),
    ("ReviewTeam", "prisma", ["{out}"], {}, True), ("ReviewScreening", "rank", [40], {}, False),
    ("ReviewScreening", "rank", [10], {"sample": True}, False), ("ReviewTeam", "status", [], {}, True),
    ("ReviewTeam", "status", ["full_text"], {}, True), ("ReviewScreening", "history", [], {}, True),
    ("ReviewScreening", "stopping", [], {}, True), ("ReviewTeam", "visible", ["{P}"], {}, False),
    ("ReviewTeam", "visible", ["{P}"], {"resolving": True}, False), ("ReviewTeam", "visible", ["{P}", "bob"], {}, False),
    ("workbench", "write_report", ["{review}", "{out}"], {"image": False}, False),
    ("workbench", "review_methods", ["{review}"], {}, True), ("ReviewField", "snowball", [], {}, True),
    ("ReviewField", "snowball", ["forward", "all"], {}, False),
    ("ReviewField", "citations", ["{P}"], {}, False), ("ReviewField", "coauthors", [], {}, False),
    ("ReviewField", "coupling", [["{P}", "{Q}"]], {}, False), ("ReviewField", "field_summary", [], {}, False),
    ("Review", "ids", None, {}, False), ("ReviewField", "ids_in_year", [None], {}, False),
    ("Review", "keyword_search", ["model"], {}, False), ("ReviewField", "links", [], {}, False),
    ("ReviewField", "links_around", [["{P}"]], {}, False), ("ReviewField", "links_frame", [], {}, False),
    ("ReviewField", "most_cited", [], {}, False), ("Review", "neighbours", ["{P}"], {}, False),
    ("ReviewField", "over_time", [], {}, False), ("Review", "paper", ["{P}"], {}, False),
    ("Review", "papers_frame", [], {}, False), ("Review", "representatives", [], {}, False),
    ("Review", "row", ["{P}"], {}, False), ("Review", "rows", [["{P}"]], {}, False),
    ("Review", "search", ["model"], {}, False), ("Review", "semantic_search", ["model"], {}, False),
    ("Review", "similarity", [["{P}", "{Q}"]], {}, False), ("Review", "topic_labels", [], {}, False),
    ("Review", "topic_of", ["{P}"], {}, False), ("Review", "topics_frame", [1], {}, False),
    ("Session", "annotation_columns", [], {}, False), ("MapScreening", "colour_keys", ["decision"], {}, False),
    ("TeamWork", "conflicts", [], {}, True), ("MapScreening", "decided_in_bulk", [], {}, True), ("TeamWork", "finals", [], {}, True), ("Session", "frame", [], {}, False),
    ("TeamWork", "full_text_candidates", [], {}, True), ("Session", "ids", None, {}, False),
    ("Session", "ids_at", [[0, 1]], {}, False), ("Session", "load_queue", [], {}, True), ("Session", "load_selection", [], {}, True),
    ("MapScreening", "my_decisions", [], {}, True), ("TeamWork", "needs_name", [], {}, True),
    ("LivingWork", "new_dates", [], {}, True),
    ("TeamWork", "own_decisions", [], {}, True), ("Session", "paper", ["{P}"], {}, False),
    ("MapScreening", "plan_bulk", [["{P}", "{Q}"], "include"], {}, False), ("Session", "queue_sent_at", [], {}, True),
    ("Session", "rank", [], {}, False), ("LivingWork", "read_before", [["{src}/a.txt"]], {}, True),
    ("MapScreening", "relevance_ranking", [], {}, False), ("Session", "reload", [], {}, True),
    ("Session", "changed_elsewhere", [], {}, True), ("Session", "follow", [], {}, True),
    ("Session", "reopen", [], {}, True),
    ("Session", "resolve", ["{P}"], {}, False), ("Session", "reviewer", None, {}, True),
    ("Session", "rows_of", [["{P}"]], {}, False), ("Session", "selected", [["{P}", "{Q}"]], {}, False),
    ("TeamWork", "require_name", [], {}, True),
    ("Session", "stopping", [], {"log": False}, True), ("TeamWork", "active", [], {}, True),
    ("Session", "topic_colours", [], {}, False), ("Session", "topic_columns", [], {}, False),
    ("Session", "topic_label", [0], {}, False), ("MapScreening", "undecided_of", [["{P}", "{Q}"]], {}, False),
    ("TeamWork", "visible", ["{P}"], {}, False), ("TeamWork", "visible", ["{P}"], {"resolving": True}, False),
    # writes that answer with what they did: last, in this order
    ("Store.tags", "add", ["{Q}", "bobs-new"], {}, True), ("Store.notes", "add", ["{Q}", "bob's note"], {}, True),
    ("Store.tags", "describe", ["bobs-new", "what bob means"], {}, True),
    ("Store.tags", "rename", ["bobs-new", "bobs-newer"], {}, True), ("Store.tags", "delete", ["not-there"], {}, True),
    ("Store.notes", "edit", [1, "bob edits alice's note"], {}, True), ("Store.notes", "delete", [1], {}, True),
    ("Store.decisions", "decide", ["{Q}", "maybe"], {}, True), ("Store", "undo", [3], {"everyone": True}, True),
    ("Store.files", "import_annotations", ["{root}/bob.jsonl"], {}, True),
    ("ReviewTeam", "import_annotations", ["{root}/bob.jsonl"], {}, True), ("Session", "undo", [], {}, True),
]

RUNNER = r"""
import json, sys, traceback
from pathlib import Path
import workbench
from workbench.store import Store
from workbench.widgets import Session

review_dir, P, Q, out, src, calls = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4]), sys.argv[5], sys.argv[6]
review = workbench.open_review(review_dir)
store = Store.open(review_dir)  # as $WORKBENCH_REVIEWER: bob
session = Session.open(review)
assert store.reviewer == session.reviewer == "bob"
targets = {"Store": store, "Review": review, "ReviewScreening": review.screening, "ReviewTeam": review.team,
           "ReviewField": review.field, "ReviewUpdates": review.updates, "Session": session,
           "TopicWork": session.topics, "MapScreening": session.map, "TeamWork": session.team,
           "LivingWork": session.living, "workbench": workbench}


def fill(value, i):
    if isinstance(value, list):
        return [fill(v, i) for v in value]
    if value == "{store}":
        return store
    if value == "{review}":
        return review
    if isinstance(value, str):
        return value.format(P=P, Q=Q, out=out / str(i), root=out, src=src)
    return value


def shown(obj):
    parts = [repr(obj), str(obj)]
    for name in ("frame", "to_dict", "lines", "markdown", "counts", "conflicts", "awaiting", "agreed"):
        method = getattr(obj, name, None)
        if callable(method):
            try:
                parts.append(str(method()))
            except Exception as err:
                parts.append(f"{name}: {err!r}")
    if hasattr(obj, "to_csv"):
        parts.append(obj.to_csv())
    return "\n".join(parts)


for i, (cls, name, args, kwargs, _) in enumerate(json.loads(Path(calls).read_text())):
    (out / str(i)).mkdir(parents=True, exist_ok=True)
    owner, *part = cls.split(".")  # "Store.tags": the store's part store.tags
    target = targets[owner] if not part else getattr(targets[owner], part[0])
    try:
        value = getattr(target, name) if args is None else getattr(target, name)(*fill(args, i), **fill(kwargs, i))
        text = shown(value)
    except Exception as err:
        text = f"raised {type(err).__name__}: {err}"
    print(json.dumps({"i": i, "call": f"{cls}.{name}({args}, {kwargs})", "text": text}), flush=True)
"""


def public(cls) -> set[str]:
    return {n for n, _ in inspect.getmembers(cls) if not n.startswith("_")}


def store_attributes(tmp_path) -> tuple[set[str], dict[str, type]]:
    """A store's public attributes set when it opens: plain values (its path, its reviewer...) and
    its parts (``store.tags``...: an object of a class of the workbench, with methods of its own)."""
    with Store.open(tmp_path, reviewer="x") as store:
        attributes = {n: v for n, v in vars(store).items() if not n.startswith("_")}
    parts = {n: type(v) for n, v in attributes.items() if type(v).__module__.startswith("workbench.")}
    return set(attributes) - set(parts), parts


def check_listed(key: str, members: set[str]) -> None:
    called = {name for c, name, *_ in CALLS if c == key}
    skipped = set(NOT_READING[key])
    assert not called & skipped, f"both called and listed as not reading: {called & skipped}"
    missing = members - called - skipped
    assert not missing, f"{key} members neither called as bob nor listed as not reading: {sorted(missing)}"
    assert not (called | skipped) - members, f"a listed member of {key} no longer exists"


CLASSES = [Store, Review, ReviewScreening, ReviewTeam, ReviewField, ReviewUpdates,
           Session, TopicWork, MapScreening, TeamWork, LivingWork]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_public_method_is_checked(cls, tmp_path):
    members = public(cls)
    if cls is Store:  # with what an open store holds: values, and its parts (checked below)
        values, parts = store_attributes(tmp_path)
        members |= values
        assert not members & set(parts), "a part shadows a member of Store"
    check_listed(cls.__name__, members)


def test_every_public_method_of_every_part_of_the_store_is_checked(tmp_path):
    """Each part of a Store (``store.tags``, ``store.team``...) is checked member by member, as
    ``"Store.<part>"``; a new part fails here until its members are called or listed."""
    _, parts = store_attributes(tmp_path)
    assert len(parts) >= 10, parts
    listed = {key.split(".", 1)[1] for key in NOT_READING if key.startswith("Store.")}
    assert listed == set(parts), f"parts of Store not checked: {sorted(set(parts) - listed)}; " \
                                 f"listed but gone: {sorted(listed - set(parts))}"
    for name, cls in parts.items():
        check_listed(f"Store.{name}", public(cls))
    assert {c for c, *_ in CALLS} <= {c.__name__ for c in CLASSES} | {"workbench"} | {f"Store.{n}" for n in parts}


def test_no_public_method_shows_what_blind_mode_hides(built, tmp_path):
    """Every public read of Store, Review and Session as bob, in a second Python process."""
    review, P, Q = secret_review(built, tmp_path)
    out = tmp_path / "out"
    (tmp_path / "calls.json").write_text(json.dumps(CALLS), encoding="utf-8")
    env = {**os.environ, "WORKBENCH_REVIEWER": "bob", "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", RUNNER, str(review), P, Q, str(out), str(tmp_path),
                          str(tmp_path / "calls.json")], capture_output=True, text=True, env=env, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(answers) == len(CALLS), run.stderr[-3000:]
    problems = []
    for answer, (_, _, _, _, not_even_p) in zip(answers, CALLS):
        text = answer["text"] + written_text(out / str(answer["i"]), 0)
        if "this is a bug" in text or "Traceback" in text:
            problems.append(f"{answer['call']} failed: {text[:500]}")
        if leaks(text) or (not_even_p and P in text):
            problems.append(f"{answer['call']} shows {leaks(text) or ['that P was annotated']}: {text[:800]}")
    assert not problems, "\n\n".join(problems)


# ----------------------------------------------------------------------------- as the issue tried it

def cli(*args: str, reviewer: str | None = "bob") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_REVIEWER"}
    env["PYTHONPATH"] = str(ROOT)
    who = ["--reviewer", reviewer] if reviewer else []
    return subprocess.run([sys.executable, "-m", "workbench.cli", *args, *who], capture_output=True, text=True,
                          env=env, timeout=300)


def test_exports_and_history_of_another_process_hide_alices_work_until_asked_for_all(built, tmp_path):
    review, P, Q = secret_review(built, tmp_path)
    for fmt in FORMATS:
        run = cli("export", "--format", fmt, "--review", str(review))
        assert run.returncode == 0 and not leaks(run.stdout + run.stderr), (fmt, run.stdout[-2000:])
        assert "blind mode is on" in run.stderr and "--all-reviewers" in run.stderr
    for args in ([], ["--paper", P]):
        run = cli("history", "--review", str(review), *args)
        assert run.returncode == 0 and not leaks(run.stdout) and P not in run.stdout, run.stdout
    assert f"alice  decide {Q} exclude" in cli("history", "--review", str(review)).stdout, "Q: both screened it"
    csv = cli("export", "--format", "csv", "--review", str(review))
    assert "alice: exclude (off topic); bob: include (on topic)" in csv.stdout, "Q: both screened it"
    everything = cli("export", "--format", "csv", "--all-reviewers", "--review", str(review))
    assert everything.returncode == 0 and f"alice: include ({SECRETS[0]})" in everything.stdout
    assert "exporting every reviewer's work, blind mode is on" in everything.stderr
    assert "recorded in the review's history" in everything.stderr
    seen_by_alice = cli("history", "--review", str(review), reviewer="alice").stdout
    assert "bob  read every reviewer's work (a csv export) while blind mode is on" in seen_by_alice
    history = cli("history", "--all-reviewers", "--paper", P, "--review", str(review))
    assert SECRETS[0] in history.stdout and "listing every reviewer's work" in history.stderr
    unnamed = cli("export", "--format", "jsonl", "--all-reviewers", "--review", str(review), reviewer=None)
    assert unnamed.returncode == 1 and "you must give your own name" in unnamed.stderr and not leaks(unnamed.stdout)


def test_the_report_and_its_annotation_files_hold_only_what_bob_may_see(built, tmp_path):
    review, P, Q = secret_review(built, tmp_path)
    with Session.open(review, reviewer="bob") as bob:
        written = workbench.write_report(bob.review, tmp_path / "report", image=False, reviewer=bob.reviewer)
    names = {p.name for p in written.values()}
    assert {"report.md", "annotations.csv", "annotations.jsonl", "annotations.bib", "annotations.ris"} <= names
    for path in written.values():
        assert not leaks(path.read_text(encoding="utf-8")), path
    assert "bobs" in (tmp_path / "report" / "annotations.csv").read_text(encoding="utf-8")
    with Store.open(review, reviewer="alice") as alice:  # alice's own export keeps all of hers
        assert all(s in alice.files.export("jsonl") for s in SECRETS)


def test_blindness_ends_as_the_rule_says(built, tmp_path):
    """Bob sees alice's work on P once he screened it too, or once P has a final decision; the
    vocabulary lists her tag then, with the papers bob may see it on."""
    review, P, Q = secret_review(built, tmp_path)
    with Store.open(review, reviewer="bob") as bob:
        assert [t.name for t in bob.tags.vocabulary()] == ["alices-visible", "bobs"]
        bob.decisions.decide(P, "exclude", reason="not for me")
        assert bob.tags.of(P) == [SECRETS[1]] and [n.text for n in bob.notes.of(P)] == [SECRETS[2]]
        assert {t.name: t.count for t in bob.tags.vocabulary()}[SECRETS[1]] == 1
        assert any(SECRETS[0] in e.summary for e in bob.history(None))
        bob.undo()
        assert bob.tags.of(P) == [] and not any(leaks(e.summary) for e in bob.history(None))
    with Store.open(review, reviewer="carol") as carol:
        carol.team.set_final(P, "include", reason="agreed")
    with Store.open(review, reviewer="bob") as bob:
        assert bob.tags.of(P) == [SECRETS[1]] and bob.decisions.of(P, "alice").reason == SECRETS[0]
        assert SECRETS[0] in bob.files.export("csv")


def test_what_two_others_agreed_on_stays_hidden_yet_goes_on_to_full_text(built, tmp_path, monkeypatch):
    review, P, Q = secret_review(built, tmp_path)
    with Store.open(review, reviewer="carol") as carol:
        carol.decisions.decide(P, "include")  # alice and carol agree: settled without bob
    monkeypatch.setenv("WORKBENCH_REVIEWER", "bob")
    opened = workbench.open_review(review)
    assert P not in opened.team.status().papers and Q in opened.team.status().papers
    assert opened.team.status(all_reviewers=True).papers[P].decision == "include"
    assert opened.team.status().counts() == opened.team.status(all_reviewers=True).counts()  # the team's figures
    with Session.open(opened, reviewer="bob") as bob:
        assert P in bob.team.full_text_candidates()
        bob.decide(P, "include", stage="full_text")
        assert bob.team.visible(P).tags == {} and not leaks(repr(bob.team.visible(P, stage="full_text")))
