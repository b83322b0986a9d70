"""Custom Functions: ctx API, non-tensor arguments and outputs, errors, once_differentiable."""

from __future__ import annotations

import re

import pytest
from ag_util import make

import ember.autograd as E
from ember.autograd import Function, once_differentiable


class MulConst(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.save_for_backward(x)
        return x * k, "tag"

    @staticmethod
    def backward(ctx, grad, _unused):
        (x,) = ctx.saved_tensors
        assert ctx.needs_input_grad == (True, False)
        return grad * ctx.k, None


def test_function_apply_records_a_named_node():
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y, tag = MulConst.apply(x, 3.0)
    assert tag == "tag" and y.grad_fn.name() == "MulConstBackward"
    assert y.grad_fn.next_functions[0][0].variable is x
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_function_node_prints_module_qualified_as_a_python_node():
    # PyTorch prints a Function's node as a Python object (`<torch.autograd.function.MulConstBackward object at
    # 0x...>`), unlike its C++ nodes (`<MulBackward0 object at 0x...>`)
    y, _ = MulConst.apply(E.tensor([1.0], requires_grad=True), 2.0)
    assert re.fullmatch(r"<ember\.autograd\.function\.MulConstBackward object at 0x[0-9a-f]+>", repr(y.grad_fn))
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr((y * 2).grad_fn))


def test_function_without_grad_returns_plain_outputs():
    y, _ = MulConst.apply(E.tensor([1.0]), 2.0)
    assert y.grad_fn is None and not y.requires_grad
    with E.no_grad():
        y, _ = MulConst.apply(E.tensor([1.0], requires_grad=True), 2.0)
    assert not y.requires_grad


def test_function_gradcheck_and_saved_output():
    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, grad):
            (r,) = ctx.saved_tensors
            return grad * r

    assert E.gradcheck(Exp.apply, (make((2, 3)),))
    assert E.gradgradcheck(Exp.apply, (make((2, 3)),))


def test_setup_context_style():
    class Cube(Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    assert E.gradcheck(Cube.apply, (make((3,)),))


def test_wrong_number_of_gradients():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = E.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape("function BadBackward returned an incorrect number of "
                                                     "gradients (expected 2, got 1)")):
        Bad.apply(x, x).sum().backward()


def test_gradient_of_wrong_shape_names_the_function():
    class BadShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad.sum(0)

    x = E.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape("Function BadShapeBackward returned an invalid gradient at "
                                                     "index 0 - got [3] but expected shape compatible with [2, 3]")):
        BadShape.apply(x).sum().backward()


def test_gradient_for_non_tensor_input_raises():
    class BadNone(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    with pytest.raises(RuntimeError, match="returned a gradient different than None at position 2"):
        BadNone.apply(E.ones(2, requires_grad=True), 2.0).sum().backward()


def test_mark_dirty_and_non_differentiable():
    class AddOneInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            mask = x > 1.5
            ctx.mark_non_differentiable(mask)
            return x, mask

        @staticmethod
        def backward(ctx, grad, _):
            return grad

    leaf = E.tensor([1.0, 2.0], requires_grad=True)
    y = leaf * 1.0
    out, mask = AddOneInplace.apply(y)
    assert out is y and y.grad_fn.name() == "AddOneInplaceBackward" and not mask.requires_grad
    out.sum().backward()
    assert leaf.grad.tolist() == [1.0, 1.0]
    # PyTorch's words for a dirtied leaf ("has been used"); a view of one keeps "is being used" (with one output: a
    # Function of several outputs that dirties a view raises that first)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad has been used in an in-place"):
        AddOneInplace.apply(E.tensor([1.0], requires_grad=True))
    with pytest.raises(RuntimeError, match="^If your Function modifies inplace an input that is a view"):
        AddOneInplace.apply(E.tensor([1.0, 2.0], requires_grad=True)[:1])
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used"):
        _Triple.apply(E.tensor([1.0, 2.0], requires_grad=True)[:1])


def test_materialize_grads_flag():
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 1.0, x * 2.0

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2)
            return g1, None

    x = E.ones(2, requires_grad=True)
    Two.apply(x, True)[0].sum().backward()
    Two.apply(x, False)[0].sum().backward()
    assert seen[0].tolist() == [0.0, 0.0] and seen[1] is None


def test_saved_tensors_version_check_and_release():
    class Save(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2

    h = E.ones(2, requires_grad=True) * 1.0
    y = Save.apply(h)
    h.add_(1)
    with pytest.raises(RuntimeError, match="has been modified by an inplace operation"):
        y.sum().backward()
    y = Save.apply(E.ones(2, requires_grad=True) * 1.0)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()


def test_once_differentiable_blocks_double_backward():
    class Sq(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = E.tensor([3.0], requires_grad=True)
    go = E.ones(1, requires_grad=True)
    (g,) = E.grad(Sq.apply(x), x, go, create_graph=True)
    assert g.item() == 6.0 and g.grad_fn.name() == "Error" and repr(g).endswith("grad_fn=<Error>)")
    # As PyTorch's, the error node leads to fresh leaves: gradients asked of x or go are unused, not errors.
    assert E.grad(g, [x, go], allow_unused=True) == (None, None)
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        g.sum().backward()


def test_input_returned_unchanged_becomes_a_new_output():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 5

    x = E.ones(2, requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_mark_dirty_bumps_the_version_and_refuses_a_leaf_as_pytorch():
    import pytest

    import ember.autograd as E

    class AddOne(E.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.mark_dirty(t)
            return t.add_(1)

        @staticmethod
        def backward(ctx, g):
            return g

    base = E.tensor([1.0, 2.0], requires_grad=True).clone()
    out = AddOne.apply(base)
    assert out is base and base._version == 2
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad has been used in an in-place "
                                           "operation.$"):
        AddOne.apply(E.tensor([1.0], requires_grad=True))


def test_functorch_transforms_refuse_functions_as_pytorch():
    import pytest

    import ember.autograd as E
    from ember.autograd.func import grad, vmap

    class Old(E.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class NoRule(E.Function):
        @staticmethod
        def forward(t):
            return t * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Rule(NoRule):
        generate_vmap_rule = True

    x = E.ones(2, 3)
    with pytest.raises(RuntimeError, match="it must override the setup_context staticmethod"):
        vmap(Old.apply)(x)
    with pytest.raises(RuntimeError, match="^In order to use an autograd.Function with functorch transforms"):
        grad(lambda t: Old.apply(t).sum())(x)
    with pytest.raises(RuntimeError, match="^You tried to vmap over NoRule, but it does not have vmap support."):
        vmap(NoRule.apply)(x)
    assert grad(lambda t: NoRule.apply(t).sum())(x).tolist() == [[2.0] * 3] * 2
    assert vmap(Rule.apply)(x).tolist() == [[2.0] * 3] * 2
    assert Old.apply(x).tolist() == [[2.0] * 3] * 2


def test_needs_input_grad_is_known_inside_forward():
    seen = []

    class Probe(E.Function):
        @staticmethod
        def forward(ctx, t, k):
            seen.append(ctx.needs_input_grad)
            return t * k

        @staticmethod
        def backward(ctx, g):
            return g, None

    x = E.ones(2, requires_grad=True)
    Probe.apply(x, 2.0)
    Probe.apply(x.detach(), 2.0)
    with E.no_grad():
        Probe.apply(x, 2.0)
    assert seen == [(True, False), (False, False), (False, False)]


class _RoundSTE(Function):
    @staticmethod
    def forward(ctx, x):
        return x.round()

    @staticmethod
    def backward(ctx, grad):
        return grad


class _RoundSetup(Function):
    @staticmethod
    def forward(x):
        return x.round()

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        return grad


class _RoundVmappable(_RoundSetup):
    generate_vmap_rule = True


def test_torch_func_transforms_require_setup_context_and_a_vmap_rule_as_pytorch():
    from ember.autograd.func import grad, jacrev, vmap

    x = E.tensor([0.4, 1.6])
    with pytest.raises(RuntimeError, match=r"^In order to use an autograd.Function with functorch transforms \(vmap, "
                                           r"grad, jvp, jacrev, ...\), it must override the setup_context"):
        grad(lambda a: _RoundSTE.apply(a).sum())(x)
    with pytest.raises(RuntimeError, match="must override the setup_context"):
        jacrev(_RoundSTE.apply)(x)
    assert _RoundSTE.apply(x).tolist() == [0.0, 2.0]  # outside a transform nothing is required
    assert grad(lambda a: _RoundSetup.apply(a).sum())(x).tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="^You tried to vmap over _RoundSetup, but it does not have vmap support. "
                                           "Please override and implement the vmap staticmethod or set "
                                           "generate_vmap_rule=True."):
        vmap(_RoundSetup.apply)(x[None])
    assert vmap(_RoundVmappable.apply)(x[None]).tolist() == [[0.0, 2.0]]


def test_instantiating_a_function_warns_and_calling_the_instance_raises_as_pytorch():
    with pytest.warns(DeprecationWarning, match="should not be instantiated. Methods on autograd functions are all "
                                                "static"):
        f = _RoundSTE()
    with pytest.raises(RuntimeError, match="^Legacy autograd function with non-static forward method is deprecated"):
        f(E.tensor([1.0]))


class _AsIs(Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g


class _Dirty(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.mul_(2)

    @staticmethod
    def backward(ctx, g):
        return 2 * g


def test_an_input_returned_as_is_is_a_view_in_place_writes_refuse():
    """PyTorch's view+inplace error for a custom Function's output that aliases an input (as-is or a view of it);
    a mark_dirty output, and writes under no_grad, are allowed."""
    x = E.ones(2, requires_grad=True) * 1
    y = _AsIs.apply(x)
    with pytest.raises(RuntimeError, match=r"^Output 0 of _AsIs is a view and is being modified inplace\. This view "
                                           r"was created inside a custom Function \(or because an input was returned "
                                           r"as-is\)"):
        y.relu_()
    with E.no_grad():
        y.add_(1)
    z = _Dirty.apply(E.ones(2, requires_grad=True) * 1)
    z.add_(1)
    z.sum().backward()


def test_save_for_backward_of_a_non_tensor_names_its_position():
    class SaveInt(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a, None, 3)
            return a.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="save_for_backward can only save variables, but argument 2 is of type int"):
        SaveInt.apply(E.ones(2, 3, requires_grad=True))


def test_backward_returning_a_non_tensor_and_unreturned_dirty_inputs_in_pytorchs_words():
    class ListGrad(Function):
        @staticmethod
        def forward(ctx, x):
            return x + 1

        @staticmethod
        def backward(ctx, grad):
            return [grad]

    class DirtyNotOutput(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = E.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^expected Variable or None \(got list\)$"):
        ListGrad.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match="^Some elements marked as dirty during the forward method were not returned "
                                           "as output. The inputs that are modified inplace must all be outputs of "
                                           "the Function.$"):
        DirtyNotOutput.apply(E.ones(2))


def test_an_input_returned_as_is_and_marked_non_differentiable_requires_no_grad():
    class _Pass(Function):  # PyTorch: y is a new tensor without grad_fn; its backward slot gets zeros
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_non_differentiable(y)
            return x, y

        @staticmethod
        def backward(ctx, gx, gy):
            assert gy.tolist() == [0.0, 0.0]
            return gx, None

    a, b = E.ones(2, requires_grad=True), E.ones(2, requires_grad=True)
    x, y = _Pass.apply(a, b)
    assert x.requires_grad and not y.requires_grad and y is not b and y.grad_fn is None
    x.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0] and b.grad is None


class _Defaults(Function):
    @staticmethod
    def forward(ctx, a, b=2.0, k=None):
        ctx.inputs = (b, k)
        return a * b

    @staticmethod
    def backward(ctx, g):
        return g, g * 3, None


class _DefaultsSetup(Function):
    @staticmethod
    def forward(a, alpha=2.0):
        return a * alpha

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.seen = inputs

    @staticmethod
    def backward(ctx, g):
        return g * ctx.seen[1], None


def test_apply_keywords_become_positional_inputs_as_pytorch():
    """PyTorch's C++ apply passes keywords naming forward's positional parameters as positional inputs (each with
    a gradient); with setup_context, forward's signature binds them first (inspect's errors) and fills in the
    defaults, so `inputs` holds them. Its errors, word for word."""
    x, w = E.tensor([1.0], requires_grad=True), E.tensor([2.0], requires_grad=True)
    y = _Defaults.apply(x, b=w)
    assert y.grad_fn.needs_input_grad == (True, True)
    y.sum().backward()
    assert (x.grad.tolist(), w.grad.tolist()) == ([1.0], [3.0])
    y = _DefaultsSetup.apply(x)
    assert y.grad_fn.seen == (x, 2.0) and y.grad_fn.needs_input_grad == (True, False)
    assert _DefaultsSetup.apply(x, alpha=5.0).grad_fn.seen == (x, 5.0)
    for call, message in [(lambda: _Defaults.apply(x, 1, q=2, b=1), "forward() got an unexpected keyword argument 'q'"),
                          (lambda: _Defaults.apply(x, 1, b=1), "forward() got multiple values for argument 'b'"),
                          (lambda: _Defaults.apply(x, k=3), "forward() missing required argument: 'b' (position 1)"),
                          (lambda: _DefaultsSetup.apply(x, c=2.0), "got an unexpected keyword argument 'c'"),
                          (lambda: _DefaultsSetup.apply(), "missing a required argument: 'a'")]:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message


class _ViewOf(Function):
    @staticmethod
    def forward(ctx, x):
        return x.view(-1)

    @staticmethod
    def backward(ctx, g):
        return g.view(2, 2) * 5


def test_a_view_made_in_forward_is_the_functions_output_not_a_no_grad_view():
    """forward runs with grad off, yet its view of an input is the Function's output: an in-place write raises
    PyTorch's custom-Function error (not the no_grad-view one, nor the leaf-view one), and backward runs the
    Function's own backward."""
    x = E.ones(2, 2, requires_grad=True)
    y = _ViewOf.apply(x)
    with pytest.raises(RuntimeError, match=r"^Output 0 of _ViewOf is a view and is being modified inplace\. This view "
                                           r"was created inside a custom Function"):
        y.mul_(2)
    y.sum().backward()
    assert x.grad.tolist() == [[5.0, 5.0], [5.0, 5.0]]


class _Triple(Function):
    @staticmethod
    def forward(ctx, t):
        t.mul_(3)
        ctx.mark_dirty(t)
        return t

    @staticmethod
    def backward(ctx, g):
        return g * 3


class _TripleAndMask(Function):
    @staticmethod
    def forward(ctx, t):
        t.mul_(3)
        ctx.mark_dirty(t)
        return t, 3

    @staticmethod
    def backward(ctx, g, _unused):
        return g * 3


def test_a_dirty_view_rebases_its_base_through_the_functions_backward():
    """mark_dirty on a view of a non-leaf: the base's history becomes CopySlices around the Function's node, so the
    base's gradient goes through the custom backward inside the view (it bypassed it: [1, 10, 100] here)."""
    x = E.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = x * 1
    r = _Triple.apply(base[1:])
    assert (type(r.grad_fn).__name__, type(base.grad_fn).__name__) == ("AsStridedBackward0", "CopySlices")
    assert base.tolist() == [1.0, 6.0, 9.0]
    (base * E.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 30.0, 300.0]
    x.grad = None
    (_Triple.apply((x * 1)[1:]) * E.tensor([10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 30.0, 300.0]
    with pytest.raises(RuntimeError, match=r"^If your Function modifies inplace an input that is a view of another "
                                           r"Tensor, your Function cannot return more than one Tensor\."):
        _TripleAndMask.apply((x * 1)[1:])


class _VjpOnly(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def vjp(ctx, g):
        return g * 5


class _BothBackwardAndVjp(_VjpOnly):
    @staticmethod
    def backward(ctx, g):
        return g


def test_vjp_is_the_backward_where_only_it_is_overridden():
    """PyTorch's `vjp` alias: a Function overriding only `vjp` backpropagates through it; overriding both raises."""
    x = E.ones(2, requires_grad=True)
    _VjpOnly.apply(x).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    with pytest.raises(RuntimeError, match=r"^Implementing both 'backward' and 'vjp' for a custom Function is not "
                                           r"allowed\. You should only implement one of them\.$"):
        _BothBackwardAndVjp.apply(x).sum().backward()


def test_an_input_returned_as_is_is_a_view_of_its_base_and_refuses_a_stale_history():
    """As PyTorch's: the output's `_base` is the input's base; once that base is written in place (grad mode), the
    output's history cannot be replayed over the custom backward, so using it raises (ember used the stale one)."""
    x = E.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    o = _AsIs.apply(h)
    assert o._base is h and o._is_view() and o is not h
    assert _AsIs.apply(h[1:])._base is h
    h.mul_(2)
    with pytest.raises(RuntimeError, match=r"^Output 0 of _AsIs is a view and its base or another view of its base "
                                           r"has been modified inplace\. This view was created inside a custom "
                                           r"Function \(or because an input was returned as-is\)"):
        o.sum().backward()


def test_raw_saved_tensors_are_the_saved_tensor_objects_until_backward_frees_them():
    """PyTorch's `_raw_saved_tensors`: one SavedTensor per saved tensor, whose `register_hooks` apply on unpack."""
    class Mul(Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    x, y = E.tensor([1.0, 2.0], requires_grad=True), E.tensor([3.0, 4.0])
    o = Mul.apply(x, y)
    raw = o.grad_fn._raw_saved_tensors
    assert isinstance(raw, tuple) and [type(s).__name__ for s in raw] == ["SavedTensor", "SavedTensor"]
    unpacked = []
    raw[1].register_hooks(lambda t: t * 10, lambda t: unpacked.append(t) or t)
    o.sum().backward()
    assert x.grad.tolist() == [30.0, 40.0] and len(unpacked) == 1
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        o.grad_fn._raw_saved_tensors
