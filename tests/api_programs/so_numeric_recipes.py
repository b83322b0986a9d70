"""Numeric recipes from accepted answers: sort with indices and un-sort (argsort of argsort), top-k per row,
cumulative sums that reset, pairwise distances by broadcasting and cdist, cosine similarity matrices, batched
matrix ops with einsum/bmm, a stable logsumexp, clamping before log, NaN/inf checks, seeding and the
determinism flags."""

import math

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(5)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def R(t):
    return t.round(decimals=4).tolist()


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0])


# sort and un-sort
x = torch.tensor([3.0, 1.0, 2.0, 5.0, 4.0])
s, idx = torch.sort(x, descending=True)
print("sort", s.tolist(), idx.tolist(), idx.dtype)
inv = torch.argsort(idx)
print("unsort", s[inv].tolist(), torch.equal(s[inv], x), inv.tolist())
inv2 = torch.empty_like(idx)
inv2[idx] = torch.arange(len(idx))
print("scatter_inv", torch.equal(inv, inv2), torch.empty_like(idx).scatter_(0, idx, torch.arange(5)).tolist())
rank = x.argsort().argsort()
print("rank", rank.tolist())
print(torch.sort(torch.tensor([[2, 1, 2], [0, 0, 1]]), dim=1, stable=True))
lengths = torch.tensor([2, 5, 3])
sl, perm = lengths.sort(descending=True)
print("len_sort", sl.tolist(), perm.tolist(), perm.argsort().tolist())
st = torch.sort(x)
print(type(st).__name__, st.values.tolist(), st[1].tolist())

# top-k per row
m = T(3, 6)
v, i = m.topk(2, dim=1)
print("topk", R(v), i.tolist())
print("topk_small", R(m.topk(2, dim=1, largest=False).values), torch.topk(m, 1).indices.squeeze(1).tolist())
mask = torch.zeros_like(m, dtype=torch.bool).scatter_(1, i, True)
print("topk_mask", mask.sum(1).tolist(), R(m.masked_fill(~mask, 0.0)[0]))
kth = torch.kthvalue(m, 2, dim=1)
print("kth", R(kth.values), kth.indices.tolist())
catch("topk_big", lambda: m.topk(7, dim=1))
catch("topk_dim", lambda: m.topk(2, dim=2))

# cumsum with reset
vals = torch.tensor([1.0, 2.0, 3.0, 1.0, 1.0, 4.0, 2.0])
reset = torch.tensor([0, 0, 1, 0, 0, 1, 0], dtype=torch.bool)
c = vals.cumsum(0)
base = torch.where(reset, c - vals, torch.zeros_like(c))
base = torch.cummax(base, 0).values
print("reset_cumsum", (c - base).tolist())
seg = reset.long().cumsum(0)
print("segments", seg.tolist(), torch.zeros(3).index_add_(0, seg, vals).tolist())
print("cumprod", torch.tensor([1, 2, 3, 4]).cumprod(0).tolist(), torch.tensor([True, False, True]).cumsum(0).dtype)
print("cummax", torch.cummax(torch.tensor([1, 3, 2, 5, 4]), 0))
print("logcumsumexp", R(torch.logcumsumexp(torch.tensor([0.0, 1.0, 2.0]), 0)))

# pairwise distances and cosine similarity
a, b = T(4, 3), T(5, 3)
d_bc = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1).sqrt()
d_cd = torch.cdist(a, b)
d_mm = (a.pow(2).sum(1, keepdim=True) - 2 * a @ b.t() + b.pow(2).sum(1)).clamp_min(0).sqrt()
print("pdist", R(d_bc[0]), torch.allclose(d_bc, d_cd, atol=1e-5), torch.allclose(d_bc, d_mm, atol=1e-4))
print("pdist_self", R(torch.pdist(a)), torch.cdist(a, a, p=1).diagonal().tolist())
an, bn = F.normalize(a, dim=1), F.normalize(b, dim=1)
cos = an @ bn.T
cos2 = F.cosine_similarity(a[:, None, :], b[None, :, :], dim=-1)
print("cos", R(cos[:2]), torch.allclose(cos, cos2, atol=1e-5))
print("cos_pair", R(F.cosine_similarity(a, a.flip(0))), R(torch.nn.CosineSimilarity(dim=0)(a[0], b[0])))
print("zero_vec", F.cosine_similarity(torch.zeros(1, 3), torch.ones(1, 3)).tolist(),
      F.normalize(torch.zeros(1, 2)).tolist())
catch("cdist_dim", lambda: torch.cdist(a, T(5, 2)))

# einsum / bmm
A, B = T(2, 3, 4), T(2, 4, 5)
print("bmm", torch.allclose(torch.bmm(A, B), torch.einsum("bij,bjk->bik", A, B), atol=1e-5),
      torch.allclose(A @ B, torch.matmul(A, B)))
print("einsum", R(torch.einsum("ii->", torch.eye(3) * 2)), R(torch.einsum("bi,bi->b", a, a)),
      torch.einsum("i,j->ij", torch.arange(2.0), torch.arange(3.0)).tolist())
print("einsum_ell", torch.einsum("...ij->...ji", A).shape, torch.einsum("bij->j", A).shape)
catch("bmm_rank", lambda: torch.bmm(A[0], B[0]))
catch("bmm_shape", lambda: torch.bmm(A, A))
catch("einsum_bad", lambda: torch.einsum("ij,jk->ik", A, B))
catch("mm_mismatch", lambda: a @ b)

# logsumexp, log(0), nan checks
big = torch.tensor([1000.0, 1000.0, 999.0])
naive = big.exp().sum().log()
mx = big.max()
stable = mx + (big - mx).exp().sum().log()
print("lse", naive.item(), round(stable.item(), 4), round(torch.logsumexp(big, 0).item(), 4))
print("lse_neg_inf", torch.logsumexp(torch.tensor([float("-inf")] * 2), 0).item(),
      R(torch.logsumexp(T(2, 3), dim=1, keepdim=True)))
p = torch.tensor([0.0, 0.5, 1.0])
print("log0", p.log().tolist(), R(p.clamp(min=1e-8).log()), R(torch.log(p + 1e-12)), R(torch.xlogy(p, p)))
print("bce_clamp", round(F.binary_cross_entropy(p, torch.tensor([0.0, 1.0, 1.0])).item(), 4),
      F.binary_cross_entropy(torch.tensor([0.0]), torch.tensor([1.0])).item())
z = torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), 0.0])
print("nan", torch.isnan(z).tolist(), z.isnan().any().item(), torch.isinf(z).tolist(), torch.isfinite(z).tolist())
print("nan_fix", torch.nan_to_num(z).tolist()[:2], torch.nan_to_num(z, nan=0.0, posinf=1.0, neginf=-1.0).tolist())
print("nan_ops", torch.nansum(z[:2]).item(), torch.nanmean(torch.tensor([1.0, float("nan"), 3.0])).item(),
      (z != z).tolist(), z.max().item(), torch.tensor([0.0]).div(0).tolist())
print("nan_grad", torch.tensor(0.0, requires_grad=True).sqrt().item())
q = torch.tensor([0.0, 4.0], requires_grad=True)
q.sqrt().sum().backward()
print("sqrt_grad", q.grad.tolist())

# seeding and determinism
torch.manual_seed(0)
r1 = torch.rand(3)
torch.manual_seed(0)
r2 = torch.rand(3)
print("seed", torch.equal(r1, r2), torch.initial_seed())
g = torch.Generator().manual_seed(42)
print("gen", torch.randn(2, generator=g).shape, g.initial_seed(), torch.randint(0, 10, (3,)).dtype)
torch.use_deterministic_algorithms(True)
print("det", torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
torch.use_deterministic_algorithms(False)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
print("cudnn", torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark,
      torch.are_deterministic_algorithms_enabled())
print("pi", math.isclose(torch.pi, math.pi), torch.finfo(torch.float32).eps, torch.finfo(torch.float16).max,
      torch.iinfo(torch.int32).max, torch.finfo(torch.float32).tiny)
