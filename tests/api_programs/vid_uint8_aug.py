"""Video augmentation on decoded uint8 frames (T, H, W, C): permutes to (C, T, H, W), random-resized crops with
fixed boxes, horizontal flips, temporal reversal, uint8 arithmetic and saturation, normalisation, nearest resizing
of uint8 clips, mixup of clips and the dtype errors PyTorch raises."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

raw = ((torch.arange(4 * 6 * 8 * 3) * 37) % 256).to(torch.uint8).view(4, 6, 8, 3)
print("raw", raw.dtype, tuple(raw.shape), raw[0, 0, :3].tolist())
clip = raw.permute(3, 0, 1, 2)
print("CTHW", tuple(clip.shape), clip.stride(), clip.is_contiguous(), clip.contiguous().stride())

flip = clip.flip(-1)
print(
    "hflip",
    flip[0, 0, 0].tolist(),
    torch.equal(flip, torch.flip(clip, dims=(3,))),
    torch.equal(clip.fliplr().flip(1), clip.flip(1, 2)),
)
rev = clip.flip(1)
print("reverse", rev[1, :, 0, 0].tolist(), clip[1, :, 0, 0].tolist())
crop = clip[:, :, 1:5, 2:7]
print("crop", tuple(crop.shape), crop.is_contiguous(), crop[2, 3, 0].tolist())

print("uint8 add wraps", (clip[0, 0, 0, :4] + 200).tolist(), (clip[0, 0, 0, :4] * 3).tolist())
print("saturating", (clip[0, 0, 0, :4].int() + 200).clamp(0, 255).to(torch.uint8).tolist())
print("uint8 sub", (clip[0, 0, 0, :4] - clip[0, 0, 1, :4]).tolist(), (clip[0, 0, 0, :4] - 1.5).dtype)
print(
    "uint8 div", (clip[0, 0, 0, :4] / 2).tolist(), (clip[0, 0, 0, :4] // 2).tolist(), (clip[0, 0, 0, :4] >> 1).tolist()
)
print(
    "mean uint8?", clip.float().mean().item(), clip.sum().item(), clip.sum().dtype, clip.max().item(), clip.max().dtype
)

f = clip.float().div_(255)
mean = torch.tensor([0.45, 0.45, 0.45]).view(-1, 1, 1, 1)
std = torch.tensor([0.225, 0.225, 0.225]).view(-1, 1, 1, 1)
norm = (f - mean) / std
print("norm", round(norm.mean().item(), 4), round(norm.std().item(), 4), norm[:, 0, 0, 0].round(decimals=4).tolist())
back = ((norm * std + mean) * 255).round().clamp(0, 255).byte()
print("roundtrip", torch.equal(back, clip))
print("to_tensor-like", torch.tensor(255, dtype=torch.uint8).float() / 255, clip.to(torch.float32, copy=True).dtype)

small = F.interpolate(clip.unsqueeze(0), size=(4, 3, 4), mode="nearest")
print("uint8 nearest", small.dtype, small[0, 0, 0].tolist())
print(
    "uint8 nearest-exact",
    F.interpolate(clip.unsqueeze(0), scale_factor=(1, 0.5, 0.5), mode="nearest-exact")[0, 1, 2].tolist(),
)
print("uint8 maxpool", F.max_pool3d(clip.unsqueeze(0).float(), (1, 2, 2)).byte()[0, 2, 1].tolist())
print(
    "uint8 pad",
    F.pad(clip, (1, 1), value=0).shape,
    F.pad(clip.unsqueeze(0), (1, 1, 1, 1, 0, 0), mode="replicate").dtype,
)

a, b = norm, norm.flip(1)
lam = 0.7
mixed = lam * a + (1 - lam) * b
print("mixup", round(mixed.sum().item(), 3), round((mixed - a).abs().max().item(), 4))
box = (1, 3, 2, 6)
cut = a.clone()
cut[:, :, box[0] : box[1], box[2] : box[3]] = b[:, :, box[0] : box[1], box[2] : box[3]]
area = (box[1] - box[0]) * (box[3] - box[2]) / (6 * 8)
print("cutmix lam", round(1 - area, 4), round((cut != a).float().mean().item(), 4))

gray = (clip.float() * torch.tensor([0.299, 0.587, 0.114]).view(3, 1, 1, 1)).sum(0, keepdim=True)
print(
    "gray", tuple(gray.shape), gray[0, 0, 0, :3].round(decimals=4).tolist(), gray.to(torch.uint8)[0, 0, 0, :3].tolist()
)
print(
    "histc",
    torch.histc(clip.float(), bins=4, min=0, max=255).tolist(),
    torch.bincount(clip.flatten().long() // 64).tolist(),
)

for bad in [
    lambda: F.interpolate(clip.unsqueeze(0), scale_factor=2, mode="trilinear"),
    lambda: F.avg_pool3d(clip.unsqueeze(0), 2),
    lambda: clip.float().div_(255).byte().mean(),
    lambda: F.conv3d(clip.unsqueeze(0), torch.randn(2, 3, 1, 1, 1)),
    lambda: clip.permute(0, 1, 2),
    lambda: clip.flip(4),
    lambda: (clip - mean).to(torch.uint8).add_(0.5),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
