"""Cox proportional hazards as DeepSurv-style code writes it: time-sorted risk sets by logcumsumexp and cumsum,
the Breslow tie correction via unique_consecutive, a naive loop check, gradients and the Breslow baseline hazard."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

time = torch.tensor([5.0, 3.0, 3.0, 8.0, 1.0, 6.0, 3.0, 9.0, 2.0, 6.0])
event = torch.tensor([1, 1, 0, 1, 1, 0, 1, 0, 1, 1], dtype=torch.bool)
x = torch.randn(10, 3, dtype=torch.float64)
beta = torch.tensor([0.5, -0.3, 0.2], dtype=torch.float64, requires_grad=True)


def cox_ph_loss_sorted(log_h, events, eps=1e-7):
    """pycox's cox_ph_loss_sorted: descending time order, risk set = prefix."""
    gamma = log_h.max()
    log_cumsum_h = log_h.sub(gamma).exp().cumsum(0).add(eps).log().add(gamma)
    return -log_h.sub(log_cumsum_h).mul(events).sum().div(events.sum())


def cox_logcumsumexp(log_h, t, e):
    order = torch.argsort(t, descending=True, stable=True)
    lh, ev = log_h[order], e[order].to(log_h.dtype)
    lse = torch.logcumsumexp(lh, dim=0)
    return -((lh - lse) * ev).sum() / ev.sum()


def cox_breslow(log_h, t, e):
    """Ties share the whole risk set: take the logcumsumexp value at the last index of each tied time."""
    order = torch.argsort(t, descending=True, stable=True)
    lh, ts, ev = log_h[order], t[order], e[order].to(log_h.dtype)
    lse = torch.logcumsumexp(lh, dim=0)
    _, counts = torch.unique_consecutive(ts, return_counts=True)
    last = torch.cumsum(counts, 0) - 1
    lse_tied = torch.repeat_interleave(lse[last], counts)
    return -((lh - lse_tied) * ev).sum() / ev.sum()


def cox_loop(log_h, t, e):
    total = log_h.new_zeros(())
    for i in range(len(t)):
        if e[i]:
            risk = t >= t[i]
            total = total + log_h[i] - torch.logsumexp(log_h[risk], 0)
    return -total / e.sum()


log_h = x @ beta
print("log_h", log_h.detach())
order = torch.argsort(time, descending=True, stable=True)
print("order", order)
print("sorted", time[order])
l1 = cox_ph_loss_sorted(log_h[order], event[order].double())
l2 = cox_logcumsumexp(log_h, time, event)
l3 = cox_breslow(log_h, time, event)
l4 = cox_loop(log_h, time, event)
print("pycox", round(l1.item(), 4), "lcse", round(l2.item(), 4))
print("breslow", round(l3.item(), 4), "loop", round(l4.item(), 4), torch.allclose(l3, l4))
print(l3)
(g,) = torch.autograd.grad(l3, beta, retain_graph=True)
print("grad", g)
(g4,) = torch.autograd.grad(l4, beta)
print("loop grad close", torch.allclose(g, g4))
print(torch.autograd.gradcheck(lambda b: cox_breslow(x @ b, time, event), (beta,)))

# logcumsumexp details
v = torch.tensor([-float("inf"), 0.0, -float("inf"), 1.0, 1000.0])
print(torch.logcumsumexp(v, 0))
print(torch.logcumsumexp(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1))
print(torch.logcumsumexp(torch.tensor([[1.0, 2.0], [3.0, 4.0]]).t(), dim=-1))
print(torch.logcumsumexp(torch.tensor([]), 0))
print(torch.logcumsumexp(torch.tensor(2.5), 0))
vv = torch.tensor([0.0, -float("inf"), 2.0], requires_grad=True)
torch.logcumsumexp(vv, 0).sum().backward()
print("lcse grad", vv.grad)
out = torch.empty(3)
torch.logcumsumexp(torch.tensor([1.0, 2.0, 3.0]), 0, out=out)
print(out)
try:
    torch.logcumsumexp(torch.tensor([1, 2, 3]), 0)
except RuntimeError as e:
    print(type(e).__name__, e)

# Breslow baseline cumulative hazard
with torch.no_grad():
    risk = torch.exp(log_h)
    uniq = torch.unique(time[event])
    d = torch.stack([(event & (time == u)).sum() for u in uniq])
    denom = torch.stack([risk[time >= u].sum() for u in uniq])
    h0 = d / denom
    H0 = torch.cumsum(h0, 0)
    print("times", uniq)
    print("d", d, d.dtype)
    print("H0", H0)
    S = torch.exp(-H0[None, :] * risk[:3, None])
    print("S", S)
    print(torch.sort(time, descending=True, stable=True))
