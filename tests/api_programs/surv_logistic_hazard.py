"""Discrete-time logistic hazard (nnet-survival / pycox LogisticHazard) and PC-Hazard: per-interval hazards through
binary_cross_entropy_with_logits on a target mask, survival via cumprod and via cumsum of log1p(-h), interpolation."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(11)

n_bins = 6
idx = torch.tensor([0, 3, 5, 2, 2, 4, 1, 5])
ev = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0])
frac = torch.tensor([0.5, 0.2, 0.9, 0.1, 0.7, 0.4, 0.3, 1.0])  # position inside the interval (PC-Hazard)


def nll_logistic_hazard(phi, idx, events, reduction="mean"):
    y_bce = torch.zeros_like(phi).scatter(1, idx.view(-1, 1), events.view(-1, 1))
    bce = F.binary_cross_entropy_with_logits(phi, y_bce, reduction="none")
    loss = bce.cumsum(1).gather(1, idx.view(-1, 1)).view(-1)
    return loss.mean() if reduction == "mean" else loss


def nll_pc_hazard(phi, idx, events, interval_frac, reduction="mean"):
    events = events.view(-1)
    idx = idx.view(-1, 1)
    keep = idx.view(-1) >= 0
    log_h_e = F.softplus(phi.gather(1, idx).view(-1)).log().mul(events)
    haz = F.softplus(phi)
    scaled_h_e = haz.gather(1, idx).view(-1).mul(interval_frac)
    haz = F.pad(haz, (1, 0))
    sum_haz = haz.cumsum(1).gather(1, idx).view(-1)
    loss = -log_h_e.sub(scaled_h_e).sub(sum_haz)
    loss = loss[keep]
    return loss.mean() if reduction == "mean" else loss


x = torch.randn(8, 3)
net = nn.Sequential(nn.Linear(3, 12), nn.SiLU(), nn.LayerNorm(12), nn.Linear(12, n_bins))
opt = torch.optim.Adam(net.parameters(), lr=5e-3, amsgrad=True)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=30, eta_min=1e-4)
for epoch in range(30):
    phi = net(x)
    loss = nll_logistic_hazard(phi, idx, ev)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
    opt.step()
    sched.step()
    if epoch % 10 == 0:
        print(epoch, round(loss.item(), 4), round(sched.get_last_lr()[0], 6))

with torch.no_grad():
    phi = net(x)
    hazard = torch.sigmoid(phi)
    s1 = (1 - hazard).cumprod(1)
    s2 = torch.exp(torch.cumsum(torch.log1p(-hazard), 1))
    s3 = torch.exp(-F.softplus(phi).cumsum(1))
    print("S", s1[:2])
    print("same", torch.allclose(s1, s2, atol=1e-6), torch.allclose(s1, s3, atol=1e-6))
    print("logsigmoid form", torch.allclose(F.logsigmoid(-phi), torch.log1p(-hazard), atol=1e-5))
    # pycox's surv with linear interpolation between grid points
    sub = 4
    surv = F.pad(s1, (1, 0), value=1.0)
    diff = surv[:, 1:] - surv[:, :-1]
    steps = torch.linspace(0, 1, sub + 1)[:-1]
    interp = (surv[:, :-1, None] + diff[:, :, None] * steps).flatten(1)
    interp = torch.cat([interp, surv[:, -1:]], 1)
    print("interp", interp.shape, interp[0, :9])

# PC-Hazard
phi64 = torch.randn(8, n_bins, dtype=torch.float64, requires_grad=True)
l_pc = nll_pc_hazard(phi64, idx, ev.double(), frac.double())
l_pc.backward()
print("pc-hazard", l_pc.item().__round__(4), phi64.grad[0])
print(torch.autograd.gradcheck(lambda p: nll_pc_hazard(p, idx, ev.double(), frac.double(), "none"), (phi64,)))
print(torch.autograd.gradgradcheck(lambda p: nll_logistic_hazard(p, idx, ev.double()), (phi64,)))
with torch.no_grad():
    cum = F.pad(F.softplus(phi64), (1, 0)).cumsum(1)
    print("PC S", torch.exp(-cum[:2]))

# BCE with logits options used for hazards
logit = torch.tensor([[-100.0, 0.0, 100.0]])
target = torch.tensor([[0.0, 0.5, 1.0]])
print(F.binary_cross_entropy_with_logits(logit, target, reduction="none"))
print(F.binary_cross_entropy_with_logits(logit, target, pos_weight=torch.tensor([2.0, 2.0, 2.0]), reduction="sum"))
print(F.binary_cross_entropy_with_logits(logit, target, weight=torch.tensor([1.0, 0.0, 3.0])))
print(nn.BCEWithLogitsLoss(pos_weight=torch.tensor(3.0))(logit, target))
print(F.binary_cross_entropy(torch.sigmoid(logit), target, reduction="none"))
lg = logit.clone().requires_grad_()
F.binary_cross_entropy(torch.sigmoid(lg), target).backward()
print("bce via sigmoid grad", lg.grad)
try:
    F.binary_cross_entropy_with_logits(logit, target[:, :2])
except ValueError as e:
    print(type(e).__name__, e)
try:
    F.binary_cross_entropy(torch.sigmoid(logit), target[:, :2])
except ValueError as e:
    print(type(e).__name__, e)
print(F.softplus(torch.tensor([-30.0, 0.0, 19.0, 21.0, 50.0]), beta=1, threshold=20))
print(F.softplus(torch.tensor([0.5, 2.0]), beta=2.0, threshold=1.0))
print(F.pad(torch.ones(2, 2, dtype=torch.int64), (1, 0), value=7), F.pad(torch.ones(1, 2), (0, 0, 1, 0)).shape)
