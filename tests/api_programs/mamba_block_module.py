"""A Mamba block as an nn.Module the way the reference code writes it: dt bias initialised through the inverse
softplus (log(-expm1(-dt))), S4D-real A_log, _no_weight_decay flags read by the optimizer setup, parameter counts,
the module repr, state_dict round trips, a step-wise decode with caches that matches the full pass."""

import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Mamba(nn.Module):
    def __init__(self, d_model, d_state=4, d_conv=3, expand=2, dt_min=0.001, dt_max=0.1):
        super().__init__()
        self.d_inner = expand * d_model
        self.d_state, self.d_conv = d_state, d_conv
        self.dt_rank = math.ceil(d_model / 16)
        self.in_proj = nn.Linear(d_model, self.d_inner * 2, bias=False)
        self.conv1d = nn.Conv1d(self.d_inner, self.d_inner, d_conv, groups=self.d_inner, padding=d_conv - 1)
        self.x_proj = nn.Linear(self.d_inner, self.dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, self.d_inner, bias=True)
        dt_init_std = self.dt_rank**-0.5
        nn.init.uniform_(self.dt_proj.weight, -dt_init_std, dt_init_std)
        dt = torch.exp(torch.rand(self.d_inner) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min))
        dt = dt.clamp(min=1e-4)
        inv_dt = dt + torch.log(-torch.expm1(-dt))
        with torch.no_grad():
            self.dt_proj.bias.copy_(inv_dt)
        self.dt_proj.bias._no_reinit = True
        A = torch.arange(1, d_state + 1, dtype=torch.float32).repeat(self.d_inner, 1).contiguous()
        self.A_log = nn.Parameter(torch.log(A))
        self.A_log._no_weight_decay = True
        self.D = nn.Parameter(torch.ones(self.d_inner))
        self.D._no_weight_decay = True
        self.out_proj = nn.Linear(self.d_inner, d_model, bias=False)

    def ssm(self, x, dt, B, C, h=None):
        A = -torch.exp(self.A_log.float())
        dA = torch.exp(dt.unsqueeze(-1) * A)
        dBx = dt.unsqueeze(-1) * B.unsqueeze(-2) * x.unsqueeze(-1)
        h = torch.zeros_like(dA[:, 0]) if h is None else h
        ys = []
        for t in range(x.shape[1]):
            h = dA[:, t] * h + dBx[:, t]
            ys.append(torch.einsum("bdn,bn->bd", h, C[:, t]))
        return torch.stack(ys, 1) + x * self.D, h

    def forward(self, u):
        L = u.shape[1]
        x, z = self.in_proj(u).chunk(2, dim=-1)
        x = F.silu(self.conv1d(x.transpose(1, 2))[..., :L].transpose(1, 2))
        dt, B, C = torch.split(self.x_proj(x), [self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt))
        y, _ = self.ssm(x, dt, B, C)
        return self.out_proj(y * F.silu(z))

    @torch.no_grad()
    def step(self, u, conv_state, ssm_state):
        x, z = self.in_proj(u).chunk(2, dim=-1)
        conv_state.copy_(torch.roll(conv_state, shifts=-1, dims=-1))
        conv_state[:, :, -1] = x
        x = torch.sum(conv_state * self.conv1d.weight.squeeze(1), dim=-1) + self.conv1d.bias
        x = F.silu(x)
        dt, B, C = torch.split(self.x_proj(x), [self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt))
        y, h = self.ssm(x[:, None], dt[:, None], B[:, None], C[:, None], ssm_state)
        ssm_state.copy_(h)
        return self.out_proj(y[:, 0] * F.silu(z))


m = Mamba(8)
print(m)
print("dt_rank", m.dt_rank, "params", sum(p.numel() for p in m.parameters()))
dt_back = F.softplus(m.dt_proj.bias)
print("inv softplus", round(dt_back.min().item(), 5) >= 1e-3, round(dt_back.max().item(), 5) <= 0.1)
print("flags", [n for n, p in m.named_parameters() if getattr(p, "_no_weight_decay", False)])
decay = [p for n, p in m.named_parameters() if p.dim() >= 2 and not getattr(p, "_no_weight_decay", False)]
no_decay = [p for n, p in m.named_parameters() if p.dim() < 2 or getattr(p, "_no_weight_decay", False)]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-2)
print("groups", [len(g["params"]) for g in opt.param_groups], [g["weight_decay"] for g in opt.param_groups])

u = torch.randn(2, 6, 8)
y = m(u)
print("y", tuple(y.shape), round(y.sum().item(), 4), y[0, -1, :4].round(decimals=4).tolist())

conv_state = torch.zeros(2, m.d_inner, m.d_conv)
ssm_state = torch.zeros(2, m.d_inner, m.d_state)
steps = torch.stack([m.step(u[:, t], conv_state, ssm_state) for t in range(6)], 1)
print("step==full", torch.allclose(steps, y, atol=1e-5), steps.requires_grad, tuple(ssm_state.shape))

for it in range(3):
    opt.zero_grad()
    loss = (m(u) - u).pow(2).mean()
    loss.backward()
    opt.step()
    print("loss", it, round(loss.item(), 4))
print("A_log grad", round(m.A_log.grad.abs().sum().item(), 4), "D grad", m.D.grad.shape)

sd = m.state_dict()
print("keys", list(sd.keys()))
m2 = Mamba(8)
print(m2.load_state_dict(sd))
print("reload", torch.equal(m2(u), m(u)))
sd.pop("D")
print(m2.load_state_dict(sd, strict=False))
try:
    m2.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    torch.split(torch.zeros(2, 5), [1, 2, 3], dim=-1)
except Exception as e:
    print(type(e).__name__, e)
try:
    m(torch.randn(2, 6, 7))
except Exception as e:
    print(type(e).__name__, e)
