"""The mistakes anomaly-detection code makes and what torch says: scoring under grad mode (leaking graphs), in-place
writes on leaves and views needed for backward, integer score tensors, thresholds from a training quantile of a
float16 tensor, singular covariances, boolean-mask assignment shapes, kNN with k too large, and NaN scores."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(fn):
    try:
        r = fn()
        print("ok", r)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])


model = nn.Linear(4, 4)
x = torch.randn(6, 4)
score = (model(x) - x).pow(2).mean(1)
print("leaky score", score.requires_grad, score.grad_fn.name())
show(lambda: score.numpy())
show(lambda: score.detach().numpy().round(3).tolist())
show(lambda: float(score))
show(lambda: score.item())
with torch.inference_mode():
    s_inf = (model(x) - x).pow(2).mean(1)
print("inference", s_inf.requires_grad, s_inf.is_inference(), torch.is_inference_mode_enabled())
show(lambda: s_inf.add_(1))
show(lambda: (s_inf * torch.ones(6, requires_grad=True)).sum().backward())
w = torch.ones(3, requires_grad=True)
show(lambda: w.add_(1))
show(lambda: w.data.add_(1).tolist())
y = torch.randn(3, requires_grad=True)
z = y.sigmoid()
z.mul_(2)
show(lambda: z.sum().backward())
y2 = torch.randn(3, requires_grad=True)
e = y2.exp()
e.add_(1)
show(lambda: e.sum().backward())
v = y2.clone().view(3, 1)
v2 = v[:2]
v2.zero_()
print("view grad_fn", v.grad_fn.name(), v2.grad_fn.name(), v._version, v2._version)

# integer scores and thresholds
int_scores = torch.tensor([3, 1, 4, 1, 5])
show(lambda: int_scores.mean())
show(lambda: int_scores.float().mean())
show(lambda: torch.quantile(int_scores.float(), 0.9))
show(lambda: torch.quantile(int_scores.half(), 0.9))
show(lambda: torch.quantile(int_scores.double(), torch.tensor([0.5], dtype=torch.float32)))
show(lambda: torch.kthvalue(int_scores, 2))
show(lambda: int_scores / 2)
show(lambda: int_scores // 2)
show(lambda: (int_scores > 2.5).sum())
show(lambda: torch.mean(int_scores.bool().float()))
h = torch.tensor([0.1, 0.2, 70000.0]).half()
print("half overflow", h, h.sum(), h.float().sum())
show(lambda: torch.tensor([65504.0], dtype=torch.float16) * 2)

# covariance of too few samples, singular solves
feat = torch.randn(3, 5)
cov = torch.cov(feat.T)
print("rank", torch.linalg.matrix_rank(cov).item(), torch.linalg.det(cov).abs().item() < 1e-6)
show(lambda: torch.linalg.cholesky(cov))
show(lambda: torch.linalg.solve(torch.zeros(2, 2), torch.ones(2)))
show(lambda: torch.linalg.inv(torch.ones(2, 3)))
show(lambda: torch.linalg.inv(torch.ones(2, 2, dtype=torch.int64)))
show(lambda: torch.inverse(torch.eye(2, dtype=torch.float16)))
show(lambda: torch.linalg.pinv(cov).shape)
L, info = torch.linalg.cholesky_ex(cov + 1e-3 * torch.eye(5))
print("jitter info", info.item())

# masks, kNN, NaN
scores = torch.tensor([0.2, float("nan"), 0.9, 0.5])
print("nan", scores.max(), scores.argmax(), torch.nan_to_num(scores, nan=0.0), scores.nanmean())
print("sort nan", scores.sort(), torch.isnan(scores).any().item())
print("nan threshold", (scores > 0.4).tolist(), torch.nanquantile(scores, 0.5))
mask = scores > 0.4
t = torch.zeros(4)
show(lambda: t.__setitem__(mask, torch.tensor([1.0, 2.0, 3.0])))
show(lambda: t.masked_fill_(mask, 7.0).tolist())
show(lambda: t.masked_fill(mask.int(), 1.0))
show(lambda: t.masked_fill_(mask, torch.tensor([1.0, 2.0])))
show(lambda: torch.where(mask, scores, 0))
show(lambda: torch.where(mask.int(), scores, 0))
bank = torch.randn(3, 2)
show(lambda: torch.cdist(torch.randn(2, 2), bank).topk(4, largest=False))
show(lambda: torch.cdist(torch.randn(2, 2), bank).kthvalue(0, 1))
show(lambda: F.cosine_similarity(torch.zeros(1, 2), torch.ones(1, 2)))
show(lambda: F.normalize(torch.zeros(2, 2), dim=1))
show(lambda: F.cosine_similarity(torch.randn(2, 3), torch.randn(3, 3)))
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    r = torch.tensor([1.0, 2.0], requires_grad=True).sum()
    r.backward()
    print("nongrad leaf .grad", r.grad, [str(m.message)[:60] for m in ws])
