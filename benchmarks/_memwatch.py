"""The memory a build needs at its worst moment, sampled from inside its process.

A process's ``ru_maxrss`` is not what a machine must have: a forked child shares its parent's
pages until either writes them, so a child's ``ru_maxrss`` counts pages the parent holds as well,
and two peaks need not fall at the same moment. :class:`MemWatch` is a thread that, every
``every`` seconds, reads this process's resident memory and the private memory (``Private_Clean``
+ ``Private_Dirty`` of ``/proc/PID/smaps_rollup``) of each of its descendants, and keeps the
largest sum: the tree's peak. With ``log``, each sample is written as a line with the main
thread's innermost calls, to find which call holds what (Linux only; elsewhere it reports nothing).
``pid``: watch that process instead, from outside (no calls then). From inside, a sample waits
while a compiled (numba) call holds the interpreter's lock, which NN-descent does for minutes at
a million papers; from outside nothing waits, so the peak is best taken from outside.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

__all__ = ["MemWatch"]

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _rss_mb(pid: int | str = "self") -> float:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


def _private_mb(pid: int) -> float:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0.0
    kb = sum(int(line.split()[1]) for line in text.splitlines() if line.startswith(("Private_Clean", "Private_Dirty")))
    return kb / 1024


def _children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (children of its threads, recursively)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                kids = [int(k) for k in Path(f"/proc/{p}/task/{task}/children").read_text().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


def _stack(thread_id: int, depth: int = 6) -> str:
    """The innermost calls of a thread: its workbench frames and the innermost one, innermost last."""
    frame = sys._current_frames().get(thread_id)
    calls = []
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        if "workbench" in name or not calls:
            short = name.split("workbench/", 1)[-1] if "workbench/" in name else Path(name).name
            calls.append(f"{short}:{code.co_name}:{frame.f_lineno}")
        frame = frame.f_back
    return " < ".join(calls[:depth])


class MemWatch(threading.Thread):
    """Sample this process's RSS and its descendants' private memory every ``every`` seconds (see
    the module docstring): ``peak_mb`` (the largest sum), ``own_peak_mb``, ``children_peak_mb``
    (their private memory at its largest), and, with ``log``, one line per sample."""

    def __init__(self, every: float = 0.5, log: str | os.PathLike | None = None, pid: int | None = None):
        super().__init__(daemon=True, name="memwatch")
        self.every, self.log, self.pid = every, log, pid
        self.peak_mb = self.own_peak_mb = self.children_peak_mb = 0.0
        self.peak_at = ""
        self._main = threading.main_thread().ident
        self._halt = threading.Event()
        self._t0 = time.perf_counter()

    def sample(self) -> str:
        own = _rss_mb(self.pid or "self")
        kids = {pid: _private_mb(pid) for pid in _children(self.pid or os.getpid())}
        private = sum(kids.values())
        total = own + private
        where = "" if self.pid else _stack(self._main)
        if total > self.peak_mb:
            self.peak_mb, self.peak_at = total, where
        self.own_peak_mb = max(self.own_peak_mb, own)
        self.children_peak_mb = max(self.children_peak_mb, private)
        kids_text = ",".join(f"{pid}:{mb:.0f}" for pid, mb in kids.items())
        return f"{time.perf_counter() - self._t0:8.1f} own={own:.0f} private_children={private:.0f} [{kids_text}] total={total:.0f} | {where}"

    def run(self) -> None:
        out = open(self.log, "a", encoding="utf-8", buffering=1) if self.log else None
        try:
            while not self._halt.is_set():
                line = self.sample()
                if out is not None:
                    out.write(line + "\n")
                self._halt.wait(self.every)
        finally:
            if out is not None:
                out.close()

    def follow(self, pid: int) -> "MemWatch":
        """Watch process ``pid`` (and its descendants) from outside, from now on."""
        self.pid = pid
        self.start()
        return self

    def stop(self) -> "MemWatch":
        self._halt.set()
        self.join(timeout=5)
        self.sample()
        return self
