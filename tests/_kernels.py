"""Real processes sharing one review, for tests/test_store_shared_use.py and the soak benchmark.

Each actor is a process of its own, as in real use; the test process itself never opens the
review's store, so it adds no connection of its own:

- :class:`Kernel`: a long-lived process holding a :class:`workbench.widgets.Session`, as a
  notebook kernel does, driven by one JSON command per line on its stdin;
- :class:`Cli`: the ``workbench`` command line, one process per command;
- :func:`read_store`: a fresh process's view of the store (integrity and a JSONL export);
- ``python tests/_kernels.py writer ...``: a process writing until it is killed, reporting each
  write on stdout only after the call returned (for the kill -9 test and the soak benchmark).

Every write that returned success (a reply ``ok``, exit status 0, an ``ack`` line) goes into a
:class:`Ledger`; :meth:`Ledger.missing` lists what a view of the store lacks. A write whose
call failed or was killed may or may not be in the store, and the ledger allows both.
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
THIS = Path(__file__).resolve()
REPLY_TIMEOUT = 240.0


def child_env(**extra: str) -> dict:
    """The environment of every child: this checkout's ``workbench`` first, no network."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "WORKBENCH_PROGRESS": "0",
            "TOKENIZERS_PARALLELISM": "false", **extra}


def workbench_command() -> list[str]:
    """The ``workbench`` console script beside this Python, else the same entry point."""
    script = Path(sys.executable).with_name("workbench")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from workbench.cli import main; sys.exit(main())"]


# ----------------------------------------------------------------------------- the ledger

@dataclass
class View:
    """What one reader saw: annotations, the number of topics shown, integrity."""

    tags: set = field(default_factory=set)  # (paper, tag)
    notes: set = field(default_factory=set)  # (paper, text)
    decisions: dict = field(default_factory=dict)  # (paper, reviewer) -> decision
    topics: int | None = None
    integrity: str = "not checked"
    error: str | None = None


def parse_export(text: str) -> View:
    """A JSONL export (``workbench export --format jsonl``) as a :class:`View`."""
    view = View()
    topics = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        kind = rec.get("type")
        if kind == "tagged":
            view.tags.add((rec["paper"], rec["tag"]))
        elif kind == "note":
            view.notes.add((rec["paper"], rec["text"]))
        elif kind == "decision":
            view.decisions[(rec["paper"], rec["reviewer"])] = rec["decision"]
        elif kind == "topic" and int(rec["topic"]) >= 0:
            topics += 1
    view.topics = topics
    return view


@dataclass
class Ledger:
    """Every acknowledged write, and what any view of the store must therefore show."""

    tags: set = field(default_factory=set)
    undone: set = field(default_factory=set)  # (paper, tag) whose undo was acknowledged
    notes: set = field(default_factory=set)
    decisions: dict = field(default_factory=dict)  # (paper, reviewer) -> allowed values
    topics: int | None = None  # topics shown by the last acknowledged "Show themes"
    counts: Counter = field(default_factory=Counter)  # acknowledged writes by kind
    failures: list = field(default_factory=list)  # errors shown to a user

    def tagged(self, ids, tags) -> None:
        pairs = {(p, t) for p in ids for t in tags}
        self.tags |= pairs
        self.undone -= pairs
        self.counts["tag"] += len(pairs)

    def untagged_by_undo(self, paper: str, tag: str) -> None:
        self.tags.discard((paper, tag))
        self.undone.add((paper, tag))
        self.counts["undo"] += 1

    def noted(self, ids, text: str) -> None:
        self.notes |= {(p, text) for p in ids}
        self.counts["note"] += len(ids)

    def tried_decision(self, ids, reviewer: str, decision: str) -> None:
        """A decision that was attempted but not acknowledged: it may or may not be saved."""
        for p in ids:
            self.decisions.setdefault((p, reviewer), {None}).add(decision)

    def decided(self, ids, reviewer: str, decision: str) -> None:
        for p in ids:
            self.decisions[(p, reviewer)] = {decision}
        self.counts["decide"] += len(ids)

    def showed_topics(self, n: int) -> None:
        self.topics = n
        self.counts["topics"] += 1

    def forget_topics(self) -> None:
        """A topic run that failed: which topics the store shows is not known any more."""
        self.topics = None

    @property
    def acknowledged(self) -> int:
        return sum(self.counts.values())

    def missing(self, view: View, where: str = "the store") -> list[str]:
        """One line for each acknowledged write ``view`` lacks (and for a damaged store)."""
        if view.error:
            return [f"{where} could not be read: {view.error}"]
        out = []
        if view.integrity != "ok":
            out.append(f"{where}: integrity_check says {view.integrity!r}")
        out += [f"{where}: tag {t!r} on {p} was acknowledged and is missing"
                for p, t in sorted(self.tags - view.tags)]
        out += [f"{where}: tag {t!r} on {p} was undone (acknowledged) and is back"
                for p, t in sorted(self.undone & view.tags)]
        out += [f"{where}: note {x!r} on {p} was acknowledged and is missing"
                for p, x in sorted(self.notes - view.notes)]
        for (p, who), allowed in sorted(self.decisions.items()):
            got = view.decisions.get((p, who))
            if got not in allowed:
                want = " or ".join(sorted(str(a) for a in allowed))
                out.append(f"{where}: decision of {who} on {p} is {got}, acknowledged {want}")
        if self.topics is not None and view.topics != self.topics:
            out.append(f"{where}: {view.topics} topics, the last acknowledged "
                       f"'Show themes' showed {self.topics}")
        return out

    def lost(self, view: View) -> int:
        """How many acknowledged annotations ``view`` lacks (tags, notes, decisions)."""
        if view.error:
            return self.acknowledged
        bad = {(p, who) for (p, who), allowed in self.decisions.items()
               if view.decisions.get((p, who)) not in allowed}
        return len(self.tags - view.tags) + len(self.notes - view.notes) + len(bad)


def read_store(review: Path, timeout: float = 300) -> View:
    """The store as a fresh process sees it: ``PRAGMA integrity_check`` and a JSONL export."""
    proc = subprocess.run([sys.executable, str(THIS), "read", str(review)], capture_output=True,
                          text=True, env=child_env(), timeout=timeout)
    if proc.returncode != 0:
        return View(error=f"the reader failed: {proc.stderr.strip()[-2000:]}")
    doc = json.loads(proc.stdout)
    if "error" in doc:
        return View(error=doc["error"])
    view = parse_export(doc["export"])
    view.integrity = doc["integrity"]
    return view


# ----------------------------------------------------------------------------- the command line

class Cli:
    """``workbench`` commands, each in its own process, as reviewer ``reviewer``; exit 0 is an
    acknowledgement and goes into the ledger, anything else into ``ledger.failures``."""

    def __init__(self, review: Path, ledger: Ledger, reviewer: str = "cli"):
        self.review, self.ledger, self.reviewer = Path(review), ledger, reviewer

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        proc = subprocess.run([*workbench_command(), *args, "--review", str(self.review)],
                              capture_output=True, text=True, timeout=timeout,
                              env=child_env(WORKBENCH_REVIEWER=self.reviewer))
        if proc.returncode != 0:
            self.ledger.failures.append(
                f"`workbench {' '.join(args)}` exited {proc.returncode}: {proc.stderr.strip()}")
        return proc

    def tag(self, paper: str, *tags: str) -> None:
        if self.run("tag", paper, *tags).returncode == 0:
            self.ledger.tagged([paper], tags)

    def note(self, paper: str, text: str) -> None:
        if self.run("note", paper, text).returncode == 0:
            self.ledger.noted([paper], text)

    def decide(self, paper: str, decision: str) -> None:
        if self.run("decide", paper, decision).returncode == 0:
            self.ledger.decided([paper], self.reviewer, decision)
        else:
            self.ledger.tried_decision([paper], self.reviewer, decision)

    def history(self) -> None:
        self.run("history", "--limit", "5")

    def topics(self) -> None:
        self.run("topics", "--format", "json")

    def export(self, path: Path) -> View | None:
        """A JSONL export to ``path``; its view, to hold against the writes acknowledged so far."""
        if self.run("export", "--format", "jsonl", "-o", str(path)).returncode != 0:
            return None
        view = parse_export(Path(path).read_text(encoding="utf-8"))
        view.integrity = "ok"  # an export says nothing about integrity; read_store checks it
        return view

    def import_annotations(self, file: Path, expected: Ledger) -> None:
        """Import ``file`` (see :func:`make_import_file`); on exit 0 its writes are acknowledged."""
        if self.run("import-annotations", str(file)).returncode == 0:
            for p, t in expected.tags:
                self.ledger.tagged([p], [t])
            for p, text in expected.notes:
                self.ledger.noted([p], text)
            for (p, who), allowed in expected.decisions.items():
                self.ledger.decided([p], who, next(iter(allowed)))


def make_import_file(folder: Path, name: str, papers: list[str],
                     reviewer: str = "colleague") -> tuple[Path, Ledger]:
    """A colleague's JSONL export touching ``papers`` (which the review has): one new tag on each,
    a note on the first and a decision on the second. Made in ``folder/name`` (a store of its
    own) through the public API; returns the file and the writes it carries."""
    from workbench.store import Store

    expected = Ledger()
    side = Path(folder) / name
    with Store.open(side, reviewer=reviewer) as store:
        store.sync_papers([{"id": p, "title": f"paper {p}"} for p in papers])
        store.tags.add(papers, f"imported-{name}")
        expected.tagged(papers, [f"imported-{name}"])
        store.notes.add(papers[0], f"imported note {name}")
        expected.noted(papers[:1], f"imported note {name}")
        store.decisions.decide(papers[1], "maybe")
        expected.decided(papers[1:2], reviewer, "maybe")
        path = Path(folder) / f"{name}.jsonl"
        store.files.export("jsonl", path)
    return path, expected


# ----------------------------------------------------------------------------- the kernel

class KernelDied(AssertionError):
    pass


class Kernel:
    """A process holding a :class:`Session` on ``review`` as ``reviewer``, like a notebook kernel.

    It starts at once (several kernels start side by side); each method sends one command; with
    ``wait=False`` the reply is read by :meth:`done` (or the next command), so other processes
    can act while the kernel works. Acknowledged writes go
    into ``ledger``; errors into ``ledger.failures``.
    """

    def __init__(self, review: Path, reviewer: str, ledger: Ledger, log_dir: Path):
        self.review, self.reviewer, self.ledger = Path(review), reviewer, ledger
        self.log_path = Path(log_dir) / f"kernel-{reviewer}.log"
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [sys.executable, str(THIS), "kernel", str(review), reviewer],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, text=True,
            env=child_env(WORKBENCH_REVIEWER=reviewer))
        self._replies: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._pending = ("start", {}, None, None)  # the first reply says the Session is open

    def _read(self) -> None:
        for line in self.proc.stdout:
            self._replies.put(json.loads(line))
        self._replies.put(None)

    def log_tail(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-3000:]

    def _reply(self) -> dict:
        try:
            reply = self._replies.get(timeout=REPLY_TIMEOUT)
        except queue.Empty:
            raise KernelDied(f"kernel {self.reviewer} gave no answer in {REPLY_TIMEOUT:.0f} s\n"
                             f"{self.log_tail()}") from None
        if reply is None:
            raise KernelDied(f"kernel {self.reviewer} exited ({self.proc.wait()}):\n"
                             f"{self.log_tail()}")
        return reply

    def _send(self, op: str, args: dict, on_ok=None, on_error=None, wait: bool = True):
        self.done()
        try:
            self.proc.stdin.write(json.dumps({"op": op, **args}) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise KernelDied(f"kernel {self.reviewer} is gone:\n{self.log_tail()}") from None
        self._pending = (op, args, on_ok, on_error)
        return self.done() if wait else None

    def done(self):
        """Read the reply to the command in flight (if any) and book it; returns its result."""
        if self._pending is None:
            return None
        op, args, on_ok, on_error = self._pending
        self._pending = None
        reply = self._reply()
        if op == "start" and not reply["ok"]:
            raise KernelDied(f"kernel {self.reviewer} did not start: {reply['error']}\n"
                             f"{self.log_tail()}")
        if reply["ok"]:
            if on_ok:
                on_ok(reply["result"])
            return reply["result"]
        self.ledger.failures.append(f"kernel {self.reviewer} {op} {args}: {reply['error']}")
        if on_error:
            on_error()
        return None

    # every action a notebook user takes, booked in the ledger when it returns
    def tag(self, ids: list[str], *tags: str, wait: bool = True):
        return self._send("tag", {"ids": ids, "tags": tags},
                          lambda _: self.ledger.tagged(ids, tags), wait=wait)

    def note(self, ids: list[str], text: str, wait: bool = True):
        return self._send("note", {"ids": ids, "text": text},
                          lambda _: self.ledger.noted(ids, text), wait=wait)

    def decide(self, ids: list[str], decision: str, wait: bool = True):
        return self._send("decide", {"ids": ids, "decision": decision},
                          lambda _: self.ledger.decided(ids, self.reviewer, decision),
                          lambda: self.ledger.tried_decision(ids, self.reviewer, decision),
                          wait=wait)

    def second_store(self, ids: list[str], tag: str, wait: bool = True):
        """Open a second Store on the review in the kernel, tag through it, close it."""
        return self._send("second_store", {"ids": ids, "tag": tag},
                          lambda _: self.ledger.tagged(ids, [tag]), wait=wait)

    def show_themes(self, k: int | None, wait: bool = True):
        return self._send("show_themes", {"k": k}, self.ledger.showed_topics,
                          self.ledger.forget_topics, wait=wait)

    def topic_stability(self, seeds=(1, 2), wait: bool = True):
        return self._send("topic_stability", {"seeds": list(seeds)}, wait=wait)

    def tag_then_undo(self, paper: str, tag: str) -> None:
        """Tag ``paper`` with a new ``tag``, then undo: the undo must take back exactly that."""
        if self.tag([paper], tag) is None:
            return  # the tag failed: an undo now would take back some other change
        undone = self._send("undo", {})
        if undone is None:  # the undo failed: the tag may or may not be there now
            self.ledger.tags.discard((paper, tag))
            return
        if not _undid_tag(undone, paper, tag):
            self.ledger.failures.append(f"kernel {self.reviewer} undo took back {undone}, "
                                        f"not its last change, tag {paper} +{tag}")
            self.ledger.tags.discard((paper, tag))
            return
        self.ledger.untagged_by_undo(paper, tag)

    def close(self) -> None:
        """Close the session (as a kernel shutting down) and wait for the process to end."""
        self.done()
        if self.proc.poll() is None:
            self._send("close", {})
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        self._log.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=60)
        self._log.close()


# ----------------------------------------------------------------------------- child processes

def _undid_tag(undone: list[str], paper: str, tag: str) -> bool:
    """Whether an undo took back exactly one change, the one adding ``tag`` to ``paper``."""
    return len(undone) == 1 and paper in undone[0] and tag in undone[0]


def _kernel_main(review: str, reviewer: str) -> None:
    """Hold a Session and run the commands on stdin; one JSON reply per command on stdout."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever a library prints goes to the log, not into the replies
    sys.stdout = sys.stderr
    from workbench.store import Store
    from workbench.widgets import Session

    def reply(**doc) -> None:
        out.write(json.dumps(doc) + "\n")
        out.flush()

    try:
        session = Session.open(review, reviewer=reviewer)
    except Exception as err:  # noqa: BLE001 - reported to the test, which fails with it
        reply(ok=False, error=f"{type(err).__name__}: {err}")
        return

    def second_store(ids, tag):
        with Store.open(review, reviewer=reviewer) as other:
            added = other.tags.add(ids, tag)
            other.history(limit=3)
        return added

    ops = {
        "tag": lambda ids, tags: session.tag(ids, *tags),
        "note": lambda ids, text: session.note(ids, text),
        "decide": lambda ids, decision: session.decide(ids, decision),
        "undo": lambda: [e.summary for e in session.undo()],
        "second_store": second_store,
        "show_themes": lambda k: session.topics.show_themes(k, save=True),  # "Show themes", then "Save these themes"
        "topic_stability": lambda seeds: len(session.topics.stability(seeds)),
    }
    reply(ok=True, result="ready")
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd.pop("op")
        if op == "close":
            session.close()
            reply(ok=True, result="closed")
            os._exit(0)  # the store is closed; skip the interpreter's slow teardown
        try:
            reply(ok=True, result=ops[op](**cmd))
        except Exception as err:  # noqa: BLE001 - what a notebook user would see
            reply(ok=False, error=f"{type(err).__name__}: {err}")
    session.close()


def _read_main(review: str) -> None:
    """Print a fresh process's view of the store as one JSON document."""
    from workbench.store import Store

    try:
        with Store.open(review, reviewer="checker", create=False) as store:
            doc = {"integrity": store.files.integrity_check(), "export": store.files.export("jsonl")}
    except Exception as err:  # noqa: BLE001 - the test reports it as the finding
        doc = {"error": f"{type(err).__name__}: {err}"}
    print(json.dumps(doc))


def _writer_main(review: str, name: str, reviewer: str, mode: str, seed: str,
                 ids_file: str) -> None:
    """Write until killed (or SIGTERM: then close cleanly), one ``ack`` line per returned call.

    ``mode`` ``held``: one Store open all along, plus a second handle opened, used and closed
    every few actions (a kernel); ``short``: a Store opened and closed for each action (the
    command line). Decisions print a ``try`` line first: a kill between the two leaves either
    value. Tags and notes are new each time, so every acknowledgement is checkable.
    """
    from workbench.store import Store

    ids = json.loads(Path(ids_file).read_text())
    rng = random.Random(seed)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    held = Store.open(review, reviewer=reviewer) if mode == "held" else None

    def emit(**doc) -> None:
        sys.stdout.write(json.dumps(doc) + "\n")
        sys.stdout.flush()

    def act(fn):
        if held is not None:
            return fn(held)
        with Store.open(review, reviewer=reviewer) as store:
            return fn(store)

    emit(ready=True)
    n = 0
    while not stop:
        n += 1
        paper = rng.choice(ids)
        kind = rng.choices(["tag", "note", "decide", "undo", "second"], [5, 2, 2, 1, 1])[0]
        try:
            if kind == "tag":
                tag = f"{name}-{n}"
                act(lambda s: s.tags.add(paper, tag))
                emit(ack="tag", paper=paper, tag=tag)
            elif kind == "note":
                text = f"note {name}-{n}"
                act(lambda s: s.notes.add(paper, text))
                emit(ack="note", paper=paper, text=text)
            elif kind == "decide":
                decision = rng.choice(["include", "exclude", "maybe"])
                emit(attempt="decide", paper=paper, decision=decision)
                act(lambda s: s.decisions.decide(paper, decision))
                emit(ack="decide", paper=paper, decision=decision)
            elif kind == "undo":
                tag = f"undo-me-{name}-{n}"
                act(lambda s: s.tags.add(paper, tag))
                undone = act(lambda s: [e.summary for e in s.undo()])
                if not _undid_tag(undone, paper, tag):
                    emit(error=f"undo took back {undone}, not its last change, tag {paper} +{tag}")
                else:
                    emit(ack="undo", paper=paper, tag=tag)
            else:  # a second handle in this process, opened and closed
                tag = f"{name}-{n}-second"
                with Store.open(review, reviewer=reviewer) as other:
                    other.tags.add(paper, tag)
                emit(ack="tag", paper=paper, tag=tag)
        except Exception as err:  # noqa: BLE001 - shown to a user: the test counts it
            emit(error=f"{kind}: {type(err).__name__}: {err}")
            time.sleep(0.1)  # a user reads the message before trying again
    if held is not None:
        held.close()


def book(ledger: Ledger, reviewer: str, doc: dict) -> None:
    """Put one line of a writer's output into ``ledger``, as ``reviewer``'s unless it names one."""
    reviewer = doc.get("reviewer", reviewer)
    if "error" in doc:
        ledger.failures.append(f"{reviewer}: {doc['error']}")
    elif doc.get("attempt") == "decide":
        ledger.tried_decision([doc["paper"]], reviewer, doc["decision"])
    elif doc.get("ack") == "tag":
        ledger.tagged([doc["paper"]], [doc["tag"]])
    elif doc.get("ack") == "note":
        ledger.noted([doc["paper"]], doc["text"])
    elif doc.get("ack") == "decide":
        ledger.decided([doc["paper"]], reviewer, doc["decision"])
    elif doc.get("ack") == "undo":
        ledger.untagged_by_undo(doc["paper"], doc["tag"])


class Writer:
    """``python tests/_kernels.py writer``: a writing process whose output lines are collected."""

    def __init__(self, review: Path, name: str, reviewer: str, mode: str, seed: int,
                 ids_file: Path, log_dir: Path):
        self.reviewer = reviewer
        self.lines: list[dict] = []
        self.log_path = Path(log_dir) / f"writer-{name}.log"
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(THIS), "writer", str(review), name, reviewer, mode,
                 str(seed), str(ids_file)],
                stdout=subprocess.PIPE, stderr=log, text=True, env=child_env())
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                self.lines.append(json.loads(line))
            except json.JSONDecodeError:  # a line cut short by kill -9 was never acknowledged
                pass

    def started(self) -> bool:
        return any(d.get("ready") for d in self.lines)

    def stop(self, sig: int) -> int:
        """Send ``sig``, wait for the end; returns the exit status. Output is complete after."""
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=120)
        self._reader.join(timeout=60)
        return code

    def book(self, ledger: Ledger) -> None:
        for doc in self.lines:
            book(ledger, self.reviewer, doc)


if __name__ == "__main__":
    role, *rest = sys.argv[1:]
    {"kernel": _kernel_main, "read": _read_main, "writer": _writer_main}[role](*rest)
