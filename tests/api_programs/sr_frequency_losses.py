"""Frequency-domain objectives from restoration papers: the focal frequency loss (fft2 with ortho norm, a spectrum
weight matrix from the detached error), amplitude/phase losses on rfft2, a radially averaged power spectrum with
fftshift/fftfreq, a Fourier-domain low-pass via irfft2 with s=, high-frequency emphasis, and their gradients."""


import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
h, w = 16, 20
yy, xx = torch.meshgrid(torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32), indexing="ij")
sharp = torch.stack([torch.sin(xx * 0.9 + c) * torch.cos(yy * 0.7 - c) + 0.3 * torch.cos(xx * 2.5) for c in range(3)])
sharp = sharp.unsqueeze(0).repeat(2, 1, 1, 1)
sharp[1] = sharp[1].flip(-1)
blur_k = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0]) / 16
blur = F.conv2d(
    F.pad(sharp, (2, 2, 2, 2), mode="circular"), (blur_k[:, None] * blur_k[None, :]).expand(3, 1, 5, 5), groups=3
)


def focal_frequency_loss(pred, target, alpha=1.0, log_matrix=False, batch_matrix=False):
    pf = torch.fft.fft2(pred, norm="ortho")
    tf = torch.fft.fft2(target, norm="ortho")
    pf = torch.stack([pf.real, pf.imag], -1)
    tf = torch.stack([tf.real, tf.imag], -1)
    diff = (pf - tf) ** 2
    dist = diff[..., 0] + diff[..., 1]
    wm = dist.detach().sqrt() ** alpha
    if log_matrix:
        wm = torch.log(wm + 1.0)
    if batch_matrix:
        wm = wm / wm.max()
    else:
        wm = wm / wm.amax(dim=(-2, -1), keepdim=True)
    wm[torch.isnan(wm)] = 0.0
    wm = wm.clamp(0.0, 1.0)
    return (wm * dist).mean()


for kw in ({}, {"alpha": 2.0}, {"log_matrix": True}, {"batch_matrix": True}):
    print("ffl", kw, round(focal_frequency_loss(blur, sharp, **kw).item(), 4))
print("ffl self", focal_frequency_loss(sharp, sharp).item())

rs, rb = torch.fft.rfft2(sharp), torch.fft.rfft2(blur)
print("rfft2", tuple(rs.shape), rs.dtype, round(rs.abs().sum().item(), 2))
cross = rb * rs.conj()
valid = cross.abs() > 1e-2  # the binomial blur zeroes the Nyquist bins: their phase is noise
phase = (1 - cross.real / cross.abs())[valid].mean()  # 1 - cos(phase difference): no wrap at +-pi
print("amp loss", round(F.l1_loss(rb.abs(), rs.abs()).item(), 4), "phase loss", round(phase.item(), 4))
print("complex l1", round(F.l1_loss(torch.view_as_real(rb), torch.view_as_real(rs)).item(), 4))
print("dc", rs[0, :, 0, 0].real.round(decimals=3).tolist(), round(sharp[0].sum((-1, -2))[0].item(), 3))


# radially averaged power spectrum: where the blur removed energy
def radial_profile(img, nbins=8):
    spec = torch.fft.fftshift(torch.fft.fft2(img, norm="ortho"), dim=(-2, -1)).abs() ** 2
    fy = torch.fft.fftshift(torch.fft.fftfreq(img.shape[-2]))
    fx = torch.fft.fftshift(torch.fft.fftfreq(img.shape[-1]))
    r = torch.sqrt(fy[:, None] ** 2 + fx[None, :] ** 2)
    bins = torch.clamp((r / r.max() * nbins).long(), max=nbins - 1).flatten()
    flat = spec.flatten(-2)
    total = torch.zeros(flat.shape[:-1] + (nbins,)).index_add_(-1, bins, flat)
    count = torch.bincount(bins, minlength=nbins).clamp_min(1)
    return total / count


ps, pb = radial_profile(sharp[0, 0]), radial_profile(blur[0, 0])
print("fftfreq", torch.fft.fftfreq(5, d=0.1).round(decimals=4).tolist(), torch.fft.rfftfreq(6).tolist())
print(
    "shift",
    torch.fft.fftshift(torch.arange(7)).tolist(),
    torch.fft.ifftshift(torch.fft.fftshift(torch.arange(7))).tolist(),
)
print("profile sharp", ps.round(decimals=3).tolist())
print("attenuation", (pb / ps).clamp(max=1.5).round(decimals=3).tolist())

# ideal low-pass in the rfft domain, back with irfft2(s=) for an odd width
odd = sharp[..., :19]
spec = torch.fft.rfft2(odd)
ky = torch.fft.fftfreq(odd.shape[-2]).abs()[:, None]
kx = torch.fft.rfftfreq(odd.shape[-1])[None, :]
mask = ((ky**2 + kx**2).sqrt() < 0.2).to(spec.dtype)
low = torch.fft.irfft2(spec * mask, s=odd.shape[-2:])
wrong = torch.fft.irfft2(spec * mask)
print(
    "lowpass",
    tuple(low.shape),
    tuple(wrong.shape),
    round(low.sum().item(), 3),
    round((odd - low).pow(2).mean().item(), 4),
)
print(
    "roundtrip",
    torch.allclose(torch.fft.irfft2(torch.fft.rfft2(odd, norm="ortho"), s=(16, 19), norm="ortho"), odd, atol=1e-5),
)
print(
    "rfftn forward norm",
    round(torch.fft.rfftn(odd, dim=(-2, -1), norm="forward")[0, 0, 0, 0].real.item(), 4),
    round(odd[0, 0].mean().item(), 4),
)

# train a tiny deblurring conv with L1 + frequency loss
torch.manual_seed(0)
net = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1, padding_mode="circular"),
    nn.GELU(),
    nn.Conv2d(8, 3, 3, padding=1, padding_mode="circular"),
)
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
for step in range(6):
    out = blur + net(blur)
    l1 = F.l1_loss(out, sharp)
    freq = focal_frequency_loss(out, sharp)
    hf = (torch.fft.rfft2(out) - torch.fft.rfft2(sharp)).abs()[..., 4:, 4:].mean()
    loss = l1 + 2.0 * freq + 0.01 * hf
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step in (0, 5):
        print("step", step, round(l1.item(), 4), round(freq.item(), 4), round(hf.item(), 4))
g = net[0].weight.grad
print("grad", tuple(g.shape), round(g.norm().item(), 4) > 0)

x = sharp[:1, :1].clone().requires_grad_(True)
f = torch.fft.rfft2(x, norm="ortho")
print(type(f.grad_fn).__name__, type(f.abs().grad_fn).__name__, type(f.angle().grad_fn).__name__)
torch.fft.irfft2(f * 0.5, s=(16, 20), norm="ortho").sum().backward()
print("grad x", round(x.grad.sum().item(), 4), round(x.grad.abs().max().item(), 4))

for bad in [
    lambda: torch.fft.rfft2(torch.randn(4, 4, dtype=torch.complex64)),
    lambda: torch.fft.fft2(sharp, norm="unitary"),
    lambda: torch.fft.rfft2(torch.randn(4)),
    lambda: torch.fft.irfft2(rs, s=(16,)),
    lambda: torch.fft.fftshift(sharp, dim=5),
]:
    try:
        print("ok", bad().shape)
    except Exception as e:
        print(type(e).__name__, e)
