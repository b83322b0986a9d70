"""Regularizers and blocks from the CNN papers, on a tiny image classifier: dropout with a max-norm constraint
(Srivastava et al. 2014, via torch.renorm), squeeze-and-excitation (Hu et al. 2018), stochastic depth (Huang et al.
2016) with deterministic masks, mixup (Zhang et al. 2018) and CutMix (Yun et al. 2019) with numpy-drawn lambdas,
and focal loss (Lin et al. 2017) checked against cross-entropy at gamma=0."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(2014)


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def init_(m, seed):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.uniform(-0.4, 0.4, tuple(p.shape)).astype(np.float32)))
    return m


# max-norm: each unit's incoming weight vector clipped to norm c after every update
W = arr(4, 6, scale=2.0)
print("row_norms", r(W.norm(dim=1)))
print("renorm", r(torch.renorm(W, p=2, dim=0, maxnorm=3.0).norm(dim=1)), r(W.renorm(1, 0, 5.0).abs().sum(1)))
W2 = W.clone()
W2.renorm_(2, 0, 3.0)
print("renorm_", torch.equal(W2, torch.renorm(W, 2, 0, 3.0)), r(W.renorm(2, 1, 1.0).norm(dim=0), 6))
print("renorm_grad_fn", torch.renorm(W.clone().requires_grad_(True), 2, 0, 3.0).grad_fn.name())
for bad in (lambda: torch.renorm(W[0], 2, 0, 3.0), lambda: W.renorm(2, 0, -1.0), lambda: W.renorm(2, 2, 1.0)):
    try:
        bad()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
print("clamp_norm", r(W * (3.0 / W.norm(dim=1, keepdim=True)).clamp(max=1.0), 6))
drop = nn.Dropout(p=0.5)
print(drop, drop.training, torch.equal(drop.eval()(W), W), F.dropout(W, 0.5, training=False).equal(W))
print(nn.Dropout2d(0.2), nn.AlphaDropout(0.1), nn.FeatureAlphaDropout(0.3), nn.Dropout1d(0.25))
kept = F.dropout(torch.ones(1000), p=0.3, training=True)
print("dropout_values", sorted(set(np.round(kept.unique().double().numpy(), 4).tolist())))
try:
    nn.Dropout(p=1.5)
except ValueError as e:
    print("ValueError", e)


class SE(nn.Module):
    def __init__(self, c, reduction=2):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Sequential(
            nn.Linear(c, c // reduction, bias=False),
            nn.ReLU(inplace=True),
            nn.Linear(c // reduction, c, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, x):
        b, c, _, _ = x.size()
        y = self.pool(x).view(b, c)
        y = self.fc(y).view(b, c, 1, 1)
        return x * y.expand_as(x)


class Block(nn.Module):
    """A residual block whose branch is dropped (stochastic depth) or scaled by its survival rate in eval."""

    def __init__(self, c, survival, seed):
        super().__init__()
        self.branch = init_(
            nn.Sequential(nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(), SE(c)), seed
        )
        self.survival = survival
        self.gate = None

    def forward(self, x):
        if self.training:
            keep = self.gate.view(-1, 1, 1, 1).to(x.dtype)
            return x + self.branch(x) * keep / self.survival
        return x + self.branch(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = init_(nn.Conv2d(3, 4, 3, padding=1), 1)
        self.blocks = nn.ModuleList(Block(4, s, 10 + i) for i, s in enumerate((1.0, 0.75, 0.5)))
        self.head = init_(nn.Linear(4, 3), 2)

    def forward(self, x):
        x = F.relu(self.stem(x))
        for b in self.blocks:
            x = b(x)
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def focal_loss(logits, target, gamma=2.0, alpha=None):
    logp = F.log_softmax(logits, dim=1).gather(1, target[:, None]).squeeze(1)
    loss = -((1 - logp.exp()) ** gamma) * logp
    if alpha is not None:
        loss = alpha[target] * loss
    return loss.mean()


net = Net()
print("params", sum(p.numel() for p in net.parameters()), net.blocks[0].branch[3])
x = arr(6, 3, 8, 8)
y = torch.tensor([0, 1, 2, 0, 1, 2])
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
for step in range(4):
    for i, b in enumerate(net.blocks):
        b.gate = torch.from_numpy(rng.uniform(size=6) < b.survival)
    lam = float(rng.beta(0.4, 0.4))
    perm = torch.from_numpy(rng.permutation(6))
    if step % 2 == 0:
        xm = lam * x + (1 - lam) * x[perm]
        kind = "mixup"
    else:
        cut = int(8 * np.sqrt(1 - lam))
        cy, cx = int(rng.integers(8)), int(rng.integers(8))
        y0, y1, x0, x1 = np.clip([cy - cut // 2, cy + cut // 2, cx - cut // 2, cx + cut // 2], 0, 8)
        xm = x.clone()
        xm[:, :, y0:y1, x0:x1] = x[perm][:, :, y0:y1, x0:x1]
        lam = 1 - (y1 - y0) * (x1 - x0) / 64
        kind = "cutmix"
    out = net(xm)
    loss = lam * focal_loss(out, y) + (1 - lam) * focal_loss(out, y[perm])
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        net.head.weight.copy_(torch.renorm(net.head.weight, 2, 0, 0.5))
    print(
        kind,
        step,
        round(float(lam), 4),
        round(loss.item(), 4),
        [int(b.gate.sum()) for b in net.blocks],
        r(net.head.weight.norm(dim=1), 3),
    )
net.eval()
with torch.no_grad():
    probs = net(x).softmax(1)
print("eval", r(probs, 6), probs.argmax(1).tolist(), r(net.blocks[1].branch[1].running_var, 4))

logits = arr(5, 3, scale=2.0).requires_grad_(True)
tgt = torch.tensor([0, 2, 1, 1, 0])
f0 = focal_loss(logits, tgt, gamma=0.0)
print("focal_gamma0", round(f0.item(), 4), round(F.cross_entropy(logits, tgt).item(), 4))
f2 = focal_loss(logits, tgt, gamma=2.0, alpha=torch.tensor([0.25, 0.5, 0.25]))
f2.backward()
print("focal", round(f2.item(), 4), r(logits.grad, 6))
z = arr(6, scale=2.0)
t = torch.tensor([1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
p = torch.sigmoid(z)
ce = F.binary_cross_entropy_with_logits(z, t, reduction="none")
p_t = p * t + (1 - p) * (1 - t)
sig_focal = (0.25 * t + 0.75 * (1 - t)) * ce * (1 - p_t) ** 2
print("sigmoid_focal", r(sig_focal, 6), round(sig_focal.sum().item(), 4))
soft = F.one_hot(tgt, 3).float() * 0.6 + F.one_hot(tgt.roll(1), 3).float() * 0.4
print("soft_targets", soft[0].tolist(), round(F.cross_entropy(logits, soft).item(), 4), F.one_hot(tgt).dtype)
try:
    F.one_hot(torch.tensor([0, 3]), 3)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    F.one_hot(torch.tensor([0.0, 1.0]))
except RuntimeError as e:
    print("RuntimeError", e)
