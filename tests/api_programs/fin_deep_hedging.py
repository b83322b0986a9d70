"""Deep hedging in the style of Buehler et al.: an LSTM policy reads (log-moneyness, time to maturity, previous
position) along simulated GBM paths and outputs hedge ratios; the hedged P&L of a short call with proportional
costs is trained under an entropic risk measure (logsumexp) and CVaR via the Rockafellar-Uryasev auxiliary
variable, with gradient clipping, a StepLR schedule, and a comparison with the Black-Scholes delta hedge."""

import math

import torch
from torch import nn

torch.manual_seed(0)
n_paths, n_steps, T, sigma, K = 256, 12, 0.25, 0.2, 1.0
dt = T / n_steps
z = torch.randn(n_paths, n_steps)
logS = torch.cumsum(-0.5 * sigma**2 * dt + sigma * math.sqrt(dt) * z, dim=1)
S = torch.cat([torch.ones(n_paths, 1), logS.exp()], dim=1)
payoff = torch.relu(S[:, -1] - K)
print("paths", tuple(S.shape), round(payoff.mean().item(), 2))


class HedgeNet(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.lstm = nn.LSTM(3, hidden, batch_first=True)
        self.head = nn.Sequential(nn.Linear(hidden, 16), nn.Tanh(), nn.Linear(16, 1), nn.Sigmoid())

    def forward(self, S, cost=0.0):
        ttm = torch.linspace(T, dt, n_steps).expand(S.shape[0], n_steps)
        feats_prev = torch.zeros(S.shape[0], 1)
        state = None
        deltas, pnl, costs = [], torch.zeros(S.shape[0]), torch.zeros(S.shape[0])
        for k in range(n_steps):
            x = torch.stack([S[:, k].log(), ttm[:, k], feats_prev.squeeze(1)], dim=1).unsqueeze(1)
            out, state = self.lstm(x, state)
            d = self.head(out[:, -1]).squeeze(1)
            costs = costs + cost * S[:, k] * (d - feats_prev.squeeze(1)).abs()
            pnl = pnl + d * (S[:, k + 1] - S[:, k])
            feats_prev = d.unsqueeze(1)
            deltas.append(d)
        return torch.stack(deltas, 1), pnl - costs


net = HedgeNet()
print(net.lstm, sum(p.numel() for p in net.parameters()))
premium = nn.Parameter(torch.tensor(0.0))
opt = torch.optim.Adam(list(net.parameters()) + [premium], lr=0.01)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
lam = 2.0
losses = []
for epoch in range(30):
    deltas, gains = net(S, cost=0.001)
    wealth = premium + gains - payoff
    loss = (torch.logsumexp(-lam * wealth, dim=0) - math.log(n_paths)) / lam
    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
    opt.step()
    sched.step()
    losses.append(loss.item())
print("entropic loss decreased", losses[-1] < losses[0], "lr", sched.get_last_lr())
print("grad norm type", type(gn).__name__, gn.dim())
print("deltas in (0,1)", bool(((deltas > 0) & (deltas < 1)).all()), tuple(deltas.shape))

with torch.no_grad():
    ttm = torch.linspace(T, dt, n_steps)
    d1 = (torch.log(S[:, :-1] / K) + 0.5 * sigma**2 * ttm) / (sigma * ttm.sqrt())
    bs_delta = torch.special.ndtr(d1)
    bs_gain = (bs_delta * S.diff(dim=1)).sum(1)
    bs_price = S[0, 0] * torch.special.ndtr(d1[0, 0]) - K * torch.special.ndtr(d1[0, 0] - sigma * math.sqrt(T))
    bs_err = bs_price + bs_gain - payoff
print("bs hedge error std small", bs_err.std().item() < payoff.std().item() / 3, round(bs_price.item(), 3))

w = nn.Parameter(torch.tensor(0.0))
opt2 = torch.optim.SGD([w], lr=0.05)
alpha = 0.9
with torch.no_grad():
    _, g = net(S)
losses_cvar = -(g - payoff)
for _ in range(200):
    cvar = w + torch.relu(losses_cvar - w).mean() / (1 - alpha)
    opt2.zero_grad()
    cvar.backward()
    opt2.step()
q = torch.quantile(losses_cvar, alpha)
print("ru var near quantile", abs(w.item() - q.item()) < 0.02, "cvar >= var", cvar.item() >= w.item())
sd = net.state_dict()
print("state keys", list(sd)[:4], sd["lstm.weight_ih_l0"].shape)
try:
    net.lstm(torch.zeros(4, 3, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    net.lstm(torch.zeros(4, 1, 3), (torch.zeros(1, 4, 16),))
except Exception as e:
    print(type(e).__name__, e)
try:
    net.lstm(torch.zeros(4, 1, 3), (torch.zeros(1, 4, 16), torch.zeros(2, 4, 16)))
except Exception as e:
    print(type(e).__name__, e)
