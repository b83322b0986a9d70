"""A small Vision Transformer written einops-style with torch.func.rearrange: patchify, multi-head attention with
heads split and merged by patterns, a training step, and the gradient flowing back through the rearranges."""
import torch
from torch.func import rearrange

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = rearrange(self.qkv(x), "b n (three h d) -> three b h n d", three=3, h=self.heads)
        attn = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5
        out = attn.softmax(-1) @ v
        return self.proj(rearrange(out, "b h n d -> b n (h d)"))


class ViT(nn.Module):
    def __init__(self, patch=4, dim=32, heads=4, classes=5):
        super().__init__()
        self.patch = patch
        self.embed = nn.Linear(patch * patch * 3, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, 17, dim) * 0.02)
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, classes)

    def forward(self, img):
        patches = rearrange(img, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=self.patch, p2=self.patch)
        x = self.embed(patches)
        cls = self.cls.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return self.head(x[:, 0])


img = torch.randn(3, 3, 16, 16)
patches = rearrange(img, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=4, p2=4)
print("patches", tuple(patches.shape), round(patches.sum().item(), 4))
back = rearrange(patches, "b (h w) (p1 p2 c) -> b c (h p1) (w p2)", h=4, p1=4, p2=4)
print("round trip exact:", torch.equal(back, img))
print("channels last:", tuple(rearrange(img, "b c h w -> b h w c").shape),
      rearrange(img, "b c h w -> b h w c").is_contiguous())

model = ViT()
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
labels = torch.tensor([0, 3, 1])
for step in range(4):
    logits = model(img)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, "loss", round(loss.item(), 4))
print("logits", model(img).detach().round(decimals=4).tolist()[0])
print("cls grad norm", round(model.cls.grad.norm().item(), 4))

x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
w = torch.arange(24.0).reshape(4, 6)
(rearrange(x, "a b c -> c (a b)") * w).sum().backward()
print("grad through rearrange", x.grad[1].tolist())
y = rearrange(x, "a b c -> (a b) c")
print("merge", tuple(y.shape), y.grad_fn.name())

for pattern, kw in [("b c h w -> b (h w) c", {}), ("b c (h p) w -> b c h p w", {"p": 5}), ("b c h w -> b c h", {}),
                    ("b c h w -> b c h w", {"h": 2.5})]:
    try:
        rearrange(img, pattern, **kw)
        print(pattern, "ok")
    except Exception as e:
        print(pattern, type(e).__name__, e)
