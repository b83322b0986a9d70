"""Shrinking embedding tables for serving: fp16/bf16 bags, row-wise int8 and 4-bit quantization, mixed
dims, autocast."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)

V, D = 32, 8
table = torch.randn(V, D)
idx = torch.randint(0, V, (40,))
off = torch.arange(0, 40, 5)
ref = F.embedding_bag(idx, table, off, mode="mean")

for dt in (torch.float16, torch.bfloat16):
    for mode in ("sum", "mean", "max"):
        out = F.embedding_bag(idx, table.to(dt), off, mode=mode)
        print(dt, mode, out.dtype, out[0, :4].float().tolist())
    print(
        "psw",
        F.embedding_bag(idx, table.to(dt), off, mode="sum", per_sample_weights=torch.linspace(0, 1, 40).to(dt))[1, :4]
        .float()
        .tolist(),
    )
    print(
        "padding", F.embedding_bag(idx, table.to(dt), off, mode="mean", padding_idx=int(idx[0]))[0, :4].float().tolist()
    )
    err = (F.embedding_bag(idx, table.to(dt), off, mode="mean").float() - ref).abs().max()
    print(
        "max err vs fp32 below",
        0.01 if dt == torch.float16 else 0.05,
        bool(err < (0.01 if dt == torch.float16 else 0.05)),
    )
# gradients of 16-bit tables (rows added in the dtype)
gout = torch.linspace(-1, 1, 8 * D).view(8, D)
for dt, mode in ((torch.float16, "mean"), (torch.bfloat16, "sum"), (torch.float16, "max")):
    hw = table.to(dt).requires_grad_()
    F.embedding_bag(idx, hw, off, mode=mode).backward(gout.to(dt))
    print("grad", dt, mode, hw.grad.dtype, hw.grad.float().sum(1)[:8].tolist())
hw = table.half().requires_grad_()
F.embedding_bag(idx, hw, off, mode="sum", per_sample_weights=torch.linspace(0, 1, 40).half()).backward(gout.half())
print("psw grad rows", hw.grad.float()[idx[:3]].sum(1).tolist())
hs = table.half().requires_grad_()
F.embedding_bag(idx, hs, off, mode="mean", sparse=True).backward(gout.half())
print("sparse fp16 grad", hs.grad.layout, hs.grad.coalesce().values().float().sum(1)[:6].tolist())
print("sparse to_dense", hs.grad.to_dense().float().sum(1)[:8].tolist())
half_bag = nn.EmbeddingBag(V, D, mode="mean").half()
print(half_bag.weight.dtype, half_bag(idx, off).dtype)

# row-wise int8 (scale and bias per row, as FBGEMM's fused tables)
mn, mx = table.aminmax(dim=1)
print("aminmax", mn[:3].round(decimals=4).tolist(), mx[:3].round(decimals=4).tolist())
scale = (mx - mn) / 255.0
q = torch.round((table - mn.unsqueeze(1)) / scale.unsqueeze(1)).clamp(0, 255).to(torch.uint8)
print("q", q.dtype, q[0].tolist())
deq = q.float() * scale.unsqueeze(1) + mn.unsqueeze(1)
print("int8 max err <= scale/2", bool(((deq - table).abs() <= scale.unsqueeze(1) / 2 + 1e-6).all()))
bag_q = F.embedding_bag(idx, deq, off, mode="mean")
print("int8 bag err", round((bag_q - ref).abs().max().item(), 4) < 0.02)

# 4-bit: two codes per byte
scale4 = (mx - mn) / 15.0
q4 = torch.round((table - mn.unsqueeze(1)) / scale4.unsqueeze(1)).clamp(0, 15).to(torch.uint8)
packed = q4[:, 0::2] | (q4[:, 1::2] << 4)
print("packed", packed.shape, packed[0].tolist())
unpacked = torch.stack([packed & 0x0F, packed >> 4], dim=-1).flatten(1)
print("unpack ok", torch.equal(unpacked, q4))

# fake quantization as QAT uses it for the dense towers
fq = torch.fake_quantize_per_tensor_affine(table[:1], 0.1, 0, -128, 127)
print("fake quant", fq[0, :4].tolist())

# mixed-dimension embeddings projected to a common width
dims = [8, 4, 2]
tables = nn.ModuleList([nn.Embedding(10, d) for d in dims])
proj = nn.ModuleList([nn.Linear(d, 8, bias=False) if d != 8 else nn.Identity() for d in dims])
x = torch.tensor([[1, 2, 3], [4, 5, 6]])
outs = [p(t(x[:, i])) for i, (t, p) in enumerate(zip(tables, proj))]
print("mixed", [tuple(o.shape) for o in outs], proj)
print("param count", sum(p.numel() for p in tables.parameters()), sum(p.numel() for p in proj.parameters()))

# serving in half, training under bf16 autocast
mlp = nn.Sequential(nn.Linear(D, 4), nn.ReLU(), nn.Linear(4, 1))
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = F.embedding_bag(idx, table, off, mode="sum")
    logit = mlp(h)
print("autocast", h.dtype, logit.dtype)
served = mlp.half()(F.embedding_bag(idx, table.half(), off, mode="sum"))
print("served", served.dtype, served.shape)
print("state dict dtypes", {k: str(v.dtype) for k, v in half_bag.state_dict().items()})

for fn in (
    lambda: F.embedding_bag(idx, table.half(), off, mode="sum", per_sample_weights=torch.ones(40)),
    lambda: F.embedding_bag(idx, q, off),
    lambda: torch.add(q, q4, alpha=1.5),
):
    try:
        r = fn()
        print("no error", r.dtype)
    except Exception as e:
        print(type(e).__name__, e)
