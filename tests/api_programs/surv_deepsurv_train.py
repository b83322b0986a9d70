"""A DeepSurv training script: a SELU MLP with AlphaDropout on standardised covariates, a Dataset yielding
(x, (duration, event)) tuples, batches sorted by duration inside the loss, early stopping on a validation C-index."""

import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, random_split

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

n = 96
X = torch.randn(n, 5)
true_beta = torch.tensor([0.8, -0.5, 0.0, 0.3, 0.0])
T = torch.distributions.Exponential(torch.exp(X @ true_beta)).sample()
C = torch.distributions.Exponential(torch.full((n,), 0.3)).sample()
E = (T <= C).to(torch.int64)
T = torch.minimum(T, C)
print("event rate", E.float().mean().item().__round__(4), T.dtype, E.dtype)


class SurvDataset(Dataset):
    def __init__(self, x, t, e):
        self.x, self.t, self.e = x, t, e

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], (self.t[i], self.e[i])


ds = SurvDataset((X - X.mean(0)) / X.std(0, unbiased=True), T, E)
train, val = random_split(ds, [0.75, 0.25], generator=torch.Generator().manual_seed(1))
print(len(train), len(val), train.indices[:5])
loader = DataLoader(train, batch_size=24, shuffle=True, drop_last=False, generator=torch.Generator().manual_seed(2))
xb, (tb, eb) = next(iter(loader))
print(xb.shape, tb.shape, eb.dtype, type(eb).__name__)


def neg_partial_ll(log_h, t, e):
    order = torch.argsort(t, descending=True)
    log_h, e = log_h[order], e[order].to(log_h.dtype)
    return -((log_h - torch.logcumsumexp(log_h, 0)) * e).sum() / e.sum().clamp_min(1)


def cindex(risk, t, e):
    comp = (t[:, None] < t[None, :]) & e.bool()[:, None]
    return ((risk[:, None] > risk[None, :]) & comp).sum() / comp.sum()


net = nn.Sequential(nn.Linear(5, 16), nn.SELU(), nn.AlphaDropout(0.1), nn.Linear(16, 1, bias=False))
for m in net.modules():
    if isinstance(m, nn.Linear):
        nn.init.kaiming_normal_(m.weight, nonlinearity="linear")
        if m.bias is not None:
            nn.init.zeros_(m.bias)
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=2)
vx = torch.stack([val[i][0] for i in range(len(val))])
vt = torch.stack([val[i][1][0] for i in range(len(val))])
ve = torch.stack([val[i][1][1] for i in range(len(val))])
best, best_state, bad = -1.0, None, 0
for epoch in range(12):
    net.train()
    total = 0.0
    for xb, (tb, eb) in loader:
        loss = neg_partial_ll(net(xb).squeeze(1), tb, eb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    net.eval()
    with torch.no_grad():
        c = cindex(net(vx).squeeze(1), vt, ve).item()
    sched.step(c)
    if c > best:
        best, best_state, bad = c, copy.deepcopy(net.state_dict()), 0
    else:
        bad += 1
    print(epoch, round(total / len(train), 3), round(c, 4), opt.param_groups[0]["lr"])
    if bad >= 4:
        print("early stop")
        break
net.load_state_dict(best_state)
print("best", round(best, 4), list(best_state.keys()), best_state["0.weight"].shape)
with torch.no_grad():
    w = net[0].weight
    print("selu stats", round(nn.functional.selu(torch.zeros(1)).item(), 4), nn.SELU()(torch.tensor([-10.0, 1.0])))
    print(nn.AlphaDropout(0.5).eval()(torch.ones(3)), net.training, w.requires_grad)
print(torch.utils.data.default_collate([(torch.tensor(1.0), (2, True)), (torch.tensor(3.0), (4, False))]))
print(torch.utils.data.default_collate([{"t": 1.5, "e": 1}, {"t": 2.5, "e": 0}]))
