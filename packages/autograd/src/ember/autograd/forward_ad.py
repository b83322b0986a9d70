"""`torch.autograd.forward_ad`: forward-mode AD through dual tensors (`dual_level`, `make_dual`,
`unpack_dual`), emulated on ember's reverse-mode tape.

NOTE [ Dual tensors on the tape ]
ember has no per-op forward derivatives. `make_dual(p, t)` returns a tensor aliasing `p` that
records history on the tape (it requires grad), and the level remembers the pair (dual, t).
`unpack_dual(y)` computes y's tangent `J t` where it is asked for, by the double-vjp trick
`ember.func.jvp` uses: g(u) = d<y, u>/d duals is linear in a dummy cotangent u, and J t is the
gradient of <g(u), t> with respect to u. What this costs and where it differs from PyTorch:
- each `unpack_dual` of a computed tensor runs two backward passes over y's graph (PyTorch
  carries tangents along the forward pass at about the cost of one more forward);
- tangents flow only through ops recorded on the tape: each tensor carrying a tangent is marked with
  the level's serial (`record.set_forward_level`), and an op on one records under `no_grad()` too,
  as PyTorch's forward AD ignores grad mode (its result then requires grad, PyTorch's does not;
  inference mode drops tangents, as PyTorch's); `.detach()`ed work has no tangent, and an op whose
  backward is not itself differentiable contributes a zero tangent;
- a custom Function's `jvp` gives its outputs' tangents, as PyTorch's (NOTE [ Custom jvp on the tape ]);
- duals require grad (PyTorch's do not unless their primal does), so writing into one in place
  raises (a leaf, or `unpack_dual` refuses a dual modified since `make_dual`), and the level keeps
  every dual and tangent alive until it exits.
As in PyTorch 2.13, one level exists at a time (nesting raises).

NOTE [ Custom jvp on the tape ]
A custom Function applied to an input carrying a tangent (of the open level, or of a running `torch.func.jvp` or
`jacfwd`, a `_Frame`) calls the user's `jvp` with its inputs' tangents, where PyTorch calls it. Its outputs then
become sources of the level, as duals are: an output's tangent is the one `jvp` returned, and the Function's node
is *cut* while tangents are computed (`cutting`: its backward gives no gradient), so the double vjp reaches its
inputs only through its outputs' tangents, never through the user's `backward`. Reverse mode still runs the
backward: the cut holds only inside a tangent computation.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

from ember.core import dtypes
from ember.core.tensor import Tensor

from ember.autograd import record
from ember.autograd.engine import grad as _grad
from ember.autograd.function import cutting
from ember.autograd.grad_mode import _DecoratorContextManager, _state, enable_grad

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

_current_level = -1
_serial = 0  # the open level's serial (`record._level`): tensors marked in an earlier level carry no tangent now
# the duals of the open level: (dual tensor, its tangent, whether its primal was tracked by reverse mode, its version,
# whether a custom Function's `jvp` gave the tangent of this output of it)
_duals: list[tuple[Tensor, Tensor, bool, int, bool]] = []
_cut: set = set()  # the nodes of the level's custom Functions whose `jvp` gave their outputs' tangents


def enter_dual_level() -> int:
    """Open the forward-AD level (0) and return it; only one may be open (PyTorch's rule)."""
    global _current_level, _serial
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level = 0
    _serial += 1
    record.set_forward_level(_serial)
    return _current_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the level: every dual of it forgets its tangent."""
    global _current_level
    level = _current_level if level is None else level
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _duals.clear()
    _cut.clear()
    _current_level = -1
    record.set_forward_level(0)


def _check_level(level: int, what: str) -> None:
    if level != _current_level:
        raise RuntimeError(f"Invalid level given to {what}")


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A tensor aliasing `tensor` whose tangent is `tangent` at the current level (see NOTE [ Dual
    tensors on the tape ]); functions of it carry `J tangent`, read with `unpack_dual`."""
    level = _current_level if level is None else level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    _check_level(level, "_make_dual")
    if any(d is tensor for d, *_ in _duals):
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           f"level {level} is not supported.")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    if _state.inference:  # PyTorch's inference mode makes no dual: the tensor has no tangent
        return tensor.view_as(tensor)
    if not _same_layout(tensor, tangent):
        tangent = _laid_out_as(tangent, tensor)
    tracked = tensor.requires_grad
    with enable_grad():
        dual = tensor.view_as(tensor) if tracked else tensor.detach().requires_grad_(True)
    return _add(dual, tangent, tracked)


def _same_layout(primal: Tensor, tangent: Tensor) -> bool:
    """Whether `tangent` has the primal's strides and offset over a storage of its size (PyTorch's has_same_meta:
    the tangent is then kept as given)."""
    return (primal._strides == tangent._strides and primal._offset == tangent._offset
            and primal._storage.nbytes // primal._dtype.itemsize == tangent._storage.nbytes // tangent._dtype.itemsize)


def _laid_out_as(tangent: Tensor, primal: Tensor) -> Tensor:
    """A copy of `tangent` with the primal's strides, as PyTorch stores a tangent of another layout."""
    from ember.core.creation import empty_strided

    out = empty_strided(tuple(primal.shape), tuple(primal.stride()), dtype=tangent.dtype, device=tangent.device)
    out.copy_(tangent)
    return out


def _add(dual: Tensor, tangent: Tensor, tracked: bool, made: bool = False) -> Tensor:
    """Make `dual` one of the open level's, carrying `tangent` (`made`: a custom Function's output)."""
    dual._dual = _serial
    _duals.append((dual, tangent, tracked, dual._version, made))
    return dual


class _Frame:
    """A running `torch.func.jvp` or `jacfwd`: its tracked inputs, their tangents (one list per column: jacfwd has one
    column per input element) and the custom Function outputs whose `jvp` gave theirs (NOTE [ Custom jvp on the
    tape ]). `keep`: its tangents stay differentiable in the outer level's leaves; `enabled`: grad mode outside."""

    def __init__(self, leaves: list[Tensor], columns: list[list[Tensor | None]], keep: bool, enabled: bool) -> None:
        self.sources, self.columns, self.keep, self.cut = list(leaves), [list(c) for c in columns], keep, set()
        self.enabled = enabled
        self.n_inputs = len(leaves)
        self._ids = {id(x) for x in leaves}
        self._nodes = {id(x._grad_fn) for x in leaves if x._grad_fn is not None}

    def carries(self, t: Tensor) -> bool:
        return t._requires_grad and record._reaches(t, self._ids, self._nodes)

    def tangents(self, xs: list[Tensor]) -> list[list[Tensor]]:
        """Per column, the tangent of each of `xs` (zeros where it has none), differentiable where `xs` reach a
        closed-over tensor that requires grad."""
        from ember.autograd.func import _reaches_outer

        keep = self.keep or _reaches_outer(xs, self.sources, self.enabled)
        _, cols = _jvps(xs, self.sources, self.columns, self.cut, keep)
        return cols

    def add(self, o: Tensor, per_column: list[Tensor]) -> None:
        self.sources.append(o)
        self._ids.add(id(o))
        for col, t in zip(self.columns, per_column):
            col.append(t)


_frames: list[_Frame] = []  # the running torch.func.jvp / jacfwd calls, innermost last


@contextlib.contextmanager
def framed(frame: _Frame | None):
    """Run the transformed function under `frame` (None: under none, as a custom Function's `jvp` runs)."""
    _frames.append(frame)
    try:
        yield
    finally:
        _frames.pop()


def frame_of(args: tuple):
    """Where a custom Function's tensor inputs carry tangents: the innermost running jvp/jacfwd frame they reach,
    else "level" (the open forward-AD level), else None."""
    frame = _frames[-1] if _frames else None
    tensors = [a for a in args if isinstance(a, Tensor)]
    if frame is not None:
        return frame if any(frame.carries(a) for a in tensors) else None
    if _current_level >= 0 and record._level > 0 and any(record._has_tangent(a) for a in tensors):
        return "level"
    return None


def input_tangents(frame, tensors: list[Tensor]) -> list[list[Tensor]]:
    """Per column, the tangents of a custom Function's tensor inputs under `frame` (zeros where one has none)."""
    if frame != "level":
        return frame.tangents(tensors)
    ts = [unpack_dual(a).tangent for a in tensors]
    return [[a.detach().new_zeros(tuple(a.shape)) if t is None else t for a, t in zip(tensors, ts)]]


def primal_in_jvp(frame, t: Tensor | None) -> Tensor | None:
    """A `save_for_forward` tensor as a custom `jvp` sees it: under the level, detached where reverse mode does not
    follow it (ember's duals require grad, PyTorch's do not)."""
    if frame != "level" or not isinstance(t, Tensor) or not t.requires_grad or _keeps(t):
        return t
    return t.detach()


def add_output(frame, o: Tensor, per_column: list[Tensor]) -> Tensor:
    """Make a custom Function's output `o` a source of `frame` with its `jvp`'s tangents; an output recorded on the
    tape has its node cut from tangent computations, one not recorded becomes a fresh leaf."""
    node = o._grad_fn
    if node is None:
        with enable_grad():
            o = o.detach().requires_grad_(True)
    if frame == "level":
        if node is not None:
            _cut.add(node)
        t = per_column[0]
        return _add(o, t if _keeps(o) else t.detach(), False, made=True)
    if node is not None:
        frame.cut.add(node)
    frame.add(o, per_column)
    return o


def _jvps(ys: list[Tensor], sources: list[Tensor], columns: list[list[Tensor | None]], cut, keep: bool):
    """J t of each of `ys` for each column of source tangents (`columns[k][i]`: source i's, None for zeros), by
    differentiating a vjp with respect to its cotangent, the `cut` nodes giving no gradient; zeros where y does not
    reach a source. Also returns the indices of the sources reached."""
    out = [[y.detach().new_zeros(tuple(y.shape)) for y in ys] for _ in columns]
    live = [j for j, y in enumerate(ys) if y.requires_grad]
    if not live or not sources:
        return [], out
    with enable_grad():
        us = [ys[j].detach().new_zeros(tuple(ys[j].shape)).requires_grad_(True) for j in live]
        with cutting(cut):
            gs = _grad([ys[j] for j in live], sources, us, retain_graph=True, create_graph=True, allow_unused=True)
        used = [i for i, g in enumerate(gs) if g is not None]
        diff = [i for i in used if gs[i].requires_grad]
        for k, col in enumerate(columns):
            idx = [i for i in diff if col[i] is not None]
            if not idx:
                continue
            jv = _grad([gs[i] for i in idx], us, [col[i].to(gs[i].dtype) for i in idx], retain_graph=True,
                       create_graph=keep, allow_unused=True)
            for j, g in zip(live, jv):
                if g is not None:
                    out[k][j] = g if keep else g.detach()
    return used, out


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: the primal and its tangent (None where it has none)."""

    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """`(primal, tangent)` of `tensor` at the level: the tangent is `J t` summed over the level's
    duals (None where `tensor` does not depend on any); see NOTE [ Dual tensors on the tape ]
    for its cost."""
    level = _current_level if level is None else level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}")
    _check_level(level, "_fw_primal")
    for d, _, _, version, made in _duals:
        if not made and d._version != version:
            raise RuntimeError("unpack_dual: a dual tensor was modified in place after make_dual; ember's forward "
                               "AD, emulated on the tape, cannot follow in-place writes into a dual (PyTorch's can)")
    keep = _keeps(tensor)
    primal = tensor if keep else tensor.detach()
    for d, t, _, version, _ in _duals:
        if d is tensor and d._version == version:
            return UnpackedDualTensor(primal, t)
    return UnpackedDualTensor(primal, _tangent(tensor, keep) if tensor.requires_grad else None)


def _keeps(tensor: Tensor) -> bool:
    """Whether reverse mode follows `tensor`'s primal and tangent: where a dual's primal or given tangent, or another
    leaf (a module's parameter), requires grad (PyTorch's tangent of `conv(dual)` is differentiable w.r.t. the conv's
    weight; in grad mode only: no_grad's forward AD records no graph)."""
    from ember.autograd.func import _reaches_outer

    return _state.enabled and (any(tracked or (t.requires_grad and not made) for _, t, tracked, _, made in _duals)
                               or _reaches_outer([tensor], [d for d, *_ in _duals], True))


def _tangent(y: Tensor, keep: bool) -> Tensor | None:
    """J t for y over the level's duals and custom Function outputs (NOTE [ Custom jvp on the tape ])."""
    used, cols = _jvps([y], [d for d, *_ in _duals], [[t for _, t, *_ in _duals]], _cut, keep)
    if not used:
        return None
    jv = cols[0][0]
    dt = _tangent_dtype(y.dtype, [_duals[i][1].dtype for i in used])
    if dt is not jv.dtype:
        jv = jv.to(dt)
    return jv


def _tangent_dtype(primal: dtypes.dtype, tangents: list[dtypes.dtype]) -> dtypes.dtype:
    """The dtype of a computed tangent: PyTorch's formulas promote the primal's dtype with a real tangent's wider
    one (`make_dual(float32, float64 tangent) * 3` has a float64 tangent); its values are still computed in the
    primal's dtype here (the tape's backward runs in it). A complex tangent of a real primal keeps the primal's."""
    for t in tangents:
        if t.is_floating_point and primal.is_floating_point:
            primal = dtypes.promote_types(primal, t)
    return primal


class dual_level(_DecoratorContextManager):
    """`with dual_level():` (or as a decorator) opens the forward-AD level for the block; `as` binds it."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()
