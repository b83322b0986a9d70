"""torchmetrics-style image quality metrics re-implemented: PSNR with data_range and per-image reduction, SSIM with a
separable Gaussian kernel (grouped conv2d, reflect padding, full contrast-sensitivity maps), MS-SSIM through
avg_pool2d pyramids, UQI, spectral angle mapper, ERGAS, total variation, and a Metric module keeping sum/count states
as buffers (persistent or not) that follows .to(dtype)/.double(), merges states and round-trips its state_dict."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(31)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


def psnr(preds, target, data_range=None, base=10.0, reduction="elementwise_mean", dim=None):
    if data_range is None:
        data_range = target.max() - target.min()
    else:
        data_range = torch.tensor(float(data_range))
    if dim is None:
        sse, n = torch.sum(torch.pow(preds - target, 2)), torch.tensor(target.numel())
    else:
        diff = preds - target
        sse, n = torch.sum(diff * diff, dim=dim), torch.tensor(math.prod(target.shape[d] for d in dim))
    val = 2 * torch.log(data_range) - torch.log(sse / n)
    val = val * (10 / torch.log(torch.tensor(base)))
    return {"elementwise_mean": val.mean(), "sum": val.sum(), "none": val}[reduction]


def gaussian(kernel_size, sigma, dtype):
    dist = torch.arange((1 - kernel_size) / 2, (1 + kernel_size) / 2, 1, dtype=dtype)
    gauss = torch.exp(-torch.pow(dist / sigma, 2) / 2)
    return (gauss / gauss.sum()).unsqueeze(dim=0)


def gaussian_kernel_2d(channel, kernel_size, sigma, dtype):
    kx = gaussian(kernel_size[0], sigma[0], dtype)
    ky = gaussian(kernel_size[1], sigma[1], dtype)
    kernel = torch.matmul(kx.t(), ky)
    return kernel.expand(channel, 1, kernel_size[0], kernel_size[1])


def ssim(preds, target, kernel_size=(7, 7), sigma=(1.5, 1.5), data_range=1.0, k1=0.01, k2=0.03,
         return_full_image=False, return_contrast_sensitivity=False):
    if preds.dtype != target.dtype:
        raise TypeError("Expected `preds` and `target` to have the same data type."
                        f" Got preds: {preds.dtype} and target: {target.dtype}.")
    if any(k % 2 == 0 or k <= 0 for k in kernel_size):
        raise ValueError(f"Expected `kernel_size` to have odd positive number. Got {kernel_size}.")
    c1, c2 = pow(k1 * data_range, 2), pow(k2 * data_range, 2)
    channel = preds.size(1)
    pad_h, pad_w = (kernel_size[0] - 1) // 2, (kernel_size[1] - 1) // 2
    preds = F.pad(preds, (pad_w, pad_w, pad_h, pad_h), mode="reflect")
    target = F.pad(target, (pad_w, pad_w, pad_h, pad_h), mode="reflect")
    kernel = gaussian_kernel_2d(channel, kernel_size, sigma, preds.dtype)
    input_list = torch.cat((preds, target, preds * preds, target * target, preds * target))
    outputs = F.conv2d(input_list, kernel, groups=channel)
    mu_p, mu_t, e_pp, e_tt, e_pt = outputs.split(preds.shape[0])
    mu_p_sq, mu_t_sq, mu_pt = mu_p.pow(2), mu_t.pow(2), mu_p * mu_t
    sigma_p_sq = torch.clamp(e_pp - mu_p_sq, min=0.0)
    sigma_t_sq = torch.clamp(e_tt - mu_t_sq, min=0.0)
    sigma_pt = e_pt - mu_pt
    upper = 2 * sigma_pt + c2
    lower = sigma_p_sq + sigma_t_sq + c2
    ssim_full = ((2 * mu_pt + c1) * upper) / ((mu_p_sq + mu_t_sq + c1) * lower)
    ssim_idx = ssim_full[..., pad_h:-pad_h, pad_w:-pad_w]
    per_image = ssim_idx.reshape(ssim_idx.shape[0], -1).mean(-1)
    if return_contrast_sensitivity:
        cs = (upper / lower)[..., pad_h:-pad_h, pad_w:-pad_w]
        return per_image, cs.reshape(cs.shape[0], -1).mean(-1)
    if return_full_image:
        return per_image, ssim_full
    return per_image


def ms_ssim(preds, target, betas=(0.0448, 0.2856, 0.3001, 0.2363), kernel_size=(3, 3)):
    mcs = []
    for i in range(len(betas)):
        sim, cs = ssim(preds, target, kernel_size=kernel_size, return_contrast_sensitivity=True)
        mcs.append(torch.relu(cs) if i < len(betas) - 1 else torch.relu(sim))
        preds, target = F.avg_pool2d(preds, (2, 2)), F.avg_pool2d(target, (2, 2))
    stack = torch.stack(mcs)
    return torch.prod(stack ** torch.tensor(betas).view(-1, 1), dim=0)


def uqi(preds, target):
    mu_p, mu_t = preds.mean((-2, -1)), target.mean((-2, -1))
    var_p, var_t = preds.var((-2, -1), unbiased=True), target.var((-2, -1), unbiased=True)
    cov = ((preds - mu_p[..., None, None]) * (target - mu_t[..., None, None])).sum((-2, -1)) / (preds[0, 0].numel() - 1)
    return (4 * cov * mu_p * mu_t / ((var_p + var_t) * (mu_p ** 2 + mu_t ** 2))).mean()


def spectral_angle_mapper(preds, target):
    dot = (preds * target).sum(1)
    norms = preds.norm(dim=1) * target.norm(dim=1)
    return torch.clamp(dot / norms, -1, 1).acos().mean()


def ergas(preds, target, ratio=4):
    b, c = preds.shape[:2]
    p, t = preds.reshape(b, c, -1), target.reshape(b, c, -1)
    rmse = torch.sqrt(((p - t) ** 2).mean(-1))
    return (100 * ratio * torch.sqrt(((rmse / t.mean(-1)) ** 2).sum(1) / c)).mean()


def total_variation(img, reduction="sum"):
    dh = (img[..., 1:, :] - img[..., :-1, :]).abs().sum(dim=[1, 2, 3])
    dw = (img[..., :, 1:] - img[..., :, :-1]).abs().sum(dim=[1, 2, 3])
    res = dh + dw
    return {"sum": res.sum(), "mean": res.mean(), "none": res}[reduction]


target = torch.from_numpy(rng.random((3, 3, 32, 32))).float()
target = F.avg_pool2d(F.pad(target, (1, 1, 1, 1), mode="replicate"), 3, stride=1)
noisy = (target + torch.from_numpy(rng.normal(0, 0.05, target.shape)).float()).clamp(0, 1)
blurred = F.avg_pool2d(target, 3, stride=1, padding=1, count_include_pad=False)
print("psnr", r(psnr(noisy, target, data_range=1.0)), r(psnr(blurred, target)), r(psnr(noisy, target, base=2.0)))
print("psnr per image", r(psnr(noisy, target, 1.0, reduction="none", dim=(1, 2, 3))),
      r(psnr(noisy, target, 1.0, reduction="sum", dim=(1, 2, 3))))
print("kernel", r(gaussian(7, 1.5, torch.float32)),
      r(gaussian_kernel_2d(3, (5, 5), (1.0, 2.0), torch.float64)[0, 0, 2]))
s = ssim(noisy, target)
sb, full = ssim(blurred, target, kernel_size=(11, 11), return_full_image=True)
print("ssim", r(s), r(sb), tuple(full.shape), r(full[0, 0, 0, :4]), r(ssim(target, target)))
print("ssim double", ssim(noisy.double(), target.double()).dtype, r(ssim(noisy.double(), target.double()) - s.double()))
print("ms-ssim", r(ms_ssim(noisy, target)), r(ms_ssim(blurred, target)))
print("uqi", r(uqi(noisy, target)), "sam", r(spectral_angle_mapper(noisy, target)), "ergas", r(ergas(noisy, target)))
print("tv", r(total_variation(noisy)), r(total_variation(target, "none")), r(total_variation(blurred, "mean")))
x = noisy.clone().requires_grad_()
loss = 1 - ssim(x, target).mean() + 0.01 * total_variation(x, "mean") / x[0].numel()
loss.backward()
print("ssim loss grad", round(loss.item(), 4), r(x.grad[0, 0, 5, :4]), x.grad.abs().max().item() > 0)


class Metric(nn.Module):
    def __init__(self):
        super().__init__()
        self._defaults = {}
        self._computed = None

    def add_state(self, name, default, persistent=False):
        self.register_buffer(name, default.clone(), persistent=persistent)
        self._defaults[name] = default.clone()

    def forward(self, *args):
        self.update(*args)
        self._computed = None
        return self.compute()

    def reset(self):
        for name, default in self._defaults.items():
            setattr(self, name, default.clone().to(getattr(self, name).device))
        self._computed = None

    def merge_state(self, other):
        for name in self._defaults:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class PeakSignalNoiseRatio(Metric):
    def __init__(self, data_range=1.0):
        super().__init__()
        self.data_range = data_range
        self.add_state("sum_squared_error", torch.tensor(0.0), persistent=True)
        self.add_state("total", torch.tensor(0))

    def update(self, preds, target):
        self.sum_squared_error += torch.sum(torch.pow(preds - target, 2))
        self.total += target.numel()

    def compute(self):
        return 10 * torch.log10(self.data_range ** 2 / (self.sum_squared_error / self.total))

    def extra_repr(self):
        return f"data_range={self.data_range}"


m = PeakSignalNoiseRatio()
print(m, list(m.state_dict().keys()), [n for n, _ in m.named_buffers()])
for i in range(3):
    bv = m(noisy[i:i + 1], target[i:i + 1])
print("batch", r(bv), "epoch", r(m.compute()), m.total.item(), m.sum_squared_error.dtype)
other = PeakSignalNoiseRatio()
other.update(blurred, target)
m.merge_state(other)
print("merged", r(m.compute()), m.total.dtype)
m.double()
print("double", m.sum_squared_error.dtype, m.total.dtype, r(m.compute()), m.compute().dtype)
sd = m.state_dict()
fresh = PeakSignalNoiseRatio()
res = fresh.load_state_dict(sd, strict=False)
print("loaded", res, fresh.sum_squared_error.dtype, r(fresh.sum_squared_error), fresh.total.item())
m.reset()
print("reset", m.sum_squared_error.item(), m.total.item(), m.sum_squared_error.dtype)
m.half()
print("half", m.sum_squared_error.dtype, m.total.dtype)

for fn in [lambda: ssim(noisy, target.double()), lambda: ssim(noisy, target, kernel_size=(4, 4)),
           lambda: F.conv2d(noisy, gaussian_kernel_2d(3, (3, 3), (1.0, 1.0), torch.float32), groups=2),
           lambda: F.pad(noisy, (40, 40, 0, 0), mode="reflect"), lambda: F.avg_pool2d(noisy[:, :, :1], 2),
           lambda: fresh.load_state_dict({"sum_squared_error": torch.zeros(2)}),
           lambda: fresh.load_state_dict({}, strict=True)]:
    try:
        fn()
        print("ok")
    except Exception as e:
        print(type(e).__name__, "|", str(e).replace("\n", " / ")[:170])
