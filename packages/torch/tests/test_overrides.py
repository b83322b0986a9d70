"""torch.overrides: functions that opt into __torch_function__ hand their calls to tensor-likes."""

import pytest

import ember.torch as torch
import ember.torch.nn.functional as F
from ember.torch import overrides


class Tagged:
    """A tensor-like that answers every overridable function with a tag."""

    def __init__(self, value):
        self.value = value

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("tagged", func.__name__, tuple(types))


class Refuses:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


class TaggedTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return "subclass first"


@overrides.wrap_torch_function(lambda x, y=None: (x, y))
def scaled(x, y=None):
    return x * 2


def test_protocol_detection_and_dispatch():
    t = torch.ones(2)
    assert not overrides.has_torch_function((t, 1.0)) and overrides.has_torch_function((t, Tagged(1)))
    assert overrides.has_torch_function_unary(Tagged(1)) and overrides.has_torch_function_variadic(t, Tagged(2))
    assert overrides.is_tensor_like(t) and overrides.is_tensor_like(Tagged(1)) and not overrides.is_tensor_like(3)
    assert scaled(t).tolist() == [2.0, 2.0]
    assert scaled(Tagged(3)) == ("tagged", "scaled", (Tagged,))
    # the first implementation that does not return NotImplemented wins; none at all is a TypeError
    assert overrides.handle_torch_function(scaled, (Refuses(), Tagged(1)), 0)[0] == "tagged"
    with pytest.raises(TypeError, match="no implementation found for 'test_overrides.scaled' on types that implement"):
        overrides.handle_torch_function(scaled, (Refuses(),), 0)
    with torch.DisableTorchFunction():
        assert not overrides.has_torch_function((Tagged(1),))
    assert overrides.has_torch_function((Tagged(1),))
    assert overrides.is_tensor_method_or_property(torch.Tensor.add) is True


def test_subclasses_are_asked_before_their_bases():
    class Base:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "base"

    class Derived(Base):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "derived"

    assert overrides.handle_torch_function(scaled, (Base(), Derived()), 0) == "derived"
    sub = torch.ones(1).as_subclass(TaggedTensor) if hasattr(torch.Tensor, "as_subclass") else None
    if sub is not None:
        assert overrides.handle_torch_function(scaled, (sub,), 0) == "subclass first"


def test_functional_reexports_the_protocol_helpers():
    import ember.torch.nn.functional as F

    class Like:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "handled"

    assert F.has_torch_function((Like(),)) and F.has_torch_function_unary(Like())
    assert F.has_torch_function_variadic(1, Like()) and not F.has_torch_function((torch.ones(1),))
    assert F.handle_torch_function(F.relu, (Like(),), Like()) == "handled"


def test_modes_see_public_functions_whole_as_pytorchs():
    import ember.torch.nn.functional as F

    seen = []

    class Count(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    x, w, b = torch.ones(4, 3), torch.ones(2, 3), torch.ones(2)
    with Count():
        y = F.linear(x, w, b)
        z = torch.add(y, 1, alpha=2)
        torch.mul(z, 2)
    assert seen == [F.linear, torch.add, torch.mul] and z.tolist() == [[6.0, 6.0]] * 4
    assert torch.add in torch.overrides.get_overridable_functions()[torch]


def test_backward_hands_plain_gradients_and_no_calls_to_the_protocol():
    calls = []

    class Unit(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    g = torch.tensor([1.0, 2.0]).as_subclass(Unit).requires_grad_()
    loss = (g * g).sum()
    calls.clear()
    loss.backward()
    assert calls == ["backward"]  # Tensor.backward itself is overridable, the engine's formulas are not
    assert type(g.grad) is torch.Tensor and g.grad.tolist() == [2.0, 4.0]


def test_a_duck_type_refusing_a_builtin_gets_pytorchs_message():
    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    with pytest.raises(TypeError, match=r"^Multiple dispatch failed for 'torch.sub'; all __torch_function__ handlers "
                                        r"returned NotImplemented:\n\n  - tensor subclass <class '.*Duck'>\n\nFor more "
                                        r"information, try re-running with TORCH_LOGS=not_implemented$"):
        torch.sub(Duck(), Duck())


def test_a_function_mode_sees_each_factory_once_by_its_name():
    # PyTorch 2.13 hands these to the mode as themselves (not the fill or sampling ops inside them, nor what
    # the mode's own call runs)
    seen = []

    class Names(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    x = torch.ones(2)
    with Names():
        zs = [torch.zeros(2), torch.ones(2), torch.empty(2), torch.full((2,), 1.0), torch.zeros_like(x),
              torch.ones_like(x), torch.empty_like(x), torch.full_like(x, 2.0), torch.arange(3),
              torch.linspace(0, 1, 3), torch.logspace(0, 1, 3), torch.eye(2), torch.rand(2), torch.randn(2),
              torch.randint(0, 3, (2,)), torch.randperm(3), torch.rand_like(x), torch.randn_like(x),
              torch.randint_like(x, 3), torch.tensor([1.0]), torch.as_tensor([1.0]), torch.scalar_tensor(1.0),
              torch.empty_strided((2,), (1,))]
    assert seen == ["zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "arange",
                    "linspace", "logspace", "eye", "rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                    "randint_like", "tensor", "as_tensor", "scalar_tensor", "empty_strided"]
    assert zs[3].tolist() == [1.0, 1.0] and zs[8].tolist() == [0, 1, 2] and zs[11].tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_a_function_mode_sees_the_new_methods_as_themselves():
    """`x.new_zeros(3)` reaches a mode as `Tensor.new_zeros` (PyTorch's), not as the `full` it calls."""
    seen = []

    class Funcs(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    x = torch.ones(2, dtype=torch.float64)
    with Funcs():
        made = [x.new_zeros(3), x.new_ones((2, 2)), x.new_full((2,), 7.0), x.new_empty(4), x.new_tensor([1, 2])]
    names = ["new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"]
    assert len(seen) == 5 and all(f is getattr(torch.Tensor, n) for f, n in zip(seen, names))
    assert [m.dtype for m in made] == [torch.float64] * 5  # the tensor's dtype, new_tensor's too
    assert made[0].tolist() == [0.0, 0.0, 0.0] and made[2].tolist() == [7.0, 7.0] and made[1].shape == (2, 2)


def test_a_function_mode_sees_the_fft_transforms_as_themselves():
    """`torch.fft.rfft(x)` reaches a mode as `torch.fft.rfft` (PyTorch's `fft_rfft`), once, not as its primitives."""
    seen = []

    class Funcs(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    x = torch.arange(8.0)
    with Funcs():
        spec = torch.fft.rfft(x)
        back = torch.fft.irfft(spec, n=8)
    assert seen == [torch.fft.rfft, torch.fft.irfft] and torch.allclose(back, x, atol=1e-5)


def test_ignored_functions_are_pytorchs_factories_and_global_state():
    ignored = torch.overrides.get_ignored_functions()
    for f in (torch.tensor, torch.zeros, torch.arange, torch.is_tensor, torch.manual_seed, torch.set_printoptions,
              torch.Tensor.new_zeros, torch.Tensor.as_subclass, F.hardswish):
        assert f in ignored, f
    for f in (torch.add, torch.Tensor.view, torch.stack, F.relu, torch.linalg.norm):
        assert f not in ignored, f


def test_overridable_functions_by_namespace_as_pytorchs():
    found = torch.overrides.get_overridable_functions()
    assert F.relu in found[torch.nn.functional] and F.conv2d in found[torch.nn.functional]
    assert torch.linalg.norm in found[torch.linalg] and torch.fft.rfft in found[torch.fft]
    assert torch.special.expit in found[torch.special]
    assert torch.tensor not in found[torch] and F.hardswish not in found[torch.nn.functional]


def test_resolve_name_and_property_getters():
    r = torch.overrides.resolve_name
    assert r(F.relu) == "torch.nn.functional.relu" and r(torch.linalg.norm) == "torch.linalg.norm"
    assert r(torch.fft.rfft) == "torch.fft.rfft" and r(torch.stack) == "torch.stack"
    assert r(torch.Tensor.view) == "torch.Tensor.view" and r(lambda t: t) is None
    assert torch.overrides.is_tensor_method_or_property(torch.Tensor.shape.__get__)
    assert not torch.overrides.is_tensor_method_or_property(torch.stack)


def test_nn_parameter_module_offers_the_disabled_impl_for_subclasses():
    class Fast(torch.Tensor):
        __torch_function__ = torch.nn.parameter._disabled_torch_function_impl

    f = torch.arange(3.0).as_subclass(Fast)
    assert torch.nn.parameter._disabled_torch_function_impl is torch.overrides._disabled_torch_function_impl
    assert type(f).__name__ == "Fast" and type(f + 1) is torch.Tensor and (f + 1).tolist() == [1.0, 2.0, 3.0]
