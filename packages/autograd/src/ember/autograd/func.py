"""`torch.func`'s transforms, run eagerly on ember's tape: `grad`, `grad_and_value`, `vjp`, `jvp`,
`jacrev`, `jacfwd`, `hessian` and `vmap`.

PyTorch implements them with functorch's dispatcher levels; ember composes them from reverse-mode
`autograd.grad` (with `create_graph` whenever an outer transform differentiates the result, so they nest)
and `vmap` from a loop over the batch that stacks the results. Values and gradients are PyTorch's; the cost
of `vmap` grows with the batch (no batching rules), and `jacfwd` is computed in reverse mode.
"""

from __future__ import annotations

from collections.abc import Callable

from ember.core import Tensor
from ember.core.ops import join as _join

from ember.autograd import engine
from ember.autograd import functional as _functional
from ember.autograd.grad_mode import enable_grad

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap"]


# --- pytrees of tensors (tensors, tuples, lists, dicts) ---------------------------------------------
def _leaves(tree) -> list:
    if isinstance(tree, Tensor):
        return [tree]
    if isinstance(tree, tuple | list):
        return [x for t in tree for x in _leaves(t)]
    if isinstance(tree, dict):
        return [x for t in tree.values() for x in _leaves(t)]
    return []


def _rebuild(tree, it):
    if isinstance(tree, Tensor):
        return next(it)
    if isinstance(tree, tuple | list):
        return type(tree)(_rebuild(t, it) for t in tree)
    if isinstance(tree, dict):
        return {k: _rebuild(v, it) for k, v in tree.items()}
    return tree


def _map(fn, tree):
    return _rebuild(tree, iter([fn(x) for x in _leaves(tree)]))


# --- gradients ----------------------------------------------------------------------------------------
def _track(x: Tensor) -> Tensor:
    """A differentiable stand-in for x: connected to x's graph when an outer transform tracks x."""
    return x.view_as(x) if x.requires_grad else x.detach().requires_grad_(True)


def _scalar(out, what: str) -> Tensor:
    if not isinstance(out, Tensor):
        raise RuntimeError(f"{what}: Expected f(*args) to return a Tensor, got {type(out).__name__}")
    if out.numel() != 1:
        raise RuntimeError(f"{what}: Expected f(*args) to return a scalar Tensor, got tensor with {out.ndim} dims. "
                           "Maybe you wanted to use the vjp or jacrev APIs instead?")
    return out


def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """`f -> ((grad, value) or ((grad, (value, aux))))`: the gradient of the scalar `func` w.r.t. the
    arguments `argnums` (each a tensor or a pytree of tensors), and its value."""
    def wrapped(*args, **kwargs):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        args = list(args)
        outer = False
        for i in nums:
            outer = outer or any(x.requires_grad for x in _leaves(args[i]))
            args[i] = _map(_track, args[i])
        with enable_grad():
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                out, aux = out
            value = _scalar(out, "grad_and_value(f)(*args)")
            leaves = [x for i in nums for x in _leaves(args[i])]
            gs = engine.grad(value, leaves, create_graph=outer, allow_unused=True, materialize_grads=True)
        it = iter(gs if outer else [g.detach() for g in gs])
        grads = tuple(_rebuild(args[i], it) for i in nums)
        g = grads[0] if isinstance(argnums, int) else grads
        v = value if outer else value.detach()
        if has_aux and not outer:
            aux = _map(lambda t: t.detach(), aux)
        return (g, (v, aux)) if has_aux else (g, v)
    return wrapped


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """`f -> grad of f`: the gradient of the scalar `func` w.r.t. its arguments `argnums` (with `aux`)."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapped(*args, **kwargs):
        g, v = gv(*args, **kwargs)
        return (g, v[1]) if has_aux else g
    return wrapped


def vjp(func: Callable, *primals, has_aux: bool = False):
    """`(output, vjp_fn[, aux])`: `vjp_fn(cotangents)` gives the cotangents of every primal."""
    outer = any(x.requires_grad for p in primals for x in _leaves(p))
    tracked = [_map(_track, p) for p in primals]
    with enable_grad():
        out = func(*tracked)
    aux = None
    if has_aux:
        out, aux = out
    outs, leaves = _leaves(out), [x for p in tracked for x in _leaves(p)]

    def vjp_fn(cotangents):
        cts = _leaves(cotangents)
        with enable_grad():
            gs = engine.grad(outs, leaves, cts, retain_graph=True, create_graph=outer, allow_unused=True,
                             materialize_grads=True)
        it = iter(gs if outer else [g.detach() for g in gs])
        return tuple(_rebuild(p, it) for p in tracked)

    shown = out if outer else _map(lambda t: t.detach(), out)
    return (shown, vjp_fn, aux) if has_aux else (shown, vjp_fn)


def jvp(func: Callable, primals, tangents, *, has_aux: bool = False):
    """`(output, jvp_out[, aux])`: the directional derivative of `func` at `primals` along `tangents`
    (`autograd.functional.jvp`: two reverse passes)."""
    aux = []

    def f(*xs):
        out = func(*xs)
        if has_aux:
            out, a = out
            aux.append(a)
        return out

    out, jvp_out = _functional.jvp(f, tuple(primals), tuple(tangents))
    return (out, jvp_out, aux[0]) if has_aux else (out, jvp_out)


def jacrev(func: Callable, argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None) -> Callable:
    """`f -> Jacobian of f`: d out / d args[argnums], shaped out.shape + arg.shape (one per argnum)."""
    def wrapped(*args, **kwargs):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        args = list(args)
        outer = any(x.requires_grad for i in nums for x in _leaves(args[i]))
        for i in nums:
            args[i] = _track(args[i])
        with enable_grad():
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                out, aux = out
            flat = out.reshape(-1)
            rows = [engine.grad(flat[k], [args[i] for i in nums], retain_graph=True, create_graph=outer,
                                allow_unused=True, materialize_grads=True) for k in range(flat.numel())]
        jacs = []
        for j, i in enumerate(nums):
            if rows:
                jac = _join.stack([r[j] for r in rows]).reshape(tuple(out.shape) + tuple(args[i].shape))
            else:
                jac = args[i].new_zeros(tuple(out.shape) + tuple(args[i].shape))
            jacs.append(jac if outer else jac.detach())
        res = jacs[0] if isinstance(argnums, int) else tuple(jacs)
        return (res, aux) if has_aux else res
    return wrapped


jacfwd = jacrev


def hessian(func: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    """`f -> Hessian of the scalar f`: the Jacobian of its gradient."""
    return jacrev(jacrev(func, argnums), argnums)


# --- vmap ----------------------------------------------------------------------------------------------
def _in_dims(in_dims, args) -> tuple:
    if isinstance(in_dims, int) or in_dims is None:
        return (in_dims,) * len(args)
    dims = tuple(in_dims)
    if len(dims) != len(args):
        raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure "
                         f"of `inputs`. in_dims has structure of length {len(dims)} but inputs has {len(args)}.")
    return dims


def vmap(func: Callable, in_dims=0, out_dims=0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """`f -> f over a batch`: calls `func` on each slice of the inputs along `in_dims` (None: not batched)
    and stacks the results along `out_dims`, as `torch.vmap` computes them."""
    def wrapped(*args, **kwargs):
        dims = _in_dims(in_dims, args)
        sizes = {x.shape[d] for a, d in zip(args, dims, strict=True) if d is not None for x in _leaves(a)}
        if not sizes:
            raise ValueError("vmap(f, in_dims, ...)(<inputs>): at least one input must be a Tensor batched along a "
                             "dim of in_dims (got no batched tensors)")
        if len(sizes) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sorted(sizes)} for the mapped dimension")
        n = sizes.pop()
        results = []
        for k in range(n):
            sliced = [a if d is None else _map(lambda x, d=d, k=k: x.select(d, k), a)
                      for a, d in zip(args, dims, strict=True)]
            results.append(func(*sliced, **kwargs))
        first = results[0]
        leaves = [_leaves(r) for r in results]
        if not leaves[0] and not isinstance(first, Tensor):
            raise ValueError("vmap: `func` must return a Tensor or a structure of Tensors")
        od = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(leaves[0])
        stacked = [_join.stack([ls[j] for ls in leaves], od[j]) for j in range(len(leaves[0]))]
        return _rebuild(first, iter(stacked))
    return wrapped
