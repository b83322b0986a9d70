"""GitHub issues about zero-size tensors: reductions with and without identities along empty and non-empty
dims, empty batches through layers and losses, indexing/cat/stack/split/reshape of empties, argmax/topk/sort on
them, and the errors PyTorch raises for the ambiguous cases."""

import numpy as np
import torch

torch.manual_seed(0)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        vals = out.tolist() if out.numel() < 8 else "..."
        print(f"{name}: {out.dtype} {tuple(out.shape)} {vals}")
    elif isinstance(out, tuple):
        print(f"{name}: {[(tuple(o.shape), o.tolist()) if isinstance(o, torch.Tensor) else o for o in out]}")
    else:
        print(f"{name}: {out}")


e = torch.zeros(0, 3)
for fn in ["sum", "prod", "mean", "nansum", "std", "var", "logsumexp", "amax", "amin", "argmax", "argmin", "all",
           "any", "norm", "count_nonzero", "median", "cumsum", "cumprod", "softmax", "log_softmax"]:
    for dim in (0, 1):
        def call(fn=fn, dim=dim):
            f = getattr(torch, fn)
            if fn in ("norm",):
                return f(e, dim=dim)
            return f(e, dim)
        show(f"{fn} dim{dim}", call)
show("max dim0", lambda: e.max(0))
show("max dim1", lambda: e.max(1))
show("min all", lambda: e.min())
show("aminmax", lambda: torch.aminmax(e))
show("aminmax dim1", lambda: torch.aminmax(e, dim=1))
show("sort", lambda: e.sort(1))
show("topk k=0", lambda: e.topk(0, 1))
show("topk k=1 dim0", lambda: e.topk(1, 0))
show("kthvalue", lambda: e.kthvalue(1, 1))
show("mode dim1", lambda: e.mode(1))
show("mode dim0", lambda: e.mode(0))
show("mean all", lambda: e.mean())
show("var_mean", lambda: torch.var_mean(e, 1))
show("std correction 0", lambda: torch.std(e, 1, correction=0))
show("prod int", lambda: torch.zeros(0, dtype=torch.long).prod())
show("sum bool", lambda: torch.zeros(0, dtype=torch.bool).sum())
show("logsumexp all", lambda: torch.logsumexp(e, (0, 1)))
show("dist", lambda: torch.dist(e, e))
show("cdist", lambda: torch.cdist(torch.zeros(0, 3), torch.zeros(2, 3)))
show("histc", lambda: torch.histc(torch.zeros(0), bins=3, min=0, max=3))
show("bincount minlength", lambda: torch.bincount(torch.zeros(0, dtype=torch.long), minlength=3))

# shape ops
show("cat with empty 1-d", lambda: torch.cat([torch.zeros(0), torch.ones(2, 3)]))
show("cat empties dim1", lambda: torch.cat([torch.zeros(2, 0), torch.ones(2, 3)], 1))
show("cat mismatched", lambda: torch.cat([torch.zeros(0, 2), torch.ones(2, 3)]))
show("stack empties", lambda: torch.stack([e, e]))
show("split", lambda: torch.zeros(0, 4).split(2, 1))
show("chunk", lambda: len(torch.zeros(0).chunk(3)))
show("reshape -1", lambda: e.reshape(-1))
show("reshape ambiguous", lambda: e.reshape(-1, 0))
show("view 0,-1", lambda: e.view(0, -1))
show("flatten", lambda: e.flatten())
show("unsqueeze", lambda: e.unsqueeze(0))
show("expand", lambda: torch.zeros(1, 0).expand(3, 0))
show("repeat", lambda: e.repeat(2, 2))
show("transpose contiguous", lambda: e.t().is_contiguous())
show("index empty", lambda: torch.arange(5)[torch.tensor([], dtype=torch.long)])
show("index float empty", lambda: torch.arange(5)[torch.tensor([])])
show("mask empty", lambda: e[e > 0])
show("nonzero", lambda: e.nonzero())
show("where 1-arg", lambda: torch.where(e > 0))
show("gather", lambda: torch.zeros(2, 3).gather(1, torch.zeros(2, 0, dtype=torch.long)))
show("index_select", lambda: torch.zeros(2, 3).index_select(0, torch.tensor([], dtype=torch.long)))
show("unique", lambda: torch.unique(torch.zeros(0)))
show("tensor([])", lambda: torch.tensor([]))
show("tensor([[]])", lambda: torch.tensor([[]]))
show("from numpy empty", lambda: torch.from_numpy(np.zeros((0, 2), dtype=np.int32)))
show("arange empty", lambda: torch.arange(3, 3))
show("linspace 0", lambda: torch.linspace(0, 1, 0))
show("eye 0", lambda: torch.eye(0, 2))
show("item", lambda: e.item())
show("bool", lambda: bool(torch.zeros(0)))
show("len", lambda: len(e))
show("iter", lambda: list(e))

# layers and losses on an empty batch
lin = torch.nn.Linear(3, 2)
show("linear", lambda: lin(e))
show("matmul", lambda: e @ torch.ones(3, 4))
show("matmul inner 0", lambda: torch.ones(2, 0) @ torch.ones(0, 4))
show("bmm", lambda: torch.bmm(torch.zeros(0, 2, 3), torch.zeros(0, 3, 4)))
show("einsum", lambda: torch.einsum("ij,jk->ik", torch.ones(2, 0), torch.ones(0, 2)))
conv = torch.nn.Conv2d(3, 4, 3)
show("conv empty batch", lambda: conv(torch.zeros(0, 3, 5, 5)))
show("conv too small", lambda: conv(torch.zeros(1, 3, 2, 2)))
show("maxpool empty", lambda: torch.nn.functional.max_pool2d(torch.zeros(0, 3, 4, 4), 2))
bn = torch.nn.BatchNorm1d(3)
show("batchnorm train empty", lambda: bn(e))
bn.eval()
show("batchnorm eval empty", lambda: bn(e))
show("layernorm", lambda: torch.nn.LayerNorm(3)(e))
show("embedding", lambda: torch.nn.Embedding(5, 2)(torch.zeros(0, dtype=torch.long)))
show("lstm empty seq", lambda: torch.nn.LSTM(3, 2)(torch.zeros(0, 1, 3)))
show("softmax", lambda: torch.softmax(e, 1))
show("mse mean", lambda: torch.nn.functional.mse_loss(e, e))
show("mse sum", lambda: torch.nn.functional.mse_loss(e, e, reduction="sum"))
show("l1 mean", lambda: torch.nn.functional.l1_loss(e, e))
show("ce mean", lambda: torch.nn.functional.cross_entropy(e, torch.zeros(0, dtype=torch.long)))
show("ce sum", lambda: torch.nn.functional.cross_entropy(e, torch.zeros(0, dtype=torch.long), reduction="sum"))
show("nll ignore all", lambda: torch.nn.functional.nll_loss(torch.zeros(2, 3), torch.tensor([-100, -100])))
show("bce mean", lambda: torch.nn.functional.binary_cross_entropy(torch.zeros(0), torch.zeros(0)))
w = torch.zeros(0, 3, requires_grad=True)
(w.sum() + w.mean().nan_to_num()).backward()
show("grad of empty", lambda: w.grad)
p = torch.ones(3, requires_grad=True)
(p[torch.tensor([], dtype=torch.long)].sum() * 2).backward()
show("grad through empty index", lambda: p.grad)
