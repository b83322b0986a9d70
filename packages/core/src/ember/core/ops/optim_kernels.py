"""Fused optimizer updates: one kernel call per parameter updates it and its state in place.

Each update (`sgd_step`, `adam_step`, `rmsprop_step`, `adagrad_step`) is a non-differentiable op
that mutates its first argument (the parameter) and the state buffers after it; the dispatcher
bumps the parameter's version and the kernel bumps the state's. The arithmetic follows
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

__all__ = ["sgd_step", "adam_step", "rmsprop_step", "adagrad_step"]


@cache
def _kernels():
    import numba

    jit = numba.njit(cache=True, nogil=True, fastmath=False)

    # all arrays: 1-D, contiguous, one dtype; scalars already cast to that dtype
    @jit
    def sgd(p, g, buf, lr, momentum, dampening, wd, nesterov, maximize, first):
        for i in range(p.size):
            d = -g[i] if maximize else g[i]
            if wd != 0:
                d = d + wd * p[i]
            if momentum != 0:
                if first:
                    b = d
                else:
                    b = buf[i] * momentum + (1 - dampening) * d
                buf[i] = b
                d = d + momentum * b if nesterov else b
            p[i] = p[i] + (-lr) * d

    @jit
    def adam(p, g, m, v, vmax, lr_decay_factor, beta1, beta2, eps, wd, step_size, bc2_sqrt, amsgrad, maximize,
             decoupled):
        w1 = 1 - beta1
        w2 = 1 - beta2
        for i in range(p.size):
            d = -g[i] if maximize else g[i]
            if wd != 0:
                if decoupled:
                    p[i] = p[i] * lr_decay_factor
                else:
                    d = d + wd * p[i]
            # lerp exactly as PyTorch's CPU kernel (weight < 0.5 branch from self, else from end)
            if w1 < 0.5:
                m[i] = m[i] + w1 * (d - m[i])
            else:
                m[i] = d - (d - m[i]) * (1 - w1)
            v[i] = v[i] * beta2 + w2 * (d * d)
            if amsgrad:
                if not vmax[i] >= v[i]:  # torch.maximum: NaN propagates
                    vmax[i] = v[i]
                denom = math.sqrt(vmax[i]) / bc2_sqrt + eps
            else:
                denom = math.sqrt(v[i]) / bc2_sqrt + eps
            p[i] = p[i] + (-step_size) * (m[i] / denom)

    @jit
    def rmsprop(p, g, sq, gavg, buf, lr, alpha, eps, wd, momentum, centered, maximize):
        w = 1 - alpha
        for i in range(p.size):
            d = -g[i] if maximize else g[i]
            if wd != 0:
                d = d + wd * p[i]
            sq[i] = sq[i] * alpha + w * (d * d)
            if centered:
                if w < 0.5:
                    gavg[i] = gavg[i] + w * (d - gavg[i])
                else:
                    gavg[i] = d - (d - gavg[i]) * (1 - w)
                avg = math.sqrt(sq[i] + (-1) * (gavg[i] * gavg[i]))
            else:
                avg = math.sqrt(sq[i])
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
            p[i] = p[i] + (-clr) * (d / (math.sqrt(s[i]) + eps))

    return {"sgd": sgd, "adam": adam, "rmsprop": rmsprop, "adagrad": adagrad}


def _check(op: str, param: Tensor, *others: Tensor | None) -> None:
    if not param.is_floating_point():
        raise TypeError(f"{op}: parameters must be floating point; got {describe(param)}")
    for t in others:
        if t is not None and tuple(t._shape) != tuple(param._shape):
            raise ValueError(f"{op}: state and gradient must have the parameter's shape; got {describe(param)} "
                             f"and {describe(t)}")


def _flat(t: Tensor | None, dtype: np.dtype) -> np.ndarray:
    """A flat writable view of a contiguous tensor (the kernels' layout), or a dummy for None."""
    if t is None:
        return np.empty(0, dtype)
    a = t._np()
    if not a.flags.c_contiguous:
        raise ValueError(f"optimizer kernels need contiguous state; got {describe(t)}")
    return a.reshape(-1)


def _run(param: Tensor, grad: Tensor, states: tuple, fn) -> None:
    """Call `fn(p, g, *states)` on flat arrays; a strided parameter is updated through a copy."""
    dt = param._dtype.np
    g = np.ascontiguousarray(grad._np(), dtype=dt).reshape(-1)
    flats = [_flat(s, dt) for s in states]
    pa = param._np()
    if pa.flags.c_contiguous:
        fn(pa.reshape(-1), g, *flats)
    else:
        work = np.ascontiguousarray(pa).reshape(-1)
        fn(work, g, *flats)
        np.copyto(pa, work.reshape(pa.shape))
    for s in states:
        if s is not None:
            s._storage.version += 1


sgd_step = declare("sgd_step", differentiable=False, mutates=0, doc="""SGD update of one parameter, in place.

`sgd_step(param, grad, momentum_buffer, lr, momentum, dampening, weight_decay, nesterov, maximize,
first)`: `first` says the momentum buffer is being initialised (it becomes the gradient).""")


@sgd_step.register("cpu")
def _sgd_cpu(param, grad, buf, lr, momentum, dampening, weight_decay, nesterov, maximize, first):
    _check("sgd_step", param, grad, buf)
    c = param._dtype.np.type
    k = _kernels()["sgd"]
    _run(param, grad, (buf,), lambda p, g, b: k(p, g, b, c(lr), c(momentum), c(dampening), c(weight_decay),
                                                 bool(nesterov), bool(maximize), bool(first)))
    return param


adam_step = declare("adam_step", differentiable=False, mutates=0, doc="""Adam/AdamW update of one parameter.

`adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps,
weight_decay, amsgrad, maximize, decoupled)`: `step` is the step count after this update's
increment; `decoupled` applies AdamW's weight decay (param *= 1 - lr * weight_decay).""")


@adam_step.register("cpu")
def _adam_cpu(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay,
              amsgrad, maximize, decoupled):
    _check("adam_step", param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq)
    c = param._dtype.np.type
    bc1 = 1 - beta1 ** step
    bc2 = 1 - beta2 ** step
    step_size = lr / bc1
    k = _kernels()["adam"]
    _run(param, grad, (exp_avg, exp_avg_sq, max_exp_avg_sq),
         lambda p, g, m, v, vm: k(p, g, m, v, vm, c(1 - lr * weight_decay), c(beta1), c(beta2), c(eps),
                                  c(weight_decay), c(step_size), c(math.sqrt(bc2)), bool(amsgrad and vm.size),
                                  bool(maximize), bool(decoupled)))
    return param


rmsprop_step = declare("rmsprop_step", differentiable=False, mutates=0, doc="""RMSprop update of one parameter.

`rmsprop_step(param, grad, square_avg, grad_avg, momentum_buffer, lr, alpha, eps, weight_decay,
momentum, centered, maximize)`; `grad_avg` only when centered, `momentum_buffer` only with momentum.""")


@rmsprop_step.register("cpu")
def _rmsprop_cpu(param, grad, square_avg, grad_avg, momentum_buffer, lr, alpha, eps, weight_decay, momentum,
                 centered, maximize):
    _check("rmsprop_step", param, grad, square_avg, grad_avg, momentum_buffer)
    c = param._dtype.np.type
    k = _kernels()["rmsprop"]
    _run(param, grad, (square_avg, grad_avg, momentum_buffer),
         lambda p, g, sq, ga, b: k(p, g, sq, ga, b, c(lr), c(alpha), c(eps), c(weight_decay), c(momentum),
                                   bool(centered), bool(maximize)))
    return param


adagrad_step = declare("adagrad_step", differentiable=False, mutates=0, doc="""Adagrad update of one parameter.

`adagrad_step(param, grad, state_sum, step, lr, lr_decay, eps, weight_decay, maximize)`; `step` is
the count after this update's increment.""")


@adagrad_step.register("cpu")
def _adagrad_cpu(param, grad, state_sum, step, lr, lr_decay, eps, weight_decay, maximize):
    _check("adagrad_step", param, grad, state_sum)
    c = param._dtype.np.type
    clr = lr / (1 + (step - 1) * lr_decay)
    k = _kernels()["adagrad"]
    _run(param, grad, (state_sum,), lambda p, g, s: k(p, g, s, c(clr), c(eps), c(weight_decay), bool(maximize)))
    return param
