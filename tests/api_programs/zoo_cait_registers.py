"""CaiT and ViT-with-registers as their reference implementations write them: LayerScale with per-channel gammas,
talking-heads attention (head-mixing linear layers before and after softmax), class-attention layers where only
the class token queries, register tokens dropped before the head, a torch.nn.TransformerEncoder trunk that takes
the inference fast path with padded patch sequences, the module tables researchers print, and a few steps."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

rng = np.random.default_rng(13)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def fill(model, scale=0.3):
    with torch.no_grad():
        for name, p in model.named_parameters():
            base = 1.0 if (p.ndim == 1 and "norm" in name and name.endswith("weight")) else 0.0
            p.copy_(torch.from_numpy((base + scale * rng.standard_normal(p.shape)).astype(np.float32)))


class TalkingHeadAttn(nn.Module):
    def __init__(self, dim, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.proj_l = nn.Linear(num_heads, num_heads)
        self.proj_w = nn.Linear(num_heads, num_heads)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0] * self.scale, qkv[1], qkv[2]
        attn = q @ k.transpose(-2, -1)
        attn = self.proj_l(attn.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        attn = attn.softmax(dim=-1)
        attn = self.proj_w(attn.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return self.proj((attn @ v).transpose(1, 2).reshape(B, N, C))


class ClassAttn(nn.Module):
    def __init__(self, dim, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.q, self.k, self.v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        h = self.num_heads
        q = self.q(x[:, 0]).unsqueeze(1).reshape(B, 1, h, C // h).permute(0, 2, 1, 3)
        k = self.k(x).reshape(B, N, h, C // h).permute(0, 2, 1, 3)
        v = self.v(x).reshape(B, N, h, C // h).permute(0, 2, 1, 3)
        with sdpa_kernel([SDPBackend.MATH]):
            x_cls = F.scaled_dot_product_attention(q, k, v)
        return self.proj(x_cls.transpose(1, 2).reshape(B, 1, C))


class LayerScaleBlock(nn.Module):
    def __init__(self, dim, attn, init_values=1e-4, class_attn=False):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim, eps=1e-6), nn.LayerNorm(dim, eps=1e-6)
        self.attn = attn
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.gamma_1 = nn.Parameter(init_values * torch.ones(dim))
        self.gamma_2 = nn.Parameter(init_values * torch.ones(dim))
        self.class_attn = class_attn

    def forward(self, x, x_cls=None):
        if self.class_attn:
            u = torch.cat((x_cls, x), dim=1)
            x_cls = x_cls + self.gamma_1 * self.attn(self.norm1(u))
            return x_cls + self.gamma_2 * self.mlp(self.norm2(x_cls))
        x = x + self.gamma_1 * self.attn(self.norm1(x))
        return x + self.gamma_2 * self.mlp(self.norm2(x))


class CaiT(nn.Module):
    def __init__(self, dim=16, num_classes=3, num_registers=2):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, 4, 4)
        self.pos_embed = nn.Parameter(torch.zeros(1, 4, dim))
        self.reg_token = nn.Parameter(torch.zeros(1, num_registers, dim))
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.blocks = nn.ModuleList([LayerScaleBlock(dim, TalkingHeadAttn(dim)) for _ in range(2)])
        self.blocks_token_only = nn.ModuleList([LayerScaleBlock(dim, ClassAttn(dim), class_attn=True)])
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, num_classes)
        self.num_registers = num_registers

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2) + self.pos_embed
        x = torch.cat([self.reg_token.expand(x.shape[0], -1, -1), x], dim=1)
        for blk in self.blocks:
            x = blk(x)
        x = x[:, self.num_registers:]
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        for blk in self.blocks_token_only:
            cls = blk(x, cls)
        return self.head(self.norm(cls)[:, 0])


model = CaiT()
print("gamma init", model.blocks[0].gamma_1[:3].tolist(), "tables", type(model._modules).__name__,
      list(model._modules), type(model.blocks[0]._parameters).__name__, list(model.blocks[0]._parameters))
print(model.blocks[0].attn)
print("backend", SDPBackend.MATH, [str(b) for b in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION)])
fill(model)
imgs = torch.from_numpy(rng.standard_normal((3, 3, 8, 8)).astype(np.float32))
out = model(imgs)
print("logits", tuple(out.shape), r(out, 6))
act = nn.PReLU(num_parameters=1, init=0.25)
print("prelu keeps signed zeros", act(torch.tensor([-0.0, 0.0, -2.0])).tolist(), act)

labels = torch.tensor([0, 1, 2])
decay = [p for n, p in model.named_parameters() if p.ndim > 1 and "token" not in n and "pos_embed" not in n]
no_decay = [p for n, p in model.named_parameters() if not (p.ndim > 1 and "token" not in n and "pos_embed" not in n)]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}], lr=3e-3)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(imgs), labels, label_smoothing=0.1)
    loss.backward()
    if step == 0:
        print("grads", round(model.reg_token.grad.norm().item(), 4), round(model.cls_token.grad.norm().item(), 4),
              round(model.blocks[1].attn.proj_l.weight.grad.norm().item(), 4),
              r(model.blocks_token_only[0].gamma_1.grad, 3))
    opt.step()
    print("step", step, round(loss.item(), 4))

layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True, activation="gelu")
trunk = nn.TransformerEncoder(layer, 2, enable_nested_tensor=True)
fill(trunk, 0.2)
tokens = torch.from_numpy(rng.standard_normal((2, 5, 16)).astype(np.float32))
pad = torch.tensor([[False, False, False, True, True], [False] * 5])
trunk.eval()
with torch.no_grad():
    fast = trunk(tokens, src_key_padding_mask=pad)
trunk.train()
slow = trunk(tokens, src_key_padding_mask=pad)
print("fast path", trunk.use_nested_tensor, "padded rows", fast[0, 3:].tolist()[0][:4],
      "real rows agree", torch.allclose(fast[0, :3], slow[0, :3], atol=1e-5), r(fast[1, 4], 4))
