"""nn.EmbeddingBag corners that CTR pipelines hit: padding_idx in bags, max mode gradients, weighted sums, errors."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)

w = torch.arange(24, dtype=torch.float32).view(8, 3) / 10
inp = torch.tensor([1, 0, 2, 0, 0, 5, 7, 3])
off = torch.tensor([0, 3, 5, 5])

for mode in ("sum", "mean", "max"):
    bag = nn.EmbeddingBag.from_pretrained(w, mode=mode, padding_idx=0)
    out = bag(inp, off)
    print(mode, out.tolist())
print(nn.EmbeddingBag.from_pretrained(w, mode="max", padding_idx=0))
print(nn.EmbeddingBag(8, 3, padding_idx=-1, max_norm=1.0, norm_type=1.5, scale_grad_by_freq=True))

# gradients per mode
for mode in ("sum", "mean", "max"):
    weight = w.clone().requires_grad_(True)
    out = F.embedding_bag(inp, weight, off, mode=mode, padding_idx=0)
    (out * torch.arange(1.0, 4.0)).sum().backward()
    print(mode, "grad_fn", out.grad_fn.name(), "grad", weight.grad.tolist())

# per-sample weights get their own gradient
weight = w.clone().requires_grad_(True)
psw = torch.linspace(0.1, 0.8, 8).requires_grad_(True)
out = F.embedding_bag(inp, weight, off, mode="sum", per_sample_weights=psw)
out.sum().backward()
print("psw grad", psw.grad.round(decimals=4).tolist())
print("weight grad rows", weight.grad.sum(1).round(decimals=4).tolist())

# padding_idx also masks per-sample weights
out_pad = F.embedding_bag(inp, w, off, mode="sum", per_sample_weights=psw.detach(), padding_idx=0)
print("weighted with padding", out_pad.round(decimals=4).tolist())

# 2-D fixed-length bags with padding 0 and mean (mean divides by the non-padding count)
fixed = torch.tensor([[1, 2, 0, 0], [3, 0, 0, 0], [0, 0, 0, 0]])
print("2-D mean", F.embedding_bag(fixed, w, mode="mean", padding_idx=0).round(decimals=4).tolist())
print("2-D max", F.embedding_bag(fixed, w, mode="max", padding_idx=0).tolist())

# include_last_offset with an empty trailing bag
out = F.embedding_bag(inp, w, torch.tensor([0, 3, 8, 8]), mode="sum", include_last_offset=True)
print("include_last_offset", out.shape, out.tolist())

# int32 indices and offsets are accepted together
out32 = F.embedding_bag(inp.int(), w, off.int(), mode="sum")
print("int32", out32.dtype, torch.equal(out32, F.embedding_bag(inp, w, off, mode="sum")))

# max_norm renormalises the looked-up rows of the weight in place
weight = torch.randn(8, 3) * 3
bag = nn.EmbeddingBag.from_pretrained(weight.clone(), max_norm=1.0, mode="sum")
bag(torch.tensor([1, 2]), torch.tensor([0]))
print("renormed norms", bag.weight.norm(dim=1).round(decimals=4).tolist())

cases = [
    lambda: F.embedding_bag(inp, w, off, mode="mean", per_sample_weights=psw.detach()),
    lambda: F.embedding_bag(inp, w, torch.tensor([1, 3]), mode="sum"),
    lambda: F.embedding_bag(inp, w, off, mode="median"),
    lambda: F.embedding_bag(fixed, w, off, mode="sum"),
    lambda: F.embedding_bag(inp, w, mode="sum"),
    lambda: F.embedding_bag(inp.float(), w, off),
    lambda: F.embedding_bag(inp, w, off.int()),
    lambda: F.embedding_bag(inp, w, off, per_sample_weights=torch.ones(3), mode="sum"),
    lambda: F.embedding_bag(torch.tensor([1, 9]), w, torch.tensor([0]), mode="sum"),
    lambda: nn.EmbeddingBag(8, 3, padding_idx=8),
    lambda: nn.EmbeddingBag(8, 3, mode="max")(
        torch.tensor([1, 2]), torch.tensor([0]), per_sample_weights=torch.ones(2)
    ),
]
for fn in cases:
    try:
        fn()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
