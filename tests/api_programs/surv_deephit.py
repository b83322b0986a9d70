"""DeepHit as pycox writes it: discretised durations by a label transform, a softmax PMF with a padded extra bin,
the censored likelihood via cumsum of the PMF, the pairwise ranking loss with an exp(-diff/sigma) kernel, training."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(7)

n, n_bins = 12, 5
durations = torch.tensor([0.3, 1.7, 2.2, 0.9, 3.8, 4.9, 2.2, 0.1, 3.1, 4.4, 1.2, 2.9])
events = torch.tensor([1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 1]).float()
cuts = torch.linspace(0, durations.max(), n_bins)
print("cuts", cuts)
idx = torch.bucketize(durations, cuts, right=False).clamp(0, n_bins - 1)
print("idx", idx, idx.dtype)
idx_r = torch.searchsorted(cuts, durations, right=True) - 1
print("idx right", idx_r)


def pad_col(x, val=0.0, where="end"):
    pad = torch.full_like(x[:, :1], val)
    return torch.cat([x, pad] if where == "end" else [pad, x], dim=1)


def nll_pmf(phi, idx_durations, events, reduction="mean", epsilon=1e-7):
    idx_durations = idx_durations.view(-1, 1)
    phi = pad_col(phi)
    gamma = phi.max(1)[0]
    cumsum = phi.sub(gamma.view(-1, 1)).exp().cumsum(1)
    sum_ = cumsum[:, -1]
    part1 = phi.gather(1, idx_durations).view(-1).sub(gamma).mul(events)
    part2 = -sum_.relu().add(epsilon).log()
    part3 = sum_.sub(cumsum.gather(1, idx_durations).view(-1)).relu().add(epsilon).log().mul(1.0 - events)
    loss = -part1.add(part2).add(part3)
    return loss.mean() if reduction == "mean" else loss


def pair_rank_mat(idx_durations, events):
    dur_i = idx_durations.view(-1, 1)
    dur_j = idx_durations.view(1, -1)
    ev_i = events.view(-1, 1)
    return ((dur_i < dur_j) | ((dur_i == dur_j) & (ev_i == 1) & (events.view(1, -1) == 0))).float() * ev_i


def rank_loss(phi, idx_durations, events, rank_mat, sigma=0.1):
    pmf = pad_col(phi).softmax(1)
    y = torch.zeros_like(pmf).scatter(1, idx_durations.view(-1, 1), 1.0)
    r = pmf.cumsum(1).matmul(y.transpose(0, 1))
    diag_r = r.diag().view(1, -1)
    r = torch.ones_like(r).mul(diag_r) - r
    r = r.transpose(0, 1)
    loss = rank_mat * torch.exp(r / sigma)
    return loss.mean(1, keepdim=True).mean()


rank_mat = pair_rank_mat(idx, events)
print("rank_mat sum", rank_mat.sum(), rank_mat.sum(1))

x = torch.randn(n, 4)
net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.BatchNorm1d(16), nn.Dropout(0.1), nn.Linear(16, n_bins - 1))
opt = torch.optim.AdamW(net.parameters(), lr=1e-2, weight_decay=1e-3)
alpha = 0.2
for epoch in range(40):
    net.train()
    phi = net(x)
    loss = alpha * nll_pmf(phi, idx, events) + (1 - alpha) * rank_loss(phi, idx, events, rank_mat)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if epoch % 10 == 0:
        print(epoch, round(loss.item(), 3))

net.eval()
with torch.no_grad():
    phi = net(x)
    pmf = pad_col(phi).softmax(1)[:, :-1]
    surv = 1 - pmf.cumsum(1)
    print("pmf rows", pmf.sum(1).round(decimals=2))
    print("surv shape", surv.shape, surv.is_contiguous(), surv.T.is_contiguous(), surv.T.stride())
    print((surv[:, 1:] <= surv[:, :-1] + 1e-6).all())

# gradients of the likelihood w.r.t. logits, checked in float64
phi64 = torch.randn(4, n_bins - 1, dtype=torch.float64, requires_grad=True)
idx4, ev4 = torch.tensor([0, 2, 4, 1]), torch.tensor([1.0, 0.0, 1.0, 0.0], dtype=torch.float64)
print(torch.autograd.gradcheck(lambda p: nll_pmf(p, idx4, ev4, reduction="none"), (phi64,)))
nll_pmf(phi64, idx4, ev4).backward()
print(phi64.grad)
ll = nll_pmf(phi64.detach(), idx4, ev4, reduction="none")
print("per sample", ll)
p = F.softmax(pad_col(phi64.detach()), dim=1)
manual = -torch.where(
    ev4.bool(),
    p.gather(1, idx4[:, None]).squeeze(1).log(),
    (1 - p.cumsum(1).gather(1, idx4[:, None]).squeeze(1)).clamp_min(1e-7).log(),
)
print("manual", manual)

# competing risks: softmax over (risk, time) flattened
n_risks = 2
logits = torch.randn(3, n_risks, 4)
flat = F.softmax(logits.flatten(1), 1).view_as(logits)
cif = flat.cumsum(2)
print("cif", cif[0])
print("overall survival", (1 - cif.sum(1)[:, -1]).round(decimals=4))
print(
    flat.flatten(1).sum(1).round(decimals=4),
    logits.flatten(1).stride(),
    logits.transpose(1, 2).flatten(1).is_contiguous(),
)
print(torch.zeros(2, 3).scatter(1, torch.tensor([[1], [2]]), 1.0, reduce="add"))
print(torch.zeros(2, 3).scatter_(1, torch.tensor([[1], [2]]), torch.tensor([[5.0], [6.0]]), reduce="multiply"))
try:
    torch.zeros(2, 3).scatter(1, torch.tensor([[1], [3]]), 1.0)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.zeros(2, 3).gather(1, torch.tensor([[1], [2]]).int())
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.zeros(2, 3).gather(1, torch.empty(2, 0, dtype=torch.long)).shape)
