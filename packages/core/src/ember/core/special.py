"""`torch.special`: every function of PyTorch's module under its name, over ember.core's ops
(`ember.core.ops.special` declares the special functions; the rest are core's own ops)."""

from __future__ import annotations

import numbers

from ember.core.dispatch import node_name
from ember.core.ops.arith import mul, round
from ember.core.ops.arith import xlogy as _xlogy
from ember.core.ops.elementwise import NUMBER_OVERLOADS as _NUMBER_OVERLOADS
from ember.core.ops.elementwise import erf, erfinv, exp2, expm1, log1p
from ember.core.ops.elementwise import sigmoid as expit
from ember.core.ops import reduce as _reduce
from ember.core.ops import softmax as _softmax
from ember.core.ops.special import OPS as _OPS
from ember.core.ops.special import POLYNOMIALS as _POLYNOMIALS
from ember.core.ops.special import check_polygamma_order as _check_order
from ember.core.ops.special import digamma, erfc, i0, lgamma, logit, mvlgamma, sinc
from ember.core.ops.special import polygamma as _polygamma
from ember.core.tensor import Tensor

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf", "erfc",
           "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1",
           "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
           "polygamma", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc",
           "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta", *_POLYNOMIALS]

_SQRT1_2 = 0.70710678118654752440


def _check_input(name: str, input, position: int | None = 1) -> None:
    """PyTorch's parser error for a non-tensor input (`position` None: passed by keyword)."""
    if not isinstance(input, Tensor):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"special_{name}(): argument 'input'{where} must be Tensor, not {type(input).__name__}")


def _alias(fn, name: str):
    """`fn` (an op of the main namespace) as torch.special's `name`: PyTorch's parser names the special function
    when the input is not a tensor ("special_gammaln(): argument 'input' (position 1) must be Tensor ...")."""
    def special(*args, **kwargs):
        if args:
            _check_input(name, args[0])
        elif "input" in kwargs:
            _check_input(name, kwargs["input"], None)
        return fn(*args, **kwargs)

    special.__name__ = special.__qualname__ = f"special_{name}"
    special.__doc__ = getattr(fn, "__doc__", None)
    return special


gammaln, psi, digamma = _alias(lgamma, "gammaln"), _alias(digamma, "psi"), _alias(digamma, "digamma")
gammainc, gammaincc = _alias(_OPS["igamma"], "gammainc"), _alias(_OPS["igammac"], "gammaincc")
i0, erf, erfc, erfinv, expit = (_alias(f, n) for f, n in ((i0, "i0"), (erf, "erf"), (erfc, "erfc"),
                                                           (erfinv, "erfinv"), (expit, "expit")))
expm1, exp2, log1p, sinc = (_alias(f, n) for f, n in ((expm1, "expm1"), (exp2, "exp2"), (log1p, "log1p"),
                                                       (sinc, "sinc")))
round, logit = _alias(round, "round"), _alias(logit, "logit")
erfcx, entr, ndtri, log_ndtr = (_OPS[f"special_{n}"] for n in ("erfcx", "entr", "ndtri", "log_ndtr"))
i0e, i1, i1e = _OPS["special_i0e"], _OPS["special_i1"], _OPS["special_i1e"]
xlog1py, zeta = _OPS["special_xlog1py"], _OPS["special_zeta"]
airy_ai, spherical_bessel_j0 = _OPS["special_airy_ai"], _OPS["special_spherical_bessel_j0"]
bessel_j0, bessel_j1, bessel_y0, bessel_y1 = (_OPS[f"special_bessel_{n}"] for n in ("j0", "j1", "y0", "y1"))
modified_bessel_i0, modified_bessel_i1, modified_bessel_k0, modified_bessel_k1 = (
    _OPS[f"special_modified_bessel_{n}"] for n in ("i0", "i1", "k0", "k1"))
scaled_modified_bessel_k0 = _OPS["special_scaled_modified_bessel_k0"]
scaled_modified_bessel_k1 = _OPS["special_scaled_modified_bessel_k1"]
globals().update({_p: _OPS[f"special_{_p}"] for _p in _POLYNOMIALS})

def ndtr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`torch.special.ndtr`: the standard normal CDF, composed as PyTorch composes it, `(1 + erf(x / sqrt(2))) * 0.5`,
    so its left tail underflows where PyTorch's does (0 below about -8.3 in float64) and autograd records its nodes.

    Example:
        >>> import ember.core as E
        >>> E.special.ndtr(E.tensor([-1.0, 0.0, 2.0]))
        tensor([0.1587, 0.5000, 0.9772])
    """
    _check_input("ndtr", input)
    # PyTorch's C++ composite calls the Scalar overloads, whose nodes are MulBackward1 and AddBackward1
    scaled = node_name(input * _SQRT1_2, "MulBackward0", "MulBackward1")
    cdf = node_name(1 + erf(scaled), "AddBackward0", "AddBackward1")
    return node_name(cdf * 0.5, "MulBackward0", "MulBackward1") if out is None else mul(cdf, 0.5, out=out)


def logsumexp(input: Tensor, dim=None, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    """`torch.special.logsumexp`: `torch.logsumexp` under the name PyTorch's errors give it."""
    _check_input("logsumexp", input)
    _softmax._required_dim("special_logsumexp", dim)
    return _reduce.logsumexp(input, dim, keepdim, out=out)


def xlogy(input, other, *, out=None) -> Tensor:
    """`torch.special.xlogy`: `torch.xlogy`, whose parser refusal of two numbers names `special_xlogy`."""
    if isinstance(input, numbers.Number) and isinstance(other, numbers.Number):
        from ember.core.ops.parser_errors import invalid_arguments

        raise invalid_arguments("special_xlogy", (input, other), {}, _NUMBER_OVERLOADS["xlogy"])
    return _xlogy(input, other, out=out)


def softmax(input: Tensor, dim=None, *, dtype=None) -> Tensor:
    """`torch.special.softmax`: `torch.softmax`, `dim` required, under its own name in errors."""
    _check_input("softmax", input)
    _softmax._required_dim("special_softmax", dim)
    return _softmax.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim=None, *, dtype=None) -> Tensor:
    """`torch.special.log_softmax`: `torch.log_softmax`, `dim` required, under its own name in errors."""
    _check_input("log_softmax", input)
    _softmax._required_dim("special_log_softmax", dim)
    return _softmax.log_softmax(input, dim, dtype=dtype)


def multigammaln(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:
    """`torch.special.multigammaln`: the log of the multivariate gamma function (`torch.mvlgamma`).

    Example:
        >>> import ember.core as E
        >>> E.special.multigammaln(E.tensor([2.5]), 2)
        tensor([0.8570])
    """
    _check_input("multigammaln", input)
    return mvlgamma(input, p, out=out)


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`torch.special.polygamma`: `torch.polygamma` under its own name in errors."""
    _check_order(n, "special_polygamma")
    _check_input("polygamma", input, 2)
    return _polygamma(n, input, out=out)
