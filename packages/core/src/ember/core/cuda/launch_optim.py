"""CUDA kernels of the fused optimizer updates (`ember.core.ops.optim_kernels`): one launch per
parameter, the CPU kernels' arithmetic per element, in the parameter's dtype. The host computes
the step-dependent scalars (bias corrections, decayed lr), so nothing synchronizes."""

from __future__ import annotations

import math
from functools import cache

from numba import cuda

from ember.core.cuda import launch_util as lu
from ember.core.dispatch import get_op
from ember.core.tensor import Tensor

__all__ = ["register", "ptx_cases"]


# every array: a flat typed storage view; po/go/... are element offsets; n elements, dense
def _sgd(p, po, g, go, b, bo, n, lr, momentum, dampening, wd, nesterov, maximize, first):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        d = -g[go + i] if maximize else g[go + i]
        if wd != 0:
            d = d + wd * p[po + i]
        if momentum != 0:
            if first:
                m = d
            else:
                m = b[bo + i] * momentum + (1 - dampening) * d
            b[bo + i] = m
            d = d + momentum * m if nesterov else m
        p[po + i] = p[po + i] + (-lr) * d


def _adam(p, po, g, go, m, mo, v, vo, vm, vmo, n, decay, beta1, beta2, eps, wd, step_size, bc2_sqrt, amsgrad,
          maximize, decoupled):
    w1 = 1 - beta1
    w2 = 1 - beta2
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        d = -g[go + i] if maximize else g[go + i]
        if wd != 0:
            if decoupled:
                p[po + i] = p[po + i] * decay
            else:
                d = d + wd * p[po + i]
        if w1 < 0.5:
            m[mo + i] = m[mo + i] + w1 * (d - m[mo + i])
        else:
            m[mo + i] = d - (d - m[mo + i]) * (1 - w1)
        v[vo + i] = v[vo + i] * beta2 + w2 * (d * d)
        if amsgrad:
            if not vm[vmo + i] >= v[vo + i]:
                vm[vmo + i] = v[vo + i]
            denom = math.sqrt(vm[vmo + i]) / bc2_sqrt + eps
        else:
            denom = math.sqrt(v[vo + i]) / bc2_sqrt + eps
        p[po + i] = p[po + i] + (-step_size) * (m[mo + i] / denom)


def _rmsprop(p, po, g, go, sq, so, ga, gao, b, bo, n, lr, alpha, eps, wd, momentum, centered, maximize):
    w = 1 - alpha
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        d = -g[go + i] if maximize else g[go + i]
        if wd != 0:
            d = d + wd * p[po + i]
        sq[so + i] = sq[so + i] * alpha + w * (d * d)
        if centered:
            if w < 0.5:
                ga[gao + i] = ga[gao + i] + w * (d - ga[gao + i])
            else:
                ga[gao + i] = d - (d - ga[gao + i]) * (1 - w)
            avg = math.sqrt(sq[so + i] + (-1) * (ga[gao + i] * ga[gao + i]))
        else:
            avg = math.sqrt(sq[so + i])
        avg = avg + eps
        if momentum > 0:
            b[bo + i] = b[bo + i] * momentum + d / avg
            p[po + i] = p[po + i] + (-lr) * b[bo + i]
        else:
            p[po + i] = p[po + i] + (-lr) * (d / avg)


def _adagrad(p, po, g, go, s, so, n, clr, eps, wd, maximize):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        d = -g[go + i] if maximize else g[go + i]
        if wd != 0:
            d = d + wd * p[po + i]
        s[so + i] = s[so + i] + d * d
        p[po + i] = p[po + i] + (-clr) * (d / (math.sqrt(s[so + i]) + eps))


def _adamax(p, po, g, go, m, mo, u, uo, n, beta1, beta2, eps, wd, clr, maximize):
    w1 = 1 - beta1
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        d = -g[go + i] if maximize else g[go + i]
        if wd != 0:
            d = d + wd * p[po + i]
        if w1 < 0.5:
            m[mo + i] = m[mo + i] + w1 * (d - m[mo + i])
        else:
            m[mo + i] = d - (d - m[mo + i]) * (1 - w1)
        a = abs(d) + eps
        b = u[uo + i] * beta2
        u[uo + i] = b if b >= a or b != b else a
        p[po + i] = p[po + i] + (-clr) * (m[mo + i] / u[uo + i])


def _nadam(p, po, g, go, m, mo, v, vo, n, decay, beta1, beta2, eps, wd, bc2, coef_grad, coef_avg, maximize,
           decoupled):
    w1 = 1 - beta1
    w2 = 1 - beta2
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        d = -g[go + i] if maximize else g[go + i]
        if wd != 0:
            if decoupled:
                p[po + i] = p[po + i] * decay
            else:
                d = d + wd * p[po + i]
        if w1 < 0.5:
            m[mo + i] = m[mo + i] + w1 * (d - m[mo + i])
        else:
            m[mo + i] = d - (d - m[mo + i]) * (1 - w1)
        v[vo + i] = v[vo + i] * beta2 + w2 * (d * d)
        denom = math.sqrt(v[vo + i] / bc2) + eps
        p[po + i] = p[po + i] + coef_grad * (d / denom)
        p[po + i] = p[po + i] + coef_avg * (m[mo + i] / denom)


def _radam(p, po, g, go, m, mo, v, vo, n, decay, beta1, beta2, eps, wd, lr, bc1, bc2_sqrt, rect, maximize,
           decoupled):
    w1 = 1 - beta1
    w2 = 1 - beta2
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        d = -g[go + i] if maximize else g[go + i]
        if wd != 0:
            if decoupled:
                p[po + i] = p[po + i] * decay
            else:
                d = d + wd * p[po + i]
        if w1 < 0.5:
            m[mo + i] = m[mo + i] + w1 * (d - m[mo + i])
        else:
            m[mo + i] = d - (d - m[mo + i]) * (1 - w1)
        v[vo + i] = v[vo + i] * beta2 + w2 * (d * d)
        t = m[mo + i] / bc1 * lr
        if rect > 0:
            t = t * (bc2_sqrt / (math.sqrt(v[vo + i]) + eps)) * rect
        p[po + i] = p[po + i] - t


def _adadelta(p, po, g, go, sq, so, acc, ao, n, lr, rho, eps, wd, maximize):
    w = 1 - rho
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        d = -g[go + i] if maximize else g[go + i]
        if wd != 0:
            d = d + wd * p[po + i]
        sq[so + i] = sq[so + i] * rho + w * (d * d)
        delta = math.sqrt(acc[ao + i] + eps) / math.sqrt(sq[so + i] + eps) * d
        acc[ao + i] = acc[ao + i] * rho + w * (delta * delta)
        p[po + i] = p[po + i] + (-lr) * delta


@cache
def _jit(fn):
    return cuda.jit(fn)


def _dense(t: Tensor) -> Tensor:
    return t if lu.is_dense(t, t._shape) else get_op("contiguous")(t)


def _arr(t: Tensor | None, param: Tensor):
    """(typed array, offset) of a dense tensor; the parameter itself stands in for absent state."""
    t = param if t is None else t
    return lu.typed(t), t._offset


def _launch(fn, param: Tensor, grad: Tensor, states: tuple, scalars: tuple) -> Tensor:
    if not lu.is_dense(param, param._shape):
        raise ValueError("optimizer kernels need contiguous parameters on CUDA")
    args = [*_arr(param, param), *_arr(_dense(grad), param)]
    for s in states:
        args += _arr(s, param)
    n = param.numel()
    c = param._dtype.np.type
    args += [n] + [c(x) if isinstance(x, float) else x for x in scalars]
    blocks, threads = lu.grid(n)
    _jit(fn)[blocks, threads, lu.stream()](*args)
    return param


def _sgd_cuda(param, grad, buf, lr, momentum, dampening, weight_decay, nesterov, maximize, first):
    return _launch(_sgd, param, grad, (buf,), (float(lr), float(momentum), float(dampening), float(weight_decay),
                                                bool(nesterov), bool(maximize), bool(first)))


def _adam_cuda(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, amsgrad,
               maximize, decoupled):
    bc1, bc2 = 1 - beta1 ** step, 1 - beta2 ** step
    return _launch(_adam, param, grad, (exp_avg, exp_avg_sq, max_exp_avg_sq),
                   (float(1 - lr * weight_decay), float(beta1), float(beta2), float(eps), float(weight_decay),
                    float(lr / bc1), float(math.sqrt(bc2)), bool(amsgrad and max_exp_avg_sq is not None),
                    bool(maximize), bool(decoupled)))


def _rmsprop_cuda(param, grad, square_avg, grad_avg, momentum_buffer, lr, alpha, eps, weight_decay, momentum,
                  centered, maximize):
    return _launch(_rmsprop, param, grad, (square_avg, grad_avg, momentum_buffer),
                   (float(lr), float(alpha), float(eps), float(weight_decay), float(momentum), bool(centered),
                    bool(maximize)))


def _adagrad_cuda(param, grad, state_sum, step, lr, lr_decay, eps, weight_decay, maximize):
    clr = lr / (1 + (step - 1) * lr_decay)
    return _launch(_adagrad, param, grad, (state_sum,), (float(clr), float(eps), float(weight_decay), bool(maximize)))


def _adamax_cuda(param, grad, exp_avg, exp_inf, step, lr, beta1, beta2, eps, weight_decay, maximize):
    return _launch(_adamax, param, grad, (exp_avg, exp_inf),
                   (float(beta1), float(beta2), float(eps), float(weight_decay), float(lr / (1 - beta1 ** step)),
                    bool(maximize)))


def _nadam_cuda(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, coef_grad, coef_avg,
                maximize, decoupled):
    return _launch(_nadam, param, grad, (exp_avg, exp_avg_sq),
                   (float(1 - lr * weight_decay), float(beta1), float(beta2), float(eps), float(weight_decay),
                    float(1 - beta2 ** step), float(coef_grad), float(coef_avg), bool(maximize), bool(decoupled)))


def _radam_cuda(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, maximize, decoupled):
    from ember.core.ops.optim_kernels import radam_rect

    return _launch(_radam, param, grad, (exp_avg, exp_avg_sq),
                   (float(1 - lr * weight_decay), float(beta1), float(beta2), float(eps), float(weight_decay),
                    float(lr), float(1 - beta1 ** step), float((1 - beta2 ** step) ** 0.5),
                    float(radam_rect(step, beta2)), bool(maximize), bool(decoupled)))


def _adadelta_cuda(param, grad, square_avg, acc_delta, lr, rho, eps, weight_decay, maximize):
    return _launch(_adadelta, param, grad, (square_avg, acc_delta),
                   (float(lr), float(rho), float(eps), float(weight_decay), bool(maximize)))


def register() -> None:
    import ember.core.ops.optim_kernels  # noqa: F401 - declares the ops

    for name, fn in (("sgd_step", _sgd_cuda), ("adam_step", _adam_cuda), ("rmsprop_step", _rmsprop_cuda),
                     ("adagrad_step", _adagrad_cuda), ("adamax_step", _adamax_cuda), ("nadam_step", _nadam_cuda),
                     ("radam_step", _radam_cuda), ("adadelta_step", _adadelta_cuda)):
        get_op(name).register("cuda")(fn)


def ptx_cases():
    from numba import types as T

    i, b = T.int64, T.boolean
    for label, arr, s in (("float32", T.float32[::1], T.float32), ("float64", T.float64[::1], T.float64)):
        yield f"sgd_step[{label}]", _sgd, (arr, i, arr, i, arr, i, i, s, s, s, s, b, b, b)
        yield (f"adam_step[{label}]", _adam,
               (arr, i, arr, i, arr, i, arr, i, arr, i, i, s, s, s, s, s, s, s, b, b, b))
        yield (f"rmsprop_step[{label}]", _rmsprop,
               (arr, i, arr, i, arr, i, arr, i, arr, i, i, s, s, s, s, s, b, b))
        yield f"adagrad_step[{label}]", _adagrad, (arr, i, arr, i, arr, i, i, s, s, s, b)
        yield f"adamax_step[{label}]", _adamax, (arr, i, arr, i, arr, i, arr, i, i, s, s, s, s, s, b)
        yield (f"nadam_step[{label}]", _nadam, (arr, i, arr, i, arr, i, arr, i, i, s, s, s, s, s, s, s, s, b, b))
        yield (f"radam_step[{label}]", _radam, (arr, i, arr, i, arr, i, arr, i, i, s, s, s, s, s, s, s, s, s, b, b))
        yield f"adadelta_step[{label}]", _adadelta, (arr, i, arr, i, arr, i, arr, i, i, s, s, s, s, b)
