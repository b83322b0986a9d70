"""channels_last as vision training code meets it: to(memory_format=...), is_contiguous(memory_format=...),
strides printed after every op (conv, batch norm, activations, pooling, interpolate, add, cat, permute, clone,
empty_like/zeros_like with preserve_format), model.to(channels_last), 3-D channels_last_3d, the ambiguous
shapes (C == 1, H == W == 1), and pixel_shuffle/pixel_unshuffle round trips with their layouts."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
CL = torch.channels_last


def fmt(t):
    return (f"{tuple(t.shape)} stride={t.stride()} cont={t.is_contiguous()} "
            f"cl={t.is_contiguous(memory_format=CL)}")


x = torch.randn(2, 3, 4, 5)
xc = x.to(memory_format=CL)
print("contiguous", fmt(x))
print("channels_last", fmt(xc))
print("same values", torch.equal(x, xc), xc.data_ptr() != x.data_ptr())
print("contiguous() back", fmt(xc.contiguous()))
print("contiguous(cl)", fmt(x.contiguous(memory_format=CL)))
print("permute view", fmt(x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)))
print("already cl: same", xc.to(memory_format=CL) is xc, xc.contiguous(memory_format=CL) is xc)

for name, t in (("c=1", torch.randn(2, 1, 4, 4)), ("hw=1", torch.randn(2, 3, 1, 1)), ("n=1", torch.randn(1, 3, 2, 2))):
    tc = t.to(memory_format=CL)
    print(name, fmt(t), "|", tc.stride(), tc.is_contiguous(memory_format=CL))

print("clone preserve", fmt(xc.clone()))
print("clone contiguous", fmt(xc.clone(memory_format=torch.contiguous_format)))
print("empty_like", fmt(torch.empty_like(xc)), "| zeros_like", fmt(torch.zeros_like(xc)))
print("empty_like contiguous", torch.empty_like(xc, memory_format=torch.contiguous_format).stride())
print("rand_like", torch.rand_like(xc).stride())
print("empty cl", torch.empty(2, 3, 4, 5, memory_format=CL).stride())

print("relu", xc.relu().stride(), "| add", (xc + 1).stride(), "| mixed add", (xc + x).stride(),
      (x + xc).stride())
print("mul scalar", (xc * 2).stride(), "| sigmoid", torch.sigmoid(xc).stride())
print("cat dim1", torch.cat([xc, xc], 1).stride(), "| cat dim0", torch.cat([xc, xc], 0).stride())
print("sum(1)", xc.sum(1).stride(), "| mean hw", xc.mean((2, 3), keepdim=True).stride())
print("slice channels", fmt(xc[:, :2]))
print("view fails?", end=" ")
try:
    xc.view(2, -1)
except RuntimeError as e:
    print("RuntimeError", str(e)[:60])
print("reshape", xc.reshape(2, -1).stride(), "| flatten", xc.flatten(1).is_contiguous())

conv = nn.Conv2d(3, 8, 3, padding=1)
bn = nn.BatchNorm2d(8)
y = conv(xc)
print("conv(cl)", fmt(y))
print("conv(contig)", fmt(conv(x)))
print("bn", fmt(bn(y)), "| pool", fmt(F.max_pool2d(y, 2)), "| avgpool", F.avg_pool2d(y, 2).stride())
print("adaptive", F.adaptive_avg_pool2d(y, 1).stride(), "| interpolate",
      F.interpolate(y, scale_factor=2, mode="nearest").stride())
print("dropout eval", F.dropout(y, 0.5, training=False).stride())
print("conv values equal", torch.allclose(conv(x), conv(xc), atol=1e-6))

model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Conv2d(4, 2, 1))
model = model.to(memory_format=CL)
print("weight", model[0].weight.stride(), model[0].weight.is_contiguous(memory_format=CL),
      "| bn weight", model[1].weight.stride(), "| 1x1", model[3].weight.stride())
out = model(xc)
print("model out", fmt(out))
out.sum().backward()
print("grad strides", model[0].weight.grad.stride(), model[3].weight.grad.stride())

xi = xc.clone().requires_grad_(True)
(conv(xi) ** 2).mean().backward()
print("input grad", fmt(xi.grad))

xr = xc.clone().requires_grad_(True)
for name, fn in (("max_pool2d", lambda t: F.max_pool2d(t, 2)), ("avg_pool2d", lambda t: F.avg_pool2d(t, 2)),
                 ("adaptive", lambda t: F.adaptive_avg_pool2d(t, 1)),
                 ("bilinear", lambda t: F.interpolate(t, scale_factor=2, mode="bilinear")),
                 ("reflect pad", lambda t: F.pad(t, (1, 1, 1, 1), mode="reflect")),
                 ("circular pad", lambda t: F.pad(t, (1, 1, 1, 1), mode="circular")),
                 ("batch_norm", lambda t: bn(conv(t))), ("group_norm", lambda t: F.group_norm(t, 3)),
                 ("conv1x1", lambda t: F.conv2d(t, torch.randn(2, 3, 1, 1))),
                 ("conv_transpose", lambda t: F.conv_transpose2d(t, torch.randn(3, 2, 2, 2), stride=2))):
    yo = fn(xr)
    (gx,) = torch.autograd.grad(yo.pow(2).sum(), xr)
    print("grad layout", name, yo.stride(), gx.stride())

v = torch.randn(1, 2, 3, 4, 5)
v3 = v.to(memory_format=torch.channels_last_3d)
print("3d", v3.stride(), v3.is_contiguous(memory_format=torch.channels_last_3d),
      v3.is_contiguous(memory_format=CL))
print("conv3d", nn.Conv3d(2, 3, 1)(v3).stride())
try:
    torch.randn(2, 3, 4).to(memory_format=CL)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    v.to(memory_format=CL)
except RuntimeError as e:
    print("RuntimeError", e)

ps = torch.arange(2 * 8 * 2 * 3, dtype=torch.float32).view(2, 8, 2, 3)
up = F.pixel_shuffle(ps, 2)
print("pixel_shuffle", fmt(up))
print(up[0, 0])
down = F.pixel_unshuffle(up, 2)
print("unshuffle", fmt(down), torch.equal(down, ps))
print("shuffle of cl", fmt(F.pixel_shuffle(ps.to(memory_format=CL), 2)))
print("unshuffle of cl", fmt(F.pixel_unshuffle(up.to(memory_format=CL), 2)))
print(nn.PixelShuffle(2), nn.PixelUnshuffle(3), nn.ChannelShuffle(2))
x6 = x.repeat(1, 2, 1, 1)
print("repeat of cl", xc.repeat(1, 2, 1, 1).stride(), "| channel_shuffle cl",
      fmt(F.channel_shuffle(x6.to(memory_format=CL), 3)),
      torch.equal(F.channel_shuffle(x6.to(memory_format=CL), 3), F.channel_shuffle(x6, 3)))
print("batched dims", F.pixel_shuffle(torch.randn(2, 3, 4, 2, 2), 2).shape)
g = ps.clone().requires_grad_(True)
(F.pixel_shuffle(g, 2) * torch.arange(2 * 2 * 4 * 6.0).view(2, 2, 4, 6)).sum().backward()
print("grad", type(F.pixel_shuffle(g, 2).grad_fn).__name__, g.grad[1, :, 0, 0].tolist())

sub = nn.Sequential(nn.Conv2d(3, 3 * 4, 3, padding=1), nn.PixelShuffle(2))
print("espcn", tuple(sub(x).shape), round(sub(x).std().item(), 4))

for fn in (lambda: F.pixel_shuffle(torch.randn(1, 6, 2, 2), 2),
           lambda: F.pixel_unshuffle(torch.randn(1, 1, 5, 4), 2),
           lambda: F.pixel_shuffle(torch.randn(4, 2), 2)):
    try:
        fn()
    except RuntimeError as e:
        print("RuntimeError", e)
