"""Autoregressive density models as PixelCNN++/MADE code writes them: type-A/B masked convolutions through a
registered mask buffer, MADE connectivity masks from fixed orderings, the discretized mixture-of-logistics
log-likelihood (nested torch.where on edge cases, log_prob_from_logits, log-sum-exp over mixtures), a
raster-order sampling loop with argmax decoding, and bits-per-dim bookkeeping."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)


def r(x, n=6):
    return [round(v, 4) for v in x.detach().double().flatten()[:n].tolist()]


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assert mask_type in ("A", "B")
        self.register_buffer("mask", self.weight.data.clone())
        _, _, kH, kW = self.weight.size()
        self.mask.fill_(1)
        self.mask[:, :, kH // 2, kW // 2 + (mask_type == "B"):] = 0
        self.mask[:, :, kH // 2 + 1:] = 0

    def forward(self, x):
        self.weight.data *= self.mask
        return super().forward(x)


def det_init_(module, scale=0.2):
    with torch.no_grad():
        for k, (name, p) in enumerate(module.named_parameters()):
            p.copy_(scale * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * (0.31 + 0.02 * k) + k).view_as(p))


conv_a = MaskedConv2d("A", 1, 2, 5, padding=2)
conv_b = MaskedConv2d("B", 2, 2, 3, padding=1)
print("mask A\n", conv_a.mask[0, 0])
print("mask B\n", conv_b.mask[0, 0])
print("buffers", [n for n, _ in conv_a.named_buffers()], "params", [n for n, _ in conv_a.named_parameters()])

# receptive field check: output at (i, j) depends only on earlier pixels in raster order
img = torch.zeros(1, 1, 5, 5, requires_grad=True)
det_init_(conv_a)
det_init_(conv_b)
out = conv_b(F.relu(conv_a(img)))
out[0, 0, 2, 2].backward()
dep = (img.grad[0, 0] != 0).int()
print("depends on\n", dep)
print("causal", bool(dep.flatten()[2 * 5 + 2:].sum() == 0))


def made_masks(in_dim, hidden, order):
    m_in = order
    m_hid = [torch.arange(h) % (in_dim - 1) for h in hidden]
    masks = []
    prev = m_in
    for m in m_hid:
        masks.append((m[:, None] >= prev[None, :]).float())
        prev = m
    masks.append((m_in[:, None] > prev[None, :]).float())
    return masks


order = torch.tensor([2, 0, 3, 1])
masks = made_masks(4, [6, 6], order)
print("made mask shapes", [tuple(m.shape) for m in masks], "output mask\n", masks[-1])
conn = masks[-1] @ masks[1] @ masks[0]
print("connectivity (out x in)\n", (conn > 0).int(), "\nautoregressive",
      bool(((conn > 0) & (order[:, None] <= order[None, :])).sum() == 0))


def log_prob_from_logits(x):
    m, _ = torch.max(x, dim=-1, keepdim=True)
    return x - m - torch.log(torch.sum(torch.exp(x - m), dim=-1, keepdim=True))


def discretized_mix_logistic_loss_1d(x, l):
    """x in [-1, 1] of shape [B, H, W, 1]; l [B, H, W, 3 * nr_mix]."""
    xs = list(x.size())
    nr_mix = l.size(-1) // 3
    logit_probs = l[:, :, :, :nr_mix]
    l = l[:, :, :, nr_mix:].contiguous().view(xs + [nr_mix * 2])
    means = l[:, :, :, :, :nr_mix]
    log_scales = torch.clamp(l[:, :, :, :, nr_mix:2 * nr_mix], min=-7.0)
    x = x.contiguous().unsqueeze(-1) + torch.zeros(xs + [nr_mix])
    centered_x = x - means
    inv_stdv = torch.exp(-log_scales)
    plus_in = inv_stdv * (centered_x + 1.0 / 255.0)
    cdf_plus = torch.sigmoid(plus_in)
    min_in = inv_stdv * (centered_x - 1.0 / 255.0)
    cdf_min = torch.sigmoid(min_in)
    log_cdf_plus = plus_in - F.softplus(plus_in)
    log_one_minus_cdf_min = -F.softplus(min_in)
    cdf_delta = cdf_plus - cdf_min
    mid_in = inv_stdv * centered_x
    log_pdf_mid = mid_in - log_scales - 2.0 * F.softplus(mid_in)
    inner_inner_cond = (cdf_delta > 1e-5).float()
    inner_inner_out = inner_inner_cond * torch.log(torch.clamp(cdf_delta, min=1e-12)) + (1.0 - inner_inner_cond) * (
        log_pdf_mid - math.log(127.5))
    inner_cond = (x > 0.999).float()
    inner_out = inner_cond * log_one_minus_cdf_min + (1.0 - inner_cond) * inner_inner_out
    cond = (x < -0.999).float()
    log_probs = cond * log_cdf_plus + (1.0 - cond) * inner_out
    log_probs = torch.sum(log_probs, dim=3) + log_prob_from_logits(logit_probs)
    return -torch.logsumexp(log_probs, dim=-1)


B, H, W, K = 2, 4, 4, 3
x = torch.linspace(-1, 1, B * H * W).view(B, H, W, 1)
x = torch.round((x + 1) * 127.5) / 127.5 - 1
l = torch.sin(torch.arange(B * H * W * 3 * K, dtype=torch.float32).view(B, H, W, 3 * K) * 0.17)
l.requires_grad_(True)
nll = discretized_mix_logistic_loss_1d(x, l)
print("nll per pixel", nll.shape, r(nll[0, 0], 4),
      "edges", round(nll[0, 0, 0].item(), 4), round(nll[1, 3, 3].item(), 4))
bpd = nll.sum() / (B * H * W * math.log(2))
bpd.backward()
print("bpd", round(bpd.item(), 4), "grad", r(l.grad[0, 0, 0], 9))
print("log_prob_from_logits == log_softmax", torch.allclose(log_prob_from_logits(l.detach()),
                                                             F.log_softmax(l.detach(), -1), atol=1e-6))


# raster-order greedy sampling with a tiny masked-conv model over 4 gray levels
class TinyPixelCNN(nn.Module):
    def __init__(self, levels=4):
        super().__init__()
        self.levels = levels
        self.net = nn.Sequential(MaskedConv2d("A", 1, 8, 3, padding=1), nn.ReLU(),
                                 MaskedConv2d("B", 8, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, levels, 1))
        det_init_(self, 0.4)

    def forward(self, x):
        return self.net(x / (self.levels - 1) * 2 - 1)


model = TinyPixelCNN().eval()
sample = torch.zeros(2, 1, 4, 4)
sample[1, 0, 0, 0] = 3
with torch.no_grad():
    for i in range(4):
        for j in range(4):
            if i == 0 and j == 0:
                continue
            logits = model(sample)[:, :, i, j]
            sample[:, 0, i, j] = logits.argmax(-1).float()
print("greedy samples\n", sample.squeeze(1).long())
with torch.no_grad():
    logits = model(sample)
    ll = -F.cross_entropy(logits, sample.squeeze(1).long(), reduction="none").sum(dim=(1, 2))
print("log-likelihood of samples", r(ll, 2), "levels", logits.shape[1])
