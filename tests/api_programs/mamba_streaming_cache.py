"""Streaming inference for a recurrent SSM layer: a prompt processed in chunks (torch.split, tensor_split, chunk)
with carried conv and SSM caches in a dict, torch.inference_mode and no_grad flags, cat of outputs, equality with
the full-sequence pass, and the errors of inference tensors used in autograd."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinySSM(nn.Module):
    def __init__(self, d, n=4, k=4):
        super().__init__()
        self.k = k
        self.conv = nn.Conv1d(d, d, k, groups=d, padding=k - 1)
        self.A_log = nn.Parameter(torch.log(torch.linspace(0.5, 2.0, n)).repeat(d, 1))
        self.proj = nn.Linear(d, 2 * n + 1)
        self.out = nn.Linear(d, d)

    def forward(self, x, cache=None):
        B, L, D = x.shape
        xt = x.transpose(1, 2)
        if cache is None:
            xc = self.conv(xt)[..., :L]
            conv_tail = F.pad(xt, (self.k - 1, 0))[..., -(self.k - 1) :]
            h = x.new_zeros(B, D, self.A_log.shape[1])
        else:
            full = torch.cat([cache["conv"], xt], dim=-1)
            xc = F.conv1d(full, self.conv.weight, self.conv.bias, groups=D)
            conv_tail = full[..., -(self.k - 1) :]
            h = cache["ssm"]
        xc = F.silu(xc).transpose(1, 2)
        dt, Bm, Cm = self.proj(xc).split([1, self.A_log.shape[1], self.A_log.shape[1]], dim=-1)
        dA = torch.exp(F.softplus(dt).unsqueeze(-1) * -torch.exp(self.A_log))
        ys = []
        for t in range(L):
            h = dA[:, t] * h + (F.softplus(dt[:, t]) * xc[:, t]).unsqueeze(-1) * Bm[:, t, None, :]
            ys.append((h * Cm[:, t, None, :]).sum(-1))
        y = self.out(torch.stack(ys, 1))
        return y, {"conv": conv_tail, "ssm": h}


m = TinySSM(3)
x = torch.randn(2, 10, 3)
full, fcache = m(x)
print("full", tuple(full.shape), round(full.sum().item(), 4), {k: tuple(v.shape) for k, v in fcache.items()})

outs, cache = [], None
for chunk in torch.split(x, 4, dim=1):
    y, cache = m(chunk, cache)
    outs.append(y)
print("split sizes", [c.shape[1] for c in torch.split(x, 4, dim=1)])
print(
    "split==full",
    torch.allclose(torch.cat(outs, 1), full, atol=1e-5),
    torch.allclose(cache["ssm"], fcache["ssm"], atol=1e-5),
)

outs, cache = [], None
parts = x.tensor_split([3, 5], dim=1)
print("tensor_split", [p.shape[1] for p in parts])
with torch.no_grad():
    for p in parts:
        y, cache = m(p, cache)
        outs.append(y)
print("no_grad", torch.allclose(torch.cat(outs, 1), full, atol=1e-5), outs[0].requires_grad, outs[0].grad_fn)

with torch.inference_mode():
    y_inf, c_inf = m(x)
    print("inference", y_inf.is_inference(), torch.is_inference_mode_enabled(), y_inf.requires_grad)
print("chunk", [c.shape[1] for c in x.chunk(3, dim=1)], [c.shape[0] for c in torch.arange(10).chunk(4)])
print("outside", torch.is_inference_mode_enabled(), full.is_inference())
try:
    (y_inf * m.out.weight.sum()).sum().backward()
    print("backward through an inference tensor input ok", m.out.weight.grad is not None)
except Exception as e:
    print(type(e).__name__, e)
try:
    y_inf.add_(1)
except Exception as e:
    print(type(e).__name__, e)
try:
    y_inf.requires_grad_()
except Exception as e:
    print(type(e).__name__, e)
with torch.inference_mode(mode=False):
    print("mode False", torch.is_inference_mode_enabled(), torch.is_grad_enabled())


@torch.inference_mode()
def generate(model, prompt, steps):
    y, cache = model(prompt)
    last = y[:, -1:]
    out = [last]
    for _ in range(steps):
        last, cache = model(last, cache)
        out.append(last)
    return torch.cat(out, 1)


g = generate(m, x[:, :5], 3)
print("generate", tuple(g.shape), g.is_inference(), round(g.abs().sum().item(), 4))
try:
    torch.split(x, [4, 4], dim=1)
except Exception as e:
    print(type(e).__name__, e)
try:
    x.tensor_split(0, dim=1)
except Exception as e:
    print(type(e).__name__, e)
