"""Work in two processes (workbench._halves): the parts a second process makes are the ones this
one would, in order; where it fails, this process makes them and says why."""

import logging
import os

import pytest

from workbench._runtime import halves as _halves
from workbench._runtime.halves import in_halves

ITEMS = list(range(101))


def made(items):
    return [(x * x, os.getpid()) for x in items]


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setenv("WORKBENCH_WORKERS", "2")


def test_the_second_half_is_made_in_a_second_process(two_cores):
    parts = in_halves(made, ITEMS, 10, step=4)
    assert len(parts) == 2 and len(parts[0]) == 48  # half, rounded down to a multiple of step
    assert [v for part in parts for v, _ in part] == [x * x for x in ITEMS]
    assert {pid for _, pid in parts[0]} == {os.getpid()}
    assert {pid for _, pid in parts[1]} != {os.getpid()} and len({pid for _, pid in parts[1]}) == 1


@pytest.mark.parametrize("setting, n", [("1", 101), ("2", 9)])
def test_one_process_with_one_core_or_few_items(monkeypatch, setting, n):
    monkeypatch.setenv("WORKBENCH_WORKERS", setting)
    parts = in_halves(made, ITEMS[:n], 10)
    assert len(parts) == 1 and [v for v, _ in parts[0]] == [x * x for x in ITEMS[:n]]
    assert {pid for _, pid in parts[0]} == {os.getpid()}


@pytest.mark.parametrize("how", ["raises", "dies"])
def test_a_failed_second_process_leaves_its_half_to_this_one_and_says_why(two_cores, caplog, how):
    here = os.getpid()

    def work(items):
        if os.getpid() != here:
            if how == "dies":
                os._exit(3)  # (killed, out of memory)
            raise MemoryError("no room")
        return made(items)

    with caplog.at_level(logging.WARNING):
        parts = in_halves(work, ITEMS, 10, what="squaring")
    assert [v for part in parts for v, _ in part] == [x * x for x in ITEMS]
    assert {pid for part in parts for _, pid in part} == {here}
    message = caplog.text
    assert "squaring" in message and ("MemoryError: no room" in message if how == "raises" else "exit code 3" in message)


def test_an_error_here_stops_the_second_process(two_cores, tmp_path):
    here, started = os.getpid(), tmp_path / "started"

    def work(items):
        if os.getpid() != here:
            (tmp_path / "pid").write_text(str(os.getpid()))
            (tmp_path / "pid").rename(started)
            import time

            time.sleep(60)
        else:
            while not started.exists():
                pass
            raise KeyError("stop")
        return items

    with pytest.raises(KeyError):
        in_halves(work, ITEMS, 10)
    with pytest.raises(ProcessLookupError):  # stopped and reaped, not left running for a minute
        os.kill(int(started.read_text()), 0)


def test_a_daemonic_process_never_starts_one():
    import multiprocessing

    queue = multiprocessing.get_context("fork").Queue()

    def run():
        queue.put(len(in_halves(made, ITEMS, 10)))

    child = multiprocessing.get_context("fork").Process(target=run, daemon=True)
    child.start()
    child.join(60)
    assert queue.get(timeout=5) == 1 and _halves.workers() >= 1


def test_a_core_taken_by_a_process_beside_this_one_is_left_to_it(two_cores):
    import multiprocessing
    import time

    helper = multiprocessing.get_context("fork").Process(target=time.sleep, args=(30,), daemon=True)
    helper.start()
    _halves.beside.add(helper)
    try:
        assert len(in_halves(made, ITEMS, 10)) == 1  # its core is taken
    finally:
        helper.terminate()
        helper.join()
    assert len(in_halves(made, ITEMS, 10)) == 2  # free again once it has ended


def test_what_is_made_while_the_collector_is_paused_skips_the_young_generations():
    """The next young collection does not go over every paper just read (0.08 s at 50,000)."""
    import gc

    from workbench._runtime.halves import collector_paused

    with collector_paused():
        made = [[i] for i in range(10_000)]
    young = {id(o) for generation in (0, 1) for o in gc.get_objects(generation=generation)}
    assert gc.isenabled() and not any(id(x) in young for x in made)
    assert any(x is made[0] for x in gc.get_objects(generation=2))
