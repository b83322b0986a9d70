"""MoCo v3's ViT details: a fixed 2-D sin-cos position embedding built with meshgrid/einsum and stored as
a frozen Parameter, a patch projection frozen at its random init (stop-grad patch embedding), xavier_uniform_ with
the qkv split fan and the patch-embed uniform bound, cls token normal_(std=1e-6), a symmetric contrastive loss
scaled by 2*T over momentum-encoder keys, a momentum schedule, and the checks on frozen parameters."""

import math
from functools import reduce
from operator import mul

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def build_2d_sincos_position_embedding(h, w, embed_dim, temperature=10000.0):
    grid_w = torch.arange(w, dtype=torch.float32)
    grid_h = torch.arange(h, dtype=torch.float32)
    grid_w, grid_h = torch.meshgrid(grid_w, grid_h, indexing="ij")
    assert embed_dim % 4 == 0
    pos_dim = embed_dim // 4
    omega = torch.arange(pos_dim, dtype=torch.float32) / pos_dim
    omega = 1.0 / (temperature**omega)
    out_w = torch.einsum("m,d->md", [grid_w.flatten(), omega])
    out_h = torch.einsum("m,d->md", [grid_h.flatten(), omega])
    pos_emb = torch.cat([torch.sin(out_w), torch.cos(out_w), torch.sin(out_h), torch.cos(out_h)], dim=1)[None, :, :]
    pe_token = torch.zeros([1, 1, embed_dim], dtype=torch.float32)
    pos_embed = nn.Parameter(torch.cat([pe_token, pos_emb], dim=1))
    pos_embed.requires_grad = False
    return pos_embed


class TinyViT(nn.Module):
    def __init__(self, img=8, patch=4, dim=8, heads=2, out=6):
        super().__init__()
        self.patch_size = (patch, patch)
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = build_2d_sincos_position_embedding(img // patch, img // patch, dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Sequential(
            nn.Linear(dim, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, out), nn.BatchNorm1d(out, affine=False)
        )
        self.heads = heads
        for name, m in self.named_modules():
            if isinstance(m, nn.Linear):
                if "qkv" in name:
                    val = math.sqrt(6.0 / float(m.weight.shape[0] // 3 + m.weight.shape[1]))
                    nn.init.uniform_(m.weight, -val, val)
                else:
                    nn.init.xavier_uniform_(m.weight)
                nn.init.zeros_(m.bias)
        nn.init.normal_(self.cls_token, std=1e-6)
        val = math.sqrt(6.0 / float(3 * reduce(mul, self.patch_size, 1) + dim))
        nn.init.uniform_(self.patch_embed.weight, -val, val)
        nn.init.zeros_(self.patch_embed.bias)
        self.patch_embed.weight.requires_grad = False
        self.patch_embed.bias.requires_grad = False

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * (c // self.heads) ** -0.5
        x = x + self.proj((attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, n, c))
        return self.head(self.norm(x)[:, 0])


pe = build_2d_sincos_position_embedding(2, 2, 8)
print("pos", pe.shape, pe.requires_grad, pe[0, 2].round(decimals=4).tolist(), type(pe).__name__)
base, momentum_enc = TinyViT(), TinyViT()
predictor = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 6))
for pb, pm in zip(base.parameters(), momentum_enc.parameters()):
    pm.data.copy_(pb.data)
    pm.requires_grad = False
trainable = [n for n, p in base.named_parameters() if p.requires_grad]
print("trainable", len(trainable), trainable[:3], base.qkv.weight.abs().max().item() <= math.sqrt(6.0 / 16))
print("cls", round(base.cls_token.std().item() * 1e6, 1) < 5, base.patch_embed.weight.requires_grad)


def contrastive_loss(q, k, T=0.2):
    q = F.normalize(q, dim=1)
    k = F.normalize(k, dim=1)
    logits = torch.einsum("nc,mc->nm", [q, k]) / T
    labels = torch.arange(logits.shape[0], dtype=torch.long)
    return F.cross_entropy(logits, labels) * (2 * T)


params = [p for p in list(base.parameters()) + list(predictor.parameters()) if p.requires_grad]
opt = torch.optim.AdamW(params, lr=1.5e-3, weight_decay=0.1)
x1, x2 = torch.rand(4, 3, 8, 8), torch.rand(4, 3, 8, 8)
frozen_before = base.patch_embed.weight.clone()
epochs = 4
for epoch in range(epochs):
    m = 1.0 - 0.5 * (1.0 + math.cos(math.pi * epoch / epochs)) * (1.0 - 0.99)
    q1, q2 = predictor(base(x1)), predictor(base(x2))
    with torch.no_grad():
        for pb, pm in zip(base.parameters(), momentum_enc.parameters()):
            pm.data = pm.data * m + pb.data * (1.0 - m)
        k1, k2 = momentum_enc(x1), momentum_enc(x2)
    loss = contrastive_loss(q1, k2) + contrastive_loss(q2, k1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        epoch,
        round(m, 6),
        round(loss.item(), 4),
        base.patch_embed.weight.grad is None,
        round(base.qkv.weight.grad.norm().item(), 4),
        round(base.pos_embed.sum().item(), 4),
    )
print(
    "frozen",
    torch.equal(frozen_before, base.patch_embed.weight),
    base.pos_embed.grad,
    [k for k in base.state_dict() if "pos" in k or "cls" in k],
)
try:
    nn.init.xavier_uniform_(torch.empty(3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.meshgrid(torch.arange(2), torch.arange(3), indexing="xyz")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.optim.AdamW([base.pos_embed], lr=0.1).step()
    print("adamw without grads ok")
    base.pos_embed.add_(1)
except Exception as e:
    print(type(e).__name__, e)
