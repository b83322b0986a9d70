"""Categorical features through nn.EmbeddingBag: multi-hot columns, empty bags, padding and per-sample weights."""
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

# multi-hot "tags" column: bags of varying length, one empty bag
tags = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 0, 0])
offsets = torch.tensor([0, 3, 3, 6, 8])
for mode in ["sum", "mean", "max"]:
    bag = nn.EmbeddingBag(10, 4, mode=mode)
    with torch.no_grad():
        bag.weight.copy_(torch.arange(40.0).reshape(10, 4) / 10 - 2)
    out = bag(tags, offsets)
    print(mode, tuple(out.shape), out.round(decimals=4).tolist())
    out.sum().backward()
    print(" grad rows", bag.weight.grad.sum(1).round(decimals=4).tolist())
    print(" repr", bag)

# include_last_offset: offsets carry the end position
bag = nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True)
out = bag(tags, torch.tensor([0, 3, 6, 10]))
print("last offset", tuple(out.shape))
print(bag)

# padding_idx is skipped in sums and means and counted out of the mean
pad = nn.EmbeddingBag(10, 2, mode="mean", padding_idx=0)
with torch.no_grad():
    pad.weight.copy_(torch.arange(20.0).reshape(10, 2))
print("pad row", pad.weight[0].tolist())
inp = torch.tensor([[0, 2, 4], [0, 0, 0], [1, 0, 3]])
out = pad(inp)
print("pad mean", out.tolist())
out.sum().backward()
print("pad grad", pad.weight.grad[:5].tolist())
print(pad)

# per_sample_weights: a weighted sum of the bag (tf-idf weights)
wbag = nn.EmbeddingBag(10, 3, mode="sum")
psw = torch.tensor([0.5, 1.0, 2.0, 0.1, 0.2, 0.3, 1.5, 1.5, 1.0, 1.0], requires_grad=True)
out = wbag(tags, offsets, per_sample_weights=psw)
out.pow(2).sum().backward()
print("psw", tuple(out.shape), out.grad_fn is not None, psw.grad.shape)
ref = torch.zeros(5, 3)
for b, (s, e) in enumerate(zip(offsets.tolist(), offsets.tolist()[1:] + [10])):
    for i in range(s, e):
        ref[b] += psw[i].detach() * wbag.weight[tags[i]].detach()
print("psw matches loop", torch.allclose(out.detach(), ref, atol=1e-6))

# the functional form with a 2-D input and per-sample weights
w = torch.randn(6, 2)
x2 = torch.tensor([[1, 2], [3, 5]])
psw2 = torch.tensor([[1.0, 0.5], [2.0, 0.0]])
print("functional", F.embedding_bag(x2, w, per_sample_weights=psw2, mode="sum").round(decimals=4).tolist())
print("functional max", F.embedding_bag(x2, w, mode="max").round(decimals=4).tolist())

# from_pretrained, frozen
pre = nn.EmbeddingBag.from_pretrained(torch.eye(4), mode="sum")
print("pretrained", pre.weight.requires_grad, pre(torch.tensor([[0, 1], [2, 2]])).tolist())
unf = nn.EmbeddingBag.from_pretrained(torch.eye(4), freeze=False, mode="max")
print("unfrozen", unf.weight.requires_grad, unf.mode)

# the mistakes people make
for name, fn in [
    ("psw with mean", lambda: wbag.__class__(10, 3, mode="mean")(tags, offsets, per_sample_weights=psw.detach())),
    ("2d with offsets", lambda: wbag(inp, offsets)),
    ("1d without offsets", lambda: wbag(tags)),
    ("bad mode", lambda: nn.EmbeddingBag(10, 3, mode="median")),
    ("offsets not starting at 0", lambda: wbag(tags, torch.tensor([1, 3]))),
    ("psw shape", lambda: wbag(tags, offsets, per_sample_weights=torch.ones(3))),
]:
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, e)
