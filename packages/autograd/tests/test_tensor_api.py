"""Tensor attributes the autograd layer attaches: `name` (a tracer's value name: always None, read-only,
as PyTorch's in eager mode); `view(dtype)` has no derivative."""

import pytest

import ember.autograd as E


def test_name_is_none_and_read_only():
    x = E.ones(2, requires_grad=True)
    assert x.name is None and (x * 2).name is None
    with pytest.raises(AttributeError):
        x.name = "w"


@pytest.mark.torch
def test_name_matches_pytorch():
    torch = pytest.importorskip("torch")
    assert torch.ones(2).name is None
    with pytest.raises(AttributeError):
        torch.ones(2).name = "w"


def test_view_dtype_is_not_differentiable():
    """PyTorch's view(dtype) has no derivative, even to the same dtype: the result never requires grad."""
    x = E.randn(3, 4).requires_grad_()
    for d in (E.float32, E.int32, E.float64, E.float16, E.complex64):
        v = x.view(d)
        assert not v.requires_grad and v.grad_fn is None


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "float16", "float64", "complex64", "bool"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_view_dtype_is_no_view_to_autograd(dtype, requires_grad):
    """PyTorch's view(dtype) shares memory but is no autograd view: `_is_view()` is False and `_base` None,
    whether the element sizes match or not."""
    y = E.zeros(4, requires_grad=requires_grad)
    for src in (y, y[1:] if dtype not in ("float64", "complex64") else y[2:]):
        v = src.view(getattr(E, dtype))
        assert not v._is_view() and v._base is None
        assert v.data_ptr() == src.data_ptr()
    assert y[1:]._is_view() and y[1:]._base is y


def test_view_dtype_writes_reach_the_source_and_its_version():
    y = E.zeros(2)
    before = y._version
    y.view(E.int32).add_(1)
    assert y._version == before + 1 and y.view(E.int32).tolist() == [1, 1]


@pytest.mark.torch
def test_view_dtype_is_no_view_matches_pytorch():
    torch = pytest.importorskip("torch")
    for M in (E, torch):
        v = M.zeros(4).view(M.int32)
        assert (v._is_view(), v._base) == (False, None)


# --- asarray's requires_grad ---------------------------------------------------------------------
_ASARRAY_GRAD = ("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. Pass "
                 "requires_grad=False explicitly to get the old behavior and silence this warning.")


def test_asarray_keeps_requires_grad_with_pytorchs_warning():
    g = E.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning) as caught:
        a = E.asarray(g)
    assert [str(w.message) for w in caught] == [_ASARRAY_GRAD] and a.requires_grad


def test_asarray_requires_grad_given():
    import warnings

    g = E.tensor([1.0, 2.0], requires_grad=True)
    t = E.tensor([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = E.asarray(g, requires_grad=False)
        r = E.asarray(t, requires_grad=True)
    assert not d.requires_grad and d.data_ptr() == g.data_ptr()
    assert r is t and r.requires_grad and r.is_leaf  # PyTorch sets requires_grad on the aliased tensor itself
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require "
                                           "gradients$"):
        E.asarray([1, 2], requires_grad=True)


def test_asarray_cast_of_a_tensor_made_to_require_grad_is_no_leaf():
    t = E.tensor([1.0, 2.0])
    E.asarray(t, requires_grad=True)
    b = E.asarray(t, dtype=E.float64, requires_grad=True)
    assert t.requires_grad and not b.is_leaf and type(b.grad_fn).__name__ == "ToCopyBackward0"
    b.sum().backward()
    assert t.grad.tolist() == [1.0, 1.0]
    fresh = E.tensor([1.0, 2.0])
    c = E.asarray(fresh, dtype=E.float64, requires_grad=True)  # a copy of a tensor without grad: a new leaf
    assert c.is_leaf and c.grad_fn is None and not fresh.requires_grad


@pytest.mark.torch
def test_asarray_requires_grad_matches_pytorch():
    torch = pytest.importorskip("torch")
    outcomes = []
    for M in (E, torch):
        t = M.tensor([1.0, 2.0])
        a = M.asarray(t, requires_grad=True)
        b = M.asarray(t, dtype=M.float64, requires_grad=True)
        c = M.asarray(M.tensor([1.0]), dtype=M.float64, requires_grad=True)
        outcomes.append((a is t, t.requires_grad, b.is_leaf, type(b.grad_fn).__name__, c.is_leaf))
    assert outcomes[0] == outcomes[1]


def test_tensor_of_grad_requiring_scalars_warns_once_per_process(monkeypatch):
    import importlib
    import warnings

    monkeypatch.setattr(importlib.import_module("ember.core.tensor"), "_scalar_of_grad_warned", False)
    g = E.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = E.tensor([g[0], g[1]])
        float(g[0])
    assert [str(w.message) for w in caught] == [
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
        "Consider using tensor.detach() first. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/"
        "generated/python_variable_methods.cpp:822.)"]  # PyTorch's C++ source location, as it prints it
    assert r.tolist() == [1.0, 2.0] and not r.requires_grad


def test_scalar_of_grad_warning_is_silent_under_no_grad(monkeypatch):
    # PyTorch warns only under grad mode: an optimizer's step (no_grad) reading float(loss), as LBFGS does
    import importlib
    import warnings

    monkeypatch.setattr(importlib.import_module("ember.core.tensor"), "_scalar_of_grad_warned", False)
    g = E.tensor([1.0, 2.0], requires_grad=True).sum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with E.no_grad():
            assert float(g) == 3.0 and complex(g) == 3 + 0j
        assert not caught
        float(g)
    assert len(caught) == 1 and "requires_grad=True to a scalar" in str(caught[0].message)


def test_addcdiv_and_addcmul_graphs_end_in_their_own_nodes():
    x = E.ones(3, requires_grad=True)
    assert E.addcdiv(x, x, x + 1, value=0.5).grad_fn.name() == "AddcdivBackward0"
    assert E.addcdiv(E.ones(3), x, x + 1).grad_fn.name() == "AddcdivBackward0"
    assert E.addcmul(x, x, x, value=2).grad_fn.name() == "AddcmulBackward0"


@pytest.mark.parametrize("name", ["shape", "dtype", "device", "ndim", "is_leaf", "grad_fn", "T", "mT", "H", "layout",
                                  "_version", "is_sparse", "is_quantized"])
def test_read_only_attributes_refuse_assignment_in_pytorchs_words(name):
    t = E.zeros(2, 3, requires_grad=True)
    with pytest.raises(AttributeError, match=f"^attribute '{name}' of 'torch._C.TensorBase' objects is not writable$"):
        setattr(t, name, 1)


def test_data_and_H_refusals_in_pytorchs_words():
    t = E.zeros(2, 3)
    with pytest.raises(TypeError, match="^Variable data has to be a tensor, but got list$"):
        t.data = [1.0]
    with pytest.raises(RuntimeError, match=r"^tensor\.H is only supported on matrices \(2-D tensors\)\. Got 3-D "
                                           r"tensor\. For batches of matrices, consider using tensor\.mH$"):
        E.zeros(2, 3, 4).H
    with pytest.raises(RuntimeError, match=r"^tensor\.H is only supported on matrices \(2-D tensors\)\. Got 1-D "
                                           r"tensor\.$"):
        E.zeros(3).H
    assert t.H.shape == (3, 2) and E.tensor(2.0).H.item() == 2.0
    t.requires_grad = True  # a property with a setter keeps it
    assert t.requires_grad


def test_reshape_copy_and_folded_matmul_are_no_views():
    """PyTorch's `_unsafe_view`: reshape's copy of a non-viewable input and a batched matmul's result are new
    tensors to autograd (no `_base`), so an in-place op on them records as on any tensor (AddBackward0, not a
    rebase through AsStridedBackward0), and the gradient flows back through the reshape."""
    x = E.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x.t().reshape(6)
    assert (y._is_view(), y._base, type(y.grad_fn).__name__) == (False, None, "UnsafeViewBackward0")
    y.mul_(E.arange(6.0))
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
    m = E.ones(2, 2, 3, requires_grad=True) @ E.ones(3, 2)
    assert (m._is_view(), type(m.grad_fn).__name__) == (False, "UnsafeViewBackward0")
    m += 1
    assert type(m.grad_fn).__name__ == "AddBackward0" and m.tolist() == [[[4.0, 4.0]] * 2] * 2
    v = x.reshape(3, 2)  # a viewable reshape stays a view
    assert v._is_view() and v._base is x


def test_copying_composites_are_no_views():
    """repeat, flat roll, affine_grid and combinations make new tensors, as PyTorch's (no `_base`): a pose matrix
    built as `eye(4).repeat(B, 1, 1)` and filled in place with a rotation that requires grad records CopySlices on
    itself and passes the gradient back (as a view of the repeat's copy it stayed a leaf, gradient lost)."""
    x = E.arange(4.0)
    made = {"repeat": x.repeat(2, 1), "roll": x.view(2, 2).roll(1),
            "affine_grid": E.affine_grid(E.eye(2, 3)[None], (1, 1, 2, 2), align_corners=False),
            "combinations": E.combinations(x)}
    assert {k: (v._is_view(), v._base) for k, v in made.items()} == dict.fromkeys(made, (False, None))
    R = E.ones(2, 3, 3, requires_grad=True)
    T = E.eye(4).repeat(2, 1, 1)
    T[:, :3, :3] = R
    assert (type(T.grad_fn).__name__, T.is_leaf) == ("CopySlices", False)
    (T * E.arange(16.0).view(4, 4)).sum().backward()
    assert R.grad[1].tolist() == [[0.0, 1.0, 2.0], [4.0, 5.0, 6.0], [8.0, 9.0, 10.0]]
    names = [type(f().grad_fn).__name__ for f in (lambda: x.requires_grad_().repeat(2), lambda: x.roll(1),
                                                  lambda: E.combinations(x))]
    assert names == ["RepeatBackward0", "RollBackward0", "StackBackward0"]
    assert E.combinations(x, 0).grad_fn is None and E.combinations(x, 3).tolist()[-1] == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_rot90_by_a_quarter_is_a_new_tensor_with_transposed_strides(k, requires_grad):
    """PyTorch transposes its flipped copy in place: strides (1, 3) for a (2, 3) input, no autograd view."""
    x = E.arange(6.0).reshape(2, 3).requires_grad_(requires_grad)
    r = E.rot90(x, k)
    assert r.stride() == (1, 3) and r._base is None and not r._is_view()
    assert r.tolist() == ([[2.0, 5.0], [1.0, 4.0], [0.0, 3.0]] if k == 1 else [[3.0, 0.0], [4.0, 1.0], [5.0, 2.0]])
    if requires_grad:
        assert r.grad_fn.name() == "Rot90Backward0"
        r.backward(E.arange(6.0).reshape(3, 2))
        assert x.grad.tolist() == E.rot90(E.arange(6.0).reshape(3, 2), -k).tolist()
