"""accelerate/Lightning mixed-precision plugins re-implemented on the CPU: a Transformer block (LayerNorm, softmax
attention, SiLU/GELU/tanh/sigmoid gates) trained under torch.autocast('cpu', bfloat16) with fp32 master weights,
the same model cast to pure bfloat16 (model.to(dtype), optimizer on bf16 params), float16 autocast with a GradScaler
(scale, unscale_, inf checks, update), dtype reports per op through forward hooks, and the dtype errors users hit."""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(47)


def r(t, n=6, d=3):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), d).tolist()


class Block(nn.Module):
    def __init__(self, d=16, act="silu"):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.up, self.gate, self.down = nn.Linear(d, 2 * d), nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.act = act

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, -1)
        att = (q @ k.transpose(-1, -2)) / d ** 0.5
        att = att.masked_fill(torch.triu(torch.ones(t, t, dtype=torch.bool), 1), float("-inf")).softmax(-1)
        x = x + self.proj(att @ v)
        h = self.ln2(x)
        g = {"silu": F.silu, "gelu": F.gelu, "tanh": torch.tanh, "sigmoid": torch.sigmoid}[self.act](self.gate(h))
        return x + self.down(self.up(h) * g)


def make(act):
    torch.manual_seed(0)
    m = nn.Sequential(Block(act=act), nn.Linear(16, 4))
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.normal(size=p.shape) * 0.3))
    return m


X = torch.from_numpy(rng.normal(size=(4, 6, 16))).float()
Y = torch.from_numpy(rng.integers(0, 4, (4, 6)))
dtypes_seen = {}
hooks = []
model = make("silu")


def record_dtype(module, args, output):
    dtypes_seen.setdefault(type(module).__name__, (str(args[0].dtype), str(output.dtype)))


for name, mod in model.named_modules():
    if isinstance(mod, (nn.Linear, nn.LayerNorm)):
        hooks.append(mod.register_forward_hook(record_dtype))
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model(X)
    loss = F.cross_entropy(out.reshape(-1, 4), Y.reshape(-1))
print("autocast dtypes", dtypes_seen, out.dtype, loss.dtype, torch.is_autocast_enabled("cpu"),
      torch.get_autocast_dtype("cpu"))
for h in hooks:
    h.remove()
loss.backward()
print("master grads", model[0].qkv.weight.grad.dtype, r(model[0].qkv.weight.grad[0] * 100, 4, 2),
      r(model[1].bias.grad, 4, 2))

for act in ["silu", "gelu", "tanh", "sigmoid"]:
    m = make(act)
    opt = torch.optim.AdamW(m.parameters(), lr=3e-3)
    losses = []
    for step in range(4):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = F.cross_entropy(m(X).reshape(-1, 4), Y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 2))
    print("autocast", act, losses, m[1].weight.dtype, opt.state[m[1].weight]["exp_avg"].dtype)

pure = make("silu").to(torch.bfloat16)
opt = torch.optim.SGD(pure.parameters(), lr=0.05, momentum=0.9)
for step in range(3):
    out = pure(X.to(torch.bfloat16))
    loss = F.cross_entropy(out.float().reshape(-1, 4), Y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("pure bf16", step, round(loss.item(), 2), out.dtype, pure[0].up.weight.grad.dtype,
          pure[0].ln1.weight.grad.shape)
print("bf16 params", {p.dtype for p in pure.parameters()}, opt.state[pure[1].weight]["momentum_buffer"].dtype)

half = make("gelu")
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 12, growth_interval=2)
opt = torch.optim.SGD(half.parameters(), lr=0.05)
for step in range(4):
    with torch.autocast("cpu", dtype=torch.float16):
        out = half(X)
        loss = F.cross_entropy(out.reshape(-1, 4), Y.reshape(-1))
    if step == 1:
        loss = loss * float("inf")
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    gn = torch.nn.utils.clip_grad_norm_(half.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    print("fp16 scaler", step, scaler.get_scale(), bool(torch.isfinite(gn)),
          round(loss.item(), 2) if step != 1 else "inf", half[1].weight.grad.dtype)

x16 = torch.from_numpy(rng.normal(size=(8, 16))).to(torch.bfloat16)
print("bf16 ops", (x16 @ x16.T).dtype, F.layer_norm(x16, (16,)).dtype, x16.softmax(-1).dtype, x16.float().dtype,
      (x16 + torch.ones(16)).dtype, (x16 * 2.5).dtype, (x16.half() + x16).dtype, x16.sum().dtype, x16.mean(0).dtype)
print("bf16 values", r(F.layer_norm(x16, (16,))[0], 4, 2), r(x16.softmax(-1)[0], 4, 3), r(torch.sigmoid(x16)[0], 4, 3))
with torch.autocast("cpu", dtype=torch.bfloat16):
    mm = x16.float() @ x16.float().T
    ce = F.cross_entropy(x16.float(), torch.arange(8) % 16)
    sm = x16.float().softmax(-1)
print("autocast outputs", mm.dtype, ce.dtype, sm.dtype)
for fn in [lambda: nn.Linear(16, 4)(x16),
           lambda: torch.amp.GradScaler("cpu").step(torch.optim.SGD([nn.Parameter(torch.ones(1))])),
           lambda: type(torch.autocast("cpu", dtype=torch.int32).__enter__()).__name__, lambda: x16 @ x16.T.float(),
           lambda: F.cross_entropy(x16, torch.arange(8)).dtype, lambda: torch.ones(2, dtype=torch.bfloat16).numpy()]:
    try:
        print("ok", fn())
    except Exception as e:
        print(type(e).__name__, "|", str(e).replace("\n", " / ")[:130])
