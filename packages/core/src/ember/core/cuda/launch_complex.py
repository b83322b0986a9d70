"""The complex gate of the CUDA kernels (registered last, around every other launcher's kernels).

NOTE [ Complex on CUDA ]
ember's Numba-CUDA kernels are generated for float and integer compute types; given complex
tensors they would compute in the wrong type. So every CUDA kernel is wrapped here: with no
complex operand it runs as it is (one loop over the arguments); with one, its conjugate views are
resolved first (NOTE [ Complex storage and conj ] in ember.core.ops.complex), and then the op either
- moves data only (copies, casts, cat, flip): its kernel handles any element type; or
- updates elementwise in place (the optimizers' steps): it runs on the float views (each complex
  element as a pair of floats, as PyTorch's optimizers do through view_as_real); or
- has a composite on the (real, imaginary) float views (`ember.core.ops.complex.VIA_REAL`:
  add, sub, mul, div, neg, square, abs, exp, log, log1p, sqrt, eq, ne, isnan/isinf/isfinite, where,
  sum, mean, mm, bmm, dot, einsum; tril, triu, diag_embed and gather on each part), which runs the
  float kernels; or
- runs on the host (`_ON_HOST`: the LAPACK decompositions and solvers, logsumexp, logcumsumexp): the CPU kernel on
  host copies, its results copied back to the device; or
- raises PyTorch's refusal where PyTorch has no complex kernel (`Op.refuse_complex`), else a
  NotImplementedError naming the op (move the tensor to the CPU for it).
The complex views, `complex`, `angle`, `conj_physical` and `polar` are device-independent
("any" kernels over float views), and the FFT runs on the host (NOTE [ FFT backends ]).
"""

from __future__ import annotations

from ember.core import dtypes
from ember.core.dispatch import registered_ops
from ember.core.ops.complex import VIA_REAL, resolved, view_as_real
from ember.core.tensor import Tensor

__all__ = ["register", "ptx_cases"]

# ops whose CUDA kernels move elements without computing on them
_MOVES = frozenset({"copy_", "clone", "to_dtype", "fill_", "cat", "flip", "fft_c2c", "fft_r2c", "fft_c2r"})
# ops whose complex operands run the CPU kernel on host copies (numpy's LAPACK computes in complex)
_ON_HOST = frozenset({"linalg_inv", "linalg_det", "linalg_slogdet", "linalg_solve", "linalg_cholesky", "linalg_qr",
                      "linalg_eigh", "linalg_svd", "linalg_eig", "linalg_ldl_factor_ex", "linalg_ldl_solve",
                      "logsumexp", "logcumsumexp"})
# in-place elementwise updates that run on the (real, imaginary) pairs
_AS_PAIRS = frozenset({"sgd_step", "adam_step", "rmsprop_step", "adagrad_step", "adamax_step", "nadam_step",
                       "radam_step", "adadelta_step"})


def _has_complex(args: tuple, kwargs: dict) -> bool:
    for a in args:
        if isinstance(a, Tensor):
            if a._dtype.is_complex:
                return True
        elif isinstance(a, complex):  # a real tensor times 1j is complex: the real kernels cannot take the number
            return True
        elif isinstance(a, list | tuple):
            for b in a:
                if isinstance(b, Tensor) and b._dtype.is_complex:
                    return True
    out = kwargs.get("out") if kwargs else None
    return isinstance(out, Tensor) and out._dtype.is_complex


def _resolve_conj(args: tuple) -> tuple:
    """`args` with each conjugate view (a list's too) replaced by its values in new memory."""
    def one(a):
        if isinstance(a, Tensor):
            return resolved(a) if a._conj else a
        if isinstance(a, list | tuple) and any(isinstance(b, Tensor) and b._conj for b in a):
            return type(a)(one(b) for b in a)
        return a
    return tuple([one(a) for a in args])


def _host(op):
    """The op's CPU kernel on host copies of the CUDA operands; results back on the first operand's device
    (written into a CUDA `out=` when one is given)."""
    cpu = op.kernels["cpu"]

    def run(*args, **kwargs):
        dev = args[0].device
        out = kwargs.pop("out", None)
        res = cpu(*(a.cpu() if isinstance(a, Tensor) else a for a in args), **kwargs)
        res = tuple(r.to(dev) for r in res) if isinstance(res, tuple) else res.to(dev)
        return res if out is None else out.copy_(res)
    return run


def _gate(op, kernel):
    name = op.name
    via_real = VIA_REAL.get(name)
    pairs = name in _AS_PAIRS
    host = _host(op) if name in _ON_HOST else None

    moves = name in _MOVES

    def run(*args, **kwargs):
        if not _has_complex(args, kwargs):
            return kernel(*args, **kwargs)
        args = _resolve_conj(args)  # the kernels read storage as it is (NOTE [ Complex storage and conj ])
        if moves:
            return kernel(*args, **kwargs)
        if op.complex_error is not None:  # PyTorch's refusal, as the CPU kernel raises it
            raise op.complex_refusal(next((a._dtype for a in args if isinstance(a, Tensor) and a._dtype.is_complex),
                                          dtypes.complex64))
        if pairs:
            kernel(*(view_as_real(a) if isinstance(a, Tensor) and a._dtype.is_complex else a for a in args), **kwargs)
            return args[0]
        if via_real is not None:
            return via_real(*args, **kwargs)
        if host is not None:
            return host(*args, **kwargs)
        raise NotImplementedError(f"{name}: ember's CUDA kernels do not compute on complex tensors (only copies and "
                                  f"{', '.join(sorted(VIA_REAL))} do); move the tensor to the CPU for '{name}'")
    run.__wrapped__ = kernel
    return run


def register() -> None:
    """Wrap every CUDA kernel registered so far in the complex gate."""
    for op in registered_ops().values():
        kernel = op.kernels.get("cuda")
        if kernel is None or hasattr(kernel, "__wrapped__"):
            continue
        op.kernels["cuda"] = _gate(op, kernel)


def ptx_cases():
    """No kernels of its own: the gate only routes."""
    return iter(())
