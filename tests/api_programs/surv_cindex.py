"""Harrell's and Uno's concordance index by broadcasted pairwise comparisons with tied risks and tied times,
a time-dependent AUC, and the soft (sigmoid) C-index used as a differentiable ranking loss."""

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(3)

t = torch.tensor([5.0, 3.0, 3.0, 8.0, 1.0, 6.0, 3.0, 9.0, 2.0, 6.0])
e = torch.tensor([1, 1, 0, 1, 1, 0, 1, 0, 1, 1], dtype=torch.bool)
risk = torch.tensor([0.2, 0.9, 0.9, -0.3, 1.5, 0.2, 0.1, -1.0, 1.5, 0.0])


def harrell(t, e, risk):
    comparable = (t[:, None] < t[None, :]) & e[:, None]
    conc = (risk[:, None] > risk[None, :]) & comparable
    tied = (risk[:, None] == risk[None, :]) & comparable
    num = conc.sum() + 0.5 * tied.sum()
    return num / comparable.sum(), conc.sum(), tied.sum(), comparable.sum()


c, nc, nt, ncomp = harrell(t, e, risk)
print("harrell", c, nc, nt, ncomp, c.dtype)
print("half ints", 0.5 * nt, (nc + 0.5 * nt).dtype)
comp = (t.unsqueeze(1) < t.unsqueeze(0)) & e.unsqueeze(1)
print(comp.int())
print(comp.sum(dim=1), comp.sum(dim=1, dtype=torch.float32), comp.count_nonzero(dim=0))

# tie in time where one is an event: counted as comparable by lifelines convention
tie_t = (t[:, None] == t[None, :]) & e[:, None] & ~e[None, :]
print("time ties event vs censored", tie_t.nonzero().tolist())


def km_censoring(t, e):
    uniq, inv = torch.unique(t, return_inverse=True)
    d = torch.bincount(inv, weights=(~e).double())
    n = torch.bincount(inv).double().flip(0).cumsum(0).flip(0)
    return uniq, torch.cumprod(1 - d / n, 0)


def uno(t, e, risk, tau):
    uniq, G = km_censoring(t, e)
    idx = torch.searchsorted(uniq, t, right=False)
    Gm = torch.cat([torch.ones(1, dtype=G.dtype), G])[idx]  # G(t-)
    w = (e & (t < tau)).double() / Gm.pow(2)
    comparable = (t[:, None] < t[None, :]).double() * w[:, None]
    score = (risk[:, None] > risk[None, :]).double() + 0.5 * (risk[:, None] == risk[None, :]).double()
    return (comparable * score).sum() / comparable.sum()


print("uno", uno(t, e, risk, 7.0), uno(t, e, risk, 100.0))
print("censoring KM", km_censoring(t, e))


def cumulative_auc(t, e, risk, at):
    cases = (t <= at) & e
    controls = t > at
    s = (risk[cases][:, None] > risk[controls][None, :]).float()
    s = s + 0.5 * (risk[cases][:, None] == risk[controls][None, :]).float()
    return s.mean() if s.numel() else torch.tensor(float("nan"))


for at in [2.0, 3.0, 6.0, 10.0]:
    print("auc", at, cumulative_auc(t, e, risk, at))

# the soft C-index as a loss
x = torch.randn(10, 4, dtype=torch.float64)
net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1, bias=False)).double()
opt = torch.optim.SGD(net.parameters(), lr=0.5, momentum=0.9, nesterov=True)
mask = comp.double()
for step in range(30):
    r = net(x).squeeze(-1)
    diff = r[:, None] - r[None, :]
    loss = -(F.logsigmoid(diff / 0.1) * mask).sum() / mask.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, round(loss.item(), 4))
with torch.no_grad():
    print("trained harrell", harrell(t, e, net(x).squeeze(-1))[0].round(decimals=4))
print(harrell(t, e, torch.zeros(10))[0], harrell(t, torch.zeros(10, dtype=torch.bool), risk)[0])
print(harrell(t, e, risk.half())[0], harrell(t, e, risk.to(torch.bfloat16))[0].dtype)
r64 = risk.double().requires_grad_()
cc = harrell(t, e, r64)[0]
print(cc.requires_grad, cc.grad_fn)
print(torch.triu(comp, diagonal=1).sum(), torch.tril(comp.int(), -1).sum(), comp.T.logical_or(comp).sum())
