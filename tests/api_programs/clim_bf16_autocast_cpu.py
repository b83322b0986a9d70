"""Mixed-precision weather model training on CPU: torch.autocast("cpu", dtype=torch.bfloat16) around a conv/attention
forecaster, which ops run in bf16 and which stay float32, fp32 master weights, bf16 reprs and rounding, and misuse."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1, padding_mode="circular")
        self.norm = nn.GroupNorm(2, c)
        self.attn = nn.MultiheadAttention(c, 2, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(c, 2 * c), nn.GELU(), nn.Linear(2 * c, c))
        self.ln = nn.LayerNorm(c)

    def forward(self, x):
        dt = {}
        h = self.conv(x)
        dt["conv"] = h.dtype
        h = self.norm(h)
        dt["groupnorm"] = h.dtype
        b, c, hh, ww = h.shape
        tok = h.flatten(2).transpose(1, 2)
        a, wts = self.attn(tok, tok, tok)
        dt["attn"], dt["attn_w"] = a.dtype, wts.dtype
        tok = self.ln(tok + a)
        dt["layernorm"] = tok.dtype
        m = self.mlp(tok)
        dt["mlp"] = m.dtype
        spec = torch.fft.rfft2(x.float())
        dt["rfft2"] = spec.dtype
        out = (tok + m).transpose(1, 2).reshape(b, c, hh, ww)
        return x + out, dt


torch.manual_seed(0)
torch.set_printoptions(precision=4)
blk = Block()
x = torch.randn(2, 8, 4, 6)
with torch.autocast("cpu", dtype=torch.bfloat16):
    y, dts = blk(x)
    print("enabled", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    loss = F.mse_loss(y, x)
    sm = torch.softmax(y, dim=-1)
    mm = y.flatten(1) @ x.flatten(1).T
    s = y.sum()
    print("loss", loss.dtype, "softmax", sm.dtype, "matmul", mm.dtype, "sum", s.dtype)
for k, v in dts.items():
    print(" ", k, v)
print("outside", torch.is_autocast_enabled("cpu"), y.dtype, blk.conv.weight.dtype)
loss.backward()
print("grad dtypes", blk.conv.weight.grad.dtype, blk.mlp[0].weight.grad.dtype, blk.ln.weight.grad.dtype)
print("loss", round(loss.item(), 2))

with torch.autocast("cpu", dtype=torch.bfloat16):
    with torch.autocast("cpu", enabled=False):
        z = blk.mlp(torch.randn(2, 8))
    zz = blk.mlp(torch.randn(2, 8))
    d64 = (
        blk.mlp[0](torch.randn(2, 8)).dtype,
        torch.randn(2, 8, dtype=torch.float64).matmul(torch.randn(8, 2, dtype=torch.float64)).dtype,
    )
print("nested", z.dtype, zz.dtype, d64)


@torch.autocast("cpu", dtype=torch.bfloat16)
def fwd(m, t):
    return m(t)


print("decorator", fwd(nn.Linear(4, 2), torch.randn(3, 4)).dtype)

xb = torch.tensor([1.0, 1.00390625, 1.0078125, 257.0, 1e-3, 3.14159265], dtype=torch.bfloat16)
print("bf16", xb, xb.float().tolist())
print("bf16 eps", torch.finfo(torch.bfloat16).eps, torch.finfo(torch.bfloat16).max, torch.finfo(torch.bfloat16).tiny)
print(
    "bf16 sum",
    torch.full((512,), 1.0, dtype=torch.bfloat16).cumsum(0)[-4:],
    torch.full((512,), 1.0, dtype=torch.bfloat16).sum(),
)
print(
    "bf16 add",
    torch.tensor(256.0, dtype=torch.bfloat16) + 1,
    torch.tensor(256.0, dtype=torch.bfloat16) + torch.tensor(1.0),
)
print("promote", (xb + torch.ones(6, dtype=torch.float16)).dtype, (xb * 2.5).dtype, (xb + torch.tensor(1)).dtype)
t = torch.randn(3, 4)
print("round trip err", round((t - t.bfloat16().float()).abs().max().item(), 3))
master = nn.Linear(4, 2)
model_bf = nn.Linear(4, 2).to(torch.bfloat16)
model_bf.load_state_dict(master.state_dict())
print("cast on load", model_bf.weight.dtype, torch.allclose(model_bf.weight.float(), master.weight, atol=1e-2))
opt = torch.optim.SGD(master.parameters(), lr=0.1)
out = model_bf(t.bfloat16()).float().pow(2).mean()
out.backward()
for pm, pb in zip(master.parameters(), model_bf.parameters()):
    pm.grad = pb.grad.float()
opt.step()
print("master step", master.weight.dtype, model_bf.weight.grad.dtype)

with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    with torch.autocast("cpu", dtype=torch.float64):
        print("float64 autocast", blk.mlp[0](torch.randn(1, 8)).dtype, torch.is_autocast_enabled("cpu"))
print([str(w.message).splitlines()[0] for w in ws])
try:
    with torch.autocast("tpu"):
        pass
except RuntimeError as e:
    print(type(e).__name__, str(e).splitlines()[0][:60])
try:
    nn.Linear(4, 2)(torch.randn(3, 4).bfloat16())
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.randn(2, 2).bfloat16() @ torch.randn(2, 2)
except RuntimeError as e:
    print(type(e).__name__, e)
