"""Tensor subclasses survive ops, and `__torch_function__` gets PyTorch's calls (NOTE [ Tensor subclasses ])."""

import copy
import pickle

import numpy as np
import pytest

import ember.core as ec
from ember.core import overrides
from ember.core.overrides import _disabled_torch_function_impl


class MyT(ec.Tensor):
    pass


class Plain(ec.Tensor):
    __torch_function__ = _disabled_torch_function_impl


LOG = []


class LoggingTensor(ec.Tensor):
    """PyTorch's docs example: log each call, then do what Tensor does."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        LOG.append((func, types))
        return super().__torch_function__(func, types, args, kwargs)


def _x(cls=MyT):
    return ec.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]).as_subclass(cls)


SNIPPETS = {
    "add": lambda x: x + 1, "radd": lambda x: 1 + x, "mul": lambda x: x * x, "div": lambda x: x / 2,
    "neg": lambda x: -x, "pow": lambda x: x ** 2, "matmul": lambda x: x @ x.t(), "eq": lambda x: x == 1,
    "sum": lambda x: x.sum(), "sum_dim": lambda x: x.sum(1), "mean": lambda x: ec.mean(x), "amax": lambda x: x.amax(),
    "view": lambda x: x.view(6), "reshape": lambda x: x.reshape(3, 2), "t": lambda x: x.t(), "index": lambda x: x[0],
    "slice": lambda x: x[:, 1:], "mask": lambda x: x[x > 0], "relu": lambda x: ec.relu(x), "exp": lambda x: x.exp(),
    "cat": lambda x: ec.cat([x, x]), "where": lambda x: ec.where(x > 0, x, 0.0), "clone": lambda x: x.clone(),
    "to": lambda x: x.to(ec.float64), "softmax": lambda x: ec.softmax(x, 1),
    "plain_first": lambda x: ec.ones(2, 3) * x, "torch_add": lambda x: ec.add(ec.ones(2, 3), x, alpha=2),
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_results_keep_the_subclass_and_the_values(name):
    x = _x()
    r, ref = SNIPPETS[name](x), SNIPPETS[name](_x(ec.Tensor))
    assert type(r) is MyT and type(ref) is ec.Tensor
    np.testing.assert_array_equal(np.asarray(r.tolist()), np.asarray(ref.tolist()))


def test_tuples_lists_and_iteration_keep_the_subclass():
    x = _x()
    values, indices = x.max(1)
    assert type(values) is MyT and type(indices) is MyT and values.tolist() == [3.0, 5.0]
    assert [type(r) for r in x] == [MyT, MyT] and [type(r) for r in x.unbind(1)] == [MyT] * 3
    assert type(x.sort(1).values) is MyT and type(x.size()) is ec.Size and x.dim() == 2


def test_in_place_ops_return_the_subclass_instance_itself():
    x = _x()
    assert x.add_(1) is x and type(x) is MyT and x.tolist()[0] == [2.0, -1.0, 4.0]
    x[0, 0] = 7.0
    assert x.tolist()[0][0] == 7.0 and type(x) is MyT


def test_a_plain_input_written_in_place_keeps_its_class():
    plain = ec.ones(3)
    r = plain.add_(ec.ones(3).as_subclass(MyT))
    assert type(plain) is ec.Tensor and type(r) is MyT and r.tolist() == [2.0, 2.0, 2.0]
    assert r.data_ptr() == plain.data_ptr()


def test_make_subclass_new_and_extra_attributes():
    class Tagged(ec.Tensor):
        @staticmethod
        def __new__(cls, data, tag):
            return ec.Tensor._make_subclass(cls, data)

        def __init__(self, data, tag):
            self.tag = tag

    t = Tagged(ec.arange(3.0), "a")
    assert type(t) is Tagged and t.tag == "a" and t.tolist() == [0.0, 1.0, 2.0]
    r = t * 2
    assert type(r) is Tagged and not hasattr(r, "tag")  # as PyTorch: a result is a new object
    via_new = MyT(ec.arange(2.0))
    assert type(via_new) is MyT and via_new.tolist() == [0.0, 1.0]
    with pytest.raises(TypeError, match="does not inherit from Tensor"):
        ec.Tensor._make_subclass(int, ec.ones(1))


def test_pickle_and_deepcopy_keep_the_subclass_and_its_attributes():
    t = _x()
    t.note = "w"
    for r in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert type(r) is MyT and r.note == "w" and r.tolist() == t.tolist()


def test_disabled_torch_function_impl_opts_out():
    x = _x(Plain)
    assert type(x) is Plain
    assert type(x + 1) is ec.Tensor and type(x.sum()) is ec.Tensor and type(x[0]) is ec.Tensor
    assert type(ec.relu(x)) is ec.Tensor and not overrides.has_torch_function((x,))


def test_logging_tensor_sees_the_public_functions_and_types():
    x = _x(LoggingTensor)
    LOG.clear()
    x + 1
    x.sum()
    ec.sum(x)
    x[0]
    ec.relu(x)
    x.view(6)
    assert [f for f, _ in LOG] == [ec.Tensor.__add__, ec.Tensor.sum, ec.sum, ec.Tensor.__getitem__, ec.relu,
                                   ec.Tensor.view]
    assert all(types == (LoggingTensor,) for _, types in LOG)
    LOG.clear()
    r = x * 2 + 1  # the default runs each function with the protocol off: one call each
    assert type(r) is LoggingTensor and [f.__name__ for f, _ in LOG] == ["mul", "add"]


def test_subclasses_are_asked_before_their_bases_and_not_implemented_is_a_type_error():
    calls = []

    class Base(ec.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(("base", types))
            return super().__torch_function__(func, types, args, kwargs)

    class Derived(Base):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(("derived", types))
            return NotImplemented

    b, d = ec.ones(2).as_subclass(Base), ec.ones(2).as_subclass(Derived)
    with pytest.raises(TypeError, match="^Multiple dispatch failed for 'torch.add'; all __torch_function__ handlers "
                                        "returned NotImplemented:\n\n  - tensor subclass <class '.*Derived'>\n  - "
                                        "tensor subclass <class '.*Base'>\n\nFor more information, try re-running "
                                        "with TORCH_LOGS=not_implemented$"):
        ec.add(b, d)  # Base's default refuses a type that is not its own class or a base of it, as PyTorch's
    assert calls == [("derived", (Derived, Base)), ("base", (Derived, Base))]
    calls.clear()
    assert type(ec.add(b, b)) is Base and calls == [("base", (Base,))]

    class Refuses(ec.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    with pytest.raises(TypeError, match="Multiple dispatch failed for 'torch.add'; all __torch_function__ handlers"):
        ec.add(ec.ones(1).as_subclass(Refuses), 1)


HANDLED = {}


class ScalarTensor:
    """PyTorch's "Extending torch" example: an N x N diagonal matrix of one value, not a Tensor."""

    def __init__(self, N, value):
        self._N, self._value = N, value

    def tensor(self):
        return self._value * ec.eye(self._N)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED or not all(issubclass(t, (ec.Tensor, ScalarTensor)) for t in types):
            return NotImplemented
        return HANDLED[func](*args, **kwargs)


def _mean(input):
    return float(input._value) / input._N


HANDLED[ec.mean] = _mean


def test_a_tensor_like_that_is_no_tensor():
    assert ec.mean(ScalarTensor(5, 2)) == 0.4
    with pytest.raises(TypeError, match="Multiple dispatch failed for 'torch.add'"):
        ec.add(ScalarTensor(5, 2), 1)  # not in HANDLED: every implementation returned NotImplemented


def test_a_mode_intercepts_every_call_and_is_off_while_it_runs():
    seen = []

    class Mode(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    a = ec.ones(2)
    with Mode():
        r = ec.relu(a + 1)
        assert overrides.has_torch_function((a,))
    assert seen == ["add", "relu"] and r.tolist() == [2.0, 2.0]
    seen.clear()
    a + 1
    assert seen == [] and not overrides.has_torch_function((a,))

    class Doubling(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {})) * 2

    with Doubling():
        assert (a + 1).tolist() == [4.0, 4.0]  # the mode's own `* 2` is not intercepted again
        with overrides.DisableTorchFunction():
            assert (a + 1).tolist() == [2.0, 2.0]


def test_disable_torch_function_subclass_gives_plain_tensors():
    x = _x()
    with overrides.DisableTorchFunctionSubclass():
        assert type(x + 1) is ec.Tensor and type(x.sum()) is ec.Tensor
    assert type(x + 1) is MyT


def test_methods_attached_after_a_subclass_is_defined_reach_it():
    from ember.core.methods import attach

    attach("subclass_test_twice", lambda self: self * 2)
    try:
        assert "subclass_test_twice" in MyT.__dict__
        r = _x().subclass_test_twice()
        assert type(r) is MyT and r.tolist()[0] == [2.0, -4.0, 6.0]
    finally:
        delattr(ec.Tensor, "subclass_test_twice")
        for cls in list(overrides._SUBCLASSES):
            cls.__dict__.get("subclass_test_twice") and delattr(cls, "subclass_test_twice")


def test_repr_names_the_subclass_as_pytorch():
    assert repr(ec.tensor([1.0, 2.0]).as_subclass(MyT)) == "MyT([1., 2.])"
    assert repr(_x(LoggingTensor)).startswith("LoggingTensor([[ 1., -2.,  3.],\n               [-4.")


def test_the_protocol_state_is_per_thread():
    import threading

    seen = []

    class Mode(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(threading.current_thread().name)
            return func(*args, **(kwargs or {}))

    out = {}

    def other():
        out["type"] = type(_x() + 1)
        out["plain"] = (ec.ones(1) + 1).tolist()

    with Mode(), overrides.DisableTorchFunctionSubclass():
        t = threading.Thread(target=other, name="other")
        t.start()
        t.join()
        ec.ones(1) + 1
    assert out == {"type": MyT, "plain": [2.0]}  # neither the mode nor the disabling reached the other thread
    assert seen and set(seen) == {threading.current_thread().name}


def test_checking_turns_the_op_check_on_for_a_block_only():
    """`overrides.checking()`: a tensor-like used only inside the block (fx's Proxy) reaches `__torch_function__`
    at op entries; after it the entries are unchecked again, so eager ops cost what they did (a fresh process:
    this module's subclasses keep the check on here)."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import ember.core as ec
        from ember.core import dispatch, overrides

        class Like:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return "seen " + func.__name__

        assert dispatch._protocol is None
        with overrides.checking():
            print(ec.exp(Like()))
        print(dispatch._protocol is None)
        class Sub(ec.Tensor):
            pass
        with overrides.checking():
            pass
        print(dispatch._protocol is None)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["seen exp", "True", "False"]
