"""Post-hoc CTR calibration (Platt with LBFGS, isotonic PAV, downsampling correction, ECE) and an
FTRL-Proximal optimizer."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)

n = 200
true_logit = torch.randn(n) * 1.5
y = (torch.rand(n) < torch.sigmoid(true_logit)).float()
raw = 2.5 * true_logit + 0.7  # an over-confident, biased model
print("positives", int(y.sum()), "raw mean p", round(torch.sigmoid(raw).mean().item(), 4))

# Platt scaling fit with LBFGS (strong Wolfe)
a = torch.ones(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.LBFGS([a, b], lr=1, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = F.binary_cross_entropy_with_logits(a * raw + b, y)
    loss.backward()
    return loss


opt.step(closure)
print("platt a, b", round(a.item(), 3), round(b.item(), 3))
p_cal = torch.sigmoid(a * raw + b).detach()


def ece(p, y, bins=10):
    edges = torch.linspace(0, 1, bins + 1)
    idx = torch.bucketize(p, edges[1:-1], right=False)
    cnt = torch.bincount(idx, minlength=bins).float()
    conf = torch.zeros(bins).scatter_add_(0, idx, p)
    acc = torch.zeros(bins).scatter_add_(0, idx, y)
    nz = cnt > 0
    return ((conf[nz] - acc[nz]).abs().sum() / len(p)).item()


print("ece raw", round(ece(torch.sigmoid(raw), y), 4), "ece platt", round(ece(p_cal, y), 4))

# isotonic regression by pool-adjacent-violators on the sorted scores
order = torch.argsort(raw)
ys = y[order].tolist()
blocks = []  # (sum, count)
for v in ys:
    blocks.append([v, 1])
    while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
        s, c = blocks.pop()
        blocks[-1][0] += s
        blocks[-1][1] += c
fit = torch.cat([torch.full((c,), s / c) for s, c in blocks])
iso = torch.empty(n).scatter_(0, order, fit)
print("pav blocks", len(blocks), "monotone", bool((torch.diff(fit) >= 0).all()))
print("iso mean equals base rate", round(iso.mean().item(), 4), round(y.mean().item(), 4))
print(
    "repeat_interleave form",
    torch.equal(
        torch.repeat_interleave(torch.tensor([s / c for s, c in blocks]), torch.tensor([c for _, c in blocks])), fit
    ),
)

# negative downsampling at rate w: p = q / (q + (1 - q) / w)
w = 0.1
q = torch.tensor([0.02, 0.2, 0.5, 0.9])
p = q / (q + (1 - q) / w)
print("downsample corrected", p.round(decimals=4).tolist())
print("as a logit shift", torch.sigmoid(torch.logit(q) + torch.log(torch.tensor(w))).round(decimals=4).tolist())

# temperature scaling of softmax logits, a single parameter with Adam
logits3 = torch.randn(50, 3) * 3
labels3 = torch.randint(0, 3, (50,))
log_t = torch.zeros((), requires_grad=True)
o = torch.optim.Adam([log_t], lr=0.1)
for _ in range(100):
    o.zero_grad()
    F.cross_entropy(logits3 / log_t.exp(), labels3).backward()
    o.step()
print("temperature", round(log_t.exp().item(), 3))


class FTRL(torch.optim.Optimizer):
    """FTRL-Proximal (McMahan et al. 2013) for the wide part of a CTR model."""

    def __init__(self, params, alpha=0.1, beta=1.0, l1=0.01, l2=0.0):
        if alpha <= 0:
            raise ValueError(f"Invalid alpha: {alpha}")
        super().__init__(params, dict(alpha=alpha, beta=beta, l1=l1, l2=l2))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                if not st:
                    st["z"] = torch.zeros_like(p)
                    st["n"] = torch.zeros_like(p)
                g = p.grad
                sigma = ((st["n"] + g * g).sqrt() - st["n"].sqrt()) / group["alpha"]
                st["z"].add_(g - sigma * p)
                st["n"].addcmul_(g, g)
                z, nn_ = st["z"], st["n"]
                denom = (group["beta"] + nn_.sqrt()) / group["alpha"] + group["l2"]
                new = -(z - torch.sign(z) * group["l1"]) / denom
                p.copy_(torch.where(z.abs() <= group["l1"], torch.zeros_like(p), new))
        return loss


wide = nn.Linear(12, 1)
deep = nn.Sequential(nn.Linear(12, 6), nn.ReLU(), nn.Linear(6, 1))
X = (torch.rand(64, 12) < 0.3).float()
Y = ((X[:, 0] + X[:, 3] - X[:, 7]) > 0).float()
ftrl = FTRL(wide.parameters(), alpha=0.5, l1=0.05)
adam = torch.optim.Adam(deep.parameters(), lr=0.01)
print(ftrl)
for step in range(30):
    ftrl.zero_grad()
    adam.zero_grad()
    loss = F.binary_cross_entropy_with_logits((wide(X) + deep(X)).squeeze(1), Y)
    loss.backward()
    ftrl.step()
    adam.step()
print("loss", round(loss.item(), 4))
print("wide weights", wide.weight.detach().round(decimals=3).tolist())
print("exact zeros (L1 sparsity)", int((wide.weight == 0).sum()))
sd = ftrl.state_dict()
print("ftrl state keys", sorted(sd["state"][0].keys()), sd["param_groups"][0]["l1"])
try:
    FTRL(wide.parameters(), alpha=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    t = torch.ones(1, requires_grad=True)
    bad = torch.optim.LBFGS([t], line_search_fn="armijo")
    bad.step(lambda: (t.grad.zero_() if t.grad is not None else None, (t * t).sum().backward(), (t * t).sum())[-1])
except Exception as e:
    print(type(e).__name__, e)
