"""Activations with one forward and one backward kernel each, from a single table.

Each row declares `<name>(input, *attrs)` and `<name>_backward(grad, input, *attrs)`; both
compute in the input's floating dtype. `sigmoid_backward`/`tanh_backward` take the forward's
result instead of its input (cheaper, and all their derivative needs), `silu_backward` and
`threshold_backward` (relu's backward with threshold 0) the input.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ember.core import dtypes
from ember.core.dispatch import TENSOR_ITERATOR, composite, declare, node_name
from ember.core.opinfo import FLOAT_DTYPES, PROMOTE, ErrorInput, OpInfo, Sample, unary_samples
from ember.core.ops import numba_cpu, numba_nn
from ember.core.ops._util import ERRSTATE, IGNORE_ALL, int_param, silenced, write_out, wrap
from ember.core.ops.elementwise import BoolOperatorError, laid_out, layout_of, same_dtype_out
from ember.core.tensor import Tensor

__all__ = ["leaky_relu", "elu", "selu", "celu", "gelu", "hardtanh", "relu6", "hardsigmoid", "hardswish",
           "softplus", "mish", "logsigmoid", "softsign", "tanhshrink", "threshold", "hardshrink", "softshrink",
           "prelu", "rrelu", "glu", "sigmoid_backward", "tanh_backward", "silu_backward"]

_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _softplus(x, beta=1.0, threshold=20.0):
    bx = x * beta
    with np.errstate(divide="ignore"):  # beta = 0: log(2) / 0 is PyTorch's silent inf
        return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta)


def _elu_f(x, alpha, scale, input_scale):
    # the negative side from `x > 0 ? 0 : x`, not `minimum(x, 0)`: elu(-0.0) is -0.0, as PyTorch's expm1(-0.0)
    return np.where(x > 0, x * scale, scale * alpha * np.expm1(np.where(x > 0, 0, x) * input_scale))


def _elu_b(g, x, alpha, scale, input_scale):
    return g * np.where(x <= 0, scale * alpha * input_scale * np.exp(np.minimum(x, 0) * input_scale), scale)


def _gelu_f(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(_SQRT_2_PI * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1.0 + numba_cpu.erf(x / math.sqrt(2.0), dtype=x.dtype))


def _gelu_b(g, x, approximate):
    if approximate == "tanh":
        t = np.tanh(_SQRT_2_PI * (x + 0.044715 * x ** 3))
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_PI * (1 + 3 * 0.044715 * x * x))
    cdf = 0.5 * (1.0 + numba_cpu.erf(x * (1 / math.sqrt(2.0)), dtype=x.dtype))  # PyTorch's order of operations
    return g * (cdf + x * (np.exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi))))


def _hardswish_b(g, x):
    # PyTorch's one-sided choice at the kinks: slope 0 at x = -3 and 1 at x = 3
    return g * np.where(x <= -3, 0, np.where(x < 3, x / 3 + 0.5, 1))


def _mish_b(g, x):
    t = np.tanh(_softplus(x))
    return g * (t + x * _sigmoid(x) * (1 - t * t))


def _softplus_b(g, x, beta, threshold):
    return g * np.where(x * beta > threshold, 1, _sigmoid(x * beta))


def _gelu_ref(x, approximate):
    from scipy.special import erf

    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def _act_errors(name, attrs):
    def errors(device):
        from ember.core.creation import tensor

        kernel = _CPU_KERNELS.get(name, f"{name}_cpu")
        yield ErrorInput(Sample((tensor([1, 2], device=device), *attrs)), TypeError,
                         rf"^\"{kernel}\" not implemented for 'Long'$")
        yield ErrorInput(Sample(([1.0, 2.0], *attrs)), TypeError,
                         rf"{name}\(\): argument 'input' must be Tensor, not list")
    return errors


def _act(ref, attrs=()):
    """The OpInfo of an activation: float inputs only; `attrs` are the sample's positional attributes."""
    return OpInfo(rule=PROMOTE, ref=ref, attrs=attrs, domain=(-3.0, 3.0), grad_domain=(-2.0, 2.0),
                  dtypes={"cpu": FLOAT_DTYPES, "cuda": FLOAT_DTYPES[:1] + FLOAT_DTYPES[2:]},
                  samples=unary_samples)


# name, forward(x, *attrs), backward(grad, x, *attrs), positional attrs (for the docstring), and the
# op's OpInfo (NOTE [ The op table ]: a float64 reference written from the definition, the sample
# attributes, the accepted dtypes). The masks are PyTorch's: a NaN input (no order either way)
# keeps its value and passes its gradient; where a backward zeroes the gradient it selects 0, so a
# NaN or inf gradient there gives 0, as PyTorch.
ACTIVATIONS = [
    ("leaky_relu", lambda x, s: np.where(x > 0, x, x * s),
     lambda g, x, s: g * np.where(x > 0, 1, s), "negative_slope",
     _act(lambda x, s: np.where(x > 0, x, s * x), (0.1,))),
    ("elu", _elu_f, _elu_b, "alpha, scale, input_scale",
     _act(lambda x, a, s, i: s * np.where(x > 0, x, a * (np.exp(np.minimum(x, 0) * i) - 1)), (1.0, 1.0, 1.0))),
    ("gelu", _gelu_f, _gelu_b, "approximate ('none' | 'tanh')",
     _act(_gelu_ref, ("none",))),
    ("hardtanh", lambda x, lo, hi: np.clip(x, lo, hi),
     lambda g, x, lo, hi: np.where((x <= lo) | (x >= hi), 0, g), "min_val, max_val",
     _act(lambda x, lo, hi: np.where(x < lo, lo, np.where(x > hi, hi, x)), (-0.5, 0.5))),
    ("hardsigmoid", lambda x: np.clip(x / 6 + 0.5, 0, 1), lambda g, x: np.where((x > -3) & (x < 3), g / 6, 0), "",
     _act(lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6)),
    ("hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6, _hardswish_b, "",
     _act(lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6)),
    ("softplus", _softplus, _softplus_b, "beta, threshold",
     _act(lambda x, b, t: np.where(b * x > t, x, np.logaddexp(0, b * x) / b), (1.5, 20.0))),
    ("mish", lambda x: x * np.tanh(_softplus(x)), _mish_b, "",
     _act(lambda x: x * np.tanh(np.logaddexp(0, x)))),
    ("log_sigmoid", lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))),  # float32/64: _SHARED's loops
     lambda g, x: g * _sigmoid(-x), "",
     _act(lambda x: -np.logaddexp(0, -x))),
    ("softsign", lambda x: x / (1 + np.abs(x)), lambda g, x: g / (1 + np.abs(x)) / (1 + np.abs(x)), "",
     _act(lambda x: x / (1 + np.abs(x)))),
    ("tanhshrink", lambda x: x - np.tanh(x), lambda g, x: g * np.tanh(x) ** 2, "",
     _act(lambda x: x - np.tanh(x))),
    ("threshold", lambda x, th, v: np.where(x <= th, v, x), lambda g, x, th: np.where(x <= th, 0, g),
     "threshold, value",
     _act(lambda x, t, v: np.where(x <= t, v, x), (0.1, -2.0))),
    ("hardshrink", lambda x, l: np.where(np.abs(x) <= l, 0, x), lambda g, x, l: np.where(np.abs(x) <= l, 0, g),
     "lambd",
     _act(lambda x, lam: np.where(np.abs(x) > lam, x, 0 * x), (0.3,))),
    ("softshrink", lambda x, l: np.where(x > l, x - l, np.where(x < -l, x + l, x * 0)),
     lambda g, x, l: np.where(np.abs(x) <= l, 0, g), "lambd",
     _act(lambda x, lam: np.where(x > lam, x - lam, np.where(x < -lam, x + lam, 0 * x)), (0.3,))),
]


def _float_meta(op: str):
    """The activations' meta step: a floating tensor, on any device."""
    def check(x, *args, out=None) -> None:
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
        if not x._dtype.is_floating_point:  # PyTorch's NotImplementedError, naming its CPU kernel
            from ember.core.ops.elementwise import DtypeNotSupported

            kernel = _CPU_KERNELS.get(op, f"{op}_cpu")
            raise DtypeNotSupported(f"\"{kernel}\" not implemented for '{dtypes.TORCH_NAMES[x._dtype.name]}'")
    return check


# the CPU kernels PyTorch names when an activation refuses an integer or bool input (the rest are "<op>_cpu")
_CPU_KERNELS = {"gelu": "GeluKernelImpl", "softshrink": "softshrink_check", "rrelu": "leaky_relu_cpu"}


def _float_input(op: str, x) -> np.ndarray:
    _float_meta(op)(x)
    return x._np()


# Backward kernels that one Numba pass does without numpy's mask temporaries (ReLU's and ReLU6's).
_FUSED_BACKWARD = {"threshold": numba_nn.threshold_backward, "hardtanh": numba_nn.hardtanh_backward}
_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# float32/float64 forward and backward as Numba loops over ember.core.ops.vector_math's functions, the ones
# ember.jit's fused kernels inline (NOTE [ Eager and fused transcendentals share one implementation ])
_SHARED = {"log_sigmoid": (numba_nn.log_sigmoid, numba_nn.log_sigmoid_backward)}


# PyTorch allocates these results row-major whatever the input's layout (log_sigmoid's forward is not a
# TensorIterator op): a channels_last input gives a row-major result.
ROW_MAJOR_RESULTS = frozenset({"log_sigmoid"})


def _make(name: str, fwd, bwd, attrs: str, info: OpInfo):
    sig = f"{name}(input{', ' + attrs if attrs else ''})"
    names = tuple(a.split()[0] for a in attrs.split(", ")) if attrs else ()
    bsig = "threshold_backward(grad, input, threshold)" if name == "threshold" else \
        f"{name}_backward(grad, input{', ' + attrs if attrs else ''})"
    info = replace(info, errors=_act_errors(name, info.attrs))
    op = declare(name, fwd, argnames=("input", *names), info=info,
                 overlap=0 if name == "threshold" else TENSOR_ITERATOR,  # PyTorch checks no threshold
                 doc=f"The {name} activation.\n\nPositional signature: `{sig}`; accepts `out=` "
                     f"(in place when it is the input).\nBackward: `{bsig}` -> grad_input.")

    op.meta(_float_meta(name))
    row_major = name in ROW_MAJOR_RESULTS
    shared_f, shared_b = _SHARED.get(name, (None, None))
    quiet_fwd, quiet_bwd = silenced(fwd), silenced(bwd)  # NaN and inf inputs: no numpy RuntimeWarning, as PyTorch

    @op.register("cpu")
    def kernel(input, *args, out=None):
        x = input._np()
        dt = x.dtype
        if dt.itemsize == 2:  # 16-bit floats compute in float32 and round once, as PyTorch (x * 6 overflows)
            x = x.astype(np.float32)
        if shared_f is not None and dt in _KERNEL_DTYPES:
            x = x if x.flags.c_contiguous else x.copy()  # (np.ascontiguousarray makes a 0-dim array 1-D)
            r = np.empty(x.shape, dt)
            shared_f()(x.reshape(-1), r.reshape(-1))
        else:
            r = np.asarray(quiet_fwd(x, *args)).astype(dt, copy=False)
        if out is not None:
            return write_out(out, r, name, layout_of(() if row_major else (input,)))
        t = wrap(r, True)
        if t._strides == input._strides and not row_major:
            return t
        return laid_out(t, r, () if row_major else (input,))  # NOTE [ Elementwise result layout ]

    bnames = ("grad_output", "input", *(names if name != "threshold" else names[:1]))
    bop = declare(bsig.split("(")[0], bwd, argnames=bnames,
                  doc=f"The gradient of {name}.\n\nPositional signature: `{bsig}`.")

    fused = _FUSED_BACKWARD.get(name)

    @bop.register("cpu")
    def bkernel(grad, input, *args):
        x, g = input._np(), grad._np()
        if shared_b is not None and g.shape == x.shape and g.dtype == x.dtype and x.dtype in _KERNEL_DTYPES:
            r = np.empty(x.shape, x.dtype)
            shared_b()(np.ascontiguousarray(g).reshape(-1), np.ascontiguousarray(x).reshape(-1), r.reshape(-1))
            return laid_out(wrap(r, True), r, (grad, input))
        if fused is not None and g.shape == x.shape and g.dtype == x.dtype and x.dtype in _KERNEL_DTYPES \
                and x.flags.c_contiguous:
            # a strided gradient (a slice of cat's backward) is copied once, cheaper than numpy's masked path
            g = np.ascontiguousarray(g)
            out = np.empty_like(x)
            # the thresholds in the input's dtype, as PyTorch's scalar_t and the forward compare (0.1 is not a float32)
            fused()(g.reshape(-1), x.reshape(-1), *[x.dtype.type(a) for a in args], out.reshape(-1))
            return wrap(out)
        r = np.asarray(quiet_bwd(*_opmath(g, x), *args)).astype(x.dtype, copy=False)
        return laid_out(wrap(r, True), r, (grad, input))

    return op, bop


def _opmath(*arrays):
    """16-bit floats as float32, so a backward rounds once, as PyTorch's reduced-float kernels do."""
    return [a.astype(np.float32) if a.dtype.itemsize == 2 and a.dtype.kind in "fV" else a for a in arrays]


_OPS = {row[0]: _make(*row) for row in ACTIVATIONS}
leaky_relu_op, leaky_relu_backward = _OPS["leaky_relu"]
elu_op, elu_backward = _OPS["elu"]
gelu_op, gelu_backward = _OPS["gelu"]
hardtanh_op, hardtanh_backward = _OPS["hardtanh"]
hardsigmoid_op, hardsigmoid_backward = _OPS["hardsigmoid"]
hardswish_op, hardswish_backward = _OPS["hardswish"]
softplus_op, softplus_backward = _OPS["softplus"]
mish_op, mish_backward = _OPS["mish"]
log_sigmoid_op, log_sigmoid_backward = _OPS["log_sigmoid"]
softsign_op, softsign_backward = _OPS["softsign"]
tanhshrink_op, tanhshrink_backward = _OPS["tanhshrink"]
threshold_op, threshold_backward = _OPS["threshold"]
hardshrink_op, hardshrink_backward = _OPS["hardshrink"]
softshrink_op, softshrink_backward = _OPS["softshrink"]


def _fused_backward(name: str, fn, doc: str):
    saved = "output" if name in ("sigmoid_backward", "tanh_backward") else "input"
    op = declare(name, fn, doc=doc, argnames=("grad_output", saved))

    @op.register("cpu")
    def kernel(grad, saved):
        s = saved._np()
        token = ERRSTATE.set(IGNORE_ALL)  # an inf gradient times 0: NaN without numpy's RuntimeWarning, as PyTorch
        try:
            r = np.asarray(fn(*_opmath(grad._np(), s))).astype(s.dtype, copy=False)
        finally:
            ERRSTATE.reset(token)
        return laid_out(wrap(r, True), r, (grad, saved))

    return op


sigmoid_backward = _fused_backward("sigmoid_backward", lambda g, y: g * y * (1 - y),
                                   "The gradient of sigmoid from its result.\n\nPositional signature: "
                                   "`sigmoid_backward(grad, output)` -> `grad * y * (1 - y)`.")
tanh_backward = _fused_backward("tanh_backward", lambda g, y: g * (1 - y * y),
                                "The gradient of tanh from its result.\n\nPositional signature: "
                                "`tanh_backward(grad, output)` -> `grad * (1 - y^2)`.")
silu_backward = _fused_backward("silu_backward",
                                lambda g, x: g * (s := 1 / (1 + np.exp(-x))) * (1 + x * (1 - s)),  # PyTorch's
                                "The gradient of silu.\n\nPositional signature: `silu_backward(grad, input)` "
                                "-> `grad * s * (1 + x (1 - s))`, s = sigmoid(x).")


# --- public functions with torch.nn.functional signatures ---------------------------------
def _call(op, input: Tensor, *args, inplace: bool = False) -> Tensor:
    return op(input, *args, out=input) if inplace else op(input, *args)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """`x if x > 0 else negative_slope * x`.

    >>> import ember.core as ec
    >>> ec.leaky_relu(ec.tensor([-1.0, 2.0]), 0.1).tolist()
    [-0.10000000149011612, 2.0]
    """
    return _call(leaky_relu_op, input, float(negative_slope), inplace=inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """`x if x > 0 else alpha * (exp(x) - 1)`."""
    return _call(elu_op, input, float(alpha), 1.0, 1.0, inplace=inplace)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """`scale * elu(x, alpha)` with the self-normalising constants (elu(input, alpha, scale, 1))."""
    return _call(elu_op, input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace=inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """`max(0, x) + min(0, alpha * (exp(x / alpha) - 1))` (elu(input, alpha, 1, 1 / alpha))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    out = _call(elu_op, input, float(alpha), 1.0, 1.0 / alpha, inplace=inplace)
    made, name = ("EluBackward1", "CeluBackward1") if inplace else ("EluBackward0", "CeluBackward0")
    return node_name(out, made, name)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """`x * Phi(x)` with the exact normal CDF (erf), or its tanh approximation.

    >>> import ember.core as ec
    >>> round(ec.gelu(ec.tensor([1.0])).item(), 4)
    0.8413
    """
    if approximate not in ("none", "tanh"):
        if not isinstance(approximate, str):
            raise TypeError(f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__}")
        raise RuntimeError("approximate argument must be either none or tanh.")
    return gelu_op(input, approximate)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """`clamp(x, min_val, max_val)` (zero gradient at and beyond the bounds)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if isinstance(input, Tensor) and input._dtype is dtypes.bool:
        raise BoolOperatorError("Bool inputs not supported for hardtanh")
    return _call(hardtanh_op, input, float(min_val), float(max_val), inplace=inplace)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """`min(max(0, x), 6)`."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """`relu6(x + 3) / 6`."""
    return _call(hardsigmoid_op, input, inplace=inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """`x * relu6(x + 3) / 6`."""
    return _call(hardswish_op, input, inplace=inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """`log(1 + exp(beta x)) / beta`, linear where `beta x > threshold`."""
    return softplus_op(input, float(beta), float(threshold))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """`x * tanh(softplus(x))`."""
    return _call(mish_op, input, inplace=inplace)


def logsigmoid(input: Tensor) -> Tensor:
    """`log(sigmoid(x))`, computed without overflow."""
    return log_sigmoid_op(input)


def softsign(input: Tensor) -> Tensor:
    """`x / (1 + |x|)`."""
    return softsign_op(input)


def tanhshrink(input: Tensor) -> Tensor:
    """`x - tanh(x)`."""
    return tanhshrink_op(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """`x if x > threshold else value`."""
    return _call(threshold_op, input, float(threshold), float(value), inplace=inplace)


def hardshrink(input: Tensor, lambd: float = 0.5, *, out: Tensor | None = None) -> Tensor:
    """`x if |x| > lambd else 0` (PyTorch's function takes `out=`; its method does not)."""
    if out is not None:
        same_dtype_out(input, out)  # a structured kernel's out: exactly the result's dtype
        return hardshrink_op(input, float(lambd), out=out)
    return hardshrink_op(input, float(lambd))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """`x - lambd if x > lambd, x + lambd if x < -lambd, else 0`."""
    if lambd < 0 and isinstance(input, Tensor) and input._dtype.is_floating_point:  # PyTorch's words, %g-formatted
        top = f"{float(np.finfo(input._dtype.np).max):g}" if input._dtype is not dtypes.bfloat16 else "3.38953e+38"
        raise RuntimeError(f"lambda must be in range [0, {top}] for input dtype "
                           f"{dtypes.TORCH_NAMES[input._dtype.name]}, but found {lambd:g}")
    return softshrink_op(input, float(lambd))


@composite("prelu")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """`x if x > 0 else weight * x` with one learnable slope or one per channel (dim 1).

    Composed of gt, relu, mul and where, so it is differentiable in both arguments and -0.0 stays -0.0; the
    positive side goes through relu so that, as PyTorch's prelu backward, the gradient stays connected to the
    input (a gradient penalty's double backward reaches it, with zeros).

    >>> import ember.core as ec
    >>> ec.prelu(ec.tensor([[-2.0, 3.0]]), ec.tensor([0.25])).tolist()
    [[-0.5, 3.0]]
    """
    from ember.core.ops import elementwise as ew
    from ember.core.ops.layout import reshape

    if isinstance(input, Tensor) and isinstance(weight, Tensor) and input._dtype is not weight._dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {dtypes.TORCH_NAMES[input._dtype.name]} and "
                           f"{dtypes.TORCH_NAMES[weight._dtype.name]}")
    _float_input("prelu", input)
    n = weight.numel()
    channels = input.shape[1] if input.ndim >= 2 else (input.shape[0] if input.ndim == 1 else 1)
    if n != 1 and n != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} "
                           f"and channel size = {channels}.")
    w = reshape(weight, (n,) + (1,) * (input.ndim - 2)) if input.ndim >= 2 and n > 1 else weight
    return node_name(ew.where(ew.gt(input, 0), ew.relu(input), ew.mul(w, input)), "WhereBackward0",
                     "PreluKernelBackward0")


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Leaky ReLU with a random slope per negative element, uniform in [lower, upper], when training;
    the mean slope `(lower + upper) / 2` otherwise."""
    from ember.core import random
    from ember.core.ops import elementwise as ew

    _float_input("rrelu", input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not inplace and not input.is_contiguous():  # PyTorch's rrelu_with_noise writes a row-major output
        input = input.contiguous()
    x = input._np()
    if not training:
        out = leaky_relu(input, (lower + upper) / 2, inplace)
        if inplace:
            return node_name(out, "LeakyReluBackward1", "RreluWithNoiseBackward1")
        return node_name(out, "LeakyReluBackward0", "RreluWithNoiseBackward0")
    if input.device.type == "cpu":  # PyTorch's kernel: a float64 uniform per element <= 0, in row-major order
        from ember.core import cpu_sampling

        drawn = x <= 0
        slopes = np.ones(x.shape, x.dtype)
        u = cpu_sampling.uniform_float64(random.cpu_engine(None), int(drawn.sum()))
        slopes[drawn] = u * (upper - lower) + lower
        factor = wrap(slopes)
    else:
        slopes = random.rand(input.shape, dtype=input.dtype)._np() * (upper - lower) + lower
        factor = wrap(np.where(x >= 0, 1, slopes).astype(x.dtype))
    if inplace:
        return node_name(ew.mul(input, factor, out=input), "MulBackward0", "RreluWithNoiseBackward1")
    return node_name(ew.mul(input, factor), "MulBackward0", "RreluWithNoiseBackward0")


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: `a * sigmoid(b)` for the two halves `a`, `b` of `input` along `dim`.

    >>> import ember.core as ec
    >>> ec.glu(ec.tensor([2.0, 0.0])).tolist()
    [1.0]
    """
    from ember.core.ops import elementwise as ew
    from ember.core.ops.layout import narrow

    if input.ndim == 0:  # PyTorch checks the shape first, then the dtype
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = input._wrap_dim(int_param(dim, "glu", "dim", 2))  # F.glu hands it on by position: its parser names that
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    _float_input("glu", input)
    a, b = narrow(input, d, 0, n // 2), narrow(input, d, n // 2, n // 2)
    if input._dtype is dtypes.float16 or input._dtype is dtypes.bfloat16:  # PyTorch's kernel: float32, one rounding
        from ember.core.ops.shape import to_dtype

        wide = ew.mul(to_dtype(a, dtypes.float32), ew.sigmoid(to_dtype(b, dtypes.float32)))
        return to_dtype(wide, input._dtype)
    return ew.mul(a, ew.sigmoid(b))
