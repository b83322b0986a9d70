"""TARNet/DragonNet heads trained with masked per-treatment losses: torch.where, boolean indexing, index_select,
gather on stacked potential outcomes, targeted regularization, and empty treatment groups in a batch."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
torch.set_printoptions(precision=4, sci_mode=False)


class DragonNet(nn.Module):
    def __init__(self, d, h=8):
        super().__init__()
        self.rep = nn.Sequential(nn.Linear(d, h), nn.ELU(), nn.Linear(h, h), nn.ELU())
        self.heads = nn.ModuleList([nn.Sequential(nn.Linear(h, h), nn.ELU(), nn.Linear(h, 1)) for _ in range(2)])
        self.prop = nn.Linear(h, 1)
        self.eps = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        phi = self.rep(x)
        y = torch.cat([hd(phi) for hd in self.heads], dim=1)
        return y, torch.sigmoid(self.prop(phi)).squeeze(1), phi


n, d = 64, 5
x = torch.randn(n, d)
t = (torch.rand(n) < torch.sigmoid(x[:, 0])).long()
y = x[:, 1] + t * (1 + x[:, 2]) + 0.1 * torch.randn(n)
net = DragonNet(d)
print(net.heads[0])
print("params", sum(p.numel() for p in net.parameters()), [n_ for n_, _ in net.named_parameters()][-3:])
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for step in range(30):
    y01, g, phi = net(x)
    y_fact = y01.gather(1, t.unsqueeze(1)).squeeze(1)
    y_fact2 = torch.where(t.bool(), y01[:, 1], y01[:, 0])
    assert torch.equal(y_fact, y_fact2)
    loss_y = F.mse_loss(y_fact, y)
    loss_t = F.binary_cross_entropy(g, t.float())
    g_c = g.clamp(0.01, 0.99)
    h = t / g_c - (1 - t) / (1 - g_c)
    y_pert = y_fact + net.eps * h
    loss_tr = (y - y_pert).pow(2).mean()
    loss = loss_y + loss_t + 0.5 * loss_tr
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, round(loss_y.item(), 4), round(loss_t.item(), 4), round(net.eps.item(), 4))
print("h dtype", h.dtype, (t / g_c).dtype, (t * 1.0).dtype, (t // 2).dtype)

# per-treatment losses by boolean masks and index_select
mask1 = t == 1
idx1 = mask1.nonzero().squeeze(1)
idx0 = (~mask1).nonzero(as_tuple=True)[0]
print("idx", idx1[:5], idx0.shape, idx1.dtype, mask1.sum().item() + idx0.numel())
with torch.no_grad():
    y01, g, phi = net(x)
l1 = F.mse_loss(y01[mask1, 1], y[mask1])
l1b = F.mse_loss(y01.index_select(0, idx1)[:, 1], y.index_select(0, idx1))
l1c = F.mse_loss(y01[:, 1].masked_select(mask1), y.masked_select(mask1))
print("masked equal", torch.allclose(l1, l1b), torch.allclose(l1, l1c), round(l1.item(), 4))
print("ate", round((y01[:, 1] - y01[:, 0]).mean().item(), 4), "cate[:3]", (y01[:, 1] - y01[:, 0])[:3])
print("pehe", round(((y01[:, 1] - y01[:, 0]) - (1 + x[:, 2])).pow(2).mean().sqrt().item(), 4))

# a batch in which nobody is treated
t_none = torch.zeros(4, dtype=torch.long)
empty = y01[:4][t_none == 1, 1]
print("empty", empty, empty.shape, empty.sum(), empty.mean())
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print("empty mse", F.mse_loss(empty, y[:0]))
    print("warns", [str(x_.message)[:60] for x_ in w])
safe = torch.where(mask1[:4].any(), l1, torch.zeros(()))
print("safe", safe.shape, safe.dtype)
print("nanmean", torch.tensor([float("nan"), 1.0, 3.0]).nanmean(), torch.empty(0).nanmean())

# gradients flow only through selected rows
xg = torch.randn(6, 2, requires_grad=True)
mk = torch.tensor([True, False, True, False, False, True])
xg[mk].pow(2).sum().backward()
print("grad rows", xg.grad.abs().sum(1).ne(0).tolist())
xg.grad = None
torch.where(mk[:, None], xg, torch.zeros_like(xg)).sum().backward()
print("where grad", xg.grad[:, 0].tolist())
xg.grad = None
out = torch.zeros(6, 2).index_put((mk.nonzero().squeeze(1),), xg[mk] * 3)
out.sum().backward()
print("index_put grad", xg.grad[:, 1].tolist())
xg.grad = None
xg.gather(1, torch.tensor([[0], [1], [1], [0], [0], [1]])).sum().backward()
print("gather grad", xg.grad.tolist())

# common mistakes
try:
    y01.gather(1, t)
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    y01.gather(1, t.unsqueeze(1).int())
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    y01[t]
    print("int index picks rows", y01[t].shape)
    y01[mask1[:10]]
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    torch.where(t, y01[:, 1], y01[:, 0])
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    y01.index_select(0, idx1.float())
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    y01.index_select(0, torch.tensor([[0, 1]]))
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    F.mse_loss(y01[:, 1:], y)
except Exception as ex:
    print(type(ex).__name__, ex)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    r = F.mse_loss(y01[:3, 1:], y[:3])
    print("broadcast mse", r.shape, [str(x_.message) for x_ in w])
print("where scalar", torch.where(mask1[:4], 1.0, 0).dtype, torch.where(mask1[:4], 1, 0).dtype)
print("where half", torch.where(mask1[:3], torch.ones(3, dtype=torch.half), 2.5).dtype)
