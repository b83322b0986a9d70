"""Verifying custom neuron Functions with gradcheck/gradgradcheck before training, as SNN library tests do."""
import torch
from torch.autograd import gradcheck, gradgradcheck

nn = torch.nn
F = torch.nn.functional


class SoftLIFRate(torch.autograd.Function):
    """Soft LIF steady-state rate (Hunsberger & Eliasmith): smooth, so its backward can be checked exactly."""

    @staticmethod
    def forward(j, tau_rc=0.02, tau_ref=0.002, gamma=0.02):
        z = gamma * torch.log1p(torch.exp(j / gamma))
        return 1.0 / (tau_ref + tau_rc * torch.log1p(1.0 / z))

    @staticmethod
    def setup_context(ctx, inputs, output):
        j, tau_rc, tau_ref, gamma = inputs
        ctx.save_for_backward(j, output)
        ctx.consts = (tau_rc, tau_ref, gamma)

    @staticmethod
    def backward(ctx, g):
        j, r = ctx.saved_tensors
        tau_rc, tau_ref, gamma = ctx.consts
        z = gamma * torch.log1p(torch.exp(j / gamma))
        dz = torch.sigmoid(j / gamma)
        dr = r * r * tau_rc / (z * (z + 1.0)) * dz
        return g * dr, None, None, None


class LeakyStep(torch.autograd.Function):
    """One membrane update with a differentiable leak: u' = beta * u + i, both inputs get a gradient."""

    @staticmethod
    def forward(ctx, u, i, beta):
        ctx.save_for_backward(beta)
        ctx.shape_u = u.shape
        return beta * u + i

    @staticmethod
    def backward(ctx, g):
        (beta,) = ctx.saved_tensors
        gu = g * beta if ctx.needs_input_grad[0] else None
        gi = g if ctx.needs_input_grad[1] else None
        return gu, gi, None


torch.manual_seed(0)
j = (torch.rand(6, dtype=torch.float64) * 2 + 0.1).requires_grad_()
r = SoftLIFRate.apply(j)
print("rates", r.round(decimals=3).tolist(), r.grad_fn.name())
print("defaults bound", SoftLIFRate.apply(j, tau_rc=0.03).round(decimals=3).tolist())
print("gradcheck soft LIF", gradcheck(SoftLIFRate.apply, (j,)))
print("gradcheck kwargs", gradcheck(lambda t: SoftLIFRate.apply(t, 0.05, gamma=0.1), (j,)))
print("gradgradcheck soft LIF", gradgradcheck(SoftLIFRate.apply, (j,)))

u = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
i = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
beta = torch.tensor(0.9, dtype=torch.float64)
print("gradcheck step", gradcheck(LeakyStep.apply, (u, i, beta)))
print("gradcheck step, i fixed", gradcheck(LeakyStep.apply, (u, i.detach(), beta)))

# an unrolled neuron: gradcheck through many Function nodes
def unrolled(u0, drive):
    u = u0
    outs = []
    for t in range(drive.shape[0]):
        u = LeakyStep.apply(u, drive[t], beta)
        outs.append(SoftLIFRate.apply(u))
    return torch.stack(outs)


drive = torch.rand(5, 3, dtype=torch.float64, requires_grad=True)
u0 = torch.zeros(3, dtype=torch.float64, requires_grad=True)
print("unrolled", gradcheck(unrolled, (u0, drive)), unrolled(u0, drive).shape)
print("batched", gradcheck(SoftLIFRate.apply, (j,), check_batched_grad=False, check_undefined_grad=True))

# a backward with a deliberate error, reported with the Jacobians
class WrongLeak(LeakyStep):
    @staticmethod
    def backward(ctx, g):
        (beta,) = ctx.saved_tensors
        return g, g, None


try:
    gradcheck(WrongLeak.apply, (u[:1, :2].detach().requires_grad_(), i[:1, :2].detach(), beta))
except Exception as e:
    print(type(e).__name__, e)
print("no raise", gradcheck(WrongLeak.apply, (u, i, beta), raise_exception=False))

# a backward that is not deterministic between runs
class Jitter(torch.autograd.Function):
    calls = 0

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        Jitter.calls += 1
        return g * 2 * (1 + 1e-9 * Jitter.calls)


try:
    gradcheck(Jitter.apply, (j,))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
Jitter.calls = 0
print("nondet_tol", gradcheck(Jitter.apply, (j,), nondet_tol=1e-6))

# keyword misuse of apply
for call in (lambda: SoftLIFRate.apply(j, tau=0.1), lambda: LeakyStep.apply(u, i, beta=beta, gamma=1),
             lambda: LeakyStep.apply(u, beta=beta), lambda: LeakyStep.apply(u, i, beta, i=i)):
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
out = LeakyStep.apply(u, i=i, beta=beta)
out.sum().backward()
print("kw grads", u.grad.sum().item(), i.grad.sum().item(), out.grad_fn.next_functions[1][0].__class__.__name__)
