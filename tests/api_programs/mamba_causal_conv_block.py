"""A Mamba block's front end: in_proj split into x/z with chunk, a depthwise causal Conv1d (groups=d, padding=k-1
trimmed), silu gating, an RMSNorm module with eps, and a step-wise conv state for inference that matches the
full-sequence convolution."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


d_model, d_inner, k = 6, 8, 4
in_proj = nn.Linear(d_model, 2 * d_inner, bias=False)
conv = nn.Conv1d(d_inner, d_inner, kernel_size=k, groups=d_inner, padding=k - 1, bias=True)
out_proj = nn.Linear(d_inner, d_model)
norm = RMSNorm(d_model)
print(conv)
print("conv weight", tuple(conv.weight.shape), conv.groups, conv.padding, conv.padding_mode)
print(norm.weight.shape, in_proj)

x = torch.randn(2, 10, d_model, requires_grad=True)
h = norm(x)
xz = in_proj(h)
xi, z = xz.chunk(2, dim=-1)
print("chunk", tuple(xi.shape), xi.is_contiguous(), xi.stride(), z.grad_fn.__class__.__name__)
xc = conv(xi.transpose(1, 2))
print("conv out", tuple(xc.shape))
xc = xc[..., :10]
xc = F.silu(xc).transpose(1, 2)
y = out_proj(xc * F.silu(z)) + x
print("y", tuple(y.shape), round(y.sum().item(), 4), y[0, 0].round(decimals=4).tolist())

# step-wise inference with a rolling conv state
state = torch.zeros(2, d_inner, k)
steps = []
with torch.no_grad():
    for t in range(10):
        xt = xi[:, t].detach()
        state = torch.roll(state, shifts=-1, dims=-1)
        state[:, :, -1] = xt
        out = (state * conv.weight.squeeze(1)).sum(-1) + conv.bias
        steps.append(F.silu(out))
step_y = torch.stack(steps, 1)
print("step==full", torch.allclose(step_y, xc.detach(), atol=1e-5), tuple(step_y.shape))

# the same with F.conv1d and explicit left padding
xl = F.pad(xi.transpose(1, 2), (k - 1, 0))
y2 = F.conv1d(xl, conv.weight, conv.bias, groups=d_inner)
print("pad==trim", torch.allclose(F.silu(y2).transpose(1, 2), xc, atol=1e-6))

y.pow(2).mean().backward()
print("x.grad", round(x.grad.abs().sum().item(), 4))
print("conv.weight.grad", tuple(conv.weight.grad.shape), round(conv.weight.grad.sum().item(), 4))
print("norm grad", norm.weight.grad.round(decimals=4).tolist())

# built-in RMSNorm matches the hand-written one
rms = nn.RMSNorm(d_model, eps=1e-5)
print(rms, rms.normalized_shape, rms.eps)
with torch.no_grad():
    print("rms match", torch.allclose(rms(x), norm(x), atol=1e-6))
print(nn.RMSNorm([3, 4], elementwise_affine=False))
print("F.rms_norm", F.rms_norm(torch.arange(4.0).view(1, 4), (4,)).round(decimals=4).tolist())

# conv1d padding='same' and string padding errors
c2 = nn.Conv1d(4, 4, 3, padding="same", groups=2)
print("same", tuple(c2(torch.randn(1, 4, 7)).shape), c2.padding)
try:
    nn.Conv1d(4, 4, 3, padding="same", stride=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Conv1d(6, 4, 3, groups=4)
except Exception as e:
    print(type(e).__name__, e)
try:
    conv(torch.randn(2, 5, 10))
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Conv1d(4, 4, 3, padding="causal")
except Exception as e:
    print(type(e).__name__, str(e).split(",")[0])
try:
    F.conv1d(torch.randn(1, 4, 5), torch.randn(4, 1, 3), padding="causal", groups=4)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.silu(torch.arange(4))
except Exception as e:
    print(type(e).__name__, e)
