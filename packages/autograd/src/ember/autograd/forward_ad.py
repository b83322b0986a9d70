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
- a custom Function defining `jvp` and no backward gives duals of its outputs with the tangents its `jvp`
  computes (no reverse mode through them); one that defines both has its tangents through its backward;
- duals require grad (PyTorch's do not unless their primal does), so writing into one in place
  raises (a leaf, or `unpack_dual` refuses a dual modified since `make_dual`), and the level keeps
  every dual and tangent alive until it exits.
As in PyTorch 2.13, one level exists at a time (nesting raises).
"""

from __future__ import annotations

from typing import NamedTuple

from ember.core import dtypes
from ember.core.tensor import Tensor

from ember.autograd import record
from ember.autograd.engine import grad as _grad
from ember.autograd.grad_mode import _DecoratorContextManager, _state, enable_grad

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

_current_level = -1
_serial = 0  # the open level's serial (`record._level`): tensors marked in an earlier level carry no tangent now
# the duals of the open level: (dual tensor, its tangent, whether its primal was tracked by reverse mode, its version)
_duals: list[tuple[Tensor, Tensor, bool, int]] = []


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
    _current_level = -1
    record.set_forward_level(0)
_serial = 0  # the open level's serial (`record._level`): tensors marked in an earlier level carry no tangent now


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
    tracked = tensor.requires_grad
    with enable_grad():
        dual = tensor.view_as(tensor) if tracked else tensor.detach().requires_grad_(True)
    return _add(dual, tangent, tracked)


def _add(dual: Tensor, tangent: Tensor, tracked: bool) -> Tensor:
    """Make `dual` one of the open level's, carrying `tangent`."""
    dual._dual = _serial
    _duals.append((dual, tangent, tracked, dual._version))
    return dual


def _register(tensor: Tensor, tangent: Tensor) -> Tensor:
    """A dual of the open level for an output whose tangent a custom Function's `jvp` computed."""
    return _add(tensor.detach().requires_grad_(True), tangent, False)


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
    for d, _, _, version in _duals:
        if d._version != version:
            raise RuntimeError("unpack_dual: a dual tensor was modified in place after make_dual; ember's forward "
                               "AD, emulated on the tape, cannot follow in-place writes into a dual (PyTorch's can)")
    from ember.autograd.func import _reaches_outer

    # reverse mode follows the primal and tangent where a dual's primal or tangent, or another leaf (a module's
    # parameter), requires grad: PyTorch's tangent of `conv(dual)` is differentiable w.r.t. the conv's weight (in
    # grad mode: no_grad's forward AD records no graph)
    keep = _state.enabled and (any(tracked or t.requires_grad for _, t, tracked, _ in _duals)
                               or _reaches_outer([tensor], [d for d, *_ in _duals], True))
    primal = tensor if keep else tensor.detach()
    for d, t, *_ in _duals:
        if d is tensor:
            return UnpackedDualTensor(primal, t)
    return UnpackedDualTensor(primal, _tangent(tensor, keep) if tensor.requires_grad else None)


def _tangent(y: Tensor, keep: bool) -> Tensor | None:
    """J t for y over the level's duals, by differentiating a vjp with respect to its cotangent."""
    with enable_grad():
        u = y.detach().new_zeros(tuple(y.shape)).requires_grad_(True)
        duals = [d for d, *_ in _duals]
        gs = _grad([y], duals, [u], retain_graph=True, create_graph=True, allow_unused=True)
        pairs = [(g, t) for g, (_, t, *_) in zip(gs, _duals) if g is not None]
        if not pairs:
            return None
        live = [(g, t.to(g.dtype)) for g, t in pairs if g.requires_grad]
        jv = None
        if live:
            jv = _grad([g for g, _ in live], [u], [t for _, t in live], retain_graph=True, create_graph=keep,
                       allow_unused=True)[0]
    if jv is None:
        jv = y.detach().new_zeros(tuple(y.shape))
    dt = _tangent_dtype(y.dtype, [t.dtype for _, t in pairs])
    if dt is not jv.dtype:
        jv = jv.to(dt)
    return jv if keep else jv.detach()


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
