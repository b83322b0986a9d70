"""torch.nn padding layers (Zero/Constant/Reflection/Replication/Circular, 1-d to 3-d), Upsample and interpolate
modes with align_corners, Embedding (padding_idx, max_norm renormalisation, from_pretrained) and EmbeddingBag
(modes, offsets, include_last_offset, per_sample_weights), as their docstring examples run them."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F


def err(f):
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", str(e).splitlines()[0][:160])


x1 = torch.arange(8.0).reshape(1, 2, 4)
x2 = torch.arange(9.0).reshape(1, 1, 3, 3)
x3 = torch.arange(8.0).reshape(1, 1, 2, 2, 2)
for m, x in [
    (nn.ZeroPad1d(2), x1), (nn.ZeroPad1d((3, 1)), x1), (nn.ConstantPad1d(2, 3.5), x1),
    (nn.ReflectionPad1d(2), x1), (nn.ReflectionPad1d((3, 1)), x1), (nn.ReplicationPad1d((3, 1)), x1),
    (nn.CircularPad1d(2), x1), (nn.CircularPad1d((3, 1)), x1),
    (nn.ZeroPad2d((1, 1, 2, 0)), x2), (nn.ConstantPad2d((3, 0, 2, 1), 3.5), x2),
    (nn.ReflectionPad2d(2), x2), (nn.ReflectionPad2d((1, 1, 2, 0)), x2), (nn.ReplicationPad2d((1, 1, 2, 0)), x2),
    (nn.CircularPad2d(1), x2), (nn.CircularPad2d((1, 1, 2, 0)), x2),
    (nn.ZeroPad3d((1, 0, 0, 1, 1, 0)), x3), (nn.ConstantPad3d(1, -1.0), x3), (nn.ReflectionPad3d(1), x3),
    (nn.ReplicationPad3d((1, 0, 0, 1, 1, 0)), x3), (nn.CircularPad3d((1, 0, 0, 1, 1, 0)), x3),
]:
    y = m(x)
    print(m, tuple(y.shape), y.flatten()[:12].tolist(), round(y.sum().item(), 4))
print("circ2d", nn.CircularPad2d(1)(x2)[0, 0].tolist())
print("refl2d", nn.ReflectionPad2d((1, 1, 2, 0))(x2)[0, 0].tolist())
print("neg pad", F.pad(x2, (-1, 0, 0, -1)).tolist(), tuple(nn.ZeroPad2d(-1)(torch.ones(1, 1, 4, 4)).shape))
print("unbatched", tuple(nn.ReflectionPad1d(1)(x1[0]).shape), tuple(nn.CircularPad2d(1)(x2[0]).shape))
err(lambda: nn.ReflectionPad1d(4)(x1))
err(lambda: nn.ReflectionPad2d(3)(x2))
err(lambda: nn.CircularPad1d(5)(x1))
err(lambda: F.pad(x2, (1, 1, 1)))
err(lambda: F.pad(x2, (1, 1), mode="wrap"))
err(lambda: nn.ReplicationPad2d(1)(torch.ones(4)))

# Upsample / interpolate: the docstring's 2x2 input
inp = torch.arange(1.0, 5.0).view(1, 1, 2, 2)
for kw in [dict(scale_factor=2, mode="nearest"), dict(scale_factor=2, mode="nearest-exact"),
           dict(scale_factor=2, mode="bilinear"), dict(scale_factor=2, mode="bilinear", align_corners=True),
           dict(scale_factor=2, mode="bicubic"), dict(size=(3, 5), mode="bicubic", align_corners=True),
           dict(size=(3, 3), mode="area")]:
    up = nn.Upsample(**kw)
    y = up(inp)
    print(up, tuple(y.shape), np.round(y[0, 0].numpy(), 4).tolist()[:2])
sig = torch.arange(5.0).view(1, 1, 5)
print("linear", np.round(F.interpolate(sig, size=8, mode="linear").numpy(), 4).flatten().tolist())
lin_ac = F.interpolate(sig, size=8, mode="linear", align_corners=True)
print("linear ac", np.round(lin_ac.numpy(), 4).flatten().tolist())
print("nearest 1d", F.interpolate(sig, scale_factor=1.5).flatten().tolist())
print("nearest-exact", F.interpolate(sig, size=3, mode="nearest-exact").flatten().tolist())
vol = torch.arange(8.0).view(1, 1, 2, 2, 2)
print("trilinear", tuple(F.interpolate(vol, scale_factor=(1, 2, 1.5), mode="trilinear").shape),
      round(F.interpolate(vol, size=(3, 3, 3), mode="trilinear", align_corners=True).mean().item(), 4))
print("recompute", F.interpolate(sig, scale_factor=1.7, mode="linear", recompute_scale_factor=True).shape)
print("antialias", np.round(F.interpolate(torch.arange(64.0).view(1, 1, 8, 8), size=(3, 3), mode="bilinear",
                                          antialias=True)[0, 0, 0].numpy(), 4).tolist())
print(nn.UpsamplingNearest2d(scale_factor=2), nn.UpsamplingBilinear2d(size=(3, 3))(inp)[0, 0, 1].tolist())
err(lambda: F.interpolate(sig, size=8, mode="bilinear"))
err(lambda: F.interpolate(sig, size=4, scale_factor=2))
err(lambda: F.interpolate(sig))
err(lambda: F.interpolate(sig, size=4, mode="nearest", align_corners=True))
err(lambda: nn.Upsample(scale_factor=2, mode="cubic")(inp))

# Embedding
emb = nn.Embedding(10, 3)
with torch.no_grad():
    emb.weight.copy_(torch.arange(30.0).reshape(10, 3) / 10)
idx = torch.LongTensor([[1, 2, 4, 5], [4, 3, 2, 9]])
print(emb, tuple(emb(idx).shape), emb(idx)[1, 0].tolist())
pe = nn.Embedding(10, 3, padding_idx=0)
print(pe, pe.weight[0].tolist(), pe.padding_idx)
with torch.no_grad():
    pe.weight.copy_(torch.arange(30.0).reshape(10, 3) / 10)
pe(torch.LongTensor([[0, 2, 0, 5]])).sum().backward()
print("pad grad", pe.weight.grad[:3].tolist(), nn.Embedding(5, 2, padding_idx=-1).padding_idx)
mn = nn.Embedding(4, 3, max_norm=1.0, norm_type=2.0)
with torch.no_grad():
    mn.weight.copy_(torch.arange(12.0).reshape(4, 3))
out = mn(torch.tensor([1, 1, 3]))
print(mn, np.round(out.detach().numpy(), 4).tolist(), np.round(mn.weight.detach().numpy(), 4).tolist()[:2])
pre = nn.Embedding.from_pretrained(torch.FloatTensor([[1, 2.3, 3], [4, 5.1, 6.3]]))
print(pre, pre(torch.LongTensor([1])).tolist(), pre.weight.requires_grad,
      nn.Embedding.from_pretrained(torch.ones(2, 2), freeze=False, padding_idx=1))
print("F.embedding", F.embedding(torch.tensor([[1, 2], [0, 1]]), torch.arange(6.0).reshape(3, 2)).tolist())
err(lambda: emb(torch.tensor([10])))
err(lambda: emb(torch.tensor([1.0])))
err(lambda: nn.Embedding(10, 3, padding_idx=10))

# EmbeddingBag
w = torch.arange(30.0).reshape(10, 3) / 10
inpb = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
offsets = torch.tensor([0, 4])
for mode in ("sum", "mean", "max"):
    bag = nn.EmbeddingBag.from_pretrained(w, mode=mode)
    print(bag, np.round(bag(inpb, offsets).numpy(), 4).tolist())
bag = nn.EmbeddingBag.from_pretrained(w, mode="sum")
print("psw", np.round(bag(inpb, offsets, per_sample_weights=torch.linspace(0.5, 2.0, 8)).numpy(), 4).tolist())
print("2d input", np.round(bag(torch.tensor([[1, 2], [3, 0]])).numpy(), 4).tolist())
print("last offset", np.round(nn.EmbeddingBag.from_pretrained(w, mode="mean", include_last_offset=True)(
    inpb, torch.tensor([0, 3, 8])).numpy(), 4).tolist())
print("empty bag", nn.EmbeddingBag.from_pretrained(w, mode="mean")(inpb, torch.tensor([0, 4, 4])).tolist()[1])
pbag = nn.EmbeddingBag.from_pretrained(w, mode="sum", padding_idx=2)
print("bag padding_idx", np.round(pbag(torch.tensor([2, 2, 1, 2]), torch.tensor([0, 2])).numpy(), 4).tolist())
print(F.embedding_bag(torch.tensor([0, 1, 1, 2]), w[:3], torch.tensor([0, 1]), mode="max").tolist())
err(lambda: nn.EmbeddingBag.from_pretrained(w, mode="mean")(inpb, offsets, per_sample_weights=torch.ones(8)))
err(lambda: bag(inpb))
err(lambda: bag(torch.tensor([[1, 2], [3, 0]]), offsets))
err(lambda: nn.EmbeddingBag(5, 2, mode="median")(torch.tensor([[1, 2]])))
