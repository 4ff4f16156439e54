"""One review, many processes, as people use it: notebook kernels holding a Session, the command
line between their actions, writers killed with kill -9. Every acknowledged write must be in the
store afterwards, read from a fresh process, and ``PRAGMA integrity_check`` must be ok.

The actors are real processes on a real review (see ``_kernels.py``); this test process never
opens the review's store itself. An acknowledged write is a Session call that returned, a
``workbench`` command that exited 0, or an ``ack`` line a writer printed after its call returned.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import time

import pytest

import workbench

from _kernels import Cli, Kernel, Ledger, Writer, make_import_file, read_store
from conftest import ROOT


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A review of the 133 seed papers (fake embedder), built once; tests work on copies."""
    folder = tmp_path_factory.mktemp("shared") / "review"
    review = workbench.build([ROOT / "seeds"], review=folder, embedder="fake", seed=42)
    return folder, [p.id for p in review.papers]


@pytest.fixture
def review(built, tmp_path):
    template, ids = built
    path = tmp_path / "review"
    shutil.copytree(template, path)
    return path, ids


class Checks:
    """Views of the store held against the writes acknowledged at the moment each was taken."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self.problems: list[str] = []
        self.lost: list[str] = []

    def view(self, where: str, view, ledger: Ledger | None = None) -> None:
        ledger = ledger or self.ledger
        self.problems += ledger.missing(view, where)
        self.lost.append(f"{ledger.lost(view)} of {ledger.acknowledged} lost {where}")

    def read(self, where: str, review) -> None:
        """What a fresh process reads now."""
        self.view(where, read_store(review))

    def assert_nothing_lost(self, extra: str = "") -> None:
        ledger = self.ledger
        problems = self.problems + [f"error shown to a user: {f}" for f in ledger.failures]
        summary = (f"{extra}{ledger.acknowledged} writes acknowledged ({dict(ledger.counts)}); "
                   f"{'; '.join(self.lost)}; {len(ledger.failures)} errors shown to users")
        print(summary)
        assert not problems, summary + "\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("trigger", ["second store", "undo"])
def test_the_kernels_writes_survive_the_command_line_after(trigger, review, tmp_path):
    """The smallest case: after one action in the kernel that uses a second store handle (a
    notebook cell opening one; an undo, which re-reads the topics), the command line and the
    kernel take turns tagging; a fresh process must see every tag."""
    path, ids = review
    ledger = Ledger()
    checks = Checks(ledger)
    cli = Cli(path, ledger)
    kernel = Kernel(path, "kernel-a", ledger, tmp_path)
    try:
        kernel.tag(ids[:2], "before")
        if trigger == "second store":
            kernel.second_store([ids[2]], "through-a-second-handle")
        else:
            kernel.tag_then_undo(ids[2], "taken-back")
        for i in range(2):
            cli.tag(ids[10 + i], f"cli-{i}")
            kernel.tag([ids[20 + i]], f"kernel-{i}")
        checks.read("while the kernel ran", path)
    finally:
        kernel.close()
    checks.read("after it closed", path)
    checks.assert_nothing_lost()


@pytest.mark.long
@pytest.mark.extended  # test_two_kernels_and_the_command_line... covers a kernel and the CLI too
def test_a_kernel_and_the_command_line_lose_no_acknowledged_write(review, tmp_path):
    """A kernel holding a Session tags, notes, decides, opens a second store handle, shows
    themes and the default topics, checks stability and undoes, while the command line tags,
    notes, decides, reads the history and topics, exports and imports between its actions."""
    path, ids = review
    ledger = Ledger()
    checks = Checks(ledger)
    cli = Cli(path, ledger)
    imports = [make_import_file(tmp_path / "colleague", f"imp{i}", ids[100 + 2 * i:102 + 2 * i])
               for i in range(2)]
    (tmp_path / "exports").mkdir()

    def export(name: str) -> None:
        """A CLI export must hold every write acknowledged before it."""
        view = cli.export(tmp_path / "exports" / f"{name}.jsonl")
        if view is not None:
            checks.view(f"in the CLI export {name}", view)

    kernel = Kernel(path, "kernel-a", ledger, tmp_path)
    try:
        kernel.tag(ids[0:3], "a-1")
        kernel.note([ids[3]], "kernel note 1")
        kernel.decide([ids[4]], "include")
        kernel.second_store([ids[5]], "a-second-handle")
        cli.tag(ids[6], "c-1")
        kernel.tag([ids[7]], "a-2")
        cli.note(ids[8], "cli note 1")
        kernel.decide([ids[9]], "maybe")
        cli.decide(ids[10], "exclude")
        kernel.show_themes(3)
        cli.topics()
        kernel.note([ids[11]], "kernel note 2")
        export("after-themes")
        kernel.show_themes(None)  # "Default topics"
        cli.history()
        kernel.topic_stability((1, 2))
        cli.import_annotations(*imports[0])
        kernel.tag_then_undo(ids[14], "a-undo-1")
        cli.tag(ids[15], "c-2")
        kernel.tag([ids[16]], "a-3")
        # The kernel works while the command line runs.
        steps = [lambda: cli.tag(ids[40], "c-overlap"), lambda: cli.note(ids[41], "cli note 2"),
                 lambda: cli.decide(ids[42], "include"),
                 lambda: cli.import_annotations(*imports[1])]
        for i, step in enumerate(steps):
            kernel.tag([ids[20 + i]], f"a-overlap-{i}", wait=False)
            step()
            kernel.done()
        kernel.show_themes(4, wait=False)
        cli.tag(ids[43], "c-during-themes")
        kernel.done()
        kernel.decide(ids[30:40], "exclude")
        kernel.second_store(ids[44:46], "a-second-handle-2")
        kernel.note(ids[46:48], "kernel note 3")
        export("at-the-end")
        checks.read("while the kernel ran", path)
    finally:
        kernel.close()
    checks.read("after the kernel closed", path)
    checks.assert_nothing_lost()


@pytest.mark.long
def test_two_kernels_and_the_command_line_lose_no_acknowledged_write(review, tmp_path):
    """Two notebooks open on one review (two kernels, two reviewers) and the command line."""
    path, ids = review
    ledger = Ledger()
    checks = Checks(ledger)
    cli = Cli(path, ledger)
    imported, carries = make_import_file(tmp_path / "colleague", "imp", ids[100:102])
    ka = Kernel(path, "kernel-a", ledger, tmp_path)
    kb = Kernel(path, "kernel-b", ledger, tmp_path)
    try:
        ka.tag(ids[0:2], "a-1")
        kb.tag(ids[2:4], "b-1")
        kb.second_store([ids[4]], "b-second-handle")
        cli.tag(ids[5], "c-1")
        ka.note([ids[6]], "a note 1")
        kb.note([ids[7]], "b note 1")
        ka.show_themes(3, wait=False)  # kernel-b and the command line go on meanwhile
        kb.tag([ids[9]], "b-2")
        cli.decide(ids[11], "include")
        ka.done()
        kb.topic_stability((1, 2), wait=False)
        ka.tag([ids[10]], "a-2")
        cli.topics()
        kb.done()
        ka.decide([ids[12]], "exclude")
        kb.decide([ids[12]], "include")  # two reviewers' decisions on one paper
        cli.import_annotations(imported, carries)
        # Both kernels work at once, with the command line between.
        for i in range(4):
            ka.tag([ids[20 + i]], f"a-overlap-{i}", wait=False)
            kb.tag([ids[30 + i]], f"b-overlap-{i}", wait=False)
            if i % 2:
                cli.tag(ids[40 + i], f"c-overlap-{i}")
            else:
                cli.note(ids[40 + i], f"cli overlap note {i}")
            ka.done()
            kb.done()
        ka.tag_then_undo(ids[50], "a-undo")
        kb.tag_then_undo(ids[51], "b-undo")
        ka.second_store([ids[52]], "a-second-handle")
        kb.decide(ids[60:70], "maybe")
        ka.show_themes(None)  # "Default topics"
        kb.tag([ids[53]], "b-4")
        checks.read("while both kernels ran", path)
        ka.close()  # one notebook shuts down; the other goes on
        cli.tag(ids[54], "c-after-a-closed")
        kb.tag([ids[55]], "b-after-a-closed")
        checks.read("after kernel-a closed", path)
    finally:
        ka.close()
        kb.close()
    checks.read("after both closed", path)
    checks.assert_nothing_lost()


@pytest.mark.long
def test_four_writers_killed_with_kill_9_lose_no_acknowledged_write(review, tmp_path):
    """Four writers (two holding a store and opening second handles like kernels, two opening
    one per action like the command line); several rounds of kill -9 at random moments, each
    victim restarted; after each round and at the end, a fresh process sees every write the
    writers acknowledged before they were killed."""
    path, ids = review
    ids_file = tmp_path / "ids.json"
    ids_file.write_text(json.dumps(ids))
    rng = random.Random(7)
    modes = {0: "held", 1: "held", 2: "short", 3: "short"}
    runs: dict[int, list[Writer]] = {slot: [] for slot in modes}

    def start(slot: int) -> None:
        n = len(runs[slot])
        runs[slot].append(Writer(path, f"w{slot}.{n}", f"writer-{slot}", modes[slot],
                                 rng.randrange(10**6), ids_file, tmp_path))

    def wait_ready() -> None:
        deadline = time.monotonic() + 120
        while not all(r[-1].started() for r in runs.values()):
            assert time.monotonic() < deadline, "a writer did not start"
            assert all(r[-1].proc.poll() is None for r in runs.values()), \
                "a writer died:\n" + "\n".join(r[-1].log_path.read_text() for r in runs.values())
            time.sleep(0.05)

    def booked() -> Ledger:
        """Every writer's output so far, in order, as one ledger."""
        ledger = Ledger()
        for slot in runs:
            for writer in runs[slot]:
                writer.book(ledger)
        return ledger

    checks = Checks(Ledger())
    kills = 0
    for slot in modes:
        start(slot)
    try:
        for round_ in range(4):
            wait_ready()
            time.sleep(rng.uniform(0.3, 0.8))
            for slot in rng.sample(sorted(modes), rng.randint(1, 2)):
                assert runs[slot][-1].stop(signal.SIGKILL) == -signal.SIGKILL
                kills += 1
                start(slot)
            # Tags and notes are never overwritten, so they are checked while writers run
            # (booked before the read); decisions, which live writers change, at the end.
            snapshot = booked()
            snapshot.decisions = {}
            checks.view(f"after kill round {round_ + 1}", read_store(path), snapshot)
        wait_ready()
        time.sleep(0.3)
    finally:
        for r in runs.values():
            if r[-1].proc.poll() is None:
                r[-1].stop(signal.SIGTERM)  # the last ones close their stores cleanly
    checks.ledger = booked()
    checks.read("at the end", path)
    assert checks.ledger.counts["tag"] >= 50, "the writers did too little to prove anything"
    checks.assert_nothing_lost(f"{kills} kills; ")
