"""kornia-style filters and morphology written inline: filter2d with border types (constant/reflect/replicate/
circular) and normalized kernels, separable Gaussian blur, box blur, Sobel gradients and magnitude, Laplacian,
median blur through F.unfold and Tensor.unfold, Canny-style non-maximum suppression with hysteresis via max_pool2d,
Gaussian pyramids (pyrdown/pyrup), dilation/erosion/opening/top-hat with structuring elements, F.fold round trips,
integral images, gradients through the filters, and the errors of malformed kernels."""


import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(19)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def _pad_mode(border_type):
    return {"constant": "constant", "reflect": "reflect", "replicate": "replicate", "circular": "circular"}[border_type]


def filter2d(x, kernel, border_type="reflect", normalized=False, padding="same"):
    if not isinstance(kernel, torch.Tensor) or kernel.dim() != 3:
        raise ValueError(f"Invalid kernel shape, we expect BxHxW. Got: {getattr(kernel, 'shape', None)}")
    b, c, h, w = x.shape
    tmp = kernel.unsqueeze(1).to(x)
    if normalized:
        tmp = tmp / tmp.abs().sum(dim=(-2, -1), keepdim=True)
    tmp = tmp.expand(-1, c, -1, -1)
    kh, kw = tmp.shape[-2:]
    if padding == "same":
        pads = [(kw - 1) // 2, kw - 1 - (kw - 1) // 2, (kh - 1) // 2, kh - 1 - (kh - 1) // 2]
        x = F.pad(x, pads, mode=_pad_mode(border_type))
    tmp = tmp.reshape(-1, 1, kh, kw)
    x = x.view(-1, tmp.size(0), x.size(-2), x.size(-1))
    out = F.conv2d(x, tmp, groups=tmp.size(0), padding=0, stride=1)
    return out.view(b, c, out.shape[-2], out.shape[-1])


def gaussian1d(ks, sigma):
    x = torch.arange(ks, dtype=torch.float32) - ks // 2
    if ks % 2 == 0:
        x = x + 0.5
    g = torch.exp(-x.pow(2.0) / (2 * sigma ** 2))
    return g / g.sum()


def gaussian_blur2d(x, ks, sigma, border_type="reflect"):
    ky, kx = gaussian1d(ks[0], sigma[0]), gaussian1d(ks[1], sigma[1])
    out = filter2d(x, kx[None, None, :], border_type)
    return filter2d(out, ky[None, :, None], border_type)


def spatial_gradient(x, normalized=True):
    kx = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
    k = torch.stack([kx, kx.T])
    if normalized:
        k = k / k.abs().sum(dim=(-2, -1), keepdim=True)
    b, c, h, w = x.shape
    padded = F.pad(x.reshape(b * c, 1, h, w), [1, 1, 1, 1], "replicate")
    return F.conv2d(padded, k[:, None]).view(b, c, 2, h, w)


def median_blur(x, ks):
    pad = [(k - 1) // 2 for k in ks]
    b, c, h, w = x.shape
    patches = F.unfold(x.reshape(b * c, 1, h, w), ks, padding=pad)
    return patches.median(dim=1).values.view(b, c, h, w)


def median_blur_unfold(x, k):
    p = (k - 1) // 2
    xp = F.pad(x, [p, p, p, p], mode="reflect")
    win = xp.unfold(2, k, 1).unfold(3, k, 1)
    return win.contiguous().view(*win.shape[:4], -1).median(-1).values


def dilation(x, kernel, border_value=None):
    kh, kw = kernel.shape
    se = torch.where(kernel.bool(), torch.zeros_like(kernel), torch.full_like(kernel, -float("inf")))
    xp = F.pad(x, [kw // 2, kw // 2, kh // 2, kh // 2], value=-float("inf") if border_value is None else border_value)
    win = xp.unfold(2, kh, 1).unfold(3, kw, 1)
    return (win + se.flip((0, 1))).amax(dim=(-2, -1))


def erosion(x, kernel):
    return -dilation(-x, kernel)


img = torch.from_numpy(rng.random((2, 3, 12, 12))).float()
img[:, :, 4:8, 4:8] += 1.0
box = torch.ones(1, 3, 3) / 9
for bt in ["constant", "reflect", "replicate", "circular"]:
    out = filter2d(img, box, bt)
    print("box", bt, tuple(out.shape), r(out[0, 0, 0, :4]), r(out[1, 2, -1, -3:]))
print("normalized", r(filter2d(img, torch.tensor([[[1.0, -2.0, 3.0]]]), normalized=True)[0, 0, 0, :3]))
even = filter2d(img, torch.ones(1, 2, 4))
print("even kernel", tuple(even.shape), r(even[0, 0, 0, :3]))
print("valid", tuple(filter2d(img, box, padding="valid").shape))
g = gaussian_blur2d(img, (5, 5), (1.5, 1.5))
g2 = filter2d(img, (gaussian1d(5, 1.5)[:, None] * gaussian1d(5, 1.5)[None])[None])
print("gauss", r(gaussian1d(5, 1.5)), r(g[0, 0, 5, :4]), torch.allclose(g, g2, atol=1e-6), r(gaussian1d(4, 1.0)))
grads = spatial_gradient(img)
mag = torch.sqrt(grads.pow(2).sum(2) + 1e-6)
print("sobel", tuple(grads.shape), r(grads[0, 0, 0, 4, 2:7]), r(mag[0, 0, 4, :6]))
lap = filter2d(img, torch.tensor([[[1.0, 1, 1], [1, -8, 1], [1, 1, 1]]]), "reflect")
print("laplacian", r(lap[0, 0, 4, 2:7]), r(lap.sum(dim=(-2, -1))[0]))
med = median_blur(img, (3, 3))
med2 = median_blur_unfold(img, 3)
print("median", r(med[0, 0, 5, :5]), r(med2[0, 0, 5, :5]), torch.equal(med[:, :, 1:-1, 1:-1], med2[:, :, 1:-1, 1:-1]))

gray = img.mean(1, keepdim=True)
gg = spatial_gradient(gray, normalized=False)[:, 0]
magnitude = torch.sqrt(gg[:, 0] ** 2 + gg[:, 1] ** 2 + 1e-6)[:, None]
angle = torch.rad2deg(torch.atan2(gg[:, 1], gg[:, 0]))[:, None]
angle_q = torch.round(angle / 45.0) % 4
nms_k = torch.tensor([[[0, 0, 0], [1, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [0, 0, 1.0]]]).float()
mx = F.max_pool2d(magnitude, 3, stride=1, padding=1)
edges = magnitude * (magnitude >= mx).float()
strong, weak = edges > 1.5, (edges > 0.6) & (edges <= 1.5)
hyst = strong.float()
for _ in range(3):
    hyst = torch.where(weak & (F.max_pool2d(hyst, 3, 1, 1) > 0), torch.ones_like(hyst), hyst)
print("canny", angle_q.unique().tolist(), int(strong.sum()), int(weak.sum()), int(hyst.sum()), r(angle[0, 0, 4, 2:6]))


def pyrdown(x):
    k = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0])
    k2 = (k[:, None] * k[None]) / 256
    return F.avg_pool2d(filter2d(x, k2[None], "reflect"), 2, 2)


def pyrup(x):
    up = F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)
    k = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0])
    return filter2d(up, ((k[:, None] * k[None]) / 256)[None], "reflect")


pyr = [img]
for _ in range(2):
    pyr.append(pyrdown(pyr[-1]))
lap_pyr = [a - F.interpolate(b, size=a.shape[-2:], mode="bilinear", align_corners=False) for a, b in zip(pyr, pyr[1:])]
print("pyramid", [tuple(p.shape[-2:]) for p in pyr], r(pyr[2][0, 0, 0]), r(lap_pyr[0].abs().mean()),
      tuple(pyrup(pyr[1]).shape))

se = torch.tensor([[0.0, 1, 0], [1, 1, 1], [0, 1, 0]])
binary = (gray > 0.9).float()
d, e = dilation(binary, se), erosion(binary, se)
opening, closing = dilation(erosion(gray, se), se), erosion(dilation(gray, se), se)
print("morph", int(binary.sum()), int(d.sum()), int(e.sum()), r(opening[0, 0, 5, :5]), r((gray - opening).amax()),
      r((closing - gray).amin()))
print("gradient", r((dilation(gray, torch.ones(3, 3)) - erosion(gray, torch.ones(3, 3)))[1, 0, 0, :5]))
cols = F.unfold(img, kernel_size=(4, 4), stride=4)
back = F.fold(cols, output_size=(12, 12), kernel_size=(4, 4), stride=4)
over = F.fold(F.unfold(img, 3, padding=1), (12, 12), 3, padding=1)
print("fold", tuple(cols.shape), torch.equal(back, img), r((over / img)[0, 0, :2, :3]))
integral = img.cumsum(-1).cumsum(-2)
ii = F.pad(integral, [1, 0, 1, 0])
box_sum = ii[..., 3:, 3:] - ii[..., :-3, 3:] - ii[..., 3:, :-3] + ii[..., :-3, :-3]
print("integral", torch.allclose(box_sum / 9, filter2d(img, box, padding="valid"), atol=1e-5),
      r(integral[0, 0, -1, -1]))

x = img[:1].clone().requires_grad_()
loss = spatial_gradient(gaussian_blur2d(x, (3, 3), (1.0, 1.0))).pow(2).mean() + median_blur(x, (3, 3)).mean()
loss += dilation(x, se).mean()
loss.backward()
print("grad", round(loss.item(), 4), r(x.grad[0, 0, 4, 3:8] * 100), int((x.grad != 0).sum()))
for fn in [lambda: filter2d(img, torch.ones(3, 3)), lambda: filter2d(img, box, "wrap"),
           lambda: F.unfold(img[0, 0], 3), lambda: F.fold(cols, (12, 12), (3, 3), stride=4),
           lambda: img.unfold(4, 3, 1), lambda: img.unfold(2, 20, 1), lambda: F.max_pool2d(img, 3, padding=2),
           lambda: F.conv2d(img, box[None].expand(3, 1, 3, 3), groups=2)]:
    try:
        out = fn()
        print("ok", tuple(out.shape))
    except Exception as e:
        print(type(e).__name__, "|", str(e).replace("\n", " / ")[:130])
