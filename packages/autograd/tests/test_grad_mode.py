"""Grad modes: context managers, decorators (functions and generators), plain calls, threads."""

from __future__ import annotations

import threading

import pytest

import ember.autograd as E


def test_no_grad_context_and_decorators():
    x = E.ones(2, requires_grad=True)
    with E.no_grad():
        assert not E.is_grad_enabled() and not (x * 2).requires_grad
        with E.enable_grad():
            assert (x * 2).requires_grad
    assert E.is_grad_enabled()

    @E.no_grad()
    def f(t):
        return t * 2

    @E.no_grad
    def g(t):
        return t * 2

    assert not f(x).requires_grad and not g(x).requires_grad and f.__name__ == "f"


def test_no_grad_on_generators_applies_at_each_resume():
    x = E.ones(1, requires_grad=True)

    @E.no_grad()
    def gen():
        for _ in range(2):
            yield (x * 2).requires_grad, E.is_grad_enabled()

    items = []
    for item in gen():
        items.append(item)
        assert E.is_grad_enabled()
    assert items == [(False, False), (False, False)]


def test_set_grad_enabled_as_call_context_and_decorator():
    E.set_grad_enabled(False)
    try:
        assert not E.is_grad_enabled()
    finally:
        E.set_grad_enabled(True)
    with E.set_grad_enabled(False):
        assert not E.is_grad_enabled()
    assert E.is_grad_enabled()

    @E.set_grad_enabled(False)
    def f():
        return E.is_grad_enabled()

    assert E.is_grad_enabled() and f() is False and E.is_grad_enabled()


def test_inference_mode():
    x = E.ones(2, requires_grad=True)
    with E.inference_mode():
        assert E.is_inference_mode_enabled() and not (x * 2).requires_grad
        v = x[0:1]
        assert v._base is None  # views are not tracked
    with E.inference_mode(False):
        assert (x * 2).requires_grad

    @E.inference_mode
    def f():
        return E.is_inference_mode_enabled()

    assert f() and not E.is_inference_mode_enabled()


def test_grad_mode_is_per_thread():
    results = {}
    entered, release = threading.Event(), threading.Event()

    def other():
        entered.wait()
        x = E.ones(1, requires_grad=True)
        results["other"] = (E.is_grad_enabled(), (x * 2).requires_grad)
        release.set()

    t = threading.Thread(target=other)
    t.start()
    with E.no_grad():
        entered.set()
        release.wait()
        results["main"] = E.is_grad_enabled()
    t.join()
    assert results == {"other": (True, True), "main": False}


def test_is_inference_marks_what_ops_make_in_inference_mode():
    x = E.ones(3)
    with E.inference_mode():
        b = x * 2
        v = x[1:]
        x.add_(1)
        c = b[1:]
        assert E.is_inference(b) and c.is_inference()
        assert not v.is_inference() and not x.is_inference()  # a view of, or a write into, a normal tensor
    assert b[:1].is_inference() and not (b + 1).is_inference()
    with E.no_grad():
        assert not (x * 2).is_inference()
    with E.inference_mode(False):
        assert not (x * 2).is_inference()
    with pytest.raises(TypeError, match=r"is_inference\(\): argument 'input' \(position 1\) must be Tensor, not int"):
        E.is_inference(3)
