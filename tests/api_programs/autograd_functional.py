"""torch.autograd.functional (jacobian strategies, hessian, vjp/jvp/hvp/vhp), torch.autograd.grad options,
gradcheck passing and failing, retain_graph errors, anomaly mode."""

import numpy as np
import torch
import torch.autograd.functional as AF
from torch.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(3)


def T(*s, dtype=np.float64):
    return torch.from_numpy(rng.standard_normal(s).astype(dtype))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def f(x, y):
    return torch.stack([(x * y).sum(), (x.sin() * y.cos()).sum(), (x**2).sum() * y[0]])


x, y = T(3), T(3)
J = AF.jacobian(f, (x, y))
print("jac_tuple", type(J).__name__, len(J), [tuple(j.shape) for j in J], r(J[0]), r(J[1]))
Jv = AF.jacobian(f, (x, y), vectorize=True)
print("jac_vectorize", all(torch.allclose(a, b) for a, b in zip(J, Jv)))
Jf = AF.jacobian(f, (x, y), vectorize=True, strategy="forward-mode")
print("jac_forward", all(torch.allclose(a, b) for a, b in zip(J, Jf)))
try:
    AF.jacobian(f, (x, y), strategy="forward-mode")
except NotImplementedError as e:
    print("strategy_err", type(e).__name__, str(e).splitlines()[0])
try:
    AF.jacobian(f, (x, y), strategy="sideways")
except AssertionError as e:
    print("strategy_bad", str(e))
J1 = AF.jacobian(lambda t: t.exp(), x)
print("jac_single", tuple(J1.shape), torch.allclose(J1, torch.diag(x.exp())))
Jc = AF.jacobian(lambda t: (t**3).sum(), x, create_graph=True)
print("jac_create_graph", Jc.requires_grad, Jc.grad_fn is not None)
J0 = AF.jacobian(lambda t: t * 2, x)
print("jac_no_graph", J0.requires_grad)


def energy(p):
    return (p[0] ** 2 * p[1] + p[1] ** 3 - p.sin().sum() * p[2]).sum()


p = T(3)
H = AF.hessian(energy, p)
print("hessian", tuple(H.shape), r(H), torch.allclose(H, H.T))
Hv = AF.hessian(energy, p, vectorize=True, outer_jacobian_strategy="forward-mode")
print("hessian_fwd", torch.allclose(H, Hv))
v = T(3)
val, hvp = AF.hvp(energy, p, v)
val2, vhp = AF.vhp(energy, p, v)
print("hvp", round(val.item(), 4), r(hvp), torch.allclose(hvp, H @ v), torch.allclose(vhp, v @ H))
out, vj = AF.vjp(lambda t: t.tanh() * 3, x, torch.ones(3, dtype=torch.float64))
print("vjp", r(out), r(vj))
out, jv = AF.jvp(lambda t: t.tanh() * 3, x, torch.ones(3, dtype=torch.float64))
print("jvp", r(jv), torch.allclose(jv, vj))
try:
    AF.vjp(lambda t: t * 2, x)
except RuntimeError as e:
    print("vjp_err", str(e))
H2 = AF.hessian(lambda a, b: (a * b**2).sum(), (x, y))
print("hessian_tuple", len(H2), len(H2[0]), tuple(H2[0][1].shape), r(H2[1][1]))

# torch.autograd.grad options
a = T(3).requires_grad_()
b = T(3).requires_grad_()
loss = (a**2).sum()
try:
    torch.autograd.grad(loss, [a, b], retain_graph=True)
except RuntimeError as e:
    print("unused_err", str(e).splitlines()[0])
ga, gb = torch.autograd.grad(loss, [a, b], allow_unused=True, retain_graph=True)
print("allow_unused", r(ga), gb)
ga, gb = torch.autograd.grad(loss, [a, b], allow_unused=True, materialize_grads=True, retain_graph=True)
print("materialize", r(gb))
try:
    torch.autograd.grad(loss, [a, b], allow_unused=False, materialize_grads=True)
except ValueError as e:
    print("materialize_err", str(e))
out = a * torch.arange(1.0, 4.0, dtype=torch.float64)
eye = torch.eye(3, dtype=torch.float64)
(Jb,) = torch.autograd.grad(out, a, eye, is_grads_batched=True)
print("batched", r(Jb.diagonal()))
loss = (a.exp() * b).sum()
torch.autograd.grad(loss, a)
try:
    torch.autograd.grad(loss, a)
except RuntimeError as e:
    print("retain_err", str(e).splitlines()[0])
loss = (a * b).sum()
loss.backward(retain_graph=True)
loss.backward()
print("retained", r(a.grad))
a.grad = None
c = torch.tensor(1.0)
try:
    torch.autograd.grad(c * 2, c)
except RuntimeError as e:
    print("no_grad_err", str(e))
try:
    (a * 2).backward()
except RuntimeError as e:
    print("nonscalar", str(e))
print("inputs_kw", end=" ")
(a * b).sum().backward(inputs=[b])
print(a.grad, r(b.grad))
b.grad = None

# gradcheck
print("gc_pass", gradcheck(lambda t: (t.sin() * t).sum(), (x.clone().requires_grad_(),)))
print("ggc_pass", gradgradcheck(lambda t: t.exp() * t, (x.clone().requires_grad_(),)))


class BadGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t**2

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * 3 * t


xi = x.clone().requires_grad_()
try:
    gradcheck(BadGrad.apply, (xi,))
except Exception as e:
    print("gc_fail", type(e).__name__, isinstance(e, RuntimeError), str(e).splitlines()[0])
print("gc_noraise", gradcheck(BadGrad.apply, (xi,), raise_exception=False))
try:
    gradcheck(lambda t: t * 2, (x.float().requires_grad_(),))
except Exception as e:
    print("gc_float", type(e).__name__)
try:
    gradcheck(lambda t: t * 2, (x.clone(),), raise_exception=False)
except ValueError as e:
    print("gc_nograd", str(e))
print("gc_fast", gradcheck(lambda t: t.cos(), (xi,), fast_mode=True))

# anomaly mode
with torch.autograd.detect_anomaly():
    z = torch.tensor([0.0, 1.0], requires_grad=True)
    try:
        (z.sqrt() * 0).sum().backward()
        print("anomaly_none", r(z.grad))
    except RuntimeError as e:
        print("anomaly", str(e).splitlines()[0])
    w = torch.tensor([-1.0, 4.0], requires_grad=True)
    try:
        w.sqrt().sum().backward()
        print("sqrt_neg_grad", w.grad.tolist())
    except RuntimeError as e:
        print("anomaly_err", str(e).splitlines()[0])
print("anomaly_flag", torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
with torch.autograd.set_detect_anomaly(True, check_nan=False):
    print("check_nan", torch.is_anomaly_check_nan_enabled())
