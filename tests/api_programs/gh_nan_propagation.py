"""GitHub issues about NaN: which reductions and sorts propagate it (max/min/amax/argmax/topk/sort/unique/
median/clamp/maximum/fmax/nanmean), where it sorts, and the reductions of empty tensors (max raises, sum is 0,
prod is 1, mean is nan)."""

import math

import torch

nan, inf = float("nan"), float("inf")
x = torch.tensor([1.0, nan, 3.0, -inf, 2.0])
m = torch.tensor([[2.0, nan, 1.0], [0.5, 4.0, -1.0], [nan, nan, 7.0]])


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        print(f"{name}: {out.dtype} {tuple(out.shape)} {out.tolist()}")
    elif isinstance(out, tuple):
        parts = [o.tolist() if isinstance(o, torch.Tensor) else o for o in out]
        print(f"{name}: {type(out).__name__} {parts}")
    else:
        print(f"{name}: {out}")


# reductions: NaN wins
for fn in ["max", "min", "amax", "amin", "argmax", "argmin", "sum", "mean", "nansum", "nanmean", "median",
           "nanmedian", "std", "var", "logsumexp", "prod", "cumsum", "cummax", "cummin", "aminmax", "norm"]:
    if fn == "logsumexp":
        show(fn, lambda: getattr(torch, fn)(x, 0))
    elif fn in ("cumsum", "cummax", "cummin"):
        show(fn, lambda: getattr(torch, fn)(x, dim=0))
    else:
        show(fn, lambda: getattr(torch, fn)(x))
show("max dim", lambda: torch.max(m, dim=1))
show("min dim", lambda: torch.min(m, dim=0))
show("argmax dim", lambda: m.argmax(1))
show("median dim", lambda: m.median(dim=1))
show("nanmedian dim", lambda: m.nanmedian(dim=1))
show("mode", lambda: torch.tensor([3.0, 1.0, 3.0, 1.0, 2.0]).mode())
show("kthvalue", lambda: x.kthvalue(2))
show("quantile", lambda: torch.quantile(x, 0.5))
show("nanquantile", lambda: torch.nanquantile(x, torch.tensor([0.25, 0.5])))
show("max all nan row", lambda: m[2:].nan_to_num(nan=-inf).max())

# sort/topk/unique place NaN as the largest value
show("sort", lambda: torch.sort(x))
show("sort desc", lambda: torch.sort(x, descending=True))
show("sort stable", lambda: torch.sort(torch.tensor([nan, 1.0, nan, 0.0]), stable=True))
show("argsort", lambda: x.argsort())
show("msort", lambda: torch.msort(m))
show("topk", lambda: torch.topk(x, 2))
show("topk smallest", lambda: torch.topk(x, 2, largest=False))
show("unique", lambda: torch.unique(torch.tensor([nan, 1.0, nan, 1.0])))
show("unique counts", lambda: torch.unique(torch.tensor([2.0, nan, 2.0]), return_counts=True))
show("searchsorted nan", lambda: torch.searchsorted(torch.tensor([1.0, 2.0, nan]), torch.tensor([nan, 1.5])))
show("isin", lambda: torch.isin(torch.tensor([nan, 1.0]), torch.tensor([nan, 1.0])))
show("eq self", lambda: x == x)
show("equal", lambda: torch.equal(x, x))
show("allclose", lambda: torch.allclose(x, x))
show("allclose equal_nan", lambda: torch.allclose(x, x, equal_nan=True))
show("isclose", lambda: torch.isclose(x, x, equal_nan=True))

# elementwise min/max and clamp
y = torch.tensor([nan, 0.0, nan, 5.0, 1.0])
show("maximum", lambda: torch.maximum(x, y))
show("minimum", lambda: torch.minimum(x, y))
show("fmax", lambda: torch.fmax(x, y))
show("fmin", lambda: torch.fmin(x, y))
show("clamp", lambda: torch.clamp(x, min=0.0, max=2.5))
show("clamp nan bound", lambda: torch.clamp(torch.tensor([1.0, 5.0]), min=torch.tensor([nan, 0.0])))
show("clamp min nan scalar", lambda: torch.clamp(torch.tensor([1.0, 5.0]), min=nan))
show("clip", lambda: x.clip(-1, 1))
show("relu", lambda: torch.relu(x))
show("hardtanh", lambda: torch.nn.functional.hardtanh(x))
show("sign", lambda: torch.sign(x))
show("nan_to_num", lambda: torch.nan_to_num(x))
show("nan_to_num args", lambda: torch.nan_to_num(x, nan=0.0, neginf=-1.0))
show("isnan any", lambda: (torch.isnan(x).any().item(), torch.isinf(x).sum().item(), torch.isfinite(x).tolist()))
show("where nan", lambda: torch.where(torch.isnan(x), torch.zeros_like(x), x))
show("softmax nan", lambda: torch.softmax(torch.tensor([1.0, nan, 0.0]), 0))
show("softmax -inf row", lambda: torch.softmax(torch.tensor([-inf, -inf]), 0))
show("log_softmax inf", lambda: torch.log_softmax(torch.tensor([inf, 0.0]), 0))
show("int max", lambda: torch.tensor([3, 7, 7, 1]).max(0))
show("bool argmax", lambda: torch.tensor([False, True, True]).float().argmax())
show("python max of nan", lambda: (max(1.0, nan), max(nan, 1.0), math.isnan(torch.tensor(nan).item())))

# empty tensors: reductions with and without identity
e = torch.empty(0)
for fn in ["sum", "prod", "mean", "amax", "max", "min", "argmax", "std", "var", "median", "logsumexp", "norm", "all",
           "any", "nansum", "nanmean", "count_nonzero"]:
    if fn == "logsumexp":
        show(f"empty {fn}", lambda: torch.logsumexp(e, 0))
    else:
        show(f"empty {fn}", lambda: getattr(torch, fn)(e))
e2 = torch.empty(0, 3)
show("empty2 sum0", lambda: e2.sum(0))
show("empty2 sum1", lambda: e2.sum(1))
show("empty2 max1", lambda: e2.max(1))
show("empty2 max0", lambda: e2.max(0))
show("empty2 amax1", lambda: e2.amax(1))
show("empty2 amax0", lambda: e2.amax(0))
show("empty2 mean0", lambda: e2.mean(0))
show("empty2 argmax1", lambda: e2.argmax(1))
show("empty2 topk", lambda: e2.topk(0, dim=1))
show("empty2 sort", lambda: e2.sort(0))
show("empty2 cumsum", lambda: e2.cumsum(1))
show("empty2 softmax", lambda: torch.softmax(e2, 0))
show("empty2 unique", lambda: torch.unique(e2, return_counts=True))
show("empty min dim", lambda: torch.empty(2, 0).min(1))
show("empty kthvalue", lambda: torch.empty(0).kthvalue(1))
show("empty quantile", lambda: torch.quantile(torch.empty(0), 0.5))
show("empty matmul", lambda: torch.empty(2, 0) @ torch.empty(0, 3))
show("empty stack", lambda: torch.stack([torch.empty(0)] * 2))
show("empty cat", lambda: torch.cat([torch.empty(0), torch.tensor([1.0])]))
show("empty bincount", lambda: torch.bincount(torch.empty(0, dtype=torch.long)))
show("empty item", lambda: torch.empty(0).item())
