"""A selective state-space (Mamba-style) block: depthwise causal Conv1d, softplus step sizes, discretised A/B
through einsum, a sequential selective scan wrapped as a torch.library.custom_op with a registered autograd
formula (checked against plain autograd), a log-space cumsum scan, RMSNorm residuals and an AdamW step."""

import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def scan_ref(u, delta, A, B, C, D):
    b, d, l = u.shape
    deltaA = torch.exp(torch.einsum("bdl,dn->bdln", delta, A))
    deltaB_u = torch.einsum("bdl,bnl,bdl->bdln", delta, B, u)
    x = u.new_zeros((b, d, A.shape[1]))
    ys = []
    for i in range(l):
        x = deltaA[:, :, i] * x + deltaB_u[:, :, i]
        ys.append(torch.einsum("bdn,bn->bd", x, C[:, :, i]))
    return torch.stack(ys, dim=2) + u * D[None, :, None]


@torch.library.custom_op("ssm::selective_scan", mutates_args=())
def selective_scan(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor, B: torch.Tensor, C: torch.Tensor,
                   D: torch.Tensor) -> torch.Tensor:
    return scan_ref(u, delta, A, B, C, D)


@selective_scan.register_fake
def _(u, delta, A, B, C, D):
    return torch.empty_like(u)


def setup_context(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def backward(ctx, grad):
    inputs = [t.detach().requires_grad_() for t in ctx.saved_tensors]
    with torch.enable_grad():
        out = scan_ref(*inputs)
    return torch.autograd.grad(out, inputs, grad)


selective_scan.register_autograd(backward, setup_context=setup_context)


class MambaBlock(nn.Module):
    def __init__(self, d_model=6, d_state=4, d_conv=3, expand=2):
        super().__init__()
        d_inner = expand * d_model
        self.dt_rank = math.ceil(d_model / 4)
        self.in_proj = nn.Linear(d_model, d_inner * 2, bias=False)
        self.conv1d = nn.Conv1d(d_inner, d_inner, kernel_size=d_conv, groups=d_inner, padding=d_conv - 1)
        self.x_proj = nn.Linear(d_inner, self.dt_rank + d_state * 2, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, d_inner)
        A = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(d_inner, 1)
        self.A_log = nn.Parameter(torch.log(A))
        self.D = nn.Parameter(torch.ones(d_inner))
        self.out_proj = nn.Linear(d_inner, d_model, bias=False)
        self.norm = nn.RMSNorm(d_model, eps=1e-5)
        self.d_state = d_state

    def forward(self, hidden, use_op=True):
        L = hidden.shape[1]
        xz = self.in_proj(self.norm(hidden)).transpose(1, 2)
        x, z = xz.chunk(2, dim=1)
        x = F.silu(self.conv1d(x)[..., :L])
        x_dbl = self.x_proj(x.transpose(1, 2))
        dt, B, C = torch.split(x_dbl, [self.dt_rank, self.d_state, self.d_state], dim=-1)
        delta = F.softplus(self.dt_proj(dt)).transpose(1, 2)
        A = -torch.exp(self.A_log.float())
        args = (x, delta, A, B.transpose(1, 2).contiguous(), C.transpose(1, 2).contiguous(), self.D.float())
        y = selective_scan(*args) if use_op else scan_ref(*args)
        y = y * F.silu(z)
        return hidden + self.out_proj(y.transpose(1, 2))


block = MambaBlock()
with torch.no_grad():
    for n, p in block.named_parameters():
        if n not in ("A_log", "D", "norm.weight"):
            p.copy_(T(*p.shape) * 0.3)
print("shapes", [tuple(p.shape) for p in (block.conv1d.weight, block.x_proj.weight, block.A_log)], block.dt_rank)
print("conv", block.conv1d, block.norm)
h = T(2, 5, 6)
out = block(h)
print("out", tuple(out.shape), r(out[0, -1]), out.grad_fn.name())
loss = out.pow(2).mean()
loss.backward()
g_op = {n: p.grad.clone() for n, p in block.named_parameters()}
block.zero_grad()
block(h, use_op=False).pow(2).mean().backward()
print("op_grads_match", all(torch.allclose(g_op[n], p.grad, atol=1e-6) for n, p in block.named_parameters()),
      r(g_op["A_log"][0]), r(g_op["dt_proj.bias"]))
y_scan = block(h).detach()
with torch.no_grad():
    inner = selective_scan(T(1, 3, 4), F.softplus(T(1, 3, 4)), -torch.rand(3, 2) * 0 - 1.0, T(1, 2, 4), T(1, 2, 4),
                           torch.zeros(3))
print("scan_no_grad", inner.requires_grad, tuple(inner.shape), r(inner))

# a linear recurrence h_t = a_t h_{t-1} + b_t in closed form via log-space cumulative sums
a = torch.sigmoid(T(2, 6))
b = T(2, 6)
log_a_cum = torch.cumsum(torch.log(a), dim=-1)
h_closed = torch.exp(log_a_cum) * torch.cumsum(b * torch.exp(-log_a_cum), dim=-1)
h_loop = torch.zeros(2)
rows = []
for t in range(6):
    h_loop = a[:, t] * h_loop + b[:, t]
    rows.append(h_loop)
print("closed_scan", torch.allclose(h_closed, torch.stack(rows, 1), atol=1e-4), r(h_closed[0]))
print("logcumsumexp", r(torch.logcumsumexp(torch.log(a[0]), 0)), r(torch.cummax(b[0], 0).values))

opt = torch.optim.AdamW(block.parameters(), lr=1e-2, weight_decay=0.1)
for step in range(3):
    loss = F.mse_loss(block(h), h.roll(1, dims=1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), round(block.A_log[0, 0].item(), 4))
