"""Differentiable augmentation for data-efficient GANs: DiffAugment's brightness/saturation/contrast, translation by
padded gather with meshgrid(indexing='ij') and clamp, cutout by masks; ADA's adjustable probability from the sign of
D's real logits, integer translation via roll, flips by where, and geometric augmentation through affine_grid +
grid_sample in reflection mode, all differentiable back to the generator."""

import math

import torch

F = torch.nn.functional
torch.manual_seed(0)


def rand_brightness(x):
    return x + (torch.rand(x.size(0), 1, 1, 1, dtype=x.dtype, device=x.device) - 0.5)


def rand_saturation(x):
    x_mean = x.mean(dim=1, keepdim=True)
    return (x - x_mean) * (torch.rand(x.size(0), 1, 1, 1, dtype=x.dtype, device=x.device) * 2) + x_mean


def rand_contrast(x):
    x_mean = x.mean(dim=[1, 2, 3], keepdim=True)
    return (x - x_mean) * (torch.rand(x.size(0), 1, 1, 1, dtype=x.dtype, device=x.device) + 0.5) + x_mean


def rand_translation(x, ratio=0.125):
    shift_x, shift_y = int(x.size(2) * ratio + 0.5), int(x.size(3) * ratio + 0.5)
    translation_x = torch.randint(-shift_x, shift_x + 1, size=[x.size(0), 1, 1], device=x.device)
    translation_y = torch.randint(-shift_y, shift_y + 1, size=[x.size(0), 1, 1], device=x.device)
    grid_batch, grid_x, grid_y = torch.meshgrid(
        torch.arange(x.size(0), dtype=torch.long, device=x.device),
        torch.arange(x.size(2), dtype=torch.long, device=x.device),
        torch.arange(x.size(3), dtype=torch.long, device=x.device),
        indexing="ij",
    )
    grid_x = torch.clamp(grid_x + translation_x + 1, 0, x.size(2) + 1)
    grid_y = torch.clamp(grid_y + translation_y + 1, 0, x.size(3) + 1)
    x_pad = F.pad(x, [1, 1, 1, 1, 0, 0, 0, 0])
    return x_pad.permute(0, 2, 3, 1).contiguous()[grid_batch, grid_x, grid_y].permute(0, 3, 1, 2)


def rand_cutout(x, ratio=0.5):
    cutout_size = int(x.size(2) * ratio + 0.5), int(x.size(3) * ratio + 0.5)
    offset_x = torch.randint(0, x.size(2) + (1 - cutout_size[0] % 2), size=[x.size(0), 1, 1], device=x.device)
    offset_y = torch.randint(0, x.size(3) + (1 - cutout_size[1] % 2), size=[x.size(0), 1, 1], device=x.device)
    grid_batch, grid_x, grid_y = torch.meshgrid(
        torch.arange(x.size(0), dtype=torch.long),
        torch.arange(cutout_size[0], dtype=torch.long),
        torch.arange(cutout_size[1], dtype=torch.long),
        indexing="ij",
    )
    grid_x = torch.clamp(grid_x + offset_x - cutout_size[0] // 2, min=0, max=x.size(2) - 1)
    grid_y = torch.clamp(grid_y + offset_y - cutout_size[1] // 2, min=0, max=x.size(3) - 1)
    mask = torch.ones(x.size(0), x.size(2), x.size(3), dtype=x.dtype, device=x.device)
    mask[grid_batch, grid_x, grid_y] = 0
    return x * mask.unsqueeze(1), mask


x = torch.arange(2 * 3 * 8 * 8, dtype=torch.float32).reshape(2, 3, 8, 8) / 384
xg = x.clone().requires_grad_(True)
for name, fn in [
    ("brightness", rand_brightness),
    ("saturation", rand_saturation),
    ("contrast", rand_contrast),
    ("translation", rand_translation),
]:
    out = fn(xg)
    print(name, tuple(out.shape), out.grad_fn.name(), round(out.sum().item(), 3))
t = rand_translation(xg)
t.sum().backward()
print("translation grad", round(xg.grad.sum().item(), 4), xg.grad[0, 0, 0].tolist())
cut, mask = rand_cutout(x)
print("cutout zeros", (mask == 0).sum(dim=[1, 2]).tolist(), round(cut.sum().item(), 4))
gb, gx, gy = torch.meshgrid(torch.arange(2), torch.arange(3), torch.arange(4), indexing="ij")
print("meshgrid ij", tuple(gb.shape), gx.stride(), gy[0, 0].tolist())
mx, my = torch.meshgrid(torch.arange(3), torch.arange(4), indexing="xy")
print("meshgrid xy", tuple(mx.shape), mx[0].tolist(), my[:, 0].tolist())

# ADA: adjust p from the sign of real logits.
p, ada_target, ada_kimg, batch = 0.0, 0.6, 0.5, 8
for logits in [
    torch.tensor([0.5, 1.0, -0.2, 2.0]),
    torch.tensor([0.3, 0.1, 0.2, 0.4]),
    torch.tensor([-1.0, -0.5, 0.1, -2.0]),
]:
    rt = torch.sign(logits).mean().item()
    adjust = math.copysign(1.0, rt - ada_target) * (batch * 4) / (ada_kimg * 1000)
    p = float(min(max(p + adjust, 0.0), 1.0))
    print("ada", round(rt, 4), round(p, 4))

# Integer translation by roll, flips by where, applied with probability p per sample.
p = 0.5
apply = torch.rand(2, 1, 1, 1) < p
flipped = torch.where(apply, x.flip(3), x)
print("xflip applied", apply.view(-1).tolist(), torch.equal(flipped[0], x[0].flip(2)) or torch.equal(flipped[0], x[0]))
print("roll", x[0, 0, 0].roll(2).tolist()[:4], tuple(torch.roll(x, shifts=(1, -2), dims=(2, 3)).shape))
print("rot90", torch.rot90(x[0, 0, :2, :2], 1, [0, 1]).tolist())

# Geometric: rotation + isotropic scaling through affine_grid/grid_sample.
theta = torch.zeros(2, 2, 3)
ang = torch.tensor([math.pi / 6, -math.pi / 4])
scale = torch.tensor([1.0, 0.8])
theta[:, 0, 0] = torch.cos(ang) * scale
theta[:, 0, 1] = -torch.sin(ang) * scale
theta[:, 1, 0] = torch.sin(ang) * scale
theta[:, 1, 1] = torch.cos(ang) * scale
theta[:, :, 2] = torch.tensor([[0.1, 0.0], [0.0, -0.1]])
grid = F.affine_grid(theta, list(x.shape), align_corners=False)
for mode, pad in [("bilinear", "reflection"), ("bilinear", "zeros"), ("nearest", "border"), ("bicubic", "reflection")]:
    out = F.grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=False)
    print("grid_sample", mode, pad, round(out.sum().item(), 3))
xr = x.clone().requires_grad_(True)
th = theta.clone().requires_grad_(True)
out = F.grid_sample(
    xr, F.affine_grid(th, list(x.shape), align_corners=False), padding_mode="reflection", align_corners=False
)
out.square().sum().backward()
print("geom grads", round(xr.grad.sum().item(), 3), th.grad.round(decimals=3).tolist()[0][0])
try:
    F.affine_grid(theta[:, :1], list(x.shape), align_corners=False)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.grid_sample(x, grid, mode="area")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.meshgrid(torch.arange(2), torch.arange(2), indexing="yx")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.randint(3, 1, (2,))
except Exception as e:
    print(type(e).__name__, e)


# StyleGAN3's grid_sample_gradfix: a custom Function whose backward calls ATen's grid sampler backward directly.
class GridSample2dForward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, grid):
        output = torch.ops.aten.grid_sampler_2d(input, grid, 0, 0, False)
        ctx.save_for_backward(input, grid)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, grid = ctx.saved_tensors
        output_mask = (ctx.needs_input_grad[0], ctx.needs_input_grad[1])
        grad_input, grad_grid = torch.ops.aten.grid_sampler_2d_backward(
            grad_output, input, grid, 0, 0, False, output_mask
        )
        return grad_input, grad_grid


xa, ga = x.clone().requires_grad_(True), grid.clone().requires_grad_(True)
GridSample2dForward.apply(xa, ga).square().sum().backward()
xb, gb2 = x.clone().requires_grad_(True), grid.clone().requires_grad_(True)
F.grid_sample(xb, gb2, align_corners=False).square().sum().backward()
print("gradfix matches", torch.allclose(xa.grad, xb.grad, atol=1e-5), torch.allclose(ga.grad, gb2.grad, atol=1e-4))
xc = x.clone().requires_grad_(True)
GridSample2dForward.apply(xc, grid).sum().backward()
print("grid grad skipped", round(xc.grad.sum().item(), 3), grid.grad is None)
print(torch.ops.aten.grid_sampler_2d_backward.default, torch.ops.aten.grid_sampler_2d.default.name())
