"""Tensor-only augmentation pipelines with seeded generators, as torchvision v2 and timm write them: random
horizontal/vertical flips per sample with torch.rand masks, RandomResizedCrop parameter sampling (log-uniform
aspect ratios, torch.empty().uniform_), center/five crops and padding, color jitter with a permuted order,
gaussian blur by separable conv, random erasing, mixup with a Beta draw, cutmix boxes with one-hot smoothing,
and a torch.Generator kept apart from the global stream."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def rl(t, n=6):
    return [round(v, 4) for v in t.flatten()[:n].tolist()]


imgs = torch.rand(4, 3, 8, 10)
flip_mask = torch.rand(4) < 0.5
flipped = torch.where(flip_mask.view(-1, 1, 1, 1), imgs.flip(-1), imgs)
print("hflip mask", flip_mask.tolist(), torch.equal(flipped[0], imgs[0].flip(-1)) == bool(flip_mask[0]))
print("vflip", rl(imgs[1].flip(-2)[0, 0]), "rot90", tuple(torch.rot90(imgs, 1, (2, 3)).shape),
      rl(torch.rot90(imgs[0], -1, (1, 2))[0, 0]))


def rrc_params(height, width, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), g=None):
    area = height * width
    log_ratio = torch.log(torch.tensor(ratio))
    for _ in range(10):
        target_area = area * torch.empty(1).uniform_(scale[0], scale[1], generator=g).item()
        aspect_ratio = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1], generator=g)).item()
        w = int(round(math.sqrt(target_area * aspect_ratio)))
        h = int(round(math.sqrt(target_area / aspect_ratio)))
        if 0 < w <= width and 0 < h <= height:
            i = torch.randint(0, height - h + 1, size=(1,), generator=g).item()
            j = torch.randint(0, width - w + 1, size=(1,), generator=g).item()
            return i, j, h, w
    return 0, 0, height, width


for _ in range(3):
    i, j, h, w = rrc_params(32, 48)
    crop = F.interpolate(torch.rand(1, 3, 32, 48)[..., i:i + h, j:j + w], size=(16, 16), mode="bilinear",
                         align_corners=False, antialias=True)
    print("rrc", (i, j, h, w), tuple(crop.shape), round(crop.mean().item(), 4))

gen = torch.Generator().manual_seed(123)
print("gen params", [rrc_params(32, 48, g=gen) for _ in range(2)])
state = gen.get_state()
a = torch.rand(3, generator=gen)
gen.set_state(state)
print("replay", torch.equal(a, torch.rand(3, generator=gen)), "initial_seed", gen.initial_seed())
print("global untouched", rl(torch.rand(2)))

c = imgs[0]
top, left = (8 - 4) // 2, (10 - 6) // 2
print("center crop", rl(c[:, top:top + 4, left:left + 6][0, 0]))
tl, tr = c[..., :4, :4], c[..., :4, -4:]
bl, br = c[..., -4:, :4], c[..., -4:, -4:]
print("five crop", [round(t.sum().item(), 4) for t in (tl, tr, bl, br)])
for mode in ("constant", "reflect", "replicate", "circular"):
    p = F.pad(c.unsqueeze(0), (2, 1, 1, 2), mode=mode, **({"value": 0.5} if mode == "constant" else {}))
    print("pad", mode, tuple(p.shape), rl(p[0, 0, 0], 5))


def adjust_brightness(x, f):
    return (x * f).clamp(0, 1)


def adjust_contrast(x, f):
    m = (0.2989 * x[:, 0] + 0.587 * x[:, 1] + 0.114 * x[:, 2]).mean(dim=(-2, -1), keepdim=True).unsqueeze(1)
    return (f * x + (1 - f) * m).clamp(0, 1)


def adjust_saturation(x, f):
    gray = (0.2989 * x[:, 0] + 0.587 * x[:, 1] + 0.114 * x[:, 2]).unsqueeze(1)
    return (f * x + (1 - f) * gray).clamp(0, 1)


fn_idx = torch.randperm(3)
b = float(torch.empty(1).uniform_(0.6, 1.4))
cst = float(torch.empty(1).uniform_(0.6, 1.4))
sat = float(torch.empty(1).uniform_(0.6, 1.4))
print("jitter order", fn_idx.tolist(), round(b, 4), round(cst, 4), round(sat, 4))
out = imgs
for fi in fn_idx.tolist():
    out = (lambda x: adjust_brightness(x, b), lambda x: adjust_contrast(x, cst),
           lambda x: adjust_saturation(x, sat))[fi](out)
print("jittered", rl(out[2, 1, 3]))


def gaussian_kernel1d(ks, sigma):
    half = (ks - 1) * 0.5
    x = torch.linspace(-half, half, steps=ks)
    pdf = torch.exp(-0.5 * (x / sigma).pow(2))
    return pdf / pdf.sum()


k1 = gaussian_kernel1d(5, 1.2)
k2 = torch.outer(k1, k1).expand(3, 1, 5, 5)
blur = F.conv2d(F.pad(imgs, (2, 2, 2, 2), mode="reflect"), k2, groups=3)
sep = F.conv2d(F.conv2d(F.pad(imgs, (2, 2, 2, 2), mode="reflect"), k1.view(1, 1, 1, 5).expand(3, 1, 1, 5), groups=3),
               k1.view(1, 1, 5, 1).expand(3, 1, 5, 1), groups=3)
print("kernel", rl(k1, 5), "blur", rl(blur[0, 0, 0], 4), "separable same", torch.allclose(blur, sep, atol=1e-6))

erase = imgs.clone()
ea = int(0.2 * 8 * 10)
eh, ew = 4, max(1, ea // 4)
ei = torch.randint(0, 8 - eh + 1, (1,)).item()
ej = torch.randint(0, 10 - ew + 1, (1,)).item()
erase[1, :, ei:ei + eh, ej:ej + ew] = torch.empty((3, eh, ew), dtype=torch.float32).normal_()
print("erase", (ei, ej, eh, ew), round(erase[1].sum().item(), 4), torch.equal(erase[0], imgs[0]))

labels = torch.tensor([0, 2, 1, 2])
num_classes = 3
smooth = 0.1
onehot = F.one_hot(labels, num_classes).float() * (1 - smooth) + smooth / num_classes
lam = torch.distributions.Beta(torch.tensor(0.4), torch.tensor(0.4)).sample().item()
perm = imgs.flip(0)
mixed = lam * imgs + (1 - lam) * perm
mixed_t = lam * onehot + (1 - lam) * onehot.flip(0)
print("mixup lam", round(lam, 4), rl(mixed[0, 0, 0], 4), rl(mixed_t))

lam_c = float(torch._sample_dirichlet(torch.tensor([1.0, 1.0]))[0])
H, W = 8, 10
r_x = torch.randint(W, size=(1,)).item()
r_y = torch.randint(H, size=(1,)).item()
rr = 0.5 * math.sqrt(1.0 - lam_c)
r_w_half, r_h_half = int(rr * W), int(rr * H)
x1, y1 = int(torch.clamp(torch.tensor(r_x - r_w_half), min=0)), int(torch.clamp(torch.tensor(r_y - r_h_half), min=0))
x2, y2 = int(torch.clamp(torch.tensor(r_x + r_w_half), max=W)), int(torch.clamp(torch.tensor(r_y + r_h_half), max=H))
cut = imgs.clone()
cut[..., y1:y2, x1:x2] = imgs.roll(1, 0)[..., y1:y2, x1:x2]
lam_adj = 1.0 - float((x2 - x1) * (y2 - y1)) / (W * H)
print("cutmix", round(lam_c, 4), (x1, y1, x2, y2), round(lam_adj, 4), round(cut.sum().item(), 4))
print("cutmix target", rl(lam_adj * onehot + (1 - lam_adj) * onehot.roll(1, 0)))

loss = torch.sum(-mixed_t * F.log_softmax(torch.randn(4, 3), dim=-1), dim=-1).mean()
print("soft-target loss", round(loss.item(), 4))
print("final draw", rl(torch.randn(3)), torch.randint(0, 100, (4,)).tolist())
