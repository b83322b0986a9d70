"""Why spiking nets need surrogates: a bare Heaviside has no derivative, the detach trick and a vjp-only Function do."""
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
fc = nn.Linear(4, 3)
x = torch.rand(5, 4) * 3
mem = fc(x)

# 1) torch.heaviside: the result requires grad, but backward has no derivative
spk = torch.heaviside(mem - 0.1, torch.tensor(0.0))
print("heaviside", spk.sum().item(), spk.requires_grad, spk.grad_fn.name())
try:
    spk.sum().backward()
except Exception as e:
    print(type(e).__name__, e)
s2 = (mem - 0.1).clone()
s2.heaviside_(torch.tensor(1.0))
try:
    s2.mean().backward()
except Exception as e:
    print(type(e).__name__, e)
with torch.no_grad():
    print("no_grad heaviside", torch.heaviside(mem, torch.tensor(0.5)).grad_fn)

# 2) a comparison: no history at all
cmp = (mem > 0.1).float()
print("comparison", cmp.requires_grad, cmp.grad_fn)
try:
    cmp.sum().backward()
except Exception as e:
    print(type(e).__name__, e)

# 3) the detach trick: forward is the step, backward is the sigmoid's
sg = torch.sigmoid(4 * (mem - 0.1))
spk3 = sg + (torch.heaviside(mem.detach() - 0.1, torch.tensor(0.0)) - sg).detach()
print("detach trick", spk3.sum().item(), spk3.grad_fn.name())
spk3.sum().backward(retain_graph=True)
print("fc grad", fc.weight.grad.round(decimals=4).tolist())


# 4) a Function that spells its backward as `vjp`
class StepVjp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u, slope=4.0):
        ctx.save_for_backward(u)
        ctx.slope = slope
        return torch.heaviside(u, torch.zeros((), dtype=u.dtype))

    @staticmethod
    def vjp(ctx, g):
        (u,) = ctx.saved_tensors
        s = torch.sigmoid(ctx.slope * u)
        return g * ctx.slope * s * (1 - s), None


fc.zero_grad()
spk4 = StepVjp.apply(mem - 0.1)
print("vjp Function", spk4.sum().item(), spk4.grad_fn.name(), torch.equal(spk4, spk3.detach()))
spk4.sum().backward(retain_graph=True)
print("fc grad", fc.weight.grad.round(decimals=4).tolist())
fc.zero_grad()
StepVjp.apply(mem - 0.1, slope=10.0).sum().backward(retain_graph=True)
print("slope=10 grad", fc.bias.grad.round(decimals=4).tolist())


class Both(StepVjp):
    @staticmethod
    def backward(ctx, g):
        return g, None


try:
    Both.apply(mem - 0.1).sum().backward()
except Exception as e:
    print(type(e).__name__, e)

# 5) heaviside's own argument checks
for values in (torch.tensor([0.5, 0.5]), torch.tensor(1, dtype=torch.int64), torch.tensor(0.5, dtype=torch.float64)):
    try:
        print(torch.heaviside(torch.tensor([-1.0, 0.0, 1.0]), values))
    except Exception as e:
        print(type(e).__name__, e)
print(torch.heaviside(torch.tensor([-2, 0, 3]), torch.tensor([7])).tolist())
print(torch.tensor([[-1.0], [0.0]]).heaviside(torch.tensor([0.25, 0.75])).tolist())
out = torch.empty(3)
torch.heaviside(torch.tensor([0.0, -0.0, 1e-30]), torch.tensor(0.5), out=out)
print(out.tolist())
