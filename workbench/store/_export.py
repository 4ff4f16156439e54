"""Deterministic exports: JSONL, CSV, BibTeX, RIS and Markdown.

Every format is written from one :func:`snapshot` of the store, sorted throughout, so the same
store always gives the same bytes and an export diffs cleanly in git. JSONL is the lossless
format (one annotation per line) that :mod:`._import` reads back; the others are for people and
reference managers: BibTeX ``keywords``/``annote`` and RIS ``KW``/``N1`` become Zotero tags
and notes.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections import defaultdict

from ._errors import AnnotationInputError
from ._papers import paper_rows
from ._topics import OUTLIER, _edits, _root, current_topics, latest_run, topic_names

__all__ = ["FORMATS", "JSONL_FORMAT", "JSONL_VERSION", "render", "snapshot"]

FORMATS = ("jsonl", "csv", "bibtex", "ris", "markdown")
JSONL_FORMAT = "workbench-annotations"
JSONL_VERSION = 1


def snapshot(conn: sqlite3.Connection) -> dict:
    """Everything an export needs, read in one transaction so it is consistent."""
    outer = conn.in_transaction  # inside a Store.transaction(): already consistent
    if not outer:
        conn.execute("BEGIN")
    try:
        papers = paper_rows(conn)
        assign, labels = current_topics(conn)
        topics = _topic_rows(conn, labels)
        tags, notes, decisions = defaultdict(list), defaultdict(list), defaultdict(list)
        for pid, tag, who, at in conn.execute(
                "SELECT paper_id, tag, reviewer, created_at FROM paper_tags ORDER BY paper_id, tag"):
            tags[pid].append({"tag": tag, "reviewer": who, "at": at})
        for row in conn.execute(
                "SELECT paper_id, uid, text, reviewer, created_at, updated_at FROM notes "
                "ORDER BY paper_id, created_at, uid"):
            notes[row[0]].append(dict(zip(
                ("paper", "uid", "text", "reviewer", "created_at", "updated_at"), row)))
        for row in conn.execute(
                "SELECT paper_id, reviewer, decision, reason, decided_at FROM decisions "
                "ORDER BY paper_id, reviewer"):
            decisions[row[0]].append(dict(zip(
                ("paper", "reviewer", "decision", "reason", "at"), row)))
        vocab = [dict(zip(("name", "description", "colour", "created_by", "created_at"), r))
                 for r in conn.execute("SELECT name, description, colour, created_by, created_at "
                                       "FROM tag_vocab ORDER BY name")]
    finally:
        if conn.in_transaction and not outer:
            conn.execute("COMMIT")
    return {"papers": papers, "assign": assign, "topics": topics, "tags": tags,
            "notes": notes, "decisions": decisions, "vocab": vocab}


def _topic_rows(conn: sqlite3.Connection, labels: dict[int, str]) -> dict[int, dict]:
    latest = latest_run(conn, required=False)
    if latest is None:
        return {}
    run, topic_tid, _ = latest
    names = topic_names(conn)
    parents, _, _ = _edits(conn)
    tid_topic = {tid: t for t, tid in topic_tid.items()}
    out = {}
    for t, label, words in conn.execute(
            "SELECT topic, label, words FROM run_topics WHERE run = ? ORDER BY topic", (run,)):
        tid = topic_tid[t]
        if _root(tid, parents, tid_topic) != tid:
            continue  # merged into another topic
        out[t] = {"topic": t, "label": label, "name": names.get(tid),
                  "words": json.loads(words)}
    return out


def _display(topic: dict | None) -> str:
    if topic is None:
        return ""
    return topic["name"] or topic["label"] or ("outliers" if topic["topic"] == OUTLIER else "")


def _line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n"


# ----------------------------------------------------------------------------- formats

def to_jsonl(snap: dict) -> str:
    out = [_line({"type": "header", "format": JSONL_FORMAT, "version": JSONL_VERSION})]
    for t in sorted(snap["topics"]):
        out.append(_line({"type": "topic", **snap["topics"][t]}))
    for tag in snap["vocab"]:
        out.append(_line({"type": "tag", **tag}))
    for paper in snap["papers"]:
        pid = paper["id"]
        meta = {k: v for k, v in paper.items() if k != "in_corpus"}
        out.append(_line({"type": "paper", **meta, "topic": snap["assign"].get(pid)}))
        for tag in snap["tags"].get(pid, ()):
            out.append(_line({"type": "tagged", "paper": pid, **tag}))
        for note in snap["notes"].get(pid, ()):
            out.append(_line({"type": "note", **note}))
        for dec in snap["decisions"].get(pid, ()):
            out.append(_line({"type": "decision", **dec}))
    return "".join(out)


def _decision_text(decs: list[dict]) -> tuple[str, str]:
    if not decs:
        return "", ""
    values = {d["decision"] for d in decs}
    summary = values.pop() if len(values) == 1 else "disagree"
    detail = "; ".join(
        f"{d['reviewer']}: {d['decision']}" + (f" ({d['reason']})" if d["reason"] else "")
        for d in decs)
    return summary, detail


def _note_texts(notes: list[dict]) -> list[str]:
    return [f"[{n['reviewer']} {n['created_at'][:10]}] {n['text']}" for n in notes]


def to_csv(snap: dict) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["id", "title", "authors", "year", "venue", "doi", "url", "topic",
                     "topic_label", "tags", "decision", "decisions", "notes"])
    for p in snap["papers"]:
        pid = p["id"]
        topic = snap["assign"].get(pid)
        decision, detail = _decision_text(snap["decisions"].get(pid, []))
        writer.writerow([
            pid, p["title"], "; ".join(p["authors"]), "" if p["year"] is None else p["year"],
            p["venue"] or "", p["doi"] or "", p["url"] or "", "" if topic is None else topic,
            _display(snap["topics"].get(topic)),
            "; ".join(t["tag"] for t in snap["tags"].get(pid, [])),
            decision, detail, "\n\n".join(_note_texts(snap["notes"].get(pid, []))),
        ])
    return buf.getvalue()


def _balanced(text: str) -> str:
    """Drop braces BibTeX would read as unbalanced; keep balanced groups as they are."""
    if "{" not in text and "}" not in text:
        return text
    depth, out = 0, []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                continue
            depth -= 1
        out.append(ch)
    text = "".join(out)
    while depth:  # unmatched opening braces: remove the last ones
        i = text.rfind("{")
        text = text[:i] + text[i + 1:]
        depth -= 1
    return text


def _annote(snap: dict, pid: str) -> list[str]:
    lines = _note_texts(snap["notes"].get(pid, []))
    _, detail = _decision_text(snap["decisions"].get(pid, []))
    if detail:
        lines.append(f"Screening: {detail}")
    return lines


def to_bibtex(snap: dict) -> str:
    import bibtexparser
    import bibtexparser.middlewares
    from bibtexparser.model import Entry, Field

    library = bibtexparser.Library()
    for p in snap["papers"]:
        pid = p["id"]
        tags = [t["tag"] for t in snap["tags"].get(pid, [])]
        fields = [
            ("title", p["title"]),
            ("author", " and ".join(p["authors"])),
            ("year", "" if p["year"] is None else str(p["year"])),
            ("journal", p["venue"] or ""),
            ("doi", p["doi"] or ""),
            ("url", p["url"] or ""),
            ("abstract", p["abstract"]),
            ("keywords", ", ".join(tags)),
            ("annote", "\n\n".join(_annote(snap, pid))),
        ]
        entry_type = "article" if p["venue"] else "misc"
        library.add(Entry(entry_type, pid,
                          [Field(k, _balanced(v)) for k, v in fields if v]))
    # The library is thrown away after writing, so the unparse middlewares may work in place
    # (the default deep-copies every entry, which is slow and warns on large libraries).
    stack = bibtexparser.middlewares.default_unparse_stack(allow_inplace_modification=True)
    return bibtexparser.write_string(library, unparse_stack=stack)


def to_ris(snap: dict) -> str:
    import rispy
    from rispy.writer import RisWriter

    class _Writer(RisWriter):
        def set_header(self, count):  # no "1." counter line: plain RIS
            return ""

    refs = []
    for p in snap["papers"]:
        pid = p["id"]
        ref = {"type_of_reference": "JOUR" if p["venue"] else "GEN", "id": pid,
               "title": p["title"]}
        if p["authors"]:
            ref["authors"] = list(p["authors"])
        if p["year"] is not None:
            ref["year"] = str(p["year"])
        for key, value in (("journal_name", p["venue"]), ("doi", p["doi"]),
                           ("abstract", p["abstract"])):
            if value:
                ref[key] = " ".join(value.split())  # RIS values are one line each
        if p["url"]:
            ref["urls"] = [p["url"]]
        tags = [t["tag"] for t in snap["tags"].get(pid, [])]
        if tags:
            ref["keywords"] = tags
        notes = [" ".join(n.split()) for n in _annote(snap, pid)]
        if notes:
            ref["notes"] = notes
        refs.append(ref)
    return rispy.dumps(refs, implementation=_Writer) if refs else ""


def _md(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _papers(n: int) -> str:
    return f"{n} paper" if n == 1 else f"{n} papers"


def to_markdown(snap: dict) -> str:
    groups: dict = defaultdict(list)
    for p in snap["papers"]:
        groups[snap["assign"].get(p["id"])].append(p)
    order = sorted(t for t in groups if t is not None and t != OUTLIER)
    order += [t for t in (OUTLIER, None) if t in groups]
    out = ["# Annotations", ""]
    for t in order:
        topic = snap["topics"].get(t)
        if t is None:
            out.append(f"## No topic ({_papers(len(groups[t]))})")
        else:
            title = _display(topic) or f"topic {t}"
            out.append(f"## Topic {t}: {_md(title)} ({_papers(len(groups[t]))})")
            if topic and topic["words"]:
                out.append(f"*{_md(', '.join(topic['words']))}*")
        out.append("")
        for p in groups[t]:
            pid = p["id"]
            year = f" ({p['year']})" if p["year"] is not None else ""
            out.append(f"### {_md(p['title'] or '(untitled)')}{year}")
            out.append("")
            who = "; ".join(p["authors"][:3]) + (" et al." if len(p["authors"]) > 3 else "")
            out.append(f"`{pid}`" + (f" · {_md(who)}" if who else "")
                       + (f" · {_md(p['venue'])}" if p["venue"] else ""))
            tags = [t_["tag"] for t_ in snap["tags"].get(pid, [])]
            if tags:
                out.append("")
                out.append("Tags: " + ", ".join(f"`{tag}`" for tag in tags))
            _, detail = _decision_text(snap["decisions"].get(pid, []))
            if detail:
                out.append("")
                out.append(f"Decision: {_md(detail)}")
            for note in _note_texts(snap["notes"].get(pid, [])):
                out.append("")
                out.extend("> " + line if line else ">" for line in note.splitlines())
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


_WRITERS = {"jsonl": to_jsonl, "csv": to_csv, "bibtex": to_bibtex, "ris": to_ris,
            "markdown": to_markdown}


def render(conn: sqlite3.Connection, fmt: str) -> str:
    """The store as text in ``fmt`` (one of :data:`FORMATS`)."""
    key = str(fmt).lower().lstrip(".")
    key = {"bib": "bibtex", "md": "markdown", "json": "jsonl"}.get(key, key)
    if key not in _WRITERS:
        raise AnnotationInputError(
            f"export format {fmt!r} is not supported; expected one of {', '.join(FORMATS)}")
    return _WRITERS[key](snapshot(conn))
