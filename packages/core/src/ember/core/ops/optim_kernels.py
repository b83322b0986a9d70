"""Fused optimizer updates: one kernel call per parameter updates it and its state in place.

Each update (`sgd_step`, `adam_step`, `rmsprop_step`, `adagrad_step`) is a non-differentiable op
that mutates its first argument (the parameter) and the state buffers after it; each declares
their positions (`mutates=`), and the dispatcher bumps all their versions. The arithmetic follows
PyTorch's single-tensor implementations step by step, computing in the parameter's dtype (the
scalars are cast to it), so float64 trajectories match PyTorch's formulas to rounding.
CUDA kernels register against the same ops.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from ember.core.dispatch import declare
from ember.core.tensor import Tensor, describe

__all__ = ["sgd_step", "adam_step", "rmsprop_step", "adagrad_step", "adamax_step", "nadam_step", "radam_step",
           "adadelta_step"]


@cache
def _kernels():
    import numba

    # error_model="numpy": a division by zero gives inf/nan as PyTorch's kernels do, and with no
    # ZeroDivisionError branch in the loop LLVM vectorizes it (Adam on 400k floats: 1.65 ms -> 0.21 ms)
    jit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy",
                     no_cfunc_wrapper=True)

    # all arrays: 1-D, contiguous, one dtype; scalars already cast to that dtype
    @jit
    def sgd(p, g, buf, lr, momentum, damp_w, wd, nesterov, maximize, first):
        # PyTorch's steps, each rounded to p's dtype once: `buf * momentum` (mul_), then every
        # `x.add_(y, alpha=a)` as its CPU kernel's fused multiply-add, here x + a * y in float64 (exact
        # product of two float32s, one rounding); damp_w = 1 - dampening is cast from Python's double
        t = p.dtype.type
        if momentum != 0 and wd == 0 and not (first or nesterov or maximize):
            # the common step with no branch in the loop, which LLVM then vectorizes (1.7x): the same roundings
            dw, step = np.float64(damp_w), np.float64(lr)
            for i in range(p.size):
                b = t(np.float64(buf[i] * momentum) + dw * np.float64(g[i]))
                buf[i] = b
                p[i] = t(np.float64(p[i]) - step * np.float64(b))
            return
        for i in range(p.size):
            d = -g[i] if maximize else g[i]
            if wd != 0:
                d = t(np.float64(d) + np.float64(wd) * np.float64(p[i]))
            if momentum != 0:
                if first:
                    b = d
                else:
                    b = t(np.float64(buf[i] * momentum) + np.float64(damp_w) * np.float64(d))
                buf[i] = b
                d = t(np.float64(d) + np.float64(momentum) * np.float64(b)) if nesterov else b
            p[i] = t(np.float64(p[i]) - np.float64(lr) * np.float64(d))

    # Adam's three loops are three kernels, chosen in Python (`adam` below), so that a first call compiles only
    # the loop it runs: one kernel with all three took 1.1-1.8 s to compile on a cold cache. The scalars come in
    # one array of p's dtype (`adam_scalars`): Numba types an array argument fast, numpy scalars slowly (a call
    # on a small parameter 1.09 us with eight float32 scalars, 0.72 us with the array): lr_decay_factor, w1, w2,
    # beta2, eps, wd, step_size, bc2_sqrt. w1 = 1 - beta1 and w2 = 1 - beta2 come cast from Python's doubles, as
    # PyTorch casts its scalars; `one` and np.sqrt keep every step in p's dtype (an int literal or math.sqrt
    # would promote a float32 update to float64, which PyTorch's float32 kernel does not, and cost 25% more
    # time); each element is loaded once and stored once (locals, not re-reads), so the loops vectorize

    @jit
    def adam_reciprocal(p, g, m, v, sv):
        # (only ever with the common step's conditions, `adam_scalars` sees to it): sv[7] is 1 / sqrt(bc2),
        # multiplied instead of sqrt(bc2) divided (an ulp from PyTorch's bits on some elements, 24% faster: two
        # divisions and a sqrt bound the loop); a compiled plan's choice
        lr_decay_factor, w1, w2, beta2, eps, step_size, bc2_sqrt = sv[0], sv[1], sv[2], sv[3], sv[4], sv[6], sv[7]
        for i in range(p.size):
            pi = p[i] * lr_decay_factor
            d = g[i]
            mi = m[i]
            mi = mi + w1 * (d - mi)
            m[i] = mi
            vi = v[i] * beta2 + w2 * (d * d)
            v[i] = vi
            p[i] = pi + (-step_size) * (mi / (np.sqrt(vi) * bc2_sqrt + eps))

    @jit
    def adam_common(p, g, m, v, sv):
        # the common step with no branch in the loop (17% faster than the general one): the same operations
        # (with wd == 0, lr_decay_factor is exactly 1, so p * 1 is p, NaN and -0.0 included)
        lr_decay_factor, w1, w2, beta2, eps, step_size, bc2_sqrt = sv[0], sv[1], sv[2], sv[3], sv[4], sv[6], sv[7]
        for i in range(p.size):
            pi = p[i] * lr_decay_factor
            d = g[i]
            mi = m[i]
            mi = mi + w1 * (d - mi)
            m[i] = mi
            vi = v[i] * beta2 + w2 * (d * d)
            v[i] = vi
            p[i] = pi + (-step_size) * (mi / (np.sqrt(vi) / bc2_sqrt + eps))

    @jit
    def adam_general(p, g, m, v, vmax, sv, amsgrad, maximize, decoupled):
        lr_decay_factor, w1, w2, beta2, eps, wd, step_size, bc2_sqrt = (sv[0], sv[1], sv[2], sv[3], sv[4], sv[5],
                                                                          sv[6], sv[7])
        one = p.dtype.type(1)
        for i in range(p.size):
            pi = p[i]
            d = -g[i] if maximize else g[i]
            if wd != 0:
                if decoupled:
                    pi = pi * lr_decay_factor
                else:
                    d = d + wd * pi
            # lerp exactly as PyTorch's CPU kernel (weight < 0.5 branch from self, else from end)
            mi = m[i]
            if w1 < 0.5:
                mi = mi + w1 * (d - mi)
            else:
                mi = d - (d - mi) * (one - w1)
            m[i] = mi
            vi = v[i] * beta2 + w2 * (d * d)
            v[i] = vi
            if amsgrad:
                vmi = vmax[i]
                if not vmi >= vi:  # torch.maximum: NaN propagates
                    vmi = vi
                vmax[i] = vmi
                denom = np.sqrt(vmi) / bc2_sqrt + eps
            else:
                denom = np.sqrt(vi) / bc2_sqrt + eps
            p[i] = pi + (-step_size) * (mi / denom)

    def adam(p, g, m, v, vmax, sv, amsgrad, maximize, decoupled, reciprocal):
        """Adam's update of flat arrays: the loop its flags and scalars call for."""
        if reciprocal:
            adam_reciprocal(p, g, m, v, sv)
        elif not (maximize or amsgrad) and sv[1] < 0.5 and (decoupled or sv[5] == 0):
            adam_common(p, g, m, v, sv)
        else:
            adam_general(p, g, m, v, vmax, sv, amsgrad, maximize, decoupled)

    @jit
    def rmsprop(p, g, sq, gavg, buf, lr, alpha, w, eps, wd, momentum, centered, maximize):
        one = p.dtype.type(1)  # w = 1 - alpha comes cast from Python; literals and math.sqrt would promote
        for i in range(p.size):
            d = -g[i] if maximize else g[i]
            if wd != 0:
                d = d + wd * p[i]
            sq[i] = sq[i] * alpha + w * (d * d)
            if centered:
                if w < 0.5:
                    gavg[i] = gavg[i] + w * (d - gavg[i])
                else:
                    gavg[i] = d - (d - gavg[i]) * (one - w)
                avg = np.sqrt(sq[i] - gavg[i] * gavg[i])
            else:
                avg = np.sqrt(sq[i])
            avg = avg + eps
            if momentum > 0:
                buf[i] = buf[i] * momentum + d / avg
                p[i] = p[i] + (-lr) * buf[i]
            else:
                p[i] = p[i] + (-lr) * (d / avg)

    @jit
    def adagrad(p, g, s, clr, eps, wd, maximize):
        for i in range(p.size):
            d = -g[i] if maximize else g[i]
            if wd != 0:
                d = d + wd * p[i]
            s[i] = s[i] + d * d
            p[i] = p[i] + (-clr) * (d / (np.sqrt(s[i]) + eps))

    @jit
    def adamax(p, g, m, u, w1, beta2, eps, wd, clr, maximize):
        one = p.dtype.type(1)  # w1 = 1 - beta1 comes cast from Python
        for i in range(p.size):
            d = -g[i] if maximize else g[i]
            if wd != 0:
                d = d + wd * p[i]
            if w1 < 0.5:
                m[i] = m[i] + w1 * (d - m[i])
            else:
                m[i] = d - (d - m[i]) * (one - w1)
            a = abs(d) + eps
            b = u[i] * beta2
            u[i] = b if b >= a or b != b else a
            p[i] = p[i] + (-clr) * (m[i] / u[i])

    @jit
    def nadam(p, g, m, v, decay, w1, w2, beta2, eps, wd, bc2, coef_grad, coef_avg, maximize, decoupled):
        one = p.dtype.type(1)  # w1, w2 = 1 - beta1, 1 - beta2 come cast from Python
        for i in range(p.size):
            d = -g[i] if maximize else g[i]
            if wd != 0:
                if decoupled:
                    p[i] = p[i] * decay
                else:
                    d = d + wd * p[i]
            if w1 < 0.5:
                m[i] = m[i] + w1 * (d - m[i])
            else:
                m[i] = d - (d - m[i]) * (one - w1)
            v[i] = v[i] * beta2 + w2 * (d * d)
            denom = np.sqrt(v[i] / bc2) + eps
            p[i] = p[i] + coef_grad * (d / denom)
            p[i] = p[i] + coef_avg * (m[i] / denom)

    @jit
    def radam(p, g, m, v, decay, w1, w2, beta2, eps, wd, lr, bc1, bc2_sqrt, rect, maximize, decoupled):
        one = p.dtype.type(1)  # w1, w2 = 1 - beta1, 1 - beta2 come cast from Python
        for i in range(p.size):
            d = -g[i] if maximize else g[i]
            if wd != 0:
                if decoupled:
                    p[i] = p[i] * decay
                else:
                    d = d + wd * p[i]
            if w1 < 0.5:
                m[i] = m[i] + w1 * (d - m[i])
            else:
                m[i] = d - (d - m[i]) * (one - w1)
            v[i] = v[i] * beta2 + w2 * (d * d)
            t = m[i] / bc1 * lr
            if rect > 0:
                t = t * (bc2_sqrt / (np.sqrt(v[i]) + eps)) * rect
            p[i] = p[i] - t

    @jit
    def adadelta(p, g, sq, acc, lr, rho, w, eps, wd, maximize):
        # w = 1 - rho comes cast from Python
        for i in range(p.size):
            d = -g[i] if maximize else g[i]
            if wd != 0:
                d = d + wd * p[i]
            sq[i] = sq[i] * rho + w * (d * d)
            delta = np.sqrt(acc[i] + eps) / np.sqrt(sq[i] + eps) * d
            acc[i] = acc[i] * rho + w * (delta * delta)
            p[i] = p[i] + (-lr) * delta

    return {"sgd": sgd, "adam": adam, "rmsprop": rmsprop, "adagrad": adagrad, "adamax": adamax, "nadam": nadam,
            "radam": radam, "adadelta": adadelta}


def _check(op: str, param: Tensor, *others: Tensor | None) -> None:
    if not (param.is_floating_point() or param.is_complex()):
        raise TypeError(f"{op}: parameters must be floating point; got {describe(param)}")
    for t in others:
        if t is not None and tuple(t._shape) != tuple(param._shape):
            raise ValueError(f"{op}: state and gradient must have the parameter's shape; got {describe(param)} "
                             f"and {describe(t)}")


def _memory_order(a: np.ndarray) -> tuple[int, ...] | None:
    """The dim order that lays `a` out C-contiguous (a channels_last or transposed parameter's), else None."""
    perm = tuple(sorted(range(a.ndim), key=lambda d: -a.strides[d]))
    return perm if a.transpose(perm).flags.c_contiguous else None


def _run(param: Tensor, grad: Tensor, states: tuple, fn) -> None:
    """Call `fn(p, g, *states)` on flat arrays in the parameter's memory order (state laid out as the parameter,
    as PyTorch's `zeros_like(p, memory_format=torch.preserve_format)`, is updated in place; a parameter or state
    laid out otherwise through a copy). A complex parameter, its gradient and state run as real pairs, as
    PyTorch's optimizers (view_as_real) do."""
    dt = param._dtype.np
    rt = param._dtype.to_real().np
    if rt.itemsize < 4:  # float16/bfloat16: the kernels take float32/64, so update float32 copies, round back once
        _run_widened(param, grad, states, fn)
        return
    pa = param._np()
    perm = None if pa.flags.c_contiguous else _memory_order(pa)  # None: row-major, no transposes (the common case)
    if perm is None:
        g = np.ascontiguousarray(grad._np(), dtype=dt).reshape(-1).view(rt)
        arrays = [pa] + [None if s is None else s._np() for s in states]
    else:
        g = np.ascontiguousarray(grad._np().transpose(perm), dtype=dt).reshape(-1).view(rt)
        arrays = [pa.transpose(perm)] + [None if s is None else s._np().transpose(perm) for s in states]
    works = [None if a is None else a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in arrays]
    flats = [np.empty(0, rt) if w is None else w.reshape(-1).view(rt) for w in works]
    fn(flats[0], g, *flats[1:])
    for a, w in zip(arrays, works):
        if w is not a:
            np.copyto(a, w)


def _scalar_type(param: Tensor) -> type:
    """The numpy type of the kernels' scalars: the parameter's real dtype (a complex parameter updates as its
    (real, imag) pairs), float32 for a half-precision one (updated in float32, `_run_widened`)."""
    rt = param._dtype.to_real().np
    return np.float32 if rt.itemsize < 4 else rt.type


def _run_widened(param: Tensor, grad: Tensor, states: tuple, fn) -> None:
    """`_run` for a half-precision parameter: `fn` on float32 copies, the parameter and state rounded back."""
    tensors = [param, *(s for s in states if s is not None)]
    works = [np.ascontiguousarray(t._np(), dtype=np.float32).reshape(-1) for t in tensors]
    g = np.ascontiguousarray(grad._np(), dtype=np.float32).reshape(-1)
    it = iter(works[1:])
    fn(works[0], g, *(np.empty(0, np.float32) if s is None else next(it) for s in states))
    for t, w in zip(tensors, works):
        a = t._np()
        np.copyto(a, w.reshape(a.shape).astype(a.dtype))


sgd_step = declare("sgd_step", differentiable=False, mutates=(0, 2), doc="""SGD update of one parameter, in place.

`sgd_step(param, grad, momentum_buffer, lr, momentum, dampening, weight_decay, nesterov, maximize,
first)`: `first` says the momentum buffer is being initialised (it becomes the gradient).""")


@sgd_step.register("cpu")
def _sgd_cpu(param, grad, buf, lr, momentum, dampening, weight_decay, nesterov, maximize, first):
    _run(param, grad, (buf,), lambda p, g, b: sgd_update(p, g, b, lr, momentum, dampening, weight_decay, nesterov,
                                                          maximize, first))
    return param


def sgd_update(p: np.ndarray, g: np.ndarray, buf: np.ndarray, lr, momentum, dampening, weight_decay, nesterov,
               maximize, first) -> None:
    """`sgd_step`'s update on flat contiguous arrays of one real dtype (`buf` empty without momentum): the
    kernel behind the op, also called by an optimizer's fused step in a compiled plan (ember.jit)."""
    c = p.dtype.type
    _kernels()["sgd"](p, g, buf, c(lr), c(momentum), c(1 - dampening), c(weight_decay), bool(nesterov),
                      bool(maximize), bool(first))


adam_step = declare("adam_step", differentiable=False, mutates=(0, 2, 3, 4), doc="""Adam/AdamW update of one parameter.

`adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps,
weight_decay, amsgrad, maximize, decoupled)`: `step` is the step count after this update's
increment; `decoupled` applies AdamW's weight decay (param *= 1 - lr * weight_decay).""")


@adam_step.register("cpu")
def _adam_cpu(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay,
              amsgrad, maximize, decoupled):
    _run(param, grad, (exp_avg, exp_avg_sq, max_exp_avg_sq),
         lambda p, g, m, v, vm: adam_update(p, g, m, v, vm, step, lr, beta1, beta2, eps, weight_decay, amsgrad,
                                            maximize, decoupled))
    return param


def adam_update(p: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, vm: np.ndarray, step, lr, beta1, beta2,
                eps, weight_decay, amsgrad, maximize, decoupled) -> None:
    """`adam_step`'s update on flat contiguous arrays of one real dtype (`vm` empty without amsgrad)."""
    adam_kernel()(p, g, m, v, vm, *adam_scalars(p.dtype.type, step, lr, beta1, beta2, eps, weight_decay,
                                                 bool(amsgrad and vm.size), maximize, decoupled))


def adam_kernel():
    """The compiled Adam update `kernel(p, g, m, v, vm, *adam_scalars(...))` over flat arrays: called by
    `adam_step` and by an optimizer's one-pass step in a compiled plan (ember.jit)."""
    return _kernels()["adam"]


def adam_scalars(c, step, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled,
                 reciprocal: bool = False) -> tuple:
    """`adam_kernel`'s arguments after the arrays: `sv`, PyTorch's scalars with its bias corrections computed in
    Python's doubles and cast to the parameter's dtype `c` (a numpy scalar type) as PyTorch's kernels cast them
    (1 - lr * weight_decay, 1 - beta1, 1 - beta2, beta2, eps, weight_decay, lr / bc1, sqrt(bc2)), then the flags.
    `reciprocal`: 1 / sqrt(bc2) in place of sqrt(bc2), multiplied by the kernel's common step (not PyTorch's bits:
    an ulp off on some elements; one division fewer per element, for a compiled plan that allows it); ignored
    where the kernel takes its general loop (amsgrad, maximize, L2 weight decay, 1 - beta1 >= 0.5), which divides."""
    reciprocal = bool(reciprocal) and not (amsgrad or maximize) and c(1 - beta1) < 0.5 and (
        decoupled or c(weight_decay) == 0)
    bc1 = 1 - beta1 ** step
    bc2 = 1 - beta2 ** step
    step_size = lr / bc1
    sv = np.array([c(1 - lr * weight_decay), c(1 - beta1), c(1 - beta2), c(beta2), c(eps), c(weight_decay),
                   c(step_size), c(1 / math.sqrt(bc2) if reciprocal else math.sqrt(bc2))], dtype=c)
    return sv, bool(amsgrad), bool(maximize), bool(decoupled), bool(reciprocal)


rmsprop_step = declare("rmsprop_step", differentiable=False, mutates=(0, 2, 3, 4), doc="""RMSprop update of a parameter.

`rmsprop_step(param, grad, square_avg, grad_avg, momentum_buffer, lr, alpha, eps, weight_decay,
momentum, centered, maximize)`; `grad_avg` only when centered, `momentum_buffer` only with momentum.""")


@rmsprop_step.register("cpu")
def _rmsprop_cpu(param, grad, square_avg, grad_avg, momentum_buffer, lr, alpha, eps, weight_decay, momentum,
                 centered, maximize):
    c = _scalar_type(param)
    k = _kernels()["rmsprop"]
    _run(param, grad, (square_avg, grad_avg, momentum_buffer),
         lambda p, g, sq, ga, b: k(p, g, sq, ga, b, c(lr), c(alpha), c(1 - alpha), c(eps), c(weight_decay),
                                   c(momentum), bool(centered), bool(maximize)))
    return param


adagrad_step = declare("adagrad_step", differentiable=False, mutates=(0, 2), doc="""Adagrad update of one parameter.

`adagrad_step(param, grad, state_sum, step, lr, lr_decay, eps, weight_decay, maximize)`; `step` is
the count after this update's increment.""")


@adagrad_step.register("cpu")
def _adagrad_cpu(param, grad, state_sum, step, lr, lr_decay, eps, weight_decay, maximize):
    c = _scalar_type(param)
    clr = lr / (1 + (step - 1) * lr_decay)
    k = _kernels()["adagrad"]
    _run(param, grad, (state_sum,), lambda p, g, s: k(p, g, s, c(clr), c(eps), c(weight_decay), bool(maximize)))
    return param


adamax_step = declare("adamax_step", differentiable=False, mutates=(0, 2, 3), doc="""Adamax update of one parameter.

`adamax_step(param, grad, exp_avg, exp_inf, step, lr, beta1, beta2, eps, weight_decay, maximize)`;
`step` is the count after this update's increment.""")


@adamax_step.register("cpu")
def _adamax_cpu(param, grad, exp_avg, exp_inf, step, lr, beta1, beta2, eps, weight_decay, maximize):
    c = _scalar_type(param)
    clr = lr / (1 - beta1 ** step)
    k = _kernels()["adamax"]
    _run(param, grad, (exp_avg, exp_inf), lambda p, g, m, u: k(p, g, m, u, c(1 - beta1), c(beta2), c(eps),
                                                                c(weight_decay), c(clr), bool(maximize)))
    return param


def nadam_scalars(step: float, lr: float, beta1: float, momentum_decay: float, mu_product: float) -> tuple:
    """NAdam's momentum schedule: (mu, coefficient of the gradient, of the average, given the
    product of mu over the steps so far including this one)."""
    mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
    mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
    return mu, -lr * (1.0 - mu) / (1.0 - mu_product), -lr * mu_next / (1.0 - mu_product * mu_next)


nadam_step = declare("nadam_step", differentiable=False, mutates=(0, 2, 3), doc="""NAdam update of one parameter.

`nadam_step(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, coef_grad,
coef_avg, maximize, decoupled)`; the coefficients come from `nadam_scalars`.""")


@nadam_step.register("cpu")
def _nadam_cpu(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, coef_grad, coef_avg,
               maximize, decoupled):
    c = _scalar_type(param)
    k = _kernels()["nadam"]
    _run(param, grad, (exp_avg, exp_avg_sq),
         lambda p, g, m, v: k(p, g, m, v, c(1 - lr * weight_decay), c(1 - beta1), c(1 - beta2), c(beta2), c(eps),
                              c(weight_decay), c(1 - beta2 ** step), c(coef_grad), c(coef_avg), bool(maximize),
                              bool(decoupled)))
    return param


def radam_rect(step: float, beta2: float) -> float:
    """RAdam's variance rectification term, or 0 while the approximation is not yet tractable."""
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / (1 - beta2 ** step)
    if rho_t <= 5.0:
        return 0.0
    return ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5


radam_step = declare("radam_step", differentiable=False, mutates=(0, 2, 3), doc="""RAdam update of one parameter.

`radam_step(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, maximize,
decoupled)`.""")


@radam_step.register("cpu")
def _radam_cpu(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, maximize, decoupled):
    c = _scalar_type(param)
    k = _kernels()["radam"]
    _run(param, grad, (exp_avg, exp_avg_sq),
         lambda p, g, m, v: k(p, g, m, v, c(1 - lr * weight_decay), c(1 - beta1), c(1 - beta2), c(beta2), c(eps),
                              c(weight_decay), c(lr), c(1 - beta1 ** step), c((1 - beta2 ** step) ** 0.5),
                              c(radam_rect(step, beta2)), bool(maximize), bool(decoupled)))
    return param


adadelta_step = declare("adadelta_step", differentiable=False, mutates=(0, 2, 3), doc="""Adadelta update of a parameter.

`adadelta_step(param, grad, square_avg, acc_delta, lr, rho, eps, weight_decay, maximize)`.""")


@adadelta_step.register("cpu")
def _adadelta_cpu(param, grad, square_avg, acc_delta, lr, rho, eps, weight_decay, maximize):
    c = _scalar_type(param)
    k = _kernels()["adadelta"]
    _run(param, grad, (square_avg, acc_delta),
         lambda p, g, sq, acc: k(p, g, sq, acc, c(lr), c(rho), c(1 - rho), c(eps), c(weight_decay), bool(maximize)))
    return param


def _meta(op: str):
    """The meta step of an update: the gradient and every state buffer have the parameter's shape, checked
    before the CPU or CUDA kernel walks them all over the parameter's extent."""
    def meta(param, *args, **kwargs) -> None:
        _check(op, param, *(a for a in args if isinstance(a, Tensor)))
    return meta


for _op in (sgd_step, adam_step, rmsprop_step, adagrad_step, adamax_step, nadam_step, radam_step, adadelta_step):
    _op.meta(_meta(_op.name))
