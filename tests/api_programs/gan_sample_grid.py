"""Sample sheets as GAN repos save them: torchvision's make_grid re-implemented (padding, nrow, normalize with
value_range and scale_each, clamp_ and sub_/div_ in place), save_image's uint8 conversion by mul(255).add_(0.5)
.clamp_(0, 255).permute(1, 2, 0).to("cpu", torch.uint8), fixed-noise generation under no_grad/inference_mode,
and the type and shape errors of the pipeline."""

import math

import torch
import torch.nn as nn

torch.manual_seed(0)


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    if isinstance(tensor, list):
        tensor = torch.stack(tensor, dim=0)
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        if tensor.size(0) == 1:
            tensor = torch.cat((tensor, tensor, tensor), 0)
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 4 and tensor.size(1) == 1:
        tensor = torch.cat((tensor, tensor, tensor), 1)
    if normalize is True:
        tensor = tensor.clone()

        def norm_ip(img, low, high):
            img.clamp_(min=low, max=high)
            img.sub_(low).div_(max(high - low, 1e-5))

        def norm_range(t, value_range):
            if value_range is not None:
                norm_ip(t, value_range[0], value_range[1])
            else:
                norm_ip(t, float(t.min()), float(t.max()))

        if scale_each is True:
            for t in tensor:
                norm_range(t, value_range)
        else:
            norm_range(tensor, value_range)
    if tensor.size(0) == 1:
        return tensor.squeeze(0)
    nmaps = tensor.size(0)
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(float(nmaps) / xmaps))
    height, width = int(tensor.size(2) + padding), int(tensor.size(3) + padding)
    num_channels = tensor.size(1)
    grid = tensor.new_full((num_channels, height * ymaps + padding, width * xmaps + padding), pad_value)
    k = 0
    for y in range(ymaps):
        for x in range(xmaps):
            if k >= nmaps:
                break
            grid.narrow(1, y * height + padding, height - padding).narrow(
                2, x * width + padding, width - padding
            ).copy_(tensor[k])
            k = k + 1
    return grid


def to_uint8(grid):
    return grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", torch.uint8)


G = nn.Sequential(nn.Linear(4, 2 * 5 * 5), nn.Tanh(), nn.Unflatten(1, (2, 5, 5)))
fixed_noise = torch.randn(5, 4)
with torch.no_grad():
    samples = G(fixed_noise)
print("samples", tuple(samples.shape), samples.requires_grad, samples.dtype)
gray = samples[:, :1]
grid = make_grid(gray, nrow=3, padding=1, normalize=True, value_range=(-1, 1))
print("grid", tuple(grid.shape), grid.dtype, round(grid.sum().item(), 3), torch.equal(grid[0], grid[1]))
print("pad cells", grid[:, 0, :].sum().item(), grid[0, 7:, 13:].sum().item())
g2 = make_grid(gray, nrow=2, padding=0, normalize=True, scale_each=True)
print("scale_each", tuple(g2.shape), round(g2.min().item(), 4), round(g2.max().item(), 4))
g3 = make_grid([s[:1] for s in samples[:2]], padding=2, pad_value=1.0)
print("list input", tuple(g3.shape), g3[:, :2].unique().tolist())
print("single", tuple(make_grid(samples[0, :1]).shape), tuple(make_grid(samples[0, 0]).shape))
u8 = to_uint8(grid)
print("uint8", tuple(u8.shape), u8.dtype, u8.min().item(), u8.max().item(), u8[1, 1].tolist(), u8.is_contiguous())
print("ndarray", u8.numpy().dtype, u8.numpy().shape, u8.numpy()[1, 2].tolist())
print(
    "rounding",
    torch.tensor([0.0, 0.5 / 255, 1.0, 1.2, -0.1]).mul(255).add_(0.5).clamp_(0, 255).to(torch.uint8).tolist(),
)
print("float->uint8 wrap", torch.tensor([300.0, 255.9, 1.7]).to(torch.uint8).tolist())
print("byte()", (grid * 255).byte()[0, 1, 1:4].tolist())

# inference_mode for sampling, and what it forbids later.
with torch.inference_mode():
    inf_noise = fixed_noise.clone()
    inf = G(inf_noise)
print("inference tensor", inf.is_inference(), inf.requires_grad)
try:
    G(inf_noise).sum()
except Exception as e:
    print(type(e).__name__, e)
try:
    inf.add_(1)
except Exception as e:
    print(type(e).__name__, e)
print("clone escapes", inf.clone().is_inference(), samples.is_inference())

# Interpolation sheet: rows lerp between two codes.
za, zb = fixed_noise[0], fixed_noise[1]
steps = torch.linspace(0, 1, 4)
zs = torch.stack([torch.lerp(za, zb, float(s)) for s in steps])
with torch.no_grad():
    row = G(zs)
print("interp row", tuple(make_grid(row[:, :1], nrow=4, padding=1).shape), round(row.mean().item(), 4))
try:
    make_grid(torch.randn(2, 2, 3, 4, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    grid.narrow(1, 0, 100)
except Exception as e:
    print(type(e).__name__, e)
try:
    grid.new_full((2, 2), 1.0).copy_(torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.randn(3, 4).permute(1, 2, 0)
except Exception as e:
    print(type(e).__name__, e)
