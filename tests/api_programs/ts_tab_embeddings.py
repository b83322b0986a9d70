"""Embeddings for tabular columns as tabular-DL code writes them: label encoding with torch.unique(return_inverse),
rare-category bucketing with bincount, entity embeddings sized by the fastai rule, nn.Embedding with padding_idx for
unknowns, max_norm renormalisation, EmbeddingBag over multi-valued columns (offsets, per_sample_weights, mode=max),
numerical embeddings (piecewise-linear encoding from quantile bins, periodic sin/cos features, per-feature linear
tokens via einsum), a wide one-hot part with F.one_hot, and the embedding errors users meet."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


def det_(module, scale=0.5):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * 0.83 + i).view_as(p) * scale)
    return module


city = torch.tensor([30, 10, 20, 10, 30, 30, 40, 10, 50, 30])
vocab, codes = torch.unique(city, sorted=True, return_inverse=True)
print("vocab", vocab, "codes", codes)
vals, inv, counts = torch.unique(city, return_inverse=True, return_counts=True)
print("counts", counts, "consecutive", torch.unique_consecutive(city.sort().values, return_counts=True))
freq = torch.bincount(codes)
rare = freq < 2
codes_bucketed = torch.where(rare[codes], 0, codes + 1)
print("rare", rare, "bucketed", codes_bucketed)


def emb_sz_rule(n_cat):
    return min(600, round(1.6 * n_cat ** 0.56))


card = int(codes_bucketed.max()) + 1
print("emb size", card, emb_sz_rule(card), [emb_sz_rule(n) for n in (2, 10, 100, 10000)])
emb = det_(nn.Embedding(card, 3, padding_idx=0))
with torch.no_grad():
    emb.weight[0].zero_()
e = emb(codes_bucketed)
print("embedded", tuple(e.shape), e[6], "padding row", emb.weight[0])
e.sum().backward()
print("grad rows", emb.weight.grad.sum(1), "padding grad", emb.weight.grad[0])

mn = det_(nn.Embedding(4, 3, max_norm=1.0), scale=2.0)
before = mn.weight.norm(dim=1).clone()
out = mn(torch.tensor([1, 3]))
print("max_norm before", before, "after", mn.weight.norm(dim=1), "out norms", out.norm(dim=1))
fn = F.embedding(torch.tensor([[0, 2]]), torch.arange(12.0).view(4, 3), max_norm=5.0, norm_type=1.0)
print("F.embedding max_norm L1", fn)

# multi-valued column: tags per row as a flat list with offsets
tags = torch.tensor([1, 4, 2, 0, 3, 3, 4])
offsets = torch.tensor([0, 2, 3, 3])
bag = det_(nn.EmbeddingBag(5, 2, mode="mean"))
print("bag mean", bag(tags, offsets))
bag_sum = det_(nn.EmbeddingBag(5, 2, mode="sum"))
w = torch.tensor([1.0, 0.5, 2.0, 1.0, 1.0, -1.0, 0.25])
print("bag weighted", bag_sum(tags, offsets, per_sample_weights=w))
bag_max = det_(nn.EmbeddingBag(5, 2, mode="max"))
print("bag max 2d", bag_max(torch.tensor([[1, 4], [2, 2], [0, 3]])))
print("bag vs embedding", torch.allclose(bag(tags[:2].view(1, -1)), det_(nn.Embedding(5, 2))(tags[:2]).mean(0)))
print("bag repr", bag, nn.EmbeddingBag(5, 2, mode="sum", padding_idx=0, include_last_offset=True))

# numerical embeddings
x = torch.tensor([[0.1, 5.0], [0.4, 1.0], [0.9, 3.0], [0.5, 2.5], [0.7, 4.5]])
edges = torch.quantile(x, torch.linspace(0, 1, 4), dim=0).T.contiguous()
print("bin edges", edges)


def ple(col, e):
    idx = torch.bucketize(col, e[1:-1], right=False)
    left, right = e[idx], e[idx + 1]
    frac = ((col - left) / (right - left)).clamp(0, 1)
    n_bins = e.numel() - 1
    enc = (torch.arange(n_bins)[None] < idx[:, None]).float()
    enc[torch.arange(col.numel()), idx] = frac
    return enc


print("ple", ple(x[:, 0], edges[0]))
freqs = torch.tensor([[1.0, 2.0], [0.5, 3.0]])
v = 2 * torch.pi * freqs[None] * x[..., None]
periodic = torch.cat([torch.cos(v), torch.sin(v)], -1)
print("periodic", tuple(periodic.shape), periodic[0, 1])
W = torch.linspace(-1, 1, 2 * 4).view(2, 4)
B = torch.linspace(0, 0.3, 8).view(2, 4)
tokens = torch.einsum("bf,fd->bfd", x, W) + B
print("linear tokens", tuple(tokens.shape), tokens[1], torch.allclose(tokens, x[..., None] * W + B))

wide = F.one_hot(codes, num_classes=len(vocab)).float()
print("one_hot", wide.dtype, wide.sum(0), F.one_hot(torch.tensor([2, 0])))
cat = torch.cat([e.detach(), ple(x[:, 0], edges[0]).repeat(2, 1), wide], dim=1)
print("feature matrix", tuple(cat.shape))

for bad in (lambda: emb(torch.tensor([7])), lambda: emb(torch.tensor([1.0])),
            lambda: nn.Embedding(3, 2, padding_idx=5),
            lambda: bag(tags, torch.tensor([1, 2])),
            lambda: F.one_hot(torch.tensor([3]), num_classes=2),
            lambda: bag_max(tags, offsets, per_sample_weights=w)):
    try:
        bad()
    except (RuntimeError, IndexError, AssertionError, ValueError, NotImplementedError) as e:
        print(type(e).__name__, str(e).split("\n")[0])
