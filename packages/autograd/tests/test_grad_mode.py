"""Grad modes: context managers, decorators (functions and generators), plain calls, threads."""

from __future__ import annotations

import threading

import numpy as np
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


def test_set_grad_enabled_prints_as_pytorchs():
    mode = E.set_grad_enabled(False)
    try:
        assert repr(mode) == str(mode) == "torch.autograd.grad_mode.set_grad_enabled(mode=False)"
    finally:
        E.set_grad_enabled(True)


def test_inference_mode():
    x = E.ones(2, requires_grad=True)
    with E.inference_mode():
        assert E.is_inference_mode_enabled() and not (x * 2).requires_grad
        v = x[0:1]
        assert v._base is x and v.requires_grad and v.is_leaf  # PyTorch's: a view as its base, with no edge
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


def test_factories_in_inference_mode_make_inference_tensors():
    x = E.ones(3)
    with E.inference_mode():
        made = [E.ones(3), E.tensor([1.0, 2.0]), E.arange(3), E.randn(2), E.from_numpy(np.ones(2)), E.empty(2),
                E.full((2,), 3.0), E.eye(2), E.zeros_like(x), x * 2]
        assert all(t.is_inference() for t in made)
        assert not x[:1].is_inference() and not x.add_(0).is_inference()  # a view of, a write into, a normal one
        with E.inference_mode(False):  # PyTorch's InferenceMode(false) turns grad mode on
            assert E.is_grad_enabled() and not E.is_inference_mode_enabled() and not E.ones(2).is_inference()
    assert not E.ones(2).is_inference() and not (made[0] * 2).is_inference()


def test_enable_grad_inside_inference_mode_reports_grad_mode_but_records_nothing():
    """PyTorch's inference mode leaves out autograd whatever grad mode says: enable_grad inside it makes
    is_grad_enabled() True, yet ops on a tensor that requires grad make inference tensors without a grad_fn
    (classifier guidance inside an inference_mode sampler meets this)."""
    w = E.ones(3, requires_grad=True)
    x = E.ones(3)
    with E.inference_mode():
        with E.enable_grad():
            assert E.is_grad_enabled() and E.is_inference_mode_enabled()
            y = w * x
            assert y.is_inference() and not y.requires_grad and y.grad_fn is None
            with E.no_grad():
                assert not E.is_grad_enabled()
            assert E.is_grad_enabled()
            with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have"):
                E.autograd.grad(y.sum(), w)
        with E.set_grad_enabled(True):
            assert E.is_grad_enabled() and (w * 2).grad_fn is None
        assert not E.is_grad_enabled()
    assert E.is_grad_enabled() and (w * x).grad_fn is not None


def test_detach_and_view_dtype_in_inference_mode_are_pytorchs():
    """detach() of a normal tensor inside inference mode is a normal tensor, of an inference one an inference
    tensor (inside the mode or out); view(dtype) of a normal tensor inside the mode is an inference tensor."""
    x = E.ones(2)
    with E.inference_mode():
        assert not x.detach().is_inference()
        assert x.view(E.int32).is_inference()
        a = E.ones(3)
        assert a.detach().is_inference()
    assert a.detach().is_inference() and a[1:].detach().is_inference() and not x.detach().is_inference()


def test_views_copies_and_aliases_of_inference_tensors_are_pytorchs():
    """Outside the mode a view of an inference tensor is an inference tensor that autograd does not track as a
    view (no `_base`); deepcopy and pickle make normal tensors; as_subclass keeps the mark."""
    import copy
    import pickle

    with E.inference_mode():
        a = E.ones(3)
    v = a[1:]
    assert v.is_inference() and v._base is None and not v._is_view()
    assert all(p.is_inference() for p in a.unbind(0))
    assert not copy.deepcopy(a).is_inference() and not pickle.loads(pickle.dumps(a)).is_inference()
    assert a.as_subclass(E.Tensor).is_inference()


_INPLACE = "Inplace update to inference tensor outside InferenceMode is not allowed"


def test_inference_tensors_refuse_writes_saving_and_requires_grad_outside_the_mode():
    with E.inference_mode():
        a = E.ones(3)
    w = E.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        w * a
    (w + a).sum().backward()  # add saves neither input
    assert w.grad.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside InferenceMode"):
        a.requires_grad_()
    assert a.tolist() == [1.0, 1.0, 1.0] and not a.requires_grad_(False).requires_grad
    # PyTorch's kernel writes before the version bump refuses: a caught error leaves the new values, as PyTorch's
    for write, want in ((lambda t: t.add_(1), [2.0, 2.0, 2.0]), (lambda t: t.mul_(w * 2), [2.0, 2.0, 2.0]),
                        (lambda t: t.__setitem__(0, 5.0), [5.0, 1.0, 1.0]), (lambda t: t[:2].zero_(), [0.0, 0.0, 1.0]),
                        (lambda t: E.add(t, 1, out=t), [2.0, 2.0, 2.0]), (lambda t: t.copy_(w * 3), [3.0, 3.0, 3.0])):
        for grad_mode in (E.enable_grad, E.no_grad):
            with E.inference_mode():
                t = E.ones(3)
            with grad_mode(), pytest.raises(RuntimeError, match=_INPLACE):
                write(t)
            assert t.tolist() == want and not t.requires_grad and t.grad_fn is None
    with E.inference_mode():
        assert a.add_(1) is a and a.tolist() == [2.0, 2.0, 2.0]  # inside the mode it may be written
    b = a.clone()
    b.add_(1)  # a clone made outside the mode is a normal tensor
    assert not b.is_inference()


def test_inference_mode_matches_pytorch():
    torch = pytest.importorskip("torch")

    def run(m):
        out = []
        with m.inference_mode():
            a = m.ones(3)
            out += [a.is_inference(), m.tensor([1.0]).is_inference(), m.is_inference_mode_enabled()]
            with m.inference_mode(False):
                out += [m.is_grad_enabled(), m.is_inference_mode_enabled(), m.ones(1).is_inference()]
        w = m.ones(3, requires_grad=True)
        for f in (lambda: w * a, lambda: a.add_(1), lambda: a.requires_grad_(), lambda: a[1:].mul_(2)):
            try:
                f()
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e))

        @m.inference_mode()
        def g(x):
            return x * 2

        out += [g(w).is_inference(), g(w).requires_grad, m.is_inference_mode_enabled()]
        return out

    assert run(E) == run(torch)


def test_set_grad_enabled_takes_a_bool_only():
    """PyTorch's argument parser: 1, None or a bool tensor are refused with its TypeError; the mode is unchanged."""
    for v, name in ((1, "int"), (None, "NoneType"), ("x", "str"), (np.bool_(True), "numpy.bool")):
        with pytest.raises(TypeError, match=f"^set_grad_enabled\\(\\): argument 'enabled' \\(position 1\\) must be "
                                            f"bool, not {name}$"):
            E.set_grad_enabled(v)
        assert E.is_grad_enabled()


def test_inference_tensors_have_no_version_counter():
    with E.inference_mode():
        t = E.ones(2)
        with pytest.raises(RuntimeError, match="^Inference tensors do not track version counter.$"):
            t._version
    assert E.ones(2)._version == 0


def test_view_made_in_no_grad_refuses_in_place_write_with_grad_on():
    """PyTorch's CreationMeta.NO_GRAD_MODE: such a view is written in place only inside no_grad again."""
    msg = "^A view was created in no_grad mode and is being modified inplace with grad mode enabled"
    w = E.ones(3, 4, requires_grad=True)
    with E.no_grad():
        v = w[1]
        vv = w.view(12)[2:]
    for write in (lambda: v.mul_(2), lambda: vv[1:].zero_(), lambda: v.copy_(E.zeros(4))):
        with pytest.raises(RuntimeError, match=msg):
            write()
    with E.no_grad():
        v.mul_(2)
    assert float(w.detach().sum()) == 16.0
    y = E.ones(3)  # a base without grad: refused only when the other operand requires grad
    with E.no_grad():
        yv = y[1:]
    yv.mul_(2)
    with pytest.raises(RuntimeError, match=msg):
        yv.mul_(E.ones(2, requires_grad=True))
    z = E.ones(3) * 1
    z[1:].add_(E.ones(2, requires_grad=True))  # a view made with grad on takes the write
    assert z.requires_grad
    with E.inference_mode():
        iv = w[1:]
    with pytest.raises(RuntimeError, match="^A view was created in inference mode and is being modified inplace in "
                                           "normal mode"):
        iv.mul_(2)


def test_view_reads_requires_grad_from_its_base_each_time():
    # PyTorch's: `requires_grad_()` on the base after the view was made shows through the view, and goes again
    w = E.ones(3)
    with E.no_grad():
        v = w[1:]
        u = v[:1]
    later = w.view(3)
    w.requires_grad_()
    assert v.requires_grad and u.requires_grad and later.requires_grad and v.is_leaf and v.grad_fn is None
    assert not w.detach().requires_grad and not w.detach()[1:].requires_grad
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode"):
        v.mul_(2)
    w.requires_grad_(False)
    assert not v.requires_grad and not later.requires_grad


def test_view_made_in_no_grad_requires_grad_as_its_base_but_has_no_edge():
    """PyTorch's view made in no_grad requires grad (a leaf without grad_fn); what uses it gets a (None, 0) edge."""
    w = E.ones(3, requires_grad=True)
    with E.no_grad():
        v = w[1:]
        assert not E.ones(3)[1:].requires_grad
    assert v.requires_grad and v.is_leaf and v.grad_fn is None and v._base is w
    z = v * 3
    assert z.requires_grad and z.grad_fn.next_functions == ((None, 0), (None, 0))
    z.sum().backward()
    assert v.grad is None and w.grad is None
    v2 = v[:1]  # a view of it made with grad on records the view
    assert v2.requires_grad and type(v2.grad_fn).__name__ == "SliceBackward0"
    with pytest.raises(RuntimeError, match="^Can't call numpy\\(\\) on Tensor that requires grad"):
        v.numpy()


_STALE = "^A view was created in no_grad mode and its base or another view of its base has been modified inplace with "


@pytest.mark.parametrize("write_in_no_grad", [False, True])
def test_grad_fn_of_a_no_grad_view_refused_after_its_base_is_written(write_in_no_grad):
    """PyTorch's CreationMeta check: once the storage of a view made in no_grad moved on and its base requires
    grad, reading its grad_fn (or using it in an op) raises; before the write it is None."""
    base = E.ones(4, requires_grad=True).clone()
    with E.no_grad():
        v = base[:2]
    assert v.grad_fn is None
    if write_in_no_grad:
        with E.no_grad():
            base.mul_(2)
    else:
        base.mul_(2)
    with pytest.raises(RuntimeError, match=_STALE + "grad mode enabled. Given that this use case is ambiguous"):
        v.grad_fn
    with pytest.raises(RuntimeError, match=_STALE):
        v.sum()


def test_grad_fn_of_a_multi_view_output_refused_after_its_base_starts_requiring_grad():
    base = E.zeros(2, 2)
    v = base.unbind(0)[0]
    base.add_(E.ones(2, 2, requires_grad=True))
    with pytest.raises(RuntimeError, match=_STALE + "grad mode enabled. This view is the output of a function that "
                                                    "returns multiple views."):
        v.grad_fn
