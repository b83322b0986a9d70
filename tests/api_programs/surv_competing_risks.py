"""Competing risks without lifelines: the Aalen-Johansen cumulative incidence per cause with index_put_(accumulate)
and scatter_reduce, cause-specific Nelson-Aalen hazards, the Fine-Gray weights, and a cause-specific Cox fit."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(9)

time = torch.tensor([2, 3, 3, 5, 6, 6, 6, 8, 9, 11, 12, 12], dtype=torch.int64)
cause = torch.tensor([1, 2, 0, 1, 1, 2, 0, 0, 2, 1, 0, 2])  # 0 = censored
n_causes = 2

uniq, inv, counts = torch.unique(time, return_inverse=True, return_counts=True)
n_t = uniq.numel()
d = torch.zeros(n_t, n_causes + 1, dtype=torch.float64)
d.index_put_((inv, cause), torch.ones(len(time), dtype=torch.float64), accumulate=True)
print("d", d.T)
at_risk = counts.flip(0).cumsum(0).flip(0).double()
print("at risk", at_risk)
d_any = d[:, 1:].sum(1)
S = torch.cumprod(1 - d_any / at_risk, 0)
S_prev = torch.cat([torch.ones(1, dtype=S.dtype), S[:-1]])
cif = torch.cumsum(S_prev[:, None] * d[:, 1:] / at_risk[:, None], 0)
print("S", S)
print("CIF", cif.T)
print("check", torch.allclose(S + cif.sum(1), torch.ones_like(S)))
H = torch.cumsum(d[:, 1:] / at_risk[:, None], 0)
print("NA hazards", H.T)

# the same counts by scatter_reduce / index_add / bincount over a flat index
flat = inv * (n_causes + 1) + cause
print(torch.bincount(flat, minlength=n_t * (n_causes + 1)).view(n_t, -1).T)
m = torch.zeros(n_t, dtype=torch.int64).scatter_reduce(0, inv, time, reduce="amax", include_self=False)
print("scatter amax", m)
print(torch.zeros(n_t).scatter_reduce(0, inv, cause.float(), reduce="mean", include_self=True))
print(torch.zeros(n_t).scatter_reduce(0, inv, cause.float(), reduce="mean", include_self=False))
print(torch.full((n_t,), 5.0).scatter_reduce(0, inv, cause.float(), reduce="prod"))
print(torch.zeros(n_t, dtype=torch.int64).index_add(0, inv, cause, alpha=2))
print(torch.zeros(n_t).index_reduce_(0, inv, cause.float() + 1, "amin", include_self=False))
try:
    torch.zeros(n_t).scatter_reduce(0, inv, cause.float(), reduce="max")
except RuntimeError as err:
    print(type(err).__name__, str(err)[:90])
try:
    torch.zeros(3).index_put_((torch.tensor([0, 5]),), torch.ones(2), accumulate=True)
except IndexError as err:
    print(type(err).__name__, err)
print(torch.zeros(3, dtype=torch.int32).index_put_((torch.tensor([0, 0]),), torch.tensor(7, dtype=torch.int32)))
print(torch.zeros(3).index_put((torch.tensor([True, False, True]),), torch.tensor(2.0), accumulate=True))

# Fine-Gray IPCW weights for cause 1 from the censoring KM
dc = d[:, 0]
G = torch.cumprod(1 - dc / at_risk, 0)
idx = torch.searchsorted(uniq, time, right=True) - 1
G_at = G[idx]
weights = torch.where(
    ((cause > 0) & (cause != 1))[:, None], G[None, :] / G_at[:, None], (time[:, None] >= uniq[None, :]).double()
)
print("fg weights row 1", weights[1])
print("G", G)

# cause-specific Cox for cause 1 (other causes censored), Breslow, in float64
x = torch.randn(12, 2, dtype=torch.float64)
beta = torch.zeros(2, dtype=torch.float64, requires_grad=True)
ev1 = (cause == 1).double()
opt = torch.optim.Rprop([beta], lr=0.05)
for _ in range(40):
    lh = x @ beta
    risk = torch.stack([torch.logsumexp(lh[time >= ti], 0) for ti in time])
    loss = -((lh - risk) * ev1).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("beta", beta.detach(), round(loss.item(), 4))
print(torch.unique(cause, return_counts=True), torch.unique(cause, sorted=True, return_inverse=True)[1])
print(cause.unique().tolist(), time.float().unique(return_counts=True)[1].max())
