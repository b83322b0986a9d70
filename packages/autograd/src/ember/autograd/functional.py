"""`torch.autograd.functional`: Jacobians, Hessians and vector products of a function.

All are built on `grad` (reverse mode): a Jacobian is one backward per output element (with
`strategy="forward-mode"`, one jvp per input element, as `torch.func.jacfwd`), a Jacobian-vector
product the double-backward trick (the vjp of a vjp), a Hessian the Jacobian of the gradient. Inputs
are detached copies that require grad, so `func` sees fresh leaves.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext

from ember.core.tensor import Tensor

from ember.autograd import forward_ad
from ember.autograd.engine import grad
from ember.autograd.func import _basis, _by_columns
from ember.autograd.grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tuple(x, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """(whether `x` is a tuple, its tensors as a tuple); anything but a Tensor or a tuple of them (a list too)
    raises PyTorch's TypeError."""
    is_tuple = isinstance(x, tuple)
    xs = x if is_tuple else (x,)
    for i, el in enumerate(xs):
        if not isinstance(el, Tensor):
            which = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"{which} has type {type(el)}.")
    return is_tuple, xs


_OUTPUTS = "outputs of the user-provided function"


def _single_output(out, fn_name: str) -> Tensor:
    """The one-element Tensor a Hessian's function must return (PyTorch's checks, in its order)."""
    is_tuple, outs = _tuple(out, _OUTPUTS, fn_name)
    if is_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    return outs[0]


def _prepare(inputs, create_graph: bool) -> tuple:
    return tuple(x if create_graph and x.requires_grad else x.detach().requires_grad_(True) for x in inputs)


def _check_outputs(outputs, strict: bool) -> None:
    """Strict mode: every output of the user's function must require grad (PyTorch's words)."""
    for i, o in enumerate(outputs if strict else ()):
        if not o.requires_grad:
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                               "must be computed in a differentiable manner from the input when running in strict "
                               "mode.")


def _check_jacobian(gs, strict: bool) -> None:
    """Strict mode for second derivatives: each gradient must exist and depend on the inputs (PyTorch's words)."""
    for i, g in enumerate(gs if strict else ()):
        if g is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not g.requires_grad:
            raise RuntimeError("While computing the hessian, found that the jacobian of the user-provided function "
                               f"with respect to input {i} is independent of the input. This is not allowed in strict "
                               "mode. You should ensure that your function is twice differentiable and that the "
                               "jacobian depends on the inputs (this would be violated by a linear function for "
                               "example).")


def _grads(outputs, inputs, grad_outputs, create_graph: bool, strict: bool, what: str, out_index: int = 0) -> tuple:
    _check_outputs(outputs, strict)
    diff_out = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not diff_out:
        return tuple(None for _ in inputs)
    gs = grad([o for o, _ in diff_out], inputs, [g for _, g in diff_out], create_graph=create_graph,
              retain_graph=True, allow_unused=True)
    for i, g in enumerate(gs if strict else ()):
        if g is None:
            who = f"Output {out_index} of the user-provided function" if what == "jacobian" else \
                "The output of the user-provided function"
            raise RuntimeError(f"{who} is independent of input {i}. This is not allowed in strict mode.")
    return gs


def _zeros_for_none(gs, like) -> tuple:
    from ember.core import zeros_like

    return tuple(zeros_like(x) if g is None else g for g, x in zip(gs, like))


def _finish(x: Tensor, create_graph: bool) -> Tensor:
    return x if create_graph else x.detach()


def _check_v(v, other: tuple, other_tuple: bool, none_msg: str, fn_name: str) -> tuple:
    """`v` as a tuple matching `other` in count and shapes, with PyTorch's errors; `None` only for one element."""
    if v is None:
        if len(other) != 1 or other[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if {none_msg}")
        return (None,) * len(other)
    _, vs = _tuple(v, "v", fn_name)
    if len(vs) != len(other):
        if other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(vs)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (w, o) in enumerate(zip(vs, other)):
        if tuple(w.shape) != tuple(o.shape):
            prefix = f"Entry {i} in " if other_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {o.size()} but got {w.size()}.")
    return vs


_OUT_ONE = "the user-provided function returns a single Tensor with a single element."
_IN_ONE = "the input to the user-provided function is a single Tensor with a single element."


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """`(func(inputs), v^T J)`: the vector-Jacobian product at `inputs`."""
    in_tuple, ins = _tuple(inputs, "inputs", "vjp")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        out_tuple, outs = _tuple(func(*ins), _OUTPUTS, "vjp")
        vs = _check_v(v, outs, out_tuple, _OUT_ONE, "vjp")
        gs = _zeros_for_none(_grads(outs, ins, vs, create_graph, strict, "vjp"), ins)
    outs = tuple(_finish(o, create_graph) for o in outs)
    gs = tuple(_finish(g, create_graph) for g in gs)
    return (outs if out_tuple else outs[0]), (gs if in_tuple else gs[0])


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """`(func(inputs), J v)`: the Jacobian-vector product, by differentiating a vjp w.r.t. its vector."""
    from ember.core import zeros_like

    in_tuple, ins = _tuple(inputs, "inputs", "jvp")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        vs = _check_v(v, ins, in_tuple, _IN_ONE, "jvp")
        out_tuple, outs = _tuple(func(*ins), _OUTPUTS, "jvp")
        dummies = tuple(zeros_like(o).requires_grad_(True) for o in outs)
        gs = _zeros_for_none(_grads(outs, ins, dummies, True, strict, "jvp"), ins)
        diff = [(g, w) for g, w in zip(gs, vs) if g.requires_grad]
        if diff:
            jv = grad([g for g, _ in diff], dummies, [w for _, w in diff], create_graph=create_graph,
                      allow_unused=True)
        else:
            jv = (None,) * len(outs)
        jv = _zeros_for_none(jv, outs)
    outs = tuple(_finish(o, create_graph) for o in outs)
    jv = tuple(_finish(j, create_graph) for j in jv)
    return (outs if out_tuple else outs[0]), (jv if out_tuple else jv[0])


def jacobian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """d func(inputs) / d inputs: for each output and input a tensor of shape `out.shape + in.shape`.

    Every strategy computes the same reverse-mode rows; `strategy`, `vectorize` and `create_graph` are
    checked as PyTorch checks them (forward mode needs `vectorize=True` and no `create_graph`). With tuple
    inputs, forward mode returns lists where reverse mode returns tuples, as PyTorch's.
    """
    from ember.core import stack, zeros

    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                               'not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")

    in_tuple, ins = _tuple(inputs, "inputs", "jacobian")
    with enable_grad():
        ins = _prepare(ins, create_graph)
        frame = forward_ad._Frame(list(ins), _basis(list(ins)), False, False) if strategy == "forward-mode" else None
        with forward_ad.framed(frame) if frame is not None else nullcontext():
            out_tuple, outs = _tuple(func(*ins), _OUTPUTS, "jacobian")
        _check_outputs(outs, strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        if frame is not None:
            rows = [list(r) for r in _by_columns(list(outs), frame, False)]
            return (rows if out_tuple else rows[0]) if in_tuple else \
                (tuple(r[0] for r in rows) if out_tuple else rows[0][0])
        rows = []
        for j, o in enumerate(outs):
            per_input = [[] for _ in ins]
            flat = o.reshape(-1)
            for k in range(flat.numel()):
                if o.requires_grad:
                    gs = _grads((flat[k],), ins, (None,), create_graph, strict, "jacobian", j)
                else:
                    gs = _grads((o,), ins, (None,), create_graph, strict, "jacobian", j)
                for i, (g, x) in enumerate(zip(gs, ins)):
                    per_input[i].append(zeros(tuple(x.shape), dtype=x.dtype, device=x.device) if g is None else g)
            rows.append(tuple(
                _finish(stack(p).reshape(tuple(o.shape) + tuple(x.shape)) if p else
                        zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype, device=x.device), create_graph)
                for p, x in zip(per_input, ins)))
    if not out_tuple and not in_tuple:
        return rows[0][0]
    if not in_tuple:
        return tuple(r[0] for r in rows) if out_tuple else rows[0][0]
    return tuple(rows) if out_tuple else rows[0]


def hessian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    in_tuple, ins = _tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def gradient(*xs):
        out = _single_output(func(*xs), "hessian")
        _check_outputs((out,), strict)
        gs = _zeros_for_none(_grads((out,), xs, (None,), True, False, "hessian"), xs)
        _check_jacobian(gs, strict)
        return gs if in_tuple else gs[0]

    return jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                    strategy=outer_jacobian_strategy)


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """`(func(inputs), v^T H)` for a scalar function."""
    return _vhp(func, inputs, v, create_graph, strict, "vhp")


def _vhp(func: Callable, inputs, v, create_graph: bool, strict: bool, _name: str):
    in_tuple, ins = _tuple(inputs, "inputs", _name)
    with enable_grad():
        ins = _prepare(ins, create_graph)
        vs = _check_v(v, ins, in_tuple, _IN_ONE, _name)
        out = _single_output(func(*ins), _name)
        _check_outputs((out,), strict)
        gs = _grads((out,), ins, (None,), True, False, "vhp")
        _check_jacobian(gs, strict)
        gs = _zeros_for_none(gs, ins)
        diff = [(g, w, x) for g, w, x in zip(gs, vs, ins) if g.requires_grad]
        res = grad([g for g, _, _ in diff], ins, [w for _, w, _ in diff], create_graph=create_graph,
                   allow_unused=True) if diff else (None,) * len(ins)
        res = _zeros_for_none(res, ins)
    res = tuple(_finish(r, create_graph) for r in res)
    return _finish(out, create_graph), (res if in_tuple else res[0])


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """`(func(inputs), H v)` for a scalar function (H is symmetric, so this equals `vhp`)."""
    return _vhp(func, inputs, v, create_graph, strict, "hvp")
