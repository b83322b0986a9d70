"""Forward sensitivity analysis of an ODE with forward-mode AD, as parameter-estimation code does it: dual numbers
from torch.autograd.forward_ad carried through an RK4 loop (make_dual/unpack_dual under dual_level), a custom
autograd.Function integrator step with setup_context, save_for_forward, a jvp rule and generate_vmap_rule used by
forward AD, torch.func.jvp/jacfwd/vmap, the sensitivity compared with finite differences and with reverse mode,
and the refusals forward AD gives (a Function without jvp, nested levels, a tangent of the wrong shape)."""

import torch
import torch.autograd.forward_ad as fwAD
from torch.func import jacfwd, jacrev, jvp, vmap

torch.manual_seed(0)
f64 = torch.float64


def decay(y, theta):
    a, b = theta[0], theta[1]
    return torch.stack([-a * y[0] + b * y[1], a * y[0] - b * y[1] - 0.1 * y[1] ** 2])


def rk4(f, y, theta, h, n):
    for _ in range(n):
        k1 = f(y, theta)
        k2 = f(y + h / 2 * k1, theta)
        k3 = f(y + h / 2 * k2, theta)
        k4 = f(y + h * k3, theta)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


y0 = torch.tensor([1.0, 0.0], dtype=f64)
theta = torch.tensor([0.7, 0.3], dtype=f64)
sens = []
with fwAD.dual_level():
    for i in range(2):
        th = fwAD.make_dual(theta, torch.eye(2, dtype=f64)[i])
        yT = rk4(decay, y0, th, 0.05, 40)
        primal, tangent = fwAD.unpack_dual(yT)
        sens.append(tangent)
    print("unpacked", type(fwAD.unpack_dual(yT)).__name__, primal.round(decimals=6).tolist())
    print("plain tensor tangent", fwAD.unpack_dual(y0).tangent)
S = torch.stack(sens, dim=1)
print("dy/dtheta (forward AD)", S.round(decimals=6).tolist())
J_fwd = jacfwd(lambda th: rk4(decay, y0, th, 0.05, 40))(theta)
J_rev = jacrev(lambda th: rk4(decay, y0, th, 0.05, 40))(theta)
eps = 1e-6
J_fd = torch.stack(
    [
        (rk4(decay, y0, theta + eps * e, 0.05, 40) - rk4(decay, y0, theta - eps * e, 0.05, 40)) / (2 * eps)
        for e in torch.eye(2, dtype=f64)
    ],
    dim=1,
)
print(
    "jacfwd == forward AD",
    torch.allclose(J_fwd, S),
    "jacrev",
    torch.allclose(J_rev, S),
    "finite diff",
    torch.allclose(J_fd, S, atol=1e-7),
)
out, tan = jvp(lambda th: rk4(decay, y0, th, 0.05, 40), (theta,), (torch.tensor([1.0, -1.0], dtype=f64),))
print("jvp", tan.round(decimals=6).tolist(), torch.allclose(tan, S @ torch.tensor([1.0, -1.0], dtype=f64)))


class EulerStep(torch.autograd.Function):
    """y + h f(y) for f(y) = -y^3, with hand-written reverse and forward rules."""

    generate_vmap_rule = True

    @staticmethod
    def forward(y, h):
        return y - h * y**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        y, h = inputs
        ctx.save_for_backward(y)
        ctx.save_for_forward(y)
        ctx.h = h

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1 - 3 * ctx.h * y**2), None

    @staticmethod
    def jvp(ctx, ty, th):
        (y,) = ctx.saved_tensors
        return ty * (1 - 3 * ctx.h * y**2)


def integrate(y, n=20):
    for _ in range(n):
        y = EulerStep.apply(y, 0.05)
    return y


y = torch.tensor([0.5, 1.0, 1.5], dtype=f64)
with fwAD.dual_level():
    d = fwAD.make_dual(y, torch.ones(3, dtype=f64))
    yt = integrate(d)
    print("custom jvp tangent", fwAD.unpack_dual(yt).tangent.round(decimals=6).tolist())
yr = y.clone().requires_grad_(True)
integrate(yr).sum().backward()
print("custom backward", yr.grad.round(decimals=6).tolist())
print("vmap of Function", vmap(integrate)(torch.stack([y, 2 * y])).round(decimals=4).tolist())
print("jacfwd of Function diag", torch.diagonal(jacfwd(integrate)(y)).round(decimals=6).tolist())


class NoJvp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y):
        return y * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


with fwAD.dual_level():
    d = fwAD.make_dual(y, torch.ones(3, dtype=f64))
    print("no tangent input", NoJvp.apply(y).tolist())
    for call in (
        lambda: NoJvp.apply(d),
        lambda: fwAD.make_dual(y, torch.ones(2, dtype=f64)),
        lambda: fwAD.dual_level().__enter__(),
    ):
        try:
            call()
        except Exception as e:
            print(type(e).__name__, e)
try:
    fwAD.make_dual(y, torch.ones(3, dtype=f64))
except Exception as e:
    print(type(e).__name__, e)
try:
    jvp(lambda th: rk4(decay, y0, th, 0.05, 2), theta, torch.ones(2, dtype=f64))
except Exception as e:
    print(type(e).__name__, e)
