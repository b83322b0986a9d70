"""Inpainting and editing with a pretrained denoiser: mask preparation (interpolate to latent size, threshold,
dilate by max_pool2d, feather by a Gaussian blur built with conv2d), RePaint's known/unknown merge with
resampling jumps, SDEdit's partial noising, blended latents via torch.where and lerp, and the mask shapes and
dtypes inpainting pipelines check."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=5):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


def gaussian_kernel(size=5, sigma=1.0):
    ax = torch.arange(size, dtype=torch.float32) - (size - 1) / 2
    g = torch.exp(-(ax**2) / (2 * sigma**2))
    k = torch.outer(g, g)
    return k / k.sum()


# a binary mask drawn at pixel resolution
mask = torch.zeros(2, 1, 16, 16)
mask[0, :, 4:12, 4:12] = 1.0
mask[1, :, :, 8:] = 1.0
lat_mask = F.interpolate(mask, size=(8, 8), mode="nearest")
lat_mask_bil = F.interpolate(mask, size=(8, 8), mode="bilinear", align_corners=False)
print("latent masks:", tuple(lat_mask.shape), lat_mask.sum(dim=(1, 2, 3)).tolist(), r(lat_mask_bil[0, 0, 2], 8))
binary = (lat_mask_bil >= 0.5).to(lat_mask.dtype)
print("threshold:", binary.dtype, binary.sum().item(), torch.equal(binary, lat_mask))
dilated = F.max_pool2d(binary, kernel_size=3, stride=1, padding=1)
eroded = -F.max_pool2d(-binary, kernel_size=3, stride=1, padding=1)
print("dilate/erode:", dilated.sum().item(), eroded.sum().item())
k = gaussian_kernel()
feather = F.conv2d(F.pad(dilated, (2, 2, 2, 2), mode="replicate"), k[None, None])
print("feathered:", tuple(feather.shape), r(feather[0, 0, 1], 8), round(feather.max().item(), 4))

T = 100
betas = torch.linspace(1e-4, 0.04, T)
alphas = 1 - betas
ac = alphas.cumprod(0)


def eps_model(x, t):
    return 0.4 * x * (t / T)


x_known = torch.randn(2, 4, 8, 8)
keep = 1 - lat_mask  # 1 where the image is kept
g = torch.Generator().manual_seed(0)

# RePaint: at each step merge a noised copy of the known region with the sample; jump back every few steps
x = torch.randn(x_known.shape, generator=g)
t_seq = []
t = T - 1
jumps = {60: 2, 30: 2}
done_jumps = set()
while t >= 0:
    t_seq.append(t)
    eps = eps_model(x, torch.tensor(float(t)))
    a_t, a_bar = alphas[t], ac[t]
    mean = (x - betas[t] / (1 - a_bar).sqrt() * eps) / a_t.sqrt()
    noise = torch.randn(x.shape, generator=g) if t > 0 else torch.zeros_like(x)
    x_unknown = mean + betas[t].sqrt() * noise
    a_prev = ac[t - 1] if t > 0 else torch.tensor(1.0)
    x_known_t = a_prev.sqrt() * x_known + (1 - a_prev).sqrt() * torch.randn(x.shape, generator=g)
    x = keep * x_known_t + (1 - keep) * x_unknown
    if t in jumps and t not in done_jumps:
        done_jumps.add(t)
        for j in range(jumps[t]):
            x = alphas[t - 1 + j].sqrt() * x + betas[t - 1 + j].sqrt() * torch.randn(x.shape, generator=g)
        t = t + jumps[t]
    t -= 1
print("repaint steps:", len(t_seq), t_seq[38:44], t_seq[-3:])
print(
    "known region kept:",
    round((x - x_known).mul(keep).abs().max().item(), 4),
    "hole std:",
    round(x[(1 - keep).expand_as(x).bool()].std().item(), 4),
)

# SDEdit: start from a partially noised input at strength s
s = 0.6
t0 = int(s * (T - 1))
x_t0 = ac[t0].sqrt() * x_known + (1 - ac[t0]).sqrt() * torch.randn(
    x_known.shape, generator=torch.Generator().manual_seed(1)
)
print("sdedit start:", t0, round(ac[t0].item(), 4), r(x_t0.flatten(1).std(1), 2))

# blended latent diffusion: swap in the background at every step
bg = torch.randn_like(x_known)
blended = torch.where(lat_mask.bool(), x, bg)
lerped = torch.lerp(bg, x, lat_mask)
print("blend:", torch.equal(blended, lerped), blended.shape == x.shape)
soft = torch.lerp(bg, x, feather)
print("soft blend:", round(soft.sum().item(), 4))
masked_image = x_known * (lat_mask < 0.5)
print("masked image:", masked_image.dtype, (masked_image == 0).sum().item())
unet_in = torch.cat([x, lat_mask, masked_image], dim=1)
print("unet input channels:", unet_in.shape[1])
try:
    torch.where(lat_mask, x, bg)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cat([x, F.interpolate(mask, scale_factor=0.25), masked_image], dim=1)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.max_pool2d(binary, kernel_size=3, stride=1, padding=2)
except Exception as e:
    print(type(e).__name__, e)
