"""`torch.func`: composable function transforms (`grad`, `vjp`, `jvp`, `jacrev`, `jacfwd`,
`hessian`, `vmap`) over functions of tensors and of nested tuples, lists and dicts of them.

NOTE [ Transforms by the tape ]
The derivative transforms run the function under the define-by-run tape: each input leaf is a
fresh tensor that requires grad (or, when an outer transform already tracks it, a view of it, so
the outer one differentiates through the inner result), and the result is `autograd.grad` with
`create_graph` whenever an outer level needs to go on differentiating, or the function's graph reaches a
leaf from outside that requires grad (a closed-over parameter: the result is then differentiable with respect
to it, as PyTorch's). They therefore compose
(`jacrev(jacrev(f))`, `grad(grad(f))`, `vmap(grad(f))`). `jvp` and `jacfwd` compute Jacobian-vector products
by differentiating a vjp with respect to its cotangent, `jacfwd` one column per input element, with a custom
Function's own `jvp` where PyTorch calls it (NOTE [ Custom jvp on the tape ]). `vmap` calls the function once
per index of the mapped dimension and stacks the results: every function vmaps, with the values and gradients
of the batched call; the cost is one Python call per element.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Sequence
from contextlib import contextmanager, nullcontext
from functools import wraps

from ember.core import dispatch
from ember.core import stack as _stack
from ember.core.random import (batched_draw_guard, batched_normal, get_rng_state, inplace_draw_guard,
                               set_rng_state)
from ember.core.class_paths import home_module
from ember.core.tensor import Tensor, like_made, value_read_guard

from ember.autograd import forward_ad, record
from ember.autograd._captured_writes import refusing_captured_writes
from ember.autograd._vmap_writes import _ADVICE as _WRITE_ADVICE
from ember.autograd._vmap_writes import refusal as _write_refusal
from ember.autograd.engine import grad as _autograd_grad
from ember.autograd.function import func_transform
from ember.autograd.grad_mode import enable_grad, is_grad_enabled

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "linearize",
           "functionalize", "debug_unwrap"]


# ------------------------------------------------------------------------------------ pytrees

def _flatten(tree) -> tuple[list, Callable]:
    """The leaves of nested tuples/lists/dicts, and a function that rebuilds the tree from leaves."""
    if isinstance(tree, tuple | list):
        parts = [_flatten(t) for t in tree]
        counts = [len(p[0]) for p in parts]
        leaves = [x for p in parts for x in p[0]]
        kind = type(tree)

        def build(xs):
            out, k = [], 0
            for (_, b), n in zip(parts, counts):
                out.append(b(xs[k:k + n]))
                k += n
            return kind(out) if kind in (tuple, list) else kind(*out)
        return leaves, build
    if isinstance(tree, dict):
        keys = list(tree)
        leaves, build_values = _flatten([tree[k] for k in keys])
        return leaves, lambda xs: dict(zip(keys, build_values(xs)))
    return [tree], lambda xs: xs[0]


def _argnums(argnums, n: int) -> tuple[int, ...]:
    """The positions `argnums` names among `n` positional arguments, checked with PyTorch's messages."""
    if isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        for a in argnums:
            if not isinstance(a, int):
                raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        nums = argnums
    elif isinstance(argnums, int):
        nums = (argnums,)
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in nums:
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    return tuple(a % n for a in nums)


# The leaves of transforms whose function has returned (by id): a graph that reaches one reaches no outside
# parameter (an inner jacrev keeps its graph to its own leaf when the outer jvp's input reaches it).
_RETIRED_LEAVES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


@contextmanager
def _calling(tracked: list):
    """Runs a transform's function over its `tracked` leaves (lists of them), retiring the leaves after."""
    try:
        yield
    finally:
        for xs in tracked:
            for x in xs:
                _RETIRED_LEAVES[id(x)] = x


def _track(x):
    """A leaf the tape differentiates with respect to (see NOTE [ Transforms by the tape ])."""
    if not isinstance(x, Tensor):
        raise RuntimeError(f"Expected inputs to be Tensors, got {type(x).__name__}")
    if x.requires_grad and is_grad_enabled():
        return x.view_as(x)
    return x.detach().requires_grad_(True)


def _outside(leaf: Tensor, mine: set) -> bool:
    """Whether `leaf` is neither this transform's own (`mine`, by id) nor a finished inner transform's: the
    leaves of enclosing transforms, still running, and the user's parameters are outside."""
    return id(leaf) not in mine and _RETIRED_LEAVES.get(id(leaf)) is not leaf


def _outer_tracking(leaves) -> bool:
    return is_grad_enabled() and any(isinstance(x, Tensor) and x.requires_grad for x in leaves)


def _reaches_outer(outputs: list, own: list, enabled: bool) -> bool:
    """Whether the recorded graph of `outputs` reaches a leaf that requires grad other than the transform's own
    (`own`): a closed-over parameter, say. Then the results stay differentiable with respect to it, as PyTorch's
    (a Jacobian penalty trains the weights). `enabled`: grad mode outside the transform (no_grad keeps nothing)."""
    from ember.autograd.graph import AccumulateGrad

    if not enabled:
        return False
    mine = {id(x) for x in own}
    stack, seen = [], set()
    for o in outputs:
        if isinstance(o, Tensor) and o.requires_grad:
            if o.grad_fn is None and _outside(o, mine):
                return True
            stack.append(o.grad_fn)
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            v = node.variable
            if v is not None and _outside(v, mine):
                return True
            continue
        stack.extend(n for n, _ in node.next_functions)
    return False


def _grads(outputs: list, inputs: list, cotangents: list | None, create_graph: bool) -> list:
    """d outputs / d inputs (weighted by `cotangents`); zeros where an input does not reach them."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents or [None] * len(outputs)) if o.requires_grad]
    if pairs:
        gs = _autograd_grad([o for o, _ in pairs], inputs, [c for _, c in pairs], create_graph=create_graph,
                            retain_graph=True, allow_unused=True)
    else:
        gs = [None] * len(inputs)
    return [x.new_zeros(tuple(x.shape)) if g is None else g for g, x in zip(gs, inputs)]


def _selected(args: tuple, argnums) -> tuple[list, bool]:
    """The flattened arguments `argnums` selects, and whether an outer level tracks any of them."""
    trees = [_flatten(args[a]) for a in _argnums(argnums, len(args))]
    return trees, _outer_tracking([x for leaves, _ in trees for x in leaves])


def _tracked_call(args: tuple, argnums, trees: list) -> tuple[list, list]:
    """Fresh tracked leaves for the selected arguments, and the call's arguments holding them."""
    nums = _argnums(argnums, len(args))
    tracked = [[_track(x) for x in leaves] for leaves, _ in trees]
    call = list(args)
    for a, (_, build), xs in zip(nums, trees, tracked):
        call[a] = build(xs)
    return tracked, call


def _finish(x, keep: bool):
    return x if keep or not isinstance(x, Tensor) else x.detach()


_AUX_CALLS = {"grad_and_value": "grad_and_value(f)(*args)", "vjp": "vjp(f, *primals)", "jacrev": "vjp(f, *primals)",
              "jvp": "jvp(f, primals, tangents)"}  # how PyTorch's messages name the call


def _split_aux(out, has_aux: bool, what: str):
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise RuntimeError(f"{_AUX_CALLS[what]}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    return out[0], out[1]


def _only_tensors(leaves: list, what: str) -> None:
    """PyTorch's refusal of a transformed function's non-tensor output (`what`: "vjp" or "jvp", the call it names)."""
    for o in leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{_AUX_CALLS[what]}: expected f(*primals) to return only tensors, got unsupported "
                               f"type {type(o)}")


def _detach_tree(tree, keep: bool):
    leaves, build = _flatten(tree)
    return build([_finish(x, keep) for x in leaves])


# --------------------------------------------------------------------------------- gradients

def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """`f -> (gradient of f w.r.t. args[argnums], f(*args))` for a function with a scalar tensor
    output; with `has_aux`, f returns `(output, aux)` and the value is `(output, aux)`."""

    @wraps(func)
    def wrapper(*args, **kwargs):
        trees, keep = _selected(args, argnums)
        enabled = is_grad_enabled()
        with enable_grad():
            tracked, call = _tracked_call(args, argnums, trees)
            with func_transform("grad"), refusing_captured_writes([x for xs in tracked for x in xs]), _calling(tracked):
                out, aux = _split_aux(func(*call, **kwargs), has_aux, "grad_and_value")
            if not isinstance(out, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                                   "instead?")
            flat = [x for xs in tracked for x in xs]
            keep = keep or _reaches_outer([out], flat, enabled)
            gs = _grads([out], flat, None, keep)
        grads, k = [], 0
        for (_, build), xs in zip(trees, tracked):
            grads.append(build([_finish(g, keep) for g in gs[k:k + len(xs)]]))
            k += len(xs)
        g = grads[0] if isinstance(argnums, int) else tuple(grads)
        value = _finish(out, keep)
        if has_aux:
            return g, (value, _detach_tree(aux, keep))
        return g, value

    return wrapper


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """`f -> the gradient of f w.r.t. args[argnums]` (f returns a scalar tensor); with `has_aux`,
    `(gradient, aux)`. Inputs that f does not use get zeros.

    >>> import ember.autograd as torch
    >>> grad(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
    tensor([ 3., 12.])
    """
    gv = grad_and_value(func, argnums, has_aux)

    @wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func: Callable, *primals, has_aux: bool = False):
    """`(func(*primals), vjp_fn)`: `vjp_fn(cotangents)` is the tuple of cotangents^T J, one per primal
    (cotangents shaped as the output); with `has_aux`, `(output, vjp_fn, aux)`."""
    trees = [_flatten(p) for p in primals]
    keep = _outer_tracking([x for leaves, _ in trees for x in leaves])
    enabled = is_grad_enabled()
    with enable_grad():
        tracked = [[_track(x) for x in leaves] for leaves, _ in trees]
        with func_transform("vjp"), refusing_captured_writes([x for xs in tracked for x in xs]), _calling(tracked):
            out, aux = _split_aux(func(*[b(xs) for (_, b), xs in zip(trees, tracked)]), has_aux, "vjp")
    out_leaves, out_build = _flatten(out)
    _only_tensors(out_leaves, "vjp")
    keep = keep or _reaches_outer(out_leaves, [x for xs in tracked for x in xs], enabled)

    def vjp_fn(cotangents, *, retain_graph: bool = True, create_graph: bool | None = None):
        cots, _ = _flatten(cotangents)
        if _spec_pprint(cotangents) != _spec_pprint(out):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {_spec_pprint(cotangents)}, primal output: "
                               f"{_spec_pprint(out)}")
        for i, (c, o) in enumerate(zip(cots, out_leaves)):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and output[{i}] "
                                   f"has a shape of {o.shape}.")
        graph = keep if create_graph is None else create_graph
        flat = [x for xs in tracked for x in xs]
        with enable_grad():
            gs = _grads(out_leaves, flat, cots, graph or _outer_tracking(cots))
        res, k = [], 0
        for (_, build), xs in zip(trees, tracked):
            res.append(build([_finish(g, graph) for g in gs[k:k + len(xs)]]))
            k += len(xs)
        return tuple(res)

    output = out_build([_finish(o, keep) for o in out_leaves])
    if has_aux:
        return output, vjp_fn, _detach_tree(aux, keep)
    return output, vjp_fn


def jvp(func: Callable, primals: Sequence, tangents: Sequence, *, strict: bool = False, has_aux: bool = False):
    """`(func(*primals), J tangents)`: the Jacobian-vector product (by differentiating a vjp with
    respect to its cotangent); with `has_aux`, `(output, jvp_out, aux)`."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if _spec_repr(primals) != _spec_repr(tangents):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {_spec_repr(primals)} and tangents with structure "
                           f"{_spec_repr(tangents)}")
    p_trees = [_flatten(p) for p in primals]
    t_leaves = [x for t in tangents for x in _flatten(t)[0]]
    p_leaves = [x for leaves, _ in p_trees for x in leaves]
    for p, t in zip(p_leaves, t_leaves):  # make_dual's checks, pair by pair, as PyTorch's jvp makes its duals
        for what, x in (("primal", p), ("tangent", t)):
            if not (x.is_floating_point() or x.is_complex()):
                raise ValueError(f"Expected {what} to be floating point or complex, but got: {x.dtype}")
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(p.shape)} while the given "
                               f"forward gradient is of size {list(t.shape)}.")
    keep = _outer_tracking(p_leaves + t_leaves)
    enabled = is_grad_enabled()
    with enable_grad():
        tracked = [[_track(x) for x in leaves] for leaves, _ in p_trees]
        flat = [x for xs in tracked for x in xs]
        frame = forward_ad._Frame(flat, [list(t_leaves)], keep, enabled)
        with func_transform("jvp"), refusing_captured_writes(flat), _calling(tracked), \
                record.refusing_forward_ad(flat), forward_ad.framed(frame):
            out, aux = _split_aux(func(*[b(xs) for (_, b), xs in zip(p_trees, tracked)]), has_aux, "jvp")
        out_leaves, out_build = _flatten(out)
        _only_tensors(out_leaves, "jvp")
        kept = [keep or _reaches_outer([o], frame.sources, enabled) for o in out_leaves]
        keep = any(kept)
        used, (jv,) = forward_ad._jvps(out_leaves, frame.sources, frame.columns, frame.cut, keep)
        jv = [_promoted(j, [frame.columns[0][i].dtype for i in used if frame.columns[0][i] is not None]) for j in jv]
    output = out_build([_alias(o) if k and o.requires_grad else o.detach() for o, k in zip(out_leaves, kept)])
    tangent_out = out_build([_finish(j, keep) for j in jv])
    if has_aux:
        return output, tangent_out, _detach_tree(aux, keep)
    return output, tangent_out


def _promoted(jv: Tensor, tangent_dtypes: list) -> Tensor:
    """A jvp output tangent in PyTorch's dtype: its forward formulas promote the output's dtype with the wider
    floating tangents that reach it (a float64 tangent of a float32 primal gives a float64 tangent)."""
    dt = forward_ad._tangent_dtype(jv.dtype, tangent_dtypes)
    return jv if dt is jv.dtype else jv.to(dt)


def _alias(o: Tensor) -> Tensor:
    """jvp's primal output that stays differentiable: an alias of the function's (AliasBackward0, as PyTorch's)."""
    return dispatch.node_name(dispatch.get_op("view")(o, o._shape), "ViewBackward0", "AliasBackward0")


def linearize(func: Callable, *primals):
    """`(func(*primals), jvp_fn)` with `jvp_fn(*tangents)` the Jacobian-vector product at `primals`."""
    output = func(*primals)
    return output, lambda *tangents: jvp(func, primals, tangents)[1]


def jacrev(func: Callable, argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None, _preallocate_and_copy: bool = False) -> Callable:
    """`f -> the Jacobian of f w.r.t. args[argnums]`, one backward per output element: for each
    output a tensor of shape `output.shape + input.shape` (a tuple over argnums when it is a tuple)."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, "jacrev", None)


def _jacobian(func: Callable, argnums, has_aux: bool, aux_call: str, randomness: str | None) -> Callable:
    """jacrev's transform; `aux_call` names the call in the has_aux error ("jvp" for jacfwd, as PyTorch).
    jacfwd passes its `randomness`: PyTorch runs f under vmap there, so a custom Function in f needs a vmap rule
    and, with "error", a random op in f raises vmap's error; the flag itself is checked when the Jacobian is
    called, where PyTorch's vmap over the basis checks it."""

    name = "jacrev" if randomness is None else "jacfwd"

    @wraps(func)
    def wrapper(*args, **kwargs):
        _refuse_complex(name, _flatten(args)[0], "inputs")
        if randomness is not None:
            _check_randomness(randomness)
        trees, keep = _selected(args, argnums)
        enabled = is_grad_enabled()
        with enable_grad():
            tracked, call = _tracked_call(args, argnums, trees)
            state = get_rng_state() if randomness == "error" else None
            refusal = record.refusing_forward_ad([x for xs in tracked for x in xs]) if randomness is not None \
                else nullcontext()
            flat = [x for xs in tracked for x in xs]
            frame = None if randomness is None else forward_ad._Frame(flat, _basis(flat), keep, enabled)
            with func_transform("jacrev" if randomness is None else "vmap"), _calling(tracked), refusal, \
                    forward_ad.framed(frame) if frame is not None else nullcontext():
                out, aux = _split_aux(func(*call, **kwargs), has_aux, aux_call)
            if state is not None and not get_rng_state().equal(state):
                set_rng_state(state)
                raise RuntimeError(_RANDOM_ERROR)
            out_leaves, out_build = _flatten(out)
            keep = keep or _reaches_outer(out_leaves, flat if frame is None else frame.sources, enabled)
            _only_tensors(out_leaves, aux_call)
            _refuse_complex(name, out_leaves, "outputs")
            per_output = _by_rows(out_leaves, flat, keep) if frame is None else _by_columns(out_leaves, frame, keep)
            jacs = []
            for per_input in per_output:
                per_input = [_finish(j, keep) for j in per_input]
                k, grouped = 0, []
                for (_, build), xs in zip(trees, tracked):
                    grouped.append(build(per_input[k:k + len(xs)]))
                    k += len(xs)
                jacs.append(grouped[0] if isinstance(argnums, int) else tuple(grouped))
        result = out_build(jacs)
        if has_aux:
            return result, _detach_tree(aux, keep)
        return result

    return wrapper


def _refuse_complex(name: str, leaves: list, what: str) -> None:
    """PyTorch's refusal of complex inputs or outputs in jacrev/jacfwd (`what`: "inputs" or "outputs")."""
    for i, x in enumerate(leaves):
        if isinstance(x, Tensor) and x.is_complex():
            raise RuntimeError(f"{name}: Expected all {what} to be real but received complex tensor at flattened "
                               f"input idx: {i}")


def _by_rows(outs: list, flat: list, keep: bool) -> list[list]:
    """jacrev's Jacobians of each output w.r.t. each of `flat`: one vjp per output element."""
    res = []
    for o in outs:
        rows = [_grads([e], flat, None, keep) for e in o.reshape(-1)] if o.requires_grad else []
        res.append([_stack([r[i] for r in rows]).reshape(tuple(o.shape) + tuple(x.shape)) if rows
                    else x.new_zeros(tuple(o.shape) + tuple(x.shape)) for i, x in enumerate(flat)])
    return res


def _basis(flat: list) -> list[list]:
    """jacfwd's tangents: one column per element of the inputs `flat`, that element's one-hot tangent (None: the
    other inputs' zeros)."""
    cols = []
    for i, x in enumerate(flat):
        for e in range(x.numel()):
            t = x.detach().new_zeros((x.numel(),))
            t[e] = 1
            cols.append([t.reshape(tuple(x.shape)) if k == i else None for k in range(len(flat))])
    return cols


def _by_columns(outs: list, frame, keep: bool) -> list[list]:
    """jacfwd's Jacobians of each output w.r.t. each of the frame's inputs: one jvp per input element, as PyTorch's
    forward mode computes them (a structural zero's sign follows its column)."""
    _, cols = forward_ad._jvps(outs, frame.sources, frame.columns, frame.cut, keep)
    res, k0 = [[] for _ in outs], 0
    for x in frame.sources[:frame.n_inputs]:
        k1 = k0 + x.numel()
        for j, o in enumerate(outs):
            shape = tuple(o.shape) + tuple(x.shape)
            res[j].append(_stack([c[j] for c in cols[k0:k1]], dim=o.dim()).reshape(shape) if k1 > k0
                          else x.new_zeros(shape))
        k0 = k1
    return res


def jacfwd(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable:
    """The Jacobian, as `jacrev` gives it (ember computes it in reverse mode; values are the same)."""
    return _jacobian(func, argnums, has_aux, "jvp", randomness)


def hessian(func: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    """`f -> the Hessian of scalar f w.r.t. args[argnums]`: the Jacobian of its gradient."""
    return jacfwd(jacrev(func, argnums), argnums)


def functionalize(func: Callable, *, remove: str = "mutations") -> Callable:
    """`func` itself, as a function: PyTorch's transform rewrites in-place ops and views as out-of-place
    ones for graph capture, keeping the values and the mutations of the inputs; ember runs eagerly
    and captures no such graphs, so calling `func` gives exactly those values and effects."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. Valid options "
            "are:\n     remove='mutations': all inplace and out= operators will be removed from the program, and "
            "replaced with their out-of-place equivalents.\n     remove='mutations_and_views': In addition to the "
            "above, all aliasing operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n")

    @wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def debug_unwrap(tensor, *, recurse: bool = True):
    """`tensor` itself: ember's transforms run on plain tensors (see NOTE [ Transforms by the tape ]),
    so there is no functorch wrapper to take off."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"debug_unwrap(): expected a Tensor, got {type(tensor).__name__}")
    return tensor


# -------------------------------------------------------------------------------------- vmap

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
                 "'different' randomness flags on vmap or perform the randomness operation out of vmap")


def _check_randomness(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")


def vmap(func: Callable, in_dims=0, out_dims=0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """`f -> f mapped over dimension in_dims of its inputs`, results stacked at `out_dims`.

    `in_dims` is an int, None (not mapped) or a nested structure matching the positional
    arguments; keyword arguments are passed unmapped. `randomness`: "error" (a random op inside
    raises), "different" (each element draws its own numbers) or "same" (every element draws the
    same ones). See NOTE [ Transforms by the tape ] for how it runs. Writing a mapped value into a tensor
    that is not mapped (`buf.copy_(x)`, `buf[i] = x`) raises PyTorch's RuntimeError (see `_vmap_writes`).

    >>> import ember.autograd as torch
    >>> vmap(torch.dot)(torch.ones(3, 2), torch.arange(6.0).reshape(3, 2))
    tensor([1., 5., 9.])
    """
    _check_randomness(randomness)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @wraps(func)
    def wrapper(*args, **kwargs):
        name = getattr(func, "__name__", type(func).__name__)
        what = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
        dims = _match_in_dims(in_dims, args, what)
        leaves, build = _flatten(list(args))
        size = None
        for x, d in zip(leaves, dims):
            if d is None:
                continue
            if not isinstance(x, Tensor):
                raise ValueError(f"{what}: Got in_dim={d} for an input but the input is of type {type(x)}. "
                                 "We cannot vmap over non-Tensor arguments, please use None as the respective "
                                 "in_dim")
            if not -x.dim() <= d < max(x.dim(), 0) or x.dim() == 0:
                raise ValueError(f"{what}: Got in_dim={d} for some input, but that input is a Tensor of "
                                 f"dimensionality {x.dim()} so expected in_dim to satisfy -{x.dim()} <= in_dim < "
                                 f"{x.dim()}.")
            n = x.shape[d]
            if size is not None and n != size:
                sizes = [x.shape[dd] for x, dd in zip(leaves, dims) if dd is not None]
                raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got "
                                 f"sizes {sizes} for the mapped dimension")
            size = n
        if size is None:
            raise ValueError(f"{what}: at least one input must be a Tensor mapped over a dimension (in_dims are "
                             "all None)")
        if size == 0:
            return _empty_batch(func, leaves, dims, build, kwargs, out_dims, name)
        state = get_rng_state() if randomness != "different" else None
        results = []
        with _MappedValues() as mapped:
            outer_size, mapped.size, mapped.level = mapped.size, size, mapped.level + 1
            outer_randomness, mapped.randomness = mapped.randomness, randomness
            outer_guard, outer_normal, outer_inplace = batched_draw_guard[0], batched_normal[0], inplace_draw_guard[0]
            batched_draw_guard[0] = mapped.refuse_same_draw if randomness == "same" else None
            inplace_draw_guard[0] = mapped.refuse_unmapped_fill if randomness == "different" else None
            # an outermost "different" vmap draws randn's values for the whole batch; a nested one draws per sample
            normals = _BatchedNormals(size) if randomness == "different" and mapped.level == 1 else None
            batched_normal[0] = normals
            try:
                for i in range(size):
                    if normals is not None:
                        normals.sample, normals.calls = i, 0
                    if randomness == "same":
                        set_rng_state(state)
                    call = build([mapped.add(x.select(d, i)) if d is not None else x for x, d in zip(leaves, dims)])
                    with func_transform("vmap"):
                        results.append(func(*call, **kwargs))
                    if randomness == "error" and not get_rng_state().equal(state):
                        set_rng_state(state)
                        raise RuntimeError(_RANDOM_ERROR)
            finally:
                mapped.size, mapped.level, mapped.randomness = outer_size, mapped.level - 1, outer_randomness
                batched_draw_guard[0], batched_normal[0] = outer_guard, outer_normal
                inplace_draw_guard[0] = outer_inplace
        return _stack_outputs(results, out_dims, name)

    return wrapper


class _BatchedNormals:
    """`randn` under an outermost vmap(randomness="different"): the first sample's k-th call draws the whole batch's
    values at once, as PyTorch's batched call does (its vectorised normal fill differs from per-sample fills), and
    every sample's k-th call takes its slice; a call that differs between samples (shape, count) draws its own."""

    def __init__(self, size: int):
        self.size, self.sample, self.calls = size, 0, 0
        self.drawn: list[Tensor] = []

    def __call__(self, shape: tuple[int, ...], draw: Callable) -> Tensor:
        k, self.calls = self.calls, self.calls + 1
        if self.sample == 0:
            self.drawn.append(draw((self.size, *shape)))
        elif k >= len(self.drawn) or tuple(self.drawn[k].shape[1:]) != tuple(shape):
            return draw(shape)
        return self.drawn[k][self.sample]


_VALUE_READS = {
    "item": "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
            "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere "
            "inside PyTorch internals, please file a bug report.",
    "bool": "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We don't "
            "support that yet, please file an issue at https://github.com/pytorch/pytorch/issues .",
    "tolist": "Cannot access data pointer of Tensor that doesn't have storage",
    "fill_": "vmap: fill_" + _WRITE_ADVICE.format(where="in a vmap", name="fill_"),
}


_TENSOR_FILE = sys.modules[home_module(Tensor)].__file__


class _MappedValues:
    """The tensors a running vmap maps (its per-sample slices) and every op result computed from them: the user's
    code may not read their Python values (`.item()`, `bool()`, `.tolist()`), which PyTorch's batched tensors
    refuse; ember's own code may (it runs per sample). Nested vmaps share one record."""

    active: _MappedValues | None = None

    def __enter__(self) -> _MappedValues:
        self.outer = _MappedValues.active
        if self.outer is not None:
            return self.outer
        self.refs: dict[int, weakref.ref] = {}
        self.size, self.level = 0, 0  # the innermost running vmap's mapped size, and how many vmaps are nested
        self.randomness = "error"  # the innermost running vmap's
        _MappedValues.active = self
        dispatch.register_dispatch_hook(self._hook)
        value_read_guard[0] = self._guard
        like_made[0] = self._made_like
        return self

    def __exit__(self, *exc) -> None:
        if self.outer is None:
            _MappedValues.active = None
            dispatch.remove_dispatch_hook(self._hook)
            value_read_guard[0] = None
            like_made[0] = None

    def add(self, t: Tensor) -> Tensor:
        self.refs[id(t)] = weakref.ref(t)
        return t

    def holds(self, t) -> bool:
        ref = self.refs.get(id(t)) if isinstance(t, Tensor) else None
        return ref is not None and ref() is t

    def _made_like(self, source, result, random: bool) -> None:
        # a random `*_like` draw is batched under "different" only: "same" draws one tensor for every sample
        if self.holds(source) and isinstance(result, Tensor) and not (random and self.randomness != "different"):
            self.add(result)

    def refuse_same_draw(self, *operands) -> None:
        """Under randomness="same", a sampler whose draws depend on a mapped tensor (PyTorch's batched input)."""
        if any(self.holds(t) for t in operands):
            raise RuntimeError("Vmap does not currently support same randomness with a batched tensor input. Please "
                               "file an issue with functorch")

    def refuse_unmapped_fill(self, t: Tensor, name: str, *operands) -> None:
        """Under randomness="different", an in-place sampler filling a tensor that is not mapped: PyTorch refuses
        it, as every sample would see the same draw (a mapped tensor operand, `bernoulli_(p)`, is refused first)."""
        if self.holds(t):
            return
        if any(self.holds(o) for o in operands):
            raise RuntimeError(f"vmap: inplace {name}" + _WRITE_ADVICE.format(where="in a vmap",
                                                                             name=f"inplace {name}"))
        raise RuntimeError("vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will "
                           "appear like same randomness. If this is necessary for your usage, please file an issue "
                           "with functorch.")

    def _hook(self, op, args, kwargs, call_next):
        if op.mutates or (kwargs and kwargs.get("out") is not None):
            refused = _write_refusal(op, args, kwargs, self.holds, self.size, self.level)
            if refused is not None:
                raise RuntimeError(refused)
        if op.name in _DYNAMIC_OPS and any(self.holds(a) for a in args):
            refused = _dynamic_shape_refusal(sys._getframe(1))
            if refused is not None:
                raise RuntimeError(refused)
        if op.name == "masked_select" and len(args) > 1 and self.holds(args[1]):
            refused = _MASK_REFUSALS.get(_public_op(sys._getframe(1)))
            if refused is not None:
                raise RuntimeError(refused)
        out = call_next(op, args, kwargs)
        if any(self.holds(a) or (isinstance(a, tuple | list) and any(self.holds(b) for b in a))
               for a in (*args, *kwargs.values())):
            for t in out if isinstance(out, tuple | list) else (out,):
                if isinstance(t, Tensor):
                    self.add(t)
        return out

    def _guard(self, t: Tensor, kind: str, written: Tensor | None = None) -> None:
        if not self.holds(t) or (written is not None and self.holds(written)):
            return  # a mapped value filled into a mapped tensor: one fill per sample, as PyTorch's batched fill_
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename == _TENSOR_FILE:
            frame = frame.f_back
        if frame is None or not frame.f_globals.get("__name__", "").startswith(("ember.", "torch.")):
            raise RuntimeError(_VALUE_READS[kind])


_DYNAMIC_OPS = frozenset({"unique", "unique_consecutive", "nonzero"})


_MASK_REFUSALS = {  # a mapped mask: PyTorch's words by the public function the user called
    "masked_select": "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot support this "
                     "because for each batch this would return a differently shaped Tensor. Please file an issue at "
                     "https://github.com/pytorch/pytorch/issues if you need this feature.",
    "getitem": "vmap: We do not support batching operators that can support dynamic shape. Attempting to batch over "
               "indexing with a boolean mask.",
}


def _public_op(frame) -> str | None:
    """The name of the ember.core.ops function user code called, with the op now running under `frame`; None when
    no user code called it (ember's own composites, torch's Python)."""
    name = None
    while frame is not None and frame.f_globals.get("__name__", "").startswith("ember."):
        if _is_op_frame(frame):
            name = frame.f_code.co_name
        frame = frame.f_back
    return name if frame is not None else None


def _is_op_frame(frame) -> bool:
    """A frame of an op of ember.core's, not of the argument-checking wrapper some ops are called through."""
    module = frame.f_globals["__name__"]
    return module.startswith("ember.core.ops") and module != "ember.core.ops.parser_errors"


def _dynamic_shape_refusal(frame) -> str | None:
    """PyTorch's refusal when user code calls `unique`, `unique_consecutive`, `nonzero` or one-argument `where` on a
    mapped value (each sample's result could have its own shape); None when the op runs under another public function
    (`argwhere`, which PyTorch batches, or ember's own composites)."""
    public = None
    while frame is not None and frame.f_globals.get("__name__", "").startswith("ember."):
        if _is_op_frame(frame):
            public = frame
        frame = frame.f_back
    if public is None or frame is None:
        return None
    name, local = public.f_code.co_name, public.f_locals
    if name == "getitem":  # a mapped boolean mask that indexes some of the dims
        return _MASK_REFUSALS["getitem"]
    if name == "nonzero" and local.get("as_tuple"):
        return "Batching rule not implemented for aten::nonzero_numpy. We could not generate a fallback."
    aten = {"unique": "unique_dim" if local.get("dim") is not None else "_unique2",
            "unique_consecutive": "unique_consecutive", "nonzero": "nonzero", "where": "where"}.get(name)
    if aten is None:
        return None
    return (f"vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap over "
            f"aten::{aten}. Please file an issue at https://github.com/pytorch/pytorch/issues if you need this "
            "feature.")


def is_mapped(t) -> bool:
    """Whether `t` is, or was computed from, a slice a running vmap maps (PyTorch's batched tensor)."""
    active = _MappedValues.active
    return active is not None and active.holds(t)


def _spec_repr(tree, indent: int = 0) -> str:
    """The structure of a tuple/list/dict tree as PyTorch's `TreeSpec` prints it (leaves, None included, as `*`)."""
    if isinstance(tree, tuple | list) and type(tree) in (tuple, list):
        kind, context, children = type(tree).__name__, None, list(tree)
    elif type(tree) is dict:
        kind, context, children = "dict", list(tree), list(tree.values())
    else:
        return "*"
    indent += 2
    inner = ("," + "\n" + " " * indent).join(_spec_repr(c, indent) for c in children)
    return f"TreeSpec({kind}, {context}, [{inner}])"


def _spec_pprint(tree) -> str:
    """The structure of a tuple/list/dict tree as PyTorch's `treespec_pprint` writes it: `(*, [*, *])`."""
    if type(tree) is tuple:
        inner = ", ".join(_spec_pprint(c) for c in tree)
        return f"({inner},)" if len(tree) == 1 else f"({inner})"
    if type(tree) is list:
        return "[" + ", ".join(_spec_pprint(c) for c in tree) + "]"
    if type(tree) is dict:
        return "{" + ", ".join(f"{k!r}: {_spec_pprint(v)}" for k, v in tree.items()) + "}"
    return "*"


def _match_in_dims(in_dims, args: tuple, what: str) -> list:
    """One mapped dimension (or None) per leaf of `args`."""
    if isinstance(in_dims, int):
        return [in_dims] * len(_flatten(list(args))[0])
    if not isinstance(in_dims, tuple | list):
        raise ValueError(f"{what}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    mismatch = (f"{what}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
                f"{_spec_repr(tuple(in_dims))} but inputs has structure {_spec_repr(tuple(args))}.")
    if len(in_dims) != len(args):
        raise ValueError(mismatch)

    def match(d, a) -> list:
        """`d` broadcast over `a`'s leaves: an int or None covers a subtree; a container must mirror `a`'s."""
        if isinstance(d, int) or d is None:
            return [d] * len(_flatten(a)[0])
        if isinstance(d, tuple) and isinstance(a, tuple) or isinstance(d, list) and isinstance(a, list):
            if len(d) == len(a):
                return [x for dd, aa in zip(d, a) for x in match(dd, aa)]
        elif isinstance(d, dict) and isinstance(a, dict) and d.keys() == a.keys():
            return [x for k in a for x in match(d[k], a[k])]
        raise ValueError(mismatch)

    return [x for d, a in zip(in_dims, args) for x in match(d, a)]


def _empty_batch(func: Callable, leaves: list, dims: list, build: Callable, kwargs: dict, out_dims, name: str):
    """The outputs of a mapped dimension of size 0: f runs once on zero-filled elements to learn
    the shapes, and each output is that shape with an empty mapped dimension."""
    call = build([x.new_zeros(tuple(s for k, s in enumerate(x.shape) if k != d % x.dim())) if d is not None else x
                  for x, d in zip(leaves, dims)])
    with func_transform("vmap"):
        one = _stack_outputs([func(*call, **kwargs)], out_dims, name)
    out_leaves, out_build = _flatten(one)
    d_leaves = [out_dims] * len(out_leaves) if isinstance(out_dims, int) or out_dims is None else _flatten(out_dims)[0]
    return out_build([o if d is None else o.narrow(d, 0, 0) for o, d in zip(out_leaves, d_leaves)])


def _stack_outputs(results: list, out_dims, name: str):
    what = f"vmap({name}, ...)"
    leaves0, build = _flatten(results[0])
    per_leaf = [_flatten(r)[0] for r in results]
    if isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * len(leaves0)
    else:
        dims, _ = _flatten(out_dims)
        if len(dims) != len(leaves0):
            raise ValueError(f"{what}: out_dims is not compatible with the structure of `outputs`. out_dims has "
                             f"{len(dims)} entries but outputs has {len(leaves0)}.")
    stacked = []
    for k, d in enumerate(dims):
        col = [leaves[k] for leaves in per_leaf]
        if not all(isinstance(c, Tensor) for c in col):
            bad = next(c for c in col if not isinstance(c, Tensor))
            raise ValueError(f"{what}: `{name}` must only return Tensors, got type {type(bad)}. Did you mean to set "
                             "out_dims= to None for output?")
        if d is None:
            stacked.append(col[0])
            continue
        n = col[0].dim() + 1
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        stacked.append(_stack(col).movedim(0, d % n) if d % n else _stack(col))
    return build(stacked)
