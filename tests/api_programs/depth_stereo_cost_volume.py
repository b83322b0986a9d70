"""Stereo matching as PSMNet/GwcNet/RAFT-Stereo code writes it: a concatenation volume filled by slicing, a
group-wise correlation volume, a correlation volume built with torch.roll and with F.unfold, a 3-D conv
aggregation, soft-argmin disparity regression with softmax, smooth-L1 on a validity mask, and left-right checks."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def s(t, n=6):
    return [round(v, 4) for v in t.detach().flatten().tolist()[:n]]


B, C, H, W, D = 2, 8, 5, 12, 4
left = torch.randn(B, C, H, W)
right = torch.randn(B, C, H, W)

concat = left.new_zeros(B, 2 * C, D, H, W)
for d in range(D):
    if d > 0:
        concat[:, :C, d, :, d:] = left[:, :, :, d:]
        concat[:, C:, d, :, d:] = right[:, :, :, :-d]
    else:
        concat[:, :C, d] = left
        concat[:, C:, d] = right
print("concat", tuple(concat.shape), round(concat.abs().sum().item(), 4), concat.is_contiguous())


def groupwise_correlation(f1, f2, groups):
    b, c, h, w = f1.shape
    return (f1 * f2).view(b, groups, c // groups, h, w).mean(dim=2)


gwc = left.new_zeros(B, 2, D, H, W)
for d in range(D):
    if d > 0:
        gwc[:, :, d, :, d:] = groupwise_correlation(left[:, :, :, d:], right[:, :, :, :-d], 2)
    else:
        gwc[:, :, d] = groupwise_correlation(left, right, 2)
print("gwc", tuple(gwc.shape), s(gwc[1, 1, 2, 0]), round(gwc.sum().item(), 4))

rolled = torch.stack([(left * torch.roll(right, shifts=d, dims=3)).mean(1) for d in range(D)], 1)
valid = torch.arange(W).view(1, 1, 1, W) >= torch.arange(D).view(1, D, 1, 1)
rolled = rolled.masked_fill(~valid, 0.0)
print("roll volume matches", torch.allclose(rolled, gwc.mean(1), atol=1e-6), valid.shape, valid.sum().item())
print("roll multi-dim", s(torch.roll(torch.arange(12).view(3, 4), shifts=(1, -1), dims=(0, 1)), 12))
print("roll flat", s(torch.roll(torch.arange(6).view(2, 3), 2), 6))

k = 3
patches = F.unfold(right, kernel_size=(1, k), padding=(0, k // 2))
print("unfold", tuple(patches.shape))
patches = patches.view(B, C, k, H, W)
local_corr = (left.unsqueeze(2) * patches).sum(1) / C**0.5
print("local corr", tuple(local_corr.shape), s(local_corr[0, :, 2, 5], 3))
folded = F.fold(F.unfold(left, 3, padding=1, stride=1), (H, W), 3, padding=1)
ones = F.fold(F.unfold(torch.ones(1, 1, H, W), 3, padding=1), (H, W), 3, padding=1)
print("fold/unfold", torch.allclose(folded / ones, left, atol=1e-5), s(ones[0, 0, :2], 4))
dil = F.unfold(left[:, :2], kernel_size=2, dilation=(1, 2), stride=(2, 3), padding=(0, 1))
print("unfold dilated", tuple(dil.shape), round(dil.sum().item(), 4))

agg = nn.Sequential(
    nn.Conv3d(2 * C, 4, 3, padding=1, bias=False),
    nn.BatchNorm3d(4),
    nn.ReLU(inplace=True),
    nn.Conv3d(4, 1, 3, padding=1),
)
print(agg)
cost = agg(concat).squeeze(1)
print("cost", tuple(cost.shape), cost.grad_fn.name())
up = F.interpolate(cost.unsqueeze(1), scale_factor=(2, 1, 1), mode="trilinear", align_corners=False).squeeze(1)
print("upsampled cost", tuple(up.shape), s(up[0, :, 1, 1], 8))
prob = F.softmax(-up, dim=1)
disp_values = torch.arange(2 * D, dtype=prob.dtype).view(1, 2 * D, 1, 1)
disp = torch.sum(prob * disp_values, 1)
print("disp", tuple(disp.shape), s(disp[0, 0]), round(prob.sum(1).mean().item(), 4))
entropy = -(prob * torch.log(prob.clamp_min(1e-12))).sum(1)
print("entropy", round(entropy.mean().item(), 4), "argmax", s(prob.argmax(1)[1, 2], 6))

gt = torch.rand(B, H, W) * 2 * D
mask = (gt > 0.5) & (gt < 2 * D - 1)
loss = F.smooth_l1_loss(disp[mask], gt[mask], reduction="mean")
loss_beta = F.smooth_l1_loss(disp, gt, beta=0.5, reduction="none")
loss_huber = F.huber_loss(disp, gt, delta=2.0)
print(
    "mask",
    mask.sum().item(),
    "loss",
    round(loss.item(), 4),
    round(loss_beta.sum().item(), 4),
    round(loss_huber.item(), 4),
)
loss.backward()
grads = [p.grad.norm().item() for p in agg.parameters() if p.grad is not None]
print("grads", len(grads), [round(g, 4) for g in grads])

epe = (disp - gt).abs()
d1 = ((epe > 3) & (epe / gt > 0.05))[mask].float().mean()
print("EPE", round(epe[mask].mean().item(), 4), "D1", round(d1.item(), 4))
xs = torch.arange(W, dtype=torch.float32).view(1, 1, W).expand(B, H, W)
right_disp = disp.detach()
coords = (xs - right_disp).round().long().clamp(0, W - 1)
lr_check = torch.gather(right_disp, 2, coords)
consistent = (right_disp - lr_check).abs() < 1.0
print("LR consistent", consistent.sum().item(), consistent.shape)
try:
    F.unfold(left[0, 0], 3)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.roll(left, shifts=(1, 2), dims=3)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.fold(torch.randn(1, 5, 10), (4, 4), 2)
except Exception as e:
    print(type(e).__name__, e)
