"""CFRNet training: a shared representation with per-arm heads, an IPM penalty (linear MMD and RBF MMD on
cdist) weighted by treated share, sample re-weighting, gradient clipping and early stopping on a factual loss."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(10)
torch.set_printoptions(precision=4, sci_mode=False)
n, d = 96, 6
X = torch.randn(n, d)
T = (torch.rand(n) < torch.sigmoid(1.5 * X[:, 0])).float()
mu0 = X[:, 1] + 0.5 * X[:, 2]
mu1 = mu0 + 1.0 + X[:, 3]
Y = torch.where(T.bool(), mu1, mu0) + 0.1 * torch.randn(n)


class CFR(nn.Module):
    def __init__(self, d, h=16):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU())
        self.h0 = nn.Linear(h, 1)
        self.h1 = nn.Linear(h, 1)

    def forward(self, x, t):
        r = self.phi(x)
        r = r / r.norm(dim=1, keepdim=True).clamp_min(1e-6)
        y0, y1 = self.h0(r).squeeze(1), self.h1(r).squeeze(1)
        return torch.where(t.bool(), y1, y0), y0, y1, r


def mmd_rbf(a, b, sigma=0.5):
    k = lambda u, v: torch.exp(-torch.cdist(u, v).pow(2) / sigma**2)
    return k(a, a).mean() + k(b, b).mean() - 2 * k(a, b).mean()


def mmd_lin(a, b, p):
    return (2 * p * a.mean(0) - 2 * (1 - p) * b.mean(0)).norm()


net = CFR(d)
opt = torch.optim.Adam(net.parameters(), lr=5e-3, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=40, gamma=0.5)
p_t = T.mean()
w = T / (2 * p_t) + (1 - T) / (2 * (1 - p_t))
print("p_t", round(p_t.item(), 4), "weights", w.unique().round(decimals=4))
tr, va = torch.arange(0, 72), torch.arange(72, n)
best, best_state, bad = float("inf"), None, 0
for epoch in range(120):
    net.train()
    yf, _, _, r = net(X[tr], T[tr])
    fact = (w[tr] * (yf - Y[tr]).pow(2)).mean()
    rt, rc = r[tr][T[tr] == 1], r[tr][T[tr] == 0]
    ipm = mmd_rbf(rt, rc)
    loss = fact + 1.0 * ipm
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
    opt.step()
    sched.step()
    net.eval()
    with torch.no_grad():
        yv, _, _, _ = net(X[va], T[va])
        vloss = F.mse_loss(yv, Y[va]).item()
    if vloss < best - 1e-4:
        best, best_state, bad = vloss, copy.deepcopy(net.state_dict()), 0
    else:
        bad += 1
    if epoch % 30 == 0:
        print(epoch, round(fact.item(), 4), round(ipm.item(), 5), round(gn.item(), 4), sched.get_last_lr())
    if bad >= 25:
        print("early stop", epoch)
        break
net.load_state_dict(best_state)
with torch.no_grad():
    _, y0, y1, r = net(X, T)
print("best val", round(best, 4), "ate", round((y1 - y0).mean().item(), 3), "true", round((mu1 - mu0).mean().item(), 3))
print("pehe", round((((y1 - y0) - (mu1 - mu0)) ** 2).mean().sqrt().item(), 3))
print("rep norms", r.norm(dim=1)[:3], round(mmd_lin(r[T == 1], r[T == 0], p_t).item(), 4))
print("state keys", list(best_state.keys())[:3], best_state["h0.bias"].requires_grad)
print("grad none", all(p.grad is not None for p in net.parameters()))
opt.zero_grad()
print("set_to_none", all(p.grad is None for p in net.parameters()))
print("clip inf", round(nn.utils.clip_grad_norm_([torch.zeros(2, requires_grad=True)], 1.0, norm_type="inf").item(), 4))
pp = nn.Parameter(torch.ones(3))
pp.grad = torch.tensor([float("nan"), 1.0, 1.0])
try:
    nn.utils.clip_grad_norm_([pp], 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError", str(e)[:80])
print("clip nan", nn.utils.clip_grad_norm_([pp], 1.0), pp.grad)
print("clip value", nn.utils.clip_grad_value_([pp], 0.5), pp.grad)
