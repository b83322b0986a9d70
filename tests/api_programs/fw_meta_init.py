"""Deferred initialization as large-model libraries do it: build a model on the meta device (`with
torch.device('meta')` and device='meta'), count parameters and infer activation shapes without memory, then
`to_empty` and re-initialize, or load a state dict with assign=True; meta tensor reprs, strides, views, dtype
promotion, and the errors of reading data from a meta tensor."""

import math
import warnings

import torch
from torch import nn
import torch.nn.functional as F

torch.set_printoptions(precision=4)


class Block(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.register_buffer("scale", torch.ones(dim))
        self.register_buffer("step", torch.zeros((), dtype=torch.long), persistent=False)

    def forward(self, x):
        return x + self.scale * self.fc2(F.gelu(self.fc1(self.norm(x))))


class Tiny(nn.Module):
    def __init__(self, vocab=50, dim=16, depth=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.conv = nn.Conv1d(dim, dim, kernel_size=3, padding=1, groups=4)
        self.blocks = nn.ModuleList(Block(dim, 4 * dim) for _ in range(depth))
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, ids):
        h = self.emb(ids)
        h = self.conv(h.transpose(1, 2)).transpose(1, 2)
        for b in self.blocks:
            h = b(h)
        return self.head(h)


with torch.device("meta"):
    model = Tiny()
p = next(model.parameters())
print("device", p.device, p.is_meta, type(p).__name__)
print("params", sum(q.numel() for q in model.parameters()), "unique", len(list(model.parameters())))
print("tied", model.head.weight is model.emb.weight)
print("buffers", [(n, b.device.type, b.dtype) for n, b in model.named_buffers()])
print("repr", model.blocks[0].fc1.weight)
print("repr bias", model.blocks[0].fc1.bias[:3])

ids = torch.zeros(2, 7, dtype=torch.long, device="meta")
out = model(ids)
print("out", out.shape, out.dtype, out.device, out.requires_grad, type(out.grad_fn).__name__)
print("out stride", out.stride(), out.is_contiguous())

# shape inference through a conv stack on meta tensors
x = torch.empty(4, 3, 32, 32, device="meta")
for layer in [nn.Conv2d(3, 8, 3, stride=2, padding=1, device="meta"), nn.MaxPool2d(2),
              nn.Conv2d(8, 16, 5, device="meta"), nn.AdaptiveAvgPool2d((2, 3)), nn.Flatten()]:
    x = layer(x)
    print(f"  {type(layer).__name__:18s} -> {tuple(x.shape)}")

m = torch.empty(3, 4, device="meta", dtype=torch.float16)
print("meta ops", (m + 1).dtype, (m * torch.ones(4, device="meta", dtype=torch.float64)).dtype,
      m.t().stride(), m.t().contiguous().stride(), m.view(2, 6).shape, m.sum(1).shape, m[1:, ::2].shape)
print("meta matmul", (torch.empty(5, 3, 4, device="meta") @ torch.empty(4, 2, device="meta")).shape)
print("meta like", torch.empty_like(m).device, torch.zeros_like(m, device="cpu"))
try:
    m.item()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    m.tolist()
except (RuntimeError, NotImplementedError) as e:
    print(type(e).__name__ + ":", e)

for fn in (lambda: torch.empty(2, 3, device="meta") + torch.ones(2, 3),
           lambda: torch.cat([torch.ones(1, 3), torch.empty(1, 3, device="meta")])):
    try:
        fn()
    except RuntimeError as e:
        print("RuntimeError:", e)
print("meta + cpu scalar", (torch.empty(2, device="meta") + torch.tensor(1.0)).device)

# materialize: to_empty, then deterministic re-init
model.to_empty(device="cpu")
print("after to_empty", next(model.parameters()).device, model.head.weight is model.emb.weight)


@torch.no_grad()
def init_weights(mod):
    for name, prm in mod.named_parameters():
        n = prm.numel()
        vals = torch.sin(torch.arange(n, dtype=torch.float32) * 0.37 + len(name)) / math.sqrt(prm.shape[-1])
        prm.copy_(vals.reshape(prm.shape))
    for name, buf in mod.named_buffers():
        buf.copy_(torch.ones_like(buf) if name.endswith("scale") else torch.zeros_like(buf))


init_weights(model)
ids = torch.arange(14).reshape(2, 7) % 50
logits = model(ids)
print("logits", logits.shape, round(logits.sum().item(), 4), round(logits.abs().mean().item(), 4))
print("logits[0, :2, :4]", logits[0, :2, :4])

# the other path: meta skeleton + load_state_dict(assign=True)
sd = {k: v.clone() for k, v in model.state_dict().items()}
with torch.device("meta"):
    fresh = Tiny()
res = fresh.load_state_dict(sd, assign=True)
print("assign", res, next(fresh.parameters()).device, isinstance(fresh.emb.weight, nn.Parameter))
print("assign same", torch.equal(fresh(ids), logits), fresh.emb.weight.requires_grad)
print("non-persistent buffer still meta", fresh.blocks[0].step.device)
try:
    with torch.device("meta"):
        fresh2 = Tiny()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fresh2.load_state_dict(sd)
    print("copy into meta", next(fresh2.parameters()).device, len(caught), str(caught[0].message)[:100])
except Exception as e:
    print(type(e).__name__ + ":", str(e)[:120])

# factories under a device context, and nn.Module(device=...) keywords
with torch.device("meta"):
    print("ctx", torch.zeros(2).device, torch.arange(3).device, torch.tensor([1.0]).device,
          torch.randn(2).device, torch.ones(2, device="cpu").device)
lin = nn.Linear(3, 2, device="meta", dtype=torch.float64)
print("kw", lin.weight.device, lin.weight.dtype, lin)
print("to_empty kw", lin.to_empty(device="cpu").weight.device, lin.weight.shape)
