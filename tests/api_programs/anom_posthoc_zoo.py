"""Post-hoc OOD detectors from OpenOOD: ReAct's activation clipping at a feature quantile, DICE's weight
sparsification by a contribution top-k mask, ASH-p/b/s activation shaping via kthvalue/scatter/sort, ViM's principal
space residual with eigh, deep kNN on F.normalize'd features, and GradNorm's per-sample KL-to-uniform gradients."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

D, K = 12, 4
backbone = nn.Sequential(nn.Linear(6, D), nn.ReLU())
fc = nn.Linear(D, K)
train_x = torch.randn(64, 6)
test_x = torch.cat([torch.randn(4, 6), torch.randn(4, 6) * 4])
with torch.no_grad():
    f_train = backbone(train_x)
    f_test = backbone(test_x)

# ReAct
thr = torch.quantile(f_train.flatten(), 0.9)
clipped = f_test.clip(max=thr)
react = torch.logsumexp(fc(clipped), 1).detach()
print("react thr", round(thr.item(), 4), "score", react)
print(
    "clip forms", torch.equal(clipped, f_test.clamp(max=thr.item())), torch.equal(clipped, torch.minimum(f_test, thr))
)

# DICE: keep the top-p contributions of mean feature times weight
contrib = f_train.mean(0)[None, :] * fc.weight.data
k = int(contrib.numel() * 0.3)
thresh = torch.topk(contrib.flatten(), k)[0][-1]
mask = (contrib >= thresh).float()
masked_w = fc.weight.data * mask
dice = torch.logsumexp(F.linear(f_test, masked_w, fc.bias.data), 1)
print("dice", mask.sum().item(), dice, mask.dtype)
sorted_vals, _ = contrib.flatten().sort(descending=True)
print("dice thresh agree", torch.equal(sorted_vals[k - 1], thresh))


def ash_p(x, percentile=65):
    b, c = x.shape
    n = x.shape[1:].numel()
    k = n - int(round(n * percentile / 100.0))
    v, i = torch.topk(x.view(b, -1), k, dim=1)
    out = torch.zeros_like(x.view(b, -1)).scatter_(dim=1, index=i, src=v)
    return out.view(b, c)


def ash_b(x, percentile=65):
    b, c = x.shape
    s1 = x.sum(dim=1)
    n = x.shape[1:].numel()
    k = n - int(round(n * percentile / 100.0))
    v, i = torch.topk(x.view(b, -1), k, dim=1)
    fill = s1 / k
    fill = fill.unsqueeze(dim=1).expand(v.shape)
    return torch.zeros_like(x.view(b, -1)).scatter_(dim=1, index=i, src=fill).view(b, c)


def ash_s(x, percentile=65):
    x = x.clone()
    s1 = x.sum(dim=1)
    n = x.shape[1]
    k = n - int(round(n * percentile / 100.0))
    t = x.view(x.size(0), -1)
    v, i = torch.topk(t, k, dim=1)
    t.zero_().scatter_(dim=1, index=i, src=v)
    s2 = x.sum(dim=1)
    scale = s1 / s2
    return x * torch.exp(scale[:, None])


for name, fn in [("ash_p", ash_p), ("ash_b", ash_b), ("ash_s", ash_s)]:
    out = fn(f_test)
    print(name, torch.logsumexp(fc(out), 1).detach(), (out != 0).sum(1).tolist())
kth = f_test.kthvalue(8, dim=1, keepdim=True).values
print("kth", kth.squeeze(1), torch.where(f_test >= kth, f_test, 0.0).count_nonzero(1))

# ViM: residual norm off the principal subspace, scaled by alpha
u = -torch.linalg.pinv(fc.weight.data.double()) @ fc.bias.data.double()
centered = f_train.double() - u
cov = centered.T @ centered / centered.shape[0]
eig_vals, eig_vecs = torch.linalg.eigh(cov)
print("eigh", eig_vals.dtype, eig_vals.shape, bool((eig_vals.diff() >= -1e-12).all()))
NS = eig_vecs[:, torch.argsort(eig_vals, descending=True)[3:]].contiguous()
vlogit_train = torch.linalg.norm(centered @ NS, dim=-1)
alpha = fc(f_train).max(-1)[0].double().mean() / vlogit_train.mean()
vlogit = torch.linalg.norm((f_test.double() - u) @ NS, dim=-1) * alpha
energy = torch.logsumexp(fc(f_test).double(), -1)
print("vim", (-vlogit + energy).detach(), round(alpha.item(), 4))
print("NS", NS.shape, NS.is_contiguous(), torch.allclose(NS.T @ NS, torch.eye(D - 3, dtype=torch.float64)))

# deep kNN on normalised features
bank = F.normalize(f_train, dim=1)
q = F.normalize(f_test, dim=1, eps=1e-12)
sims = q @ bank.T
knn = -sims.topk(5, dim=1).values[:, -1]
print("knn", knn, F.normalize(torch.zeros(1, 3)), F.normalize(torch.tensor([[3.0, 4.0]]), p=1))

# GradNorm: norm of the gradient of KL(uniform || softmax) w.r.t. the last layer, per sample
scores = []
for xi in f_test:
    fc.zero_grad()
    logits = fc(xi.unsqueeze(0))
    targets = torch.ones((1, K))
    loss = torch.mean(torch.sum(-targets * F.log_softmax(logits, dim=-1), dim=-1))
    loss.backward()
    scores.append(torch.sum(torch.abs(fc.weight.grad.data)).item())
print("gradnorm", torch.tensor(scores))
# the same with torch.func per-sample gradients
params = {k: v.detach() for k, v in fc.named_parameters()}


def loss_fn(p, x):
    logits = functional_call(fc, p, (x.unsqueeze(0),))
    return torch.sum(-F.log_softmax(logits, dim=-1))


g = vmap(grad(loss_fn), in_dims=(None, 0))(params, f_test)
print("vmap gradnorm", g["weight"].abs().sum((1, 2)), g["bias"].shape)
