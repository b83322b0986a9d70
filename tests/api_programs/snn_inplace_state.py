"""A spiking layer that keeps its membrane in one preallocated buffer and resets it in place with a custom Function."""
import torch

nn = torch.nn
F = torch.nn.functional


class ResetInplace(torch.autograd.Function):
    """Subtract the threshold where the membrane crossed it, in place; the surrogate scales the gradient."""

    @staticmethod
    def forward(ctx, mem, threshold):
        spk = (mem >= threshold).to(mem.dtype)
        ctx.save_for_backward(spk)
        mem.sub_(spk * threshold)
        ctx.mark_dirty(mem)
        return mem

    @staticmethod
    def backward(ctx, g):
        (spk,) = ctx.saved_tensors
        return g * (1.0 - 0.5 * spk), None


torch.manual_seed(0)
fc = nn.Linear(4, 3)
with torch.no_grad():
    fc.weight.abs_()
xs = torch.rand(8, 2, 4) * 2
T = xs.shape[0]

# the membrane trace of all steps lives in one tensor; each step writes its row in place
trace = torch.zeros(T + 1, 2, 3)
for t in range(T):
    row = trace[t + 1]
    row.copy_(0.8 * trace[t] + fc(xs[t]))
    ResetInplace.apply(row, 1.0)
print("trace grad_fn", type(trace.grad_fn).__name__, trace.requires_grad, trace._version)
print("row grad_fn", type(row.grad_fn).__name__)
print("final", trace[-1].round(decimals=4).tolist())
loss = (trace[1:] * torch.linspace(0.1, 1.0, T).view(T, 1, 1)).sum()
loss.backward()
print("w grad", fc.weight.grad.round(decimals=4).tolist())
print("b grad", fc.bias.grad.round(decimals=4).tolist())

# the same computation out of place, for comparison
fc.zero_grad()
mem = torch.zeros(2, 3)
rows = []
for t in range(T):
    mem = 0.8 * mem + fc(xs[t])
    mem = ResetInplace.apply(mem.clone(), 1.0)
    rows.append(mem)
loss2 = (torch.stack(rows) * torch.linspace(0.1, 1.0, T).view(T, 1, 1)).sum()
loss2.backward()
print("same loss", round(loss.item(), 4), round(loss2.item(), 4))
print("w grad out of place", fc.weight.grad.round(decimals=4).tolist())

# errors: writing a leaf, a view of a leaf, a Function returning more than the dirty view
leaf = torch.ones(3, requires_grad=True)
for make in (lambda: leaf, lambda: leaf[:2]):
    try:
        ResetInplace.apply(make(), 0.5)
    except Exception as e:
        print(type(e).__name__, e)


class ResetWithSpikes(torch.autograd.Function):
    @staticmethod
    def forward(ctx, mem):
        spk = (mem >= 1).to(mem.dtype)
        mem.sub_(spk)
        ctx.mark_dirty(mem)
        ctx.mark_non_differentiable(spk)
        return mem, spk

    @staticmethod
    def backward(ctx, g, _):
        return g


buf = torch.zeros(4, 3)
state = buf * 1 + fc.bias
try:
    ResetWithSpikes.apply(state[0])
except Exception as e:
    print(type(e).__name__, str(e)[:120])
m2, s2 = ResetWithSpikes.apply(state * 2)
print(type(m2.grad_fn).__name__, s2.requires_grad, s2.dtype)

# dirty outputs under no_grad keep no history
with torch.no_grad():
    out = ResetInplace.apply(torch.full((3,), 1.5), 1.0)
print(out.tolist(), out.grad_fn, out._version)

# forgetting to return the modified input
class Forgot(torch.autograd.Function):
    @staticmethod
    def forward(ctx, mem):
        mem.add_(1)
        ctx.mark_dirty(mem)
        return mem * 2

    @staticmethod
    def backward(ctx, g):
        return g


try:
    Forgot.apply(torch.ones(2, requires_grad=True) * 1)
except Exception as e:
    print(type(e).__name__, e)
