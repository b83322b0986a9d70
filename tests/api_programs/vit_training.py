"""Vision Transformer: Conv2d patch embedding + flatten(2).transpose(1, 2), cls token and expanded position
embeddings, trunc_normal_ init, MultiheadAttention(batch_first) and scaled_dot_product_attention blocks,
AdamW with no-decay param groups, warmup+cosine LambdaLR, label smoothing, clip_grad_norm_, DropPath."""

import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


class PatchEmbed(nn.Module):
    def __init__(self, img_size=8, patch_size=4, in_chans=3, embed_dim=16):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


def drop_path(x, drop_prob: float = 0.0, training: bool = False):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    return x * random_tensor.div_(keep_prob)


class DropPath(nn.Module):
    def __init__(self, drop_prob=None):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training)

    def extra_repr(self):
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"


class Attention(nn.Module):
    def __init__(self, dim, num_heads=2, qkv_bias=True):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        x = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0)
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Block(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio=2.0, drop_path=0.0, use_mha=False):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.use_mha = use_mha
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True) if use_mha else Attention(dim, num_heads)
        self.drop_path = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(approximate="tanh"), nn.Dropout(0.0),
                                 nn.Linear(hidden, dim))

    def forward(self, x):
        h = self.norm1(x)
        if self.use_mha:
            h, w = self.attn(h, h, h, need_weights=True, average_attn_weights=False)
            self.last_weights = w
        else:
            h = self.attn(h)
        x = x + self.drop_path(h)
        return x + self.drop_path(self.mlp(self.norm2(x)))


class ViT(nn.Module):
    def __init__(self, num_classes=5, dim=16, depth=2, heads=2, dpr=0.1):
        super().__init__()
        self.patch_embed = PatchEmbed(embed_dim=dim)
        n = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, n + 1, dim))
        rates = [x.item() for x in torch.linspace(0, dpr, depth)]
        self.blocks = nn.Sequential(*[Block(dim, heads, drop_path=rates[i], use_mha=i == 1) for i in range(depth)])
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, num_classes)
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)
        elif isinstance(m, nn.LayerNorm):
            nn.init.constant_(m.bias, 0)
            nn.init.constant_(m.weight, 1.0)

    def forward_features(self, x):
        x = self.patch_embed(x)
        cls_tokens = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls_tokens, x), dim=1)
        x = x + self.pos_embed
        x = self.blocks(x)
        return self.norm(x)

    def forward(self, x):
        return self.head(self.forward_features(x)[:, 0])


model = ViT()
w = model.blocks[0].mlp[0].weight
print("trunc_normal", tuple(w.shape), bool(w.abs().max() <= 0.04), model.cls_token.shape, model.pos_embed.requires_grad)
print("repr", repr(model.blocks[1].drop_path), repr(model.blocks[0].drop_path), repr(model.patch_embed.proj))
t = torch.empty(2000)
nn.init.trunc_normal_(t, mean=0.0, std=1.0, a=-2.0, b=2.0)
print("trunc_bounds", bool(t.min() >= -2.0), bool(t.max() <= 2.0))
with torch.no_grad():
    for name, p in model.named_parameters():
        p.copy_(T(*p.shape) * (0.2 if p.dim() > 1 else 0.05))
mha = model.blocks[1].attn
print("mha", tuple(mha.in_proj_weight.shape), mha.batch_first, mha._qkv_same_embed_dim,
      tuple(mha.out_proj.weight.shape))

decay, no_decay = [], []
for name, param in model.named_parameters():
    if not param.requires_grad:
        continue
    if param.ndim <= 1 or name.endswith(".bias") or name in ("pos_embed", "cls_token"):
        no_decay.append(param)
    else:
        decay.append(param)
print("groups", len(decay), len(no_decay))
opt = torch.optim.AdamW([{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": 0.05}],
                        lr=1e-3, betas=(0.9, 0.999))
warmup, total = 2, 6


def lr_lambda(step):
    if step < warmup:
        return float(step + 1) / float(warmup)
    progress = float(step - warmup) / float(max(1, total - warmup))
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))


sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
X = T(6, 3, 8, 8)
dp = model.blocks[1].drop_path
kept = dp(torch.ones(1000, 1, 1))
print("drop_path", tuple(kept.shape), sorted(set(np.round(kept.flatten().numpy(), 4).tolist())))
dp.drop_prob = 0.0  # random masks differ between libraries: train without
y = torch.from_numpy(rng.integers(0, 5, 6))
for step in range(total):
    model.train()
    logits = model(X)
    loss = F.cross_entropy(logits, y, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
    sched.step()
    print("step", step, round(sched.get_last_lr()[0], 6), round(norm.item(), 4) > 0,
          opt.param_groups[1]["lr"] == sched.get_last_lr()[1])
model.eval()
with torch.no_grad():
    logits = model(X)
    loss_eval = F.cross_entropy(logits, y, label_smoothing=0.1)
    loss_plain = nn.CrossEntropyLoss(label_smoothing=0.0)(logits, y)
print("eval", round(loss_eval.item(), 4), round(loss_plain.item(), 4), r(logits[0]))
print("attn_w", tuple(model.blocks[1].last_weights.shape), r(model.blocks[1].last_weights.sum(-1)))
acc1 = (logits.argmax(-1) == y).float().mean().item()
top2 = logits.topk(2, dim=-1).indices
acc2 = (top2 == y[:, None]).any(dim=-1).float().mean().item()
print("acc", round(acc1, 4), round(acc2, 4))
soft = torch.softmax(logits, -1)
nll_smooth = torch.sum(-F.one_hot(y, 5).float() * 0.9 * F.log_softmax(logits, -1), dim=-1).mean()
print("soft_targets", round(nll_smooth.item(), 4),
      round(F.cross_entropy(logits, soft).item(), 4))
print("interp_pos", tuple(F.interpolate(model.pos_embed[:, 1:].reshape(1, 2, 2, -1).permute(0, 3, 1, 2),
                                        size=(4, 4), mode="bicubic", align_corners=False).shape))
print("sdpa_scale", r(F.scaled_dot_product_attention(T(1, 1, 2, 4), T(1, 1, 3, 4), T(1, 1, 3, 2), scale=0.1)))
print("nparams", sum(p.numel() for p in model.parameters() if p.requires_grad))
# Perceiver-style cross attention from learned latents, with a learned bias key and a zero key
cross = nn.MultiheadAttention(16, 2, kdim=12, vdim=10, add_bias_kv=True, add_zero_attn=True, batch_first=True)
with torch.no_grad():
    for p in cross.parameters():
        p.copy_(T(*p.shape) * 0.3)
latents = nn.Parameter(T(1, 3, 16))
tokens, values = T(2, 5, 12), T(2, 5, 10)
pad = torch.tensor([[False, False, False, True, True], [False] * 5])
out, w = cross(latents.expand(2, -1, -1), tokens, values, key_padding_mask=pad)
out.pow(2).mean().backward()
print("cross_attn", tuple(out.shape), tuple(w.shape), r(w[0, 0]), r(out[1, 2]), r(cross.bias_k.grad))
print("cross_params", [n for n, _ in cross.named_parameters()])
