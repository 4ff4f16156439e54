"""Deterministic exports: JSONL, CSV, BibTeX, RIS and Markdown.

Every format is written from one :func:`snapshot` of the store, sorted throughout, so the same
store always gives the same bytes and an export diffs cleanly in git. JSONL is the lossless
format (one annotation per line) that :mod:`._import` reads back; the others are for people and
reference managers: BibTeX ``keywords``/``annote`` and RIS ``KW``/``N1`` become Zotero tags
and notes. How each value is written so the file's structure holds whatever the text says,
and the workbench's readers read it back as it was, is :mod:`._encode`'s job.

A file export never destroys: ``_destination.check_output`` refuses the review's own state (the
store, ``papers.jsonl``, ``model/``, ...) however the path is spelled, and ``_destination.write_file``
writes through a temporary file and one rename.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections import defaultdict

from . import _encode, _visible
from ._errors import AnnotationInputError
from ._papers import paper_rows
from ._topics import OUTLIER, _edits, _root, current_topics, latest_run, topic_names

__all__ = ["FORMATS", "JSONL_FORMAT", "JSONL_VERSION", "render", "snapshot"]

FORMATS = ("jsonl", "csv", "bibtex", "ris", "markdown")
JSONL_FORMAT = "workbench-annotations"
JSONL_VERSION = 2  # 2: decisions carry their stage and how they were made; final decisions


def snapshot(lens) -> dict:
    """Everything an export needs, read in one transaction so it is consistent: the papers and
    topics, and the annotations ``lens`` (``_visible.Lens``) shows its reader."""
    conn = lens.conn
    outer = conn.in_transaction  # inside a Store.transaction(): already consistent
    if not outer:
        conn.execute("BEGIN")
    try:
        papers = paper_rows(conn)
        assign, labels = current_topics(conn)
        topics = _topic_rows(conn, labels)
        tags, notes, decisions, finals = defaultdict(list), defaultdict(list), defaultdict(list), defaultdict(list)
        tag_rows = _visible.tag_rows(lens)
        lens.used_tags(tag_rows)  # the vocabulary below lists the tags these rows show
        for pid, tag, who, at in tag_rows:
            tags[pid].append({"tag": tag, "reviewer": who, "at": at})
        for n in sorted(_visible.notes(lens), key=lambda n: (n.paper_id, n.created_at, n.uid)):
            notes[n.paper_id].append({"paper": n.paper_id, "uid": n.uid, "text": n.text, "reviewer": n.reviewer,
                                      "created_at": n.created_at, "updated_at": n.updated_at})
        for d, how in _visible.decisions(lens, None, None, context=True):
            decisions[d.paper_id].append(_decision_record(d, how))
        for f in _visible.finals(lens, None):
            finals[f.paper_id].append({"paper": f.paper_id, "stage": f.stage, "decision": f.decision,
                                       "reason": f.reason, "by": f.resolved_by, "at": f.resolved_at})
        vocab = [{k: row[k] for k in ("name", "description", "colour", "created_by", "created_at")}
                 for row in _visible.vocab_rows(lens)]
    finally:
        if conn.in_transaction and not outer:
            conn.execute("COMMIT")
    shown = None if lens.open else lens.reader
    return {"papers": papers, "assign": assign, "topics": topics, "tags": tags, "notes": notes,
            "decisions": decisions, "vocab": vocab, "finals": finals, "shown": shown,
            "everyone": lens.blind and lens.everyone}


def _decision_record(d, how: dict | None) -> dict:
    """A decision as JSONL keeps it: its stage, and how it was made when the store knows it."""
    out = {"paper": d.paper_id, "reviewer": d.reviewer, "decision": d.decision, "reason": d.reason,
           "at": d.decided_at, "stage": d.stage}
    if how is not None:  # a context row: how a person made the decision
        out["context"] = how
    return out


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

def _blind_note(snap: dict) -> str | None:
    """What a blind-mode export holds, in words (None: not in blind mode)."""
    if snap["everyone"]:
        return "blind mode is on: every reviewer's work (exported with all reviewers asked for)"
    if snap["shown"] is not None:
        return f"blind mode is on: {snap['shown']}'s work and what blind mode shows {snap['shown']} of the others'"
    return None


def to_jsonl(snap: dict) -> str:
    header = {"type": "header", "format": JSONL_FORMAT, "version": JSONL_VERSION}
    if _blind_note(snap):
        header["blind"] = _blind_note(snap)
    out = [_line(header)]
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
        for final in snap["finals"].get(pid, ()):
            out.append(_line({"type": "final", **final}))
    return "".join(out)


def _stage(d: dict) -> str:
    return "" if d["stage"] == "title_abstract" else ", full text"


def _decision_text(decs: list[dict], finals: list[dict] = ()) -> tuple[str, str]:
    """(the title/abstract decision or "disagree", every decision and final decision in words)."""
    if not decs and not finals:
        return "", ""
    values = {d["decision"] for d in decs if d["stage"] == "title_abstract"}
    final = [f["decision"] for f in finals if f["stage"] == "title_abstract"]
    summary = final[0] if final else values.pop() if len(values) == 1 else "disagree" if values else ""
    detail = "; ".join(
        [f"{d['reviewer']}{_stage(d)}: {d['decision']}" + (f" ({d['reason']})" if d["reason"] else "")
         for d in decs]
        + [f"final{_stage(f)} by {f['by']}: {f['decision']}" + (f" ({f['reason']})" if f["reason"] else "")
           for f in finals])
    return summary, detail


def _decided(snap: dict, pid: str) -> tuple[str, str]:
    return _decision_text(snap["decisions"].get(pid, []), snap["finals"].get(pid, []))


def _tag_names(snap: dict, pid: str) -> list[str]:
    """A paper's tags, each name once (two reviewers' same tag is one tag to a reference manager)."""
    return list(dict.fromkeys(t["tag"] for t in snap["tags"].get(pid, [])))


def _note_texts(notes: list[dict]) -> list[str]:
    return [f"[{n['reviewer']} {n['created_at'][:10]}] {n['text']}" for n in notes]



def to_csv(snap: dict) -> str:
    """One row per paper; every cell through :func:`._encode.csv_cell` (no formulas)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["id", "title", "authors", "year", "venue", "doi", "url", "topic",
                     "topic_label", "tags", "decision", "decisions", "notes"])
    for p in snap["papers"]:
        pid = p["id"]
        topic = snap["assign"].get(pid)
        decision, detail = _decided(snap, pid)
        writer.writerow([_encode.csv_cell(v) for v in (
            pid, p["title"], "; ".join(p["authors"]), p["year"], p["venue"], p["doi"], p["url"],
            topic, _display(snap["topics"].get(topic)),
            "; ".join(_tag_names(snap, pid)),
            decision, detail, "\n\n".join(_note_texts(snap["notes"].get(pid, []))),
        )])
    return buf.getvalue()


def _annote(snap: dict, pid: str) -> list[str]:
    lines = _note_texts(snap["notes"].get(pid, []))
    _, detail = _decided(snap, pid)
    if detail:
        lines.append(f"Screening: {detail}")
    return lines


def to_bibtex(snap: dict) -> str:
    """BibTeX; title, author, journal and keywords as LaTeX, the rest verbatim with guards
    (:mod:`._encode`), so the workbench's reader gives back the same papers."""
    import bibtexparser
    import bibtexparser.middlewares
    from bibtexparser.model import Entry, Field

    library = bibtexparser.Library()
    for p in snap["papers"]:
        pid = p["id"]
        tags = _tag_names(snap, pid)
        fields = [
            ("title", _encode.latex(p["title"]), "{"),
            ("author", " and ".join(_encode.bibtex_name(a) for a in p["authors"] if _encode.fold(a)), "{"),
            ("year", "" if p["year"] is None else str(p["year"]), "{"),
            ("journal", _encode.latex(p["venue"] or ""), "{"),
            ("doi", *_encode.bibtex_raw(p["doi"] or "")),
            ("url", *_encode.bibtex_raw(p["url"] or "")),
            ("abstract", *_encode.bibtex_raw(p["abstract"])),
            ("keywords", _encode.bibtex_keywords(tags) if tags else "", "{"),
            ("annote", *_encode.bibtex_raw("\n\n".join(_annote(snap, pid)))),
        ]
        entry_type = "article" if p["venue"] else "misc"
        library.add(Entry(entry_type, pid, [Field(k, v, enclosing=enc) for k, v, enc in fields
                                            if v.strip()]))
    # The library is thrown away after writing, so the unparse middlewares may work in place
    # (the default deep-copies every entry, which is slow and warns on large libraries).
    stack = bibtexparser.middlewares.default_unparse_stack(allow_inplace_modification=True)
    return bibtexparser.write_string(library, unparse_stack=stack)


def to_ris(snap: dict) -> str:
    """RIS, one line per value; LaTeX-escaped only where the workbench's readers would change a
    value (:mod:`._encode`)."""
    import rispy
    from rispy.writer import RisWriter

    from ..readers.values import clean, strip_markup

    class _Writer(RisWriter):
        def set_header(self, count):  # no "1." counter line: plain RIS
            return ""

    seen: dict[str, str] = {}  # tags and names repeat across papers

    def text(value, reread=clean):
        if value not in seen:
            seen[value] = _encode.ris_text(value, reread)
        return seen[value]

    refs = []
    for p in snap["papers"]:
        pid = p["id"]
        ref = {"type_of_reference": "JOUR" if p["venue"] else "GEN", "id": pid,
               "title": _encode.ris_text(p["title"], lambda s: clean(strip_markup(s)))}
        authors = [text(a) for a in p["authors"] if _encode.fold(a)]
        if authors:
            ref["authors"] = authors
        if p["year"] is not None:
            ref["year"] = str(p["year"])
        if _encode.fold(p["venue"] or ""):
            ref["journal_name"] = text(p["venue"])
        for key, value in (("doi", p["doi"]), ("abstract", p["abstract"])):
            if _encode.fold(value or ""):
                ref[key] = _encode.fold(value)
        if _encode.fold(p["url"] or ""):
            ref["urls"] = [_encode.ris_url(p["url"])]
        tags = [text(t) for t in _tag_names(snap, pid)]
        if tags:
            ref["keywords"] = tags
        notes = [_encode.fold(n) for n in _annote(snap, pid) if _encode.fold(n)]
        if notes:
            ref["notes"] = notes
        refs.append(ref)
    return rispy.dumps(refs, implementation=_Writer) if refs else ""


def _papers(n: int) -> str:
    return f"{n} paper" if n == 1 else f"{n} papers"


def to_markdown(snap: dict) -> str:
    """Papers by topic, for people; every text escaped (:mod:`._encode`), so it shows as
    written and adds no HTML or markup to the document."""
    md = _encode.md_text
    groups: dict = defaultdict(list)
    for p in snap["papers"]:
        groups[snap["assign"].get(p["id"])].append(p)
    order = sorted(t for t in groups if t is not None and t != OUTLIER)
    order += [t for t in (OUTLIER, None) if t in groups]
    out = ["# Annotations", ""]
    if _blind_note(snap):
        out += [f"*{md(_blind_note(snap).capitalize())}.*", ""]
    for t in order:
        topic = snap["topics"].get(t)
        if t is None:
            out.append(f"## No topic ({_papers(len(groups[t]))})")
        else:
            title = _display(topic) or f"topic {t}"
            out.append(f"## Topic {t}: {md(title)} ({_papers(len(groups[t]))})")
            if topic and topic["words"]:
                out.append(f"*{md(', '.join(topic['words']))}*")
        out.append("")
        for p in groups[t]:
            pid = p["id"]
            year = f" ({p['year']})" if p["year"] is not None else ""
            out.append(f"### {md(p['title']) or '(untitled)'}{year}")
            out.append("")
            who = md("; ".join(p["authors"][:3]) + (" et al." if len(p["authors"]) > 3 else ""))
            venue = md(p["venue"] or "")
            out.append(f"`{pid}`" + (f" · {who}" if who else "") + (f" · {venue}" if venue else ""))
            tags = _tag_names(snap, pid)
            if tags:
                out.append("")
                out.append("Tags: " + ", ".join(_encode.md_code(tag) for tag in tags))
            _, detail = _decided(snap, pid)
            if detail:
                out.append("")
                out.append(f"Decision: {md(detail)}")
            for note in _note_texts(snap["notes"].get(pid, [])):
                out.append("")
                out.extend("> " + line if line else ">" for line in _encode.md_lines(note))
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


_WRITERS = {"jsonl": to_jsonl, "csv": to_csv, "bibtex": to_bibtex, "ris": to_ris,
            "markdown": to_markdown}


def render(lens, fmt: str) -> str:
    """The annotations ``lens`` shows, with the papers and topics, as text in ``fmt`` (one of
    :data:`FORMATS`)."""
    key = str(fmt).lower().lstrip(".")
    key = {"bib": "bibtex", "md": "markdown", "json": "jsonl"}.get(key, key)
    if key not in _WRITERS:
        raise AnnotationInputError(
            f"export format {fmt!r} is not supported; expected one of {', '.join(FORMATS)}")
    return _WRITERS[key](snapshot(lens))


# ----------------------------------------------------------------------------- files

#: A review folder's own state, which an export must never replace: these files (and the
#: store's file with its -wal, -shm and -journal), and these folders with all they hold.
#: ``report/`` is where exports go; any other new name in the review folder is allowed.
