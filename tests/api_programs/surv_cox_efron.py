"""The Efron tie correction for the Cox partial likelihood written with tensors: tie groups by unique(return_inverse),
scatter_add/index_add sums per event time, the Efron fractions by arange within groups, stratified losses."""

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(1)

t = torch.tensor([2, 4, 4, 4, 5, 7, 7, 9, 10, 10, 12], dtype=torch.int32)
e = torch.tensor([1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0], dtype=torch.int64)
x = torch.randn(11, 2, dtype=torch.float64)
beta = torch.zeros(2, dtype=torch.float64, requires_grad=True)


def efron_nll(log_h, t, e):
    uniq, inv = torch.unique(t, return_inverse=True)
    n_t = uniq.numel()
    h = log_h.exp()
    ev = e.to(log_h.dtype)
    # sums over each distinct time
    h_at = torch.zeros(n_t, dtype=h.dtype).scatter_add(0, inv, h)
    h_ev_at = torch.zeros(n_t, dtype=h.dtype).index_add(0, inv, h * ev)
    d = torch.bincount(inv, weights=ev, minlength=n_t)
    lh_ev_at = torch.zeros(n_t, dtype=h.dtype).index_add_(0, inv, log_h * ev)
    # risk set sums: reverse cumsum over distinct times
    risk = h_at.flip(0).cumsum(0).flip(0)
    total = lh_ev_at.sum()
    for j in torch.nonzero(d > 0).flatten().tolist():
        dj = int(d[j].item())
        frac = torch.arange(dj, dtype=h.dtype) / dj
        total = total - torch.log(risk[j] - frac * h_ev_at[j]).sum()
    return -total


def breslow_nll(log_h, t, e):
    uniq, inv = torch.unique(t, return_inverse=True)
    h_at = torch.zeros(uniq.numel(), dtype=log_h.dtype).scatter_add_(0, inv, log_h.exp())
    log_risk = torch.log(torch.flip(torch.cumsum(torch.flip(h_at, [0]), 0), [0]))
    return -((log_h - log_risk[inv]) * e).sum()


uniq, inv, counts = torch.unique(t, return_inverse=True, return_counts=True)
print(uniq, inv, counts)
print(uniq.dtype, inv.dtype, counts.dtype)
d = torch.bincount(inv, weights=e.double())
print("d", d, torch.bincount(inv, weights=e.float()).dtype, torch.bincount(inv).dtype)
print(torch.bincount(inv, minlength=10))

opt = torch.optim.LBFGS([beta], lr=1, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = efron_nll(x @ beta, t, e)
    loss.backward()
    return loss


for _ in range(3):
    loss = opt.step(closure)
print("efron loss", round(loss.item(), 4), "beta", beta.detach())
print("breslow at beta", round(breslow_nll(x @ beta, t, e).item(), 4))
with torch.no_grad():
    print("efron at 0", round(efron_nll(torch.zeros(11, dtype=torch.float64), t, e).item(), 4))
    print("breslow at 0", round(breslow_nll(torch.zeros(11, dtype=torch.float64), t, e).item(), 4))

# Hessian / standard errors
H = torch.autograd.functional.hessian(lambda b: efron_nll(x @ b, t, e), beta.detach())
print("H", H)
se = torch.linalg.inv(H).diagonal().sqrt()
print("se", se, "z", beta.detach() / se)

# stratified: groups with separate risk sets via a Python loop over unique strata
strata = torch.tensor([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0])
lh = (x @ beta).detach()
tot = 0.0
for s in torch.unique(strata, sorted=True):
    m = strata == s
    part = breslow_nll(lh[m], t[m], e[m])
    print("stratum", int(s), m.sum().item(), round(part.item(), 4))
    tot = tot + part
print("stratified", round(float(tot), 4))

# sorted unique with dim, unique_consecutive, counts
pairs = torch.stack([t, e.to(torch.int32)], 1)
u, ix, c = torch.unique(pairs, dim=0, return_inverse=True, return_counts=True)
print(u.tolist())
print(ix, c)
print(torch.unique_consecutive(t, return_inverse=True))
print(torch.unique(t.float().flip(0), sorted=False).sort().values)
w = torch.bincount(inv, weights=torch.ones(11, dtype=torch.float16))
print(w, w.dtype)
try:
    torch.bincount(torch.tensor([1, -1]))
except RuntimeError as err:
    print(type(err).__name__, err)
try:
    torch.bincount(torch.tensor([1.0, 2.0]))
except RuntimeError as err:
    print(type(err).__name__, err)
try:
    torch.bincount(torch.tensor([[1, 2]]))
except RuntimeError as err:
    print(type(err).__name__, err)
print(
    torch.bincount(torch.tensor([], dtype=torch.long)), torch.bincount(torch.tensor([], dtype=torch.long), minlength=3)
)
