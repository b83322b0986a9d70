"""The mistakes causal-inference code makes and what torch says: unclamped propensities (inf weights), integer
treatment tensors in arithmetic and losses, boolean vs integer masks, in-place edits of tensors autograd saved,
mismatched shapes in per-treatment losses, and singular designs in 2SLS."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(9)
torch.set_printoptions(precision=4, sci_mode=False)


def show(tag, fn):
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = fn()
        print(tag, "ok", r, [str(x.message)[:70] for x in w])
    except Exception as e:
        print(tag, type(e).__name__, str(e).split("\n")[0][:110])


e = torch.tensor([0.0, 0.3, 1.0, 0.7])
t = torch.tensor([1, 0, 1, 0])
y = torch.tensor([1.0, 2.0, 3.0, 4.0])
show("raw ipw", lambda: t / e + (1 - t) / (1 - e))
show("ipw nan", lambda: (t * y / e - (1 - t) * y / (1 - e)).mean())
show("clamped", lambda: (t * y / e.clamp(0.01, 0.99) - (1 - t) * y / (1 - e).clamp(0.01, 0.99)).mean())
show("nan_to_num", lambda: torch.nan_to_num(t / e, posinf=100.0))
show("isfinite", lambda: torch.isfinite(t / e).all())
show("logit eps", lambda: torch.logit(e, eps=0.01))
show("logit eps > 0.5", lambda: torch.logit(e, eps=0.7))
en = torch.tensor([0.0, float("nan"), 0.5], requires_grad=True)
show("logit eps grad", lambda: torch.autograd.grad(torch.logit(en, eps=0.1).sum(), en)[0])
show("int div", lambda: (t / 2).dtype)
show("int floor", lambda: t // 2)
show("int true_divide_", lambda: t.clone().div_(2))
show("int div_ floor", lambda: t.clone().div_(2, rounding_mode="floor"))
show("int mean", lambda: t.mean())
show("int mean dtype", lambda: t.mean(dtype=torch.float64))
show("int sum", lambda: t.sum().dtype)
show("int bce", lambda: F.binary_cross_entropy(e.clamp(0.1, 0.9), t))
show("int bce logits", lambda: F.binary_cross_entropy_with_logits(torch.logit(e, 1e-3), t))
show("int mse", lambda: F.mse_loss(y, t))
show("long ce", lambda: F.cross_entropy(torch.randn(4, 2), t))
show("float ce target", lambda: F.cross_entropy(torch.randn(4, 2), t.float()))
show("int mask index", lambda: y[t])
show("bool mask index", lambda: y[t.bool()])
show("uint8 mask", lambda: y[t.to(torch.uint8)])
show("mask short", lambda: y[t.bool()[:3]])
show("masked_fill int mask", lambda: y.masked_fill(t, 0.0))
show("where int cond", lambda: torch.where(t, y, 0.0))
show("where scalar", lambda: torch.where(t == 1, y, 0))
show("logical", lambda: (t == 1) & (y > 2))
show("bool arith", lambda: (t == 1) + (y > 2))
show("bool sub", lambda: (t == 1) - (y > 2))
show("bool neg", lambda: -(t == 1))
show("bitwise not int", lambda: ~t)

# in-place on tensors saved for backward
w = torch.randn(4, requires_grad=True)
ps = torch.sigmoid(w)
show("inplace saved", lambda: (ps.clamp_(0.1, 0.9), ps.sum().backward()))
w2 = torch.randn(4, requires_grad=True)
ps2 = torch.sigmoid(w2)
ipw = 1 / ps2
ps2.add_(0.0)
show("saved version", lambda: ipw.sum().backward())
show("leaf inplace", lambda: w.clamp_(0, 1))
with torch.no_grad():
    show("leaf no_grad", lambda: w.clamp_(0, 1).requires_grad)

# per-treatment head shapes
out = torch.randn(4, 2)
show("broadcast mse", lambda: F.mse_loss(out[:, :1], y).item() > 0)
show("gather 1d", lambda: out.gather(1, t))
show("gather float", lambda: out.gather(1, t[:, None].float()))
show("gather ok", lambda: out.gather(1, t[:, None]).squeeze(1))
show("index 2d", lambda: out[torch.arange(4), t])
show("index bad", lambda: out[torch.arange(3), t])
show("index oob", lambda: out[torch.arange(4), t + 1])
show("l1 reduction none", lambda: F.l1_loss(out[:, 0], y, reduction="none").shape)
show("bad reduction", lambda: F.l1_loss(out[:, 0], y, reduction="avg"))
show("mse empty", lambda: F.mse_loss(torch.empty(0), torch.empty(0)))
show("mse empty sum", lambda: F.mse_loss(torch.empty(0), torch.empty(0), reduction="sum"))
show("bce empty", lambda: F.binary_cross_entropy(torch.empty(0), torch.empty(0)))

# singular 2SLS designs
Z = torch.ones(5, 2, dtype=torch.float64)
show("inv singular", lambda: torch.linalg.inv(Z.T @ Z))
show("inv_ex", lambda: torch.linalg.inv_ex(Z.T @ Z).info)
show("solve singular", lambda: torch.linalg.solve(Z.T @ Z, torch.ones(2, dtype=torch.float64)))
show("cholesky", lambda: torch.linalg.cholesky(Z.T @ Z))
show("lstsq rank", lambda: torch.linalg.lstsq(Z, torch.arange(5.0, dtype=torch.float64)).rank)
show("lstsq gelsd", lambda: torch.linalg.lstsq(Z, torch.arange(5.0, dtype=torch.float64), driver="gelsd").solution)
show("pinv", lambda: torch.linalg.pinv(Z) @ torch.arange(5.0, dtype=torch.float64))
show("det", lambda: torch.linalg.det(Z.T @ Z))
show("slogdet", lambda: torch.linalg.slogdet(Z.T @ Z))
show("float32 lstsq", lambda: torch.linalg.lstsq(Z.float(), torch.arange(5.0)).solution.dtype)
show("half lstsq", lambda: torch.linalg.lstsq(Z.half(), torch.arange(5.0).half()))
show("int solve", lambda: torch.linalg.solve(torch.eye(2, dtype=torch.long), torch.ones(2, dtype=torch.long)))

# nn modules on integer covariates
lin = nn.Linear(2, 1)
show("long input", lambda: lin(torch.tensor([[1, 2]])))
show("double input", lambda: lin(torch.tensor([[1.0, 2.0]], dtype=torch.float64)))
show("embedding float idx", lambda: nn.Embedding(3, 2)(torch.tensor([0.0, 1.0])))
show("item multi", lambda: y.item())
show("bool of tensor", lambda: bool(y > 0))
show("len 0d", lambda: len(torch.tensor(1.0)))
