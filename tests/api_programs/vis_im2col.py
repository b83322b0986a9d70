"""im2col as vision code writes it: F.unfold/F.fold with kernel, dilation, padding and stride, a convolution as
unfold + matmul checked against F.conv2d, fold's overlap counts for patch averaging, nn.Unfold/nn.Fold reprs,
Tensor.unfold sliding windows (ViT patch embedding by view/permute), gradients through fold, and the errors."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False, linewidth=120)

x = torch.arange(2 * 3 * 5 * 6, dtype=torch.float32).view(2, 3, 5, 6)
for kw in ({"kernel_size": 2}, {"kernel_size": (2, 3), "stride": (1, 2)},
           {"kernel_size": 3, "padding": 1}, {"kernel_size": 2, "dilation": 2, "stride": 2},
           {"kernel_size": (3, 2), "dilation": (1, 2), "padding": (0, 1), "stride": (2, 1)}):
    cols = F.unfold(x, **kw)
    print("unfold", kw, tuple(cols.shape), cols.stride(), cols[0, :4, 0].tolist(), round(cols.sum().item(), 2))

print(F.unfold(torch.arange(16.0).view(1, 1, 4, 4), kernel_size=2, stride=2))

w = torch.randn(4, 3, 3, 3)
b = torch.randn(4)
inp = torch.randn(2, 3, 7, 8)
for stride, padding, dilation in ((1, 0, 1), (2, 1, 1), (1, 2, 2)):
    cols = F.unfold(inp, 3, dilation=dilation, padding=padding, stride=stride)
    out = (w.view(4, -1) @ cols + b.view(1, 4, 1))
    oh = (7 + 2 * padding - dilation * 2 - 1) // stride + 1
    ow = (8 + 2 * padding - dilation * 2 - 1) // stride + 1
    out = out.view(2, 4, oh, ow)
    ref = F.conv2d(inp, w, b, stride=stride, padding=padding, dilation=dilation)
    print("im2col conv", stride, padding, dilation, tuple(out.shape), torch.allclose(out, ref, atol=1e-5),
          round((out - ref).abs().max().item(), 4) < 1e-4)

patches = F.unfold(inp, kernel_size=3, padding=1)
folded = F.fold(patches, output_size=(7, 8), kernel_size=3, padding=1)
counts = F.fold(torch.ones_like(patches), output_size=(7, 8), kernel_size=3, padding=1)
print("counts", counts[0, 0].int().tolist())
print("fold/avg recovers", torch.allclose(folded / counts, inp, atol=1e-5))
print("fold stride2", F.fold(torch.ones(1, 4, 9), output_size=(6, 6), kernel_size=2, stride=2)[0, 0].tolist())
ov = F.fold(torch.ones(1, 2 * 4, 4), (4, 4), kernel_size=2, dilation=2)
print("fold dilation", ov.shape, ov[0, 1].tolist())

unf = nn.Unfold(kernel_size=(2, 3), dilation=1, padding=1, stride=2)
fold = nn.Fold(output_size=(5, 6), kernel_size=(2, 3), padding=1, stride=2)
print(unf)
print(fold)
c = unf(x)
print("module", tuple(c.shape), tuple(fold(c).shape), fold(c)[1, 2, 1].tolist())

unbatched = F.unfold(x[0], kernel_size=2)
print("unbatched", tuple(unbatched.shape), torch.equal(unbatched, F.unfold(x[:1], kernel_size=2)[0]))
print("fold unbatched", tuple(F.fold(unbatched, (5, 6), 2).shape))

img = torch.randn(2, 3, 8, 8)
p = 4
tokens = img.unfold(2, p, p).unfold(3, p, p)
print("Tensor.unfold", tuple(tokens.shape), tokens.stride(), tokens.is_contiguous())
tokens = tokens.permute(0, 2, 3, 1, 4, 5).reshape(2, 4, 3 * p * p)
via_F = F.unfold(img, kernel_size=p, stride=p).transpose(1, 2)
same = torch.allclose(tokens, via_F.reshape(2, 4, 3, p, p).reshape(2, 4, -1))
print("vit tokens", tuple(tokens.shape), same)
proj = nn.Conv2d(3, 5, p, p)
emb_conv = proj(img).flatten(2).transpose(1, 2)
emb_mm = via_F @ proj.weight.view(5, -1).t() + proj.bias
print("patch embed", tuple(emb_conv.shape), torch.allclose(emb_conv, emb_mm, atol=1e-5))
print("windows", torch.arange(10.0).unfold(0, 4, 3).tolist())
print("windows 2d", torch.arange(12.0).view(3, 4).unfold(1, 2, 1).shape)

g = torch.randn(1, 2, 5, 5, requires_grad=True)
cols = F.unfold(g, kernel_size=3, padding=1, stride=2)
cols.retain_grad()
y = F.fold(cols * 2.0, (5, 5), kernel_size=3, padding=1, stride=2)
(y * torch.arange(50.0).view(1, 2, 5, 5)).sum().backward()
print("grad_fn", type(cols.grad_fn).__name__, type(y.grad_fn).__name__)
print("dcols", tuple(cols.grad.shape), cols.grad[0, 3:6, :4].tolist())
print("dinput", g.grad[0, 1].tolist())

med = F.unfold(torch.randn(1, 1, 6, 6), 3, padding=1).median(dim=1).values.view(1, 1, 6, 6)
print("median filter", [round(v, 4) for v in med[0, 0, 2].tolist()])
mx = F.unfold(x[:1, :1], 2, stride=2).max(dim=1)
print("maxpool via unfold", mx.values.tolist(), torch.equal(mx.values.view(1, 1, 2, 3), F.max_pool2d(x[:1, :1], 2)))

for fn in (
    lambda: F.unfold(torch.randn(2, 3), kernel_size=2),
    lambda: F.unfold(x, kernel_size=7),
    lambda: F.fold(torch.randn(1, 5, 9), (4, 4), kernel_size=2),
    lambda: F.fold(torch.randn(1, 4, 8), (4, 4), kernel_size=2),
    lambda: F.unfold(x, kernel_size=2, stride=0),
):
    try:
        fn()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, str(e).splitlines()[0])
