"""Derivatives of the complex views and constructors (real, imag, view_as_real, view_as_complex,
complex, polar, angle, conj, conj_physical), in PyTorch's convention: the gradient of a complex input is the
conjugate Wirtinger derivative (d/dx + i d/dy of a real loss), so a real loss trains as in PyTorch."""

from __future__ import annotations

from ember.core.ops import complex as cx
from ember.core.ops import elementwise as ew

from ember.autograd.derivatives._entry import derivative as d
from ember.autograd.derivatives._helpers import cj

__all__ = ["ENTRIES"]


def _angle_backward(grad, input):
    if not input._dtype.is_complex:
        return grad * 0.0
    a2 = ew.mul(ew.abs(input), ew.abs(input))
    # d angle = (-y dx + x dy) / |z|^2, so the gradient is grad * i z / |z|^2; 0 at the origin
    iz = cx.complex(ew.neg(cx.imag(input)), cx.real(input))  # no complex Python scalar: CUDA's real kernels refuse one
    return ew.where(ew.eq(a2, 0), 0.0, grad * iz / ew.where(ew.eq(a2, 0), 1.0, a2))


def _polar_backward(grad, result):
    """PyTorch's polar_backward, read from the result: abs gets real(conj(grad) sgn(result)) (0 where the result
    is 0, the sign of abs folded in), angle gets real(conj(grad) i result)."""
    g = cj(grad)
    i_result = cx.complex(ew.neg(cx.imag(result)), cx.real(result))
    return cx.real(g * cx.sgn(result)), cx.real(g * i_result)


ENTRIES = [
    d("real(input)", input=lambda grad: grad),  # the engine casts the real gradient to the complex dtype
    d("imag(input)", input=lambda grad: grad * 1j),
    d("view_as_real(input)", input=lambda grad: cx.view_as_complex(grad.contiguous())),
    d("view_as_complex(input)", input=lambda grad: cx.view_as_real(grad.resolve_conj())),  # as PyTorch's
    d("complex(real, imag)", real=lambda grad: cx.real(grad), imag=lambda grad: cx.imag(grad)),
    d("angle(input)", input=_angle_backward),
    d("polar(abs, angle)", name="PolarBackward0", **{"abs, angle": _polar_backward}),
    d("conj_physical(input)", input=lambda grad: cj(grad)),
    d("conj(input)", input=lambda grad: cx.conj(grad)),  # a lazy conjugate view of grad, as PyTorch's
    d("_neg_view(input)", input=lambda grad: ew.neg(grad)),
]
