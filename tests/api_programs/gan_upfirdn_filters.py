"""StyleGAN2-ADA's upfirdn2d reference path in plain torch: filters built by torch.outer and normalised, zero
insertion by reshape + F.pad, crops by negative F.pad, conv2d with the flipped kernel as groups=channels, separable
filtering, upsample/downsample wrappers against F.interpolate and avg_pool2d, and conv_transpose2d as a fused
up-conv."""

import torch

F = torch.nn.functional
torch.manual_seed(0)


def setup_filter(f, normalize=True, flip_filter=False, gain=1, separable=None):
    f = torch.as_tensor(f, dtype=torch.float32)
    if f.ndim == 0:
        f = f[None]
    if separable is None:
        separable = f.ndim == 1 and f.numel() >= 8
    if f.ndim == 1 and not separable:
        f = f.ger(f)
    if normalize:
        f /= f.sum()
    if flip_filter:
        f = f.flip(list(range(f.ndim)))
    f = f * (gain ** (f.ndim / 2))
    return f


def upfirdn2d(x, f, up=1, down=1, padding=(0, 0, 0, 0), flip_filter=False, gain=1):
    batch_size, num_channels, in_height, in_width = x.shape
    upx = upy = up
    downx = downy = down
    padx0, padx1, pady0, pady1 = padding
    x = x.reshape([batch_size, num_channels, in_height, 1, in_width, 1])
    x = F.pad(x, [0, upx - 1, 0, 0, 0, upy - 1])
    x = x.reshape([batch_size, num_channels, in_height * upy, in_width * upx])
    x = F.pad(x, [max(padx0, 0), max(padx1, 0), max(pady0, 0), max(pady1, 0)])
    x = x[:, :, max(-pady0, 0) : x.shape[2] - max(-pady1, 0), max(-padx0, 0) : x.shape[3] - max(-padx1, 0)]
    f = f * (gain ** (f.ndim / 2))
    f = f.to(x.dtype)
    if not flip_filter:
        f = f.flip(list(range(f.ndim)))
    f = f[None, None].repeat([num_channels, 1] + [1] * f.ndim)
    if f.ndim == 4:
        x = F.conv2d(input=x, weight=f, groups=num_channels)
    else:
        x = F.conv2d(input=x, weight=f.unsqueeze(2), groups=num_channels)
        x = F.conv2d(input=x, weight=f.unsqueeze(3), groups=num_channels)
    x = x[:, :, ::downy, ::downx]
    return x


def upsample2d(x, f, up=2):
    fw, fh = f.shape[-1], f.shape[0]
    p = [(fw + up - 1) // 2, (fw - up) // 2, (fh + up - 1) // 2, (fh - up) // 2]
    return upfirdn2d(x, f, up=up, padding=p, gain=up * up)


def downsample2d(x, f, down=2):
    fw, fh = f.shape[-1], f.shape[0]
    p = [(fw - down + 1) // 2, (fw - down) // 2, (fh - down + 1) // 2, (fh - down) // 2]
    return upfirdn2d(x, f, down=down, padding=p)


f = setup_filter([1, 3, 3, 1])
print("filter", tuple(f.shape), f.round(decimals=4).tolist()[0], round(f.sum().item(), 4))
fs = setup_filter([1, 3, 3, 1, 1, 3, 3, 1])
print("separable", tuple(fs.shape), round(fs.sum().item(), 4))
print("flipped", setup_filter([1, 2, 3], normalize=False, flip_filter=True).tolist())
print("gain", round(setup_filter([1, 1], gain=4).sum().item(), 4))

x = torch.arange(2 * 2 * 4 * 4, dtype=torch.float32).reshape(2, 2, 4, 4) / 10
u = upsample2d(x, f)
print("up", tuple(u.shape), u[0, 0, :3, :3].round(decimals=4).tolist())
print("up mean preserved", round(u.mean().item(), 4), round(x.mean().item(), 4))
d = downsample2d(u, f)
print("down", tuple(d.shape), d[0, 0, 1].round(decimals=4).tolist())
box = setup_filter([1, 1])
print("box down == avg_pool2d", torch.allclose(downsample2d(x, box), F.avg_pool2d(x, 2), atol=1e-6))
print(
    "box up == nearest", torch.allclose(upsample2d(x, box), F.interpolate(x, scale_factor=2, mode="nearest"), atol=1e-6)
)
print(
    "separable path",
    tuple(upfirdn2d(x, fs, padding=(3, 4, 3, 4)).shape),
    round(upfirdn2d(x, fs, padding=(3, 4, 3, 4)).sum().item(), 4),
)

# Negative padding crops; F.pad with negatives on a 4-D and a 6-D tensor.
print("neg pad", tuple(F.pad(x, [-1, -1, 0, -2]).shape), F.pad(x, [-1, 0, -1, 0])[0, 0, 0].tolist())
print("mixed pad", tuple(F.pad(x, [2, -1, -1, 3]).shape))
print("6d pad", tuple(F.pad(x.reshape(2, 2, 4, 1, 4, 1), [0, 1, 0, 0, 0, 1]).shape))
print("crop path", tuple(upfirdn2d(x, f, up=2, padding=(-1, -1, -1, -1)).shape))

# The flipped-kernel convolution is a true convolution: compare with conv_transpose2d of stride 1.
k = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
img = torch.randn(1, 1, 5, 5)
corr = F.conv2d(F.pad(img, [1, 1, 1, 1]), k.flip([0, 1])[None, None])
ct = F.conv_transpose2d(img, k[None, None])
print("flip conv == conv_transpose", torch.allclose(corr, ct, atol=1e-5), tuple(ct.shape))

# Fused up-conv: conv_transpose2d with stride 2 then blur, per StyleGAN2's modulated upsampling.
w = torch.randn(3, 2, 3, 3)
y = F.conv_transpose2d(x, w.transpose(0, 1), stride=2, padding=0)
print("transpose up", tuple(y.shape), round(y.sum().item(), 2))
y2 = upfirdn2d(y, f, padding=(1, 1, 1, 1), gain=4)
print("blurred", tuple(y2.shape), round(y2.abs().mean().item(), 4))
print(
    "grouped transpose",
    tuple(F.conv_transpose2d(x, torch.randn(2, 3, 3, 3), stride=2, groups=2, output_padding=1).shape),
)

# Gradient through the whole pipeline.
xr = x.clone().requires_grad_()
upsample2d(xr, f).square().sum().backward()
print("grad", round(xr.grad.sum().item(), 2), round(xr.grad[0, 0, 0, 0].item(), 4))
try:
    F.pad(x, [-3, -3, 0, 0])
except Exception as e:
    print(type(e).__name__, e)
try:
    F.pad(x, [1, 1, 1])
except Exception as e:
    print(type(e).__name__, e)
try:
    F.pad(x, [1, 1], mode="reflect", value=1.0)
except Exception as e:
    print(type(e).__name__, e)
