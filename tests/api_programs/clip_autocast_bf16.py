"""CLIP forwards under torch.autocast("cpu", dtype=torch.bfloat16): which ops run in bfloat16 (linear, matmul,
conv, bmm, baddbmm) and which stay in float32 (layer_norm, softmax, cross_entropy, normalize's norm), the loss
cast back with .float(), gradients arriving in float32 parameters, nested autocast(enabled=False), and the
open_clip precision helpers that cast a model to bfloat16 wholesale."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Tower(nn.Module):
    def __init__(self, cin, d):
        super().__init__()
        self.patch = nn.Conv2d(cin, d, 2, stride=2)
        self.ln = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
        self.proj = nn.Linear(d, 8, bias=False)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        h = self.ln(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return self.proj(x.mean(1))


tower = Tower(3, 16)
text = nn.Sequential(nn.Embedding(30, 16), nn.LayerNorm(16), nn.Linear(16, 8))
logit_scale = nn.Parameter(torch.tensor(2.6592))
images = torch.randn(4, 3, 8, 8)
tokens = torch.randint(0, 30, (4, 5))

print("enabled?", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("inside", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    x = tower.patch(images)
    print("conv", x.dtype)
    h = tower.ln(x.flatten(2).transpose(1, 2))
    print("layer_norm", h.dtype)
    img = tower(images)
    txt = text(tokens).mean(1)
    print("img", img.dtype, "txt", txt.dtype)
    i_n = F.normalize(img, dim=-1)
    t_n = F.normalize(txt, dim=-1)
    print("normalize", i_n.dtype, "norm", img.norm(dim=-1).dtype)
    logits = logit_scale.exp() * i_n @ t_n.t()
    print("logits", logits.dtype, "scale", logit_scale.exp().dtype)
    print("softmax", logits.softmax(-1).dtype, "log_softmax", F.log_softmax(logits, -1).dtype)
    labels = torch.arange(4)
    loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
    print("loss", loss.dtype)
    print(
        "bmm",
        torch.bmm(h, h.transpose(1, 2)).dtype,
        "baddbmm",
        torch.baddbmm(torch.zeros(4, 16, 16), h, h.transpose(1, 2)).dtype,
    )
    print("addmm", torch.addmm(torch.zeros(4, 8), img.float(), torch.ones(8, 8)).dtype)
    print("sum", img.sum().dtype, "exp", img.exp().dtype, "add f32", (img + torch.ones(8)).dtype)
    with torch.autocast("cpu", enabled=False):
        print("disabled", tower.proj(torch.randn(2, 16)).dtype, torch.is_autocast_enabled("cpu"))
        print("bf16 in, disabled", tower.proj(torch.randn(2, 16).bfloat16().float()).dtype)
    print("restored", torch.is_autocast_enabled("cpu"))
print("loss value", round(loss.float().item(), 2), loss.requires_grad)
loss.backward()
print("grad dtypes", tower.proj.weight.grad.dtype, logit_scale.grad.dtype, text[0].weight.grad.dtype)
print("grad finite", all(torch.isfinite(p.grad).all().item() for p in tower.parameters()))

# the float32 reference
with torch.no_grad():
    ref = F.normalize(tower(images), dim=-1)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        low = F.normalize(tower(images), dim=-1)
print("bf16 vs fp32 close", torch.allclose(low.float(), ref, atol=5e-2), low.dtype)

# casting the whole model (open_clip's precision='pure_bf16')
m16 = Tower(3, 16).to(torch.bfloat16)
print("param dtypes", {p.dtype for p in m16.parameters()})
out = m16(images.to(torch.bfloat16))
print("pure bf16 out", out.dtype, tuple(out.shape))
try:
    m16(images)
except Exception as e:
    print(type(e).__name__, e)
ln = nn.LayerNorm(16).bfloat16()
print("ln bf16", ln(torch.randn(2, 16, dtype=torch.bfloat16)).dtype, ln.weight.dtype)
print(
    "bf16 eps",
    torch.finfo(torch.bfloat16).eps,
    torch.finfo(torch.bfloat16).max,
    torch.tensor(1 / 3, dtype=torch.bfloat16).item(),
)
print("round trip", torch.tensor([0.1, 1.001, 100.3, 2.6592]).bfloat16().float().tolist())

try:
    with torch.autocast("cpu", dtype=torch.int32):
        pass
except Exception as e:
    print(type(e).__name__, e)
