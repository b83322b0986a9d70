"""A small decoder run the way modern LLM code runs it in reduced precision: model.to(torch.bfloat16) for inference,
nn.RMSNorm and F.rms_norm in bfloat16 and half, scaled_dot_product_attention on bfloat16 heads, torch.autocast
training with float32 master weights and GradScaler, the dtypes and grad_fn names each step produces, and
agreement with the float32 model (printed coarsely: bfloat16 keeps 8 bits of mantissa)."""

import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(12)


class Block(nn.Module):
    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.RMSNorm(dim), nn.RMSNorm(dim, eps=1e-5)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=True)
        self.w12 = nn.Linear(dim, 4 * dim, bias=False)
        self.w3 = nn.Linear(2 * dim, dim, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        x1, x2 = self.w12(self.norm2(x)).chunk(2, dim=-1)
        return x + self.w3(F.silu(x1) * x2)


class Decoder(nn.Module):
    def __init__(self, vocab=12, dim=16, depth=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.norm = nn.RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x))


model = Decoder()
with torch.no_grad():
    for name, p in model.named_parameters():
        base = 1.0 if "norm" in name else 0.0
        p.copy_(torch.from_numpy((base + 0.3 * rng.standard_normal(p.shape)).astype(np.float32)))
idx = torch.from_numpy(rng.integers(0, 12, size=(2, 7)))
ref = model(idx)

bf = copy.deepcopy(model).to(torch.bfloat16)
print("param dtypes", sorted({str(p.dtype) for p in bf.parameters()}), "norm eps", bf.norm.eps, bf.blocks[0].norm2.eps)
out = bf(idx)
print("bf16 logits", out.dtype, tuple(out.shape), out.grad_fn.name())
print("close to float32", torch.allclose(out.float(), ref, atol=0.25, rtol=0.05),
      "argmax agree", round((out.argmax(-1) == ref.argmax(-1)).float().mean().item(), 1) >= 0.8)

x = torch.from_numpy(rng.standard_normal((3, 16)).astype(np.float32))
for dt in (torch.bfloat16, torch.float16):
    xr = x.to(dt)
    y = F.rms_norm(xr, (16,))
    yw = F.rms_norm(xr, (16,), torch.ones(16, dtype=dt))
    ref_rms = x / x.pow(2).mean(-1, keepdim=True).add(torch.finfo(torch.float32).eps).sqrt()
    print(dt, "rms_norm", y.dtype, "weighted equal", torch.equal(y, yw),
          "close", torch.allclose(y.float(), ref_rms, atol=1e-2, rtol=1e-2),
          "module", nn.RMSNorm(16).to(dt)(xr).dtype)
    ln = F.layer_norm(xr, (16,), torch.ones(16, dtype=dt), torch.zeros(16, dtype=dt))
    print(" layer_norm", ln.dtype, torch.allclose(ln.float(), F.layer_norm(x, (16,)), atol=2e-2))

q = torch.from_numpy(rng.standard_normal((1, 2, 5, 8)).astype(np.float32))
att16 = F.scaled_dot_product_attention(q.bfloat16(), q.bfloat16(), q.bfloat16(), is_causal=True)
att32 = F.scaled_dot_product_attention(q, q, q, is_causal=True)
print("sdpa", att16.dtype, torch.allclose(att16.float(), att32, atol=3e-2), "first row exact",
      torch.equal(att16[0, :, 0].float(), q.bfloat16()[0, :, 0].float()))
lin = nn.Linear(16, 4).bfloat16()
xb = x.bfloat16().requires_grad_()
print("linear nodes", lin(xb).grad_fn.name(), lin(xb[None]).grad_fn.name(), F.linear(xb, lin.weight).grad_fn.name())

train = copy.deepcopy(model)
opt = torch.optim.AdamW(train.parameters(), lr=3e-3, weight_decay=0.01)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
targets = torch.from_numpy(rng.integers(0, 12, size=(2, 7)))
losses = []
for step in range(4):
    opt.zero_grad(set_to_none=True)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        logits = train(idx)
        loss = F.cross_entropy(logits.reshape(-1, 12), targets.reshape(-1))
    if step == 0:
        print("autocast dtypes", logits.dtype, loss.dtype, torch.is_autocast_enabled("cpu"),
              torch.get_autocast_dtype("cpu"))
    scaler.scale(loss).backward()
    if step == 0:
        print("grad dtype", train.head.weight.grad.dtype, "scaled", scaler.get_scale())
    scaler.unscale_(opt)
    gn = nn.utils.clip_grad_norm_(train.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    losses.append(loss.item())
print("losses", [round(v, 1) for v in losses], "decreasing", losses[-1] < losses[0], "finite", bool(torch.isfinite(gn)))
print("master weights", train.head.weight.dtype, "scale", scaler.get_scale())
with torch.inference_mode():
    gen = idx[:1, :3]
    for _ in range(4):
        nxt = bf(gen)[:, -1].float().argmax(-1, keepdim=True)
        gen = torch.cat([gen, nxt], 1)
print("generated", tuple(gen.shape), gen.dtype, gen[0, :3].tolist())
