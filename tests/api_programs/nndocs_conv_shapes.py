"""The torch.nn convolution, pooling and reshaping layers' docstring examples: each layer's repr and output shape
across its keyword arguments (padding='same'/'valid', padding_mode, dilation, groups, output_padding, output_size=,
ceil_mode, return_indices with MaxUnpool), with deterministic weights, and the errors of typical misuse."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(3)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(np.cos(np.arange(p.numel()) * 0.37).reshape(p.shape).astype(np.float32)) * 0.2)
    return m


def show(m, x):
    det(m)
    y = m(x)
    print(repr(m), tuple(x.shape), "->", tuple(y.shape), round(y.double().mean().item(), 4))


def err(f, n=150):
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", str(e).splitlines()[0][:n])


x1, x2, x3 = T(2, 4, 11), T(2, 4, 9, 10), T(1, 2, 5, 6, 7)
show(nn.Conv1d(4, 6, 3, stride=2), x1)
show(nn.Conv1d(4, 6, 4, padding="same", dilation=2, padding_mode="circular"), x1)
show(nn.Conv1d(4, 8, 3, padding="valid", groups=4, bias=False), x1)
show(nn.Conv2d(4, 6, (3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1)), x2)
show(nn.Conv2d(4, 4, 3, padding="same", padding_mode="reflect", groups=2), x2)
show(nn.Conv2d(4, 6, 2, padding=1, padding_mode="replicate"), x2)
show(nn.Conv2d(4, 6, 3, padding=(1, 2), padding_mode="circular", stride=2), x2)
show(nn.Conv3d(2, 4, 3, stride=2), x3)
show(nn.Conv3d(2, 4, (3, 5, 2), stride=(2, 1, 1), padding=(4, 2, 0)), x3)
show(nn.Conv3d(2, 2, 3, padding="same", groups=2), x3)
show(nn.ConvTranspose1d(4, 3, 3, stride=2, output_padding=1), x1)
show(nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2), x2)
show(nn.ConvTranspose3d(2, 3, (3, 5, 2), stride=(2, 1, 1), padding=(0, 4, 2)), x3)

# the docstring's exact output_size example
inp = T(1, 16, 12, 12)
down = det(nn.Conv2d(16, 16, 3, stride=2, padding=1))
up = det(nn.ConvTranspose2d(16, 16, 3, stride=2, padding=1))
h = down(inp)
print("down", tuple(h.shape), "up", tuple(up(h, output_size=inp.size()).shape), tuple(up(h).shape))
err(lambda: up(h, output_size=(20, 20)))
err(lambda: nn.Conv2d(4, 6, 3, stride=2, padding="same"))
err(lambda: nn.Conv2d(4, 6, 3, groups=3))
err(lambda: nn.Conv2d(4, 6, 3, padding_mode="mirror"), 24)  # the rest prints a set: its order varies by run
err(lambda: nn.Conv2d(4, 6, 3, padding="full"), 30)
err(lambda: nn.Conv2d(3, 6, 3)(x2))
err(lambda: nn.Conv1d(4, 6, 20)(x1))

# pooling
show(nn.MaxPool1d(3, stride=2), x1)
show(nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=(1, 2)), x2)
show(nn.MaxPool2d(3, stride=2, ceil_mode=True), x2)
show(nn.AvgPool2d((3, 2), stride=(2, 1), padding=(1, 0), ceil_mode=True, count_include_pad=False), x2)
show(nn.AvgPool2d(2, divisor_override=3), x2)
show(nn.AvgPool1d(3, stride=2, padding=1), x1)
show(nn.MaxPool3d((3, 2, 2), stride=(2, 1, 2)), x3)
show(nn.AvgPool3d(2, stride=1, ceil_mode=True), x3)
show(nn.AdaptiveMaxPool2d((5, None)), x2)
show(nn.AdaptiveAvgPool2d((None, 3)), x2)
show(nn.AdaptiveAvgPool1d(4), x1)
show(nn.AdaptiveMaxPool3d((2, 3, 1)), x3)
show(nn.LPPool1d(2, 3, stride=2), x1.abs())
show(nn.LPPool2d(1.5, (3, 2), stride=(2, 1)), x2.abs())
pool = nn.MaxPool2d(2, stride=2, return_indices=True)
unpool = nn.MaxUnpool2d(2, stride=2)
img = torch.arange(1.0, 17.0).reshape(1, 1, 4, 4)
o, idx = pool(img)
print(pool, o.flatten().tolist(), idx.flatten().tolist(), idx.dtype)
print(unpool, unpool(o, idx).flatten().tolist())
img5 = torch.arange(1.0, 26.0).reshape(1, 1, 5, 5)
o5, idx5 = pool(img5)
print("unpool size", unpool(o5, idx5, output_size=img5.size()).shape, idx5.flatten().tolist())
err(lambda: unpool(o5, idx5))
p1 = nn.MaxPool1d(2, stride=2, return_indices=True)
o1, i1 = p1(torch.tensor([[[1.0, 2, 3, 4, 5, 6, 7, 8]]]))
print(nn.MaxUnpool1d(2, stride=2)(o1, i1).tolist())
o3, i3 = nn.MaxPool3d(3, stride=2, return_indices=True)(x3)
print("unpool3d", tuple(nn.MaxUnpool3d(3, stride=2)(o3, i3, output_size=x3.shape[-3:]).shape))
ao, ai = nn.AdaptiveMaxPool1d(3, return_indices=True)(x1)
print("adaptive idx", ai[0, 0].tolist(), ai.dtype)
err(lambda: nn.MaxPool2d(3, padding=2)(x2))
err(lambda: nn.AvgPool2d(2)(torch.ones(2, 3)))
err(lambda: nn.AdaptiveAvgPool2d((2, 2, 2))(x2))

# folding, shuffles, flatten
fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 3))
print(fold, tuple(fold(T(1, 3 * 2 * 3, 9)).shape))
unfold = nn.Unfold(kernel_size=(2, 3), dilation=1, padding=1, stride=2)
print(unfold, tuple(unfold(x2).shape))
ones = torch.ones(1, 1, 4, 4)
cnt = nn.Fold((4, 4), 2, stride=1)(nn.Unfold(2, stride=1)(ones))
print("fold(unfold) counts", cnt[0, 0].tolist())
err(lambda: nn.Fold(output_size=(4, 5), kernel_size=(2, 3))(T(1, 17, 12)))
ps = nn.PixelShuffle(3)
print(ps, tuple(ps(T(1, 9, 4, 4)).shape), nn.PixelUnshuffle(2), tuple(nn.PixelUnshuffle(2)(x2[..., :8, :]).shape))
err(lambda: ps(T(1, 8, 4, 4)))
cs = nn.ChannelShuffle(2)
print(cs, cs(torch.arange(8.0).reshape(1, 4, 1, 2)).flatten().tolist())
print(nn.Flatten(), tuple(nn.Flatten()(x2).shape), nn.Flatten(0, 2), tuple(nn.Flatten(0, 2)(x2).shape))
uf = nn.Unflatten(1, (2, 5, 5))
print(uf, tuple(uf(T(2, 50)).shape), tuple(nn.Unflatten(-1, (2, -1))(x1[..., :10]).shape))
err(lambda: nn.Unflatten(1, (3, 5))(T(2, 50)))
