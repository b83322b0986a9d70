"""`gradcheck` / `gradgradcheck`: analytical gradients against central finite differences.

Inputs should be float64: the check perturbs each element of every input that requires grad by
`±eps`, builds the numerical Jacobian column by column, and compares it with the analytical
one, built row by row by `grad` with one-hot output gradients. Complex inputs and outputs are
checked as their (real, imaginary) float views, so both directions of each complex element are
perturbed; with PyTorch's convention that float view's gradient is the complex gradient's view.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np

from ember.core.tensor import Tensor

from ember.autograd.engine import grad as autograd_grad
from ember.autograd.grad_mode import no_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """A gradient check failed: the message holds both Jacobians."""


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, tuple | list) else (x,)


def _host(t: Tensor) -> np.ndarray:
    return np.array(t.detach().to("cpu").numpy(), dtype=np.float64)  # a copy: outputs may be views of inputs


def _diff_outputs(outputs: tuple) -> list[Tensor]:
    return [o for o in outputs if isinstance(o, Tensor) and o.is_floating_point()]


def _real_view(func: Callable, inputs: tuple) -> tuple[Callable, tuple]:
    """`func` over float views of its complex inputs that require grad, returning float views of
    its complex outputs (what the finite differences perturb and compare)."""
    from ember.core.ops.complex import view_as_complex, view_as_real

    pos = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.is_complex() and x.requires_grad]
    new = list(inputs)
    for i in pos:
        new[i] = view_as_real(inputs[i].detach()).clone().requires_grad_(True)

    def wrapped(*args):
        args = list(args)
        for i in pos:
            args[i] = view_as_complex(args[i])
        outs = _as_tuple(func(*args))
        return tuple(view_as_real(o.resolve_conj()) if isinstance(o, Tensor) and o.is_complex() else o for o in outs)
    return wrapped, tuple(new)


def _perturb(x: Tensor, idx: tuple, value: float) -> None:
    with no_grad():
        if x.device.type == "cpu":
            x.detach().numpy()[idx] = value
        else:
            x.detach()[idx] = value


def _numerical(func: Callable, inputs: tuple, i: int, eps: float, n_out: list[int]) -> list[np.ndarray]:
    """d(outputs)/d(inputs[i]) by central differences: one (numel(out), numel(in)) array per output."""
    x = inputs[i]
    base = _host(x)
    cols = [np.zeros((n, base.size)) for n in n_out]
    for k, idx in enumerate(np.ndindex(base.shape)):
        orig = float(base[idx])
        _perturb(x, idx, orig - eps)
        lo = [_host(o).reshape(-1) for o in _diff_outputs(_as_tuple(func(*inputs)))]
        _perturb(x, idx, orig + eps)
        hi = [_host(o).reshape(-1) for o in _diff_outputs(_as_tuple(func(*inputs)))]
        _perturb(x, idx, orig)
        for j in range(len(n_out)):
            cols[j][:, k] = (hi[j] - lo[j]) / (2 * eps)
    return cols


def _analytical(outputs: list[Tensor], diff_inputs: list[Tensor]) -> list[list[np.ndarray]]:
    """[output][input] -> (numel(out), numel(in)) Jacobian rows from one backward per output element."""
    from ember.core import contiguous_format, zeros_like

    jac = [[np.zeros((o.numel(), x.numel())) for x in diff_inputs] for o in outputs]
    for j, o in enumerate(outputs):
        if not o.requires_grad:
            continue
        for r in range(o.numel()):
            onehot = zeros_like(o, memory_format=contiguous_format)
            onehot.view(-1)[r] = 1.0
            gs = autograd_grad(o, diff_inputs, onehot, retain_graph=True, allow_unused=True)
            for i, g in enumerate(gs):
                if g is not None:
                    jac[j][i][r] = _host(g).reshape(-1)
    return jac


def _batched(outputs: list[Tensor], diff_inputs: list[Tensor]) -> list[list[np.ndarray]]:
    """The same Jacobians as `_analytical`, each output's from one `grad(..., is_grads_batched=True)`
    over the identity (PyTorch's check_batched_grad)."""
    from ember.core import eye

    jac = [[np.zeros((o.numel(), x.numel())) for x in diff_inputs] for o in outputs]
    for j, o in enumerate(outputs):
        if not o.requires_grad or not o.numel():
            continue
        basis = eye(o.numel(), dtype=o.dtype, device=o.device).reshape(o.numel(), *o.shape)
        gs = autograd_grad(o, diff_inputs, basis, retain_graph=True, allow_unused=True, is_grads_batched=True)
        for i, g in enumerate(gs):
            if g is not None:
                jac[j][i] = _host(g).reshape(o.numel(), -1)
    return jac


def _forward(func: Callable, inputs: tuple, i: int, n_out: list[int]) -> list[np.ndarray]:
    """d(outputs)/d(inputs[i]) by forward mode (dual tensors of `forward_ad`, so a custom Function's `jvp` takes
    part; `autograd.functional.jvp` where a level is already open), one column per one-hot tangent."""
    from ember.core import zeros_like

    from ember.autograd import forward_ad
    from ember.autograd.functional import jvp

    x = inputs[i]
    cols = [np.zeros((n, x.numel())) for n in n_out]

    def of_x(xi):
        args = list(inputs)
        args[i] = xi
        return tuple(_diff_outputs(_as_tuple(func(*args))))

    for c in range(x.numel()):
        t = zeros_like(x.detach())
        t.view(-1)[c] = 1.0
        if forward_ad._current_level >= 0:
            _, jv = jvp(of_x, (x.detach(),), (t,))
            jv = jv if isinstance(jv, tuple) else (jv,)
        else:
            with forward_ad.dual_level():
                outs = of_x(forward_ad.make_dual(x.detach(), t))
                jv = [forward_ad.unpack_dual(o).tangent for o in outs]
            jv = [zeros_like(o.detach()) if g is None else g for o, g in zip(outs, jv)]
        for j in range(len(n_out)):
            cols[j][:, c] = _host(jv[j]).reshape(-1)
    return cols


_NOT_REENTRANT = (
    "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times gives "
    "different values, although analytical gradient matches numerical gradient.The tolerance for nondeterminism "
    "was {}.\n\nNOTE: If your op relies on non-deterministic operations i.e., it is listed here:\n"
    "https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html\nthis failure might be "
    "expected.\n\nIf you are adding a new operator, please file an issue and then use one of the\nworkarounds. The "
    "workaround depends on how your test invokes gradcheck/gradgradcheck.\nIf the test\n- manually invokes "
    "gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n  with `nondet_tol=<tol>` as a keyword argument.\n"
    "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n  to have "
    "`gradcheck_nondet_tol=<tol>`.\n- is a Module test (e.g., in common_nn.py), then modify the corresponding\n"
    "  module_test entry to have `gradcheck_nondet_tol=<tol>`\n")


def _reentrant(first: list[np.ndarray], second: list[np.ndarray], nondet_tol: float) -> bool:
    """Whether two runs' Jacobians (one output's, per input) agree within `nondet_tol` (a NaN difference passes,
    as PyTorch's `max() > tol` comparison)."""
    return all(a.size == 0 or not np.abs(a - b).max() > nondet_tol for a, b in zip(first, second))


def _mismatch(what: str, j: int, i: int, expected: np.ndarray, got: np.ndarray, raise_exception: bool,
              dtypes: tuple) -> bool:
    """Report a Jacobian mismatch: raise `GradcheckError` or return False. As PyTorch's, the message shows
    (numel(input), numel(output)) tensors, the numerical one in the output's dtype, the other in the input's."""
    from ember.core import tensor

    expected, got = tensor(expected.T.copy(), dtype=dtypes[0]), tensor(got.T.copy(), dtype=dtypes[1])
    msg = f"{what} mismatch for output {j} with respect to input {i},\nnumerical:{expected}\nanalytical:{got}\n"
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradcheck(func: Callable, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients of `func` at `inputs` against float64 central differences.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of arguments; those requiring grad are checked.
        eps: the finite-difference step.
        atol, rtol: the tolerance: |analytical - numerical| <= atol + rtol * |numerical|.
        raise_exception: raise `GradcheckError` on a mismatch (else return False).
        check_batched_grad: also build the backward Jacobian with `grad(..., is_grads_batched=True)`.
        check_forward_ad, check_batched_forward_grad: also build it by forward mode (`func.jvp`), one
            tangent per input element, and compare it with the finite differences.
        check_backward_ad: compare the backward Jacobian with the finite differences.

    Returns:
        True when every Jacobian matches.

    Example:
        >>> from ember.autograd import randn, float64
        >>> gradcheck(lambda x: (x * x).sum(), randn(3, dtype=float64, requires_grad=True))
        True
    """
    func, tupled = _real_view(func, _as_tuple(inputs))
    diff_idx = [i for i, x in enumerate(tupled) if isinstance(x, Tensor) and x.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.")
    for i in diff_idx:
        if tupled[i].dtype.name != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex. ", UserWarning, stacklevel=2)
    if not (check_backward_ad or check_batched_grad or check_forward_ad or check_batched_forward_grad):
        return True
    outputs = _diff_outputs(_as_tuple(func(*tupled)))
    n_out = [o.numel() for o in outputs]
    diff_inputs = [tupled[i] for i in diff_idx]
    analytical = _analytical(outputs, diff_inputs) if check_backward_ad or check_batched_grad else None
    # PyTorch computes the backward Jacobians twice: a backward that differs between runs is "not reentrant"
    again = _analytical(outputs, diff_inputs) if check_backward_ad else None
    batched = _batched(outputs, diff_inputs) if check_batched_grad else None
    numerical = [_numerical(func, tupled, i, eps, n_out) for i in diff_idx]
    # As PyTorch: outputs outer, inputs inner, inputs counted among those that require grad.
    for j in range(len(outputs)):
        if check_backward_ad and not _reentrant(analytical[j], again[j], nondet_tol):
            if raise_exception:
                raise GradcheckError(_NOT_REENTRANT.format(nondet_tol))
            return False
        for k, i in enumerate(diff_idx):
            n, dtypes = numerical[k][j], (outputs[j].dtype, tupled[i].dtype)
            if check_backward_ad and not np.allclose(analytical[j][k], n, rtol=rtol, atol=atol, equal_nan=True):
                return _mismatch("Jacobian", j, k, n, analytical[j][k], raise_exception, dtypes)
    for k, i in enumerate(diff_idx):
        forward = _forward(func, tupled, i, n_out) if check_forward_ad or check_batched_forward_grad else None
        for j in range(len(outputs)):
            n, dtypes = numerical[k][j], (outputs[j].dtype, tupled[i].dtype)
            if forward is not None and not np.allclose(forward[j], n, rtol=rtol, atol=atol, equal_nan=True):
                return _mismatch("Jacobian computed with forward mode", j, k, n, forward[j], raise_exception, dtypes)
            if batched is not None and not np.allclose(batched[j][k], analytical[j][k], rtol=rtol, atol=atol,
                                                       equal_nan=True):
                return _mismatch("Batched gradient", j, k, analytical[j][k], batched[j][k], raise_exception, dtypes)
    return True


def _random_grad_output(out: Tensor) -> Tensor:
    from ember.core import dtypes, empty
    from ember.core.ops.complex import view_as_real

    dtype = out.dtype if out.dtype.is_floating_point or out.dtype.is_complex else dtypes.float64
    g = empty(tuple(out.shape), dtype=dtype, device=out.device)
    with no_grad():
        (view_as_real(g) if dtype.is_complex else g).uniform_(-1.0, 1.0)
    return g.requires_grad_()


def gradgradcheck(func: Callable, inputs, grad_outputs: Sequence | None = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """Check second derivatives: `gradcheck` of the function (inputs, grad_outputs) -> input gradients.

    Random `grad_outputs` are made when none are given: uniform in [-1, 1) from the global generator, as
    PyTorch's `make_tensor` draws them (a seeded program sees the same draws afterwards).
    """

    tupled = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(tupled) if isinstance(x, Tensor) and x.requires_grad]
    if grad_outputs is None:
        outs = _diff_outputs(_as_tuple(func(*tupled)))
        grad_outputs = [_random_grad_output(o) for o in outs]
    grad_outputs = list(_as_tuple(grad_outputs))
    n = len(tupled)

    def first_order(*args):
        ins, gos = args[:n], args[n:]
        outs = _diff_outputs(_as_tuple(func(*ins)))
        gs = autograd_grad(outs, [ins[i] for i in diff_idx], list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, tupled + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
