"""torch.futures.Future: values, errors, callback chains, driven completion, collect_all."""

import threading

import pytest

from ember.core.futures import Future, collect_all, wait_all


def test_set_result_then_wait_value_and_callbacks_in_order():
    f = Future()
    seen = []
    f.add_done_callback(lambda fut: seen.append(("cb", fut.value())))
    chained = f.then(lambda fut: fut.value() * 2).then(lambda fut: fut.value() + 1)
    assert not f.done() and not chained.done()
    with pytest.raises(RuntimeError, match="not completed"):
        f.value()
    f.set_result(20)
    assert f.done() and f.wait() == 20 and seen == [("cb", 20)]
    assert chained.wait() == 41
    late = []
    f.add_done_callback(lambda fut: late.append(fut.value()))  # a callback on a done future runs at once
    assert late == [20]
    with pytest.raises(RuntimeError, match="only be marked completed once"):
        f.set_result(1)


def test_errors_reach_wait_value_and_the_futures_chained_after():
    f = Future()
    chained = f.then(lambda fut: fut.value() + 1)
    f.set_exception(ValueError("boom"))
    with pytest.raises(ValueError, match="boom"):
        f.wait()
    with pytest.raises(ValueError, match="boom"):
        chained.wait()
    g = Future()
    bad = g.then(lambda fut: 1 / 0)
    g.set_result(0)
    with pytest.raises(ZeroDivisionError):
        bad.value()
    with pytest.raises(TypeError, match="expects an exception"):
        Future().set_exception("not an exception")


def test_a_driven_future_completes_through_its_drive_function():
    polls = []

    def drive(block):
        polls.append(block)
        if block or len(polls) >= 3:
            f.set_result("done")

    f = Future(drive=drive)
    child = f.then(lambda fut: fut.value().upper())
    assert not child.done() and not f.done()   # two non-blocking polls, the second through the parent
    assert child.done() and child.value() == "DONE" and polls == [False, False, False]
    g = Future(drive=lambda block: g.set_result(7) if block else None)
    assert g.then(lambda fut: fut.value() + 1).wait() == 8


def test_wait_blocks_until_another_thread_sets_the_result():
    f = Future()
    threading.Timer(0.05, f.set_result, args=(5,)).start()
    assert f.wait() == 5


def test_collect_all_and_wait_all():
    fs = [Future() for _ in range(3)]
    both = collect_all(fs)
    fs[0].set_result(0)
    fs[2].set_result(2)
    assert not both.done()
    fs[1].set_result(1)
    assert both.wait() == fs and wait_all(fs) == [0, 1, 2]
    assert collect_all([]).wait() == []
