"""A timm-style VisionTransformer written inline: PatchEmbed (conv projection, flatten(2).transpose), DropPath with
stochastic-depth decay from torch.linspace, LayerScale, qkv attention through F.scaled_dot_product_attention, the
cls token and learned pos_embed with trunc_normal_ init applied by Module.apply, no-weight-decay param groups, a few
AdamW steps, and the model's repr, parameter counts and state_dict keys."""

import math
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def drop_path(x, drop_prob: float = 0.0, training: bool = False, scale_by_keep: bool = True):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob: float = 0.0, scale_by_keep: bool = True):
        super().__init__()
        self.drop_prob = drop_prob
        self.scale_by_keep = scale_by_keep

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training, self.scale_by_keep)

    def extra_repr(self):
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class PatchEmbed(nn.Module):
    def __init__(self, img_size=16, patch_size=4, in_chans=3, embed_dim=32, norm_layer=None, flatten=True):
        super().__init__()
        self.img_size = (img_size, img_size)
        self.patch_size = (patch_size, patch_size)
        self.grid_size = tuple(s // p for s, p in zip(self.img_size, self.patch_size))
        self.num_patches = self.grid_size[0] * self.grid_size[1]
        self.flatten = flatten
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.norm = norm_layer(embed_dim) if norm_layer else nn.Identity()

    def forward(self, x):
        B, C, H, W = x.shape
        torch._assert(H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]}).")
        x = self.proj(x)
        if self.flatten:
            x = x.flatten(2).transpose(1, 2)
        return self.norm(x)


class Mlp(nn.Module):
    def __init__(self, in_features, hidden_features=None, act_layer=nn.GELU, drop=0.0):
        super().__init__()
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = act_layer()
        self.drop1 = nn.Dropout(drop)
        self.fc2 = nn.Linear(hidden_features, in_features)
        self.drop2 = nn.Dropout(drop)

    def forward(self, x):
        return self.drop2(self.fc2(self.drop1(self.act(self.fc1(x)))))


class Attention(nn.Module):
    fused_attn = True

    def __init__(self, dim, num_heads=4, qkv_bias=True, qk_norm=False, attn_drop=0.0, proj_drop=0.0):
        super().__init__()
        assert dim % num_heads == 0, "dim should be divisible by num_heads"
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = self.head_dim ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.q_norm = nn.LayerNorm(self.head_dim) if qk_norm else nn.Identity()
        self.k_norm = nn.LayerNorm(self.head_dim) if qk_norm else nn.Identity()
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        q, k = self.q_norm(q), self.k_norm(k)
        if self.fused_attn:
            x = F.scaled_dot_product_attention(q, k, v, dropout_p=self.attn_drop.p if self.training else 0.0)
        else:
            q = q * self.scale
            attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
            x = self.attn_drop(attn) @ v
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj_drop(self.proj(x))


class Block(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio=4.0, qk_norm=False, init_values=None, drop_path=0.0,
                 norm_layer=nn.LayerNorm):
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = Attention(dim, num_heads=num_heads, qk_norm=qk_norm)
        self.ls1 = LayerScale(dim, init_values=init_values) if init_values else nn.Identity()
        self.drop_path1 = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()
        self.norm2 = norm_layer(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio))
        self.ls2 = LayerScale(dim, init_values=init_values) if init_values else nn.Identity()
        self.drop_path2 = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()

    def forward(self, x):
        x = x + self.drop_path1(self.ls1(self.attn(self.norm1(x))))
        return x + self.drop_path2(self.ls2(self.mlp(self.norm2(x))))


def init_weights_vit_timm(module, name=""):
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)


class VisionTransformer(nn.Module):
    def __init__(self, img_size=16, patch_size=4, in_chans=3, num_classes=5, embed_dim=32, depth=3, num_heads=4,
                 mlp_ratio=2.0, init_values=None, drop_path_rate=0.0, global_pool="token", qk_norm=False):
        super().__init__()
        norm_layer = partial(nn.LayerNorm, eps=1e-6)
        self.global_pool = global_pool
        self.num_features = self.embed_dim = embed_dim
        self.num_prefix_tokens = 1
        self.patch_embed = PatchEmbed(img_size, patch_size, in_chans, embed_dim)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * 0.02)
        self.pos_drop = nn.Dropout(p=0.0)
        dpr = [x.item() for x in torch.linspace(0, drop_path_rate, depth)]
        self.blocks = nn.Sequential(*[
            Block(embed_dim, num_heads, mlp_ratio, qk_norm=qk_norm, init_values=init_values, drop_path=dpr[i],
                  norm_layer=norm_layer) for i in range(depth)])
        self.norm = norm_layer(embed_dim)
        self.head = nn.Linear(embed_dim, num_classes) if num_classes > 0 else nn.Identity()
        self.init_weights()

    def init_weights(self):
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.normal_(self.cls_token, std=1e-6)
        self.apply(init_weights_vit_timm)

    @torch.jit.ignore
    def no_weight_decay(self):
        return {"pos_embed", "cls_token"}

    def forward_features(self, x):
        x = self.patch_embed(x)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = self.pos_drop(x + self.pos_embed)
        return self.norm(self.blocks(x))

    def forward_head(self, x, pre_logits=False):
        if self.global_pool == "avg":
            x = x[:, self.num_prefix_tokens:].mean(dim=1)
        else:
            x = x[:, 0]
        return x if pre_logits else self.head(x)

    def forward(self, x):
        return self.forward_head(self.forward_features(x))


def param_groups_weight_decay(model, weight_decay=1e-5, no_weight_decay_list=()):
    no_weight_decay_list = set(no_weight_decay_list)
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if param.ndim <= 1 or name.endswith(".bias") or name in no_weight_decay_list:
            no_decay.append(param)
        else:
            decay.append(param)
    return [{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": weight_decay}]


model = VisionTransformer(drop_path_rate=0.2, init_values=1e-2, qk_norm=True)
print(model.blocks[1])
print("drop path rates", [round(b.drop_path1.drop_prob, 4) if isinstance(b.drop_path1, DropPath) else 0.0
                          for b in model.blocks])
n_params = sum(p.numel() for p in model.parameters())
print("params", n_params, "trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
keys = list(model.state_dict().keys())
print("state_dict", len(keys), keys[:6], keys[-3:])
print("pos_embed std", round(model.pos_embed.std().item(), 4), "cls std", f"{model.cls_token.std().item():.2e}")
print("head weight", model.head.weight.shape, round(model.head.weight.abs().max().item(), 4),
      model.head.bias.abs().sum().item())

x = torch.randn(4, 3, 16, 16)
tokens = model.patch_embed(x)
print("patch tokens", tuple(tokens.shape), model.patch_embed.grid_size, model.patch_embed.num_patches)
model.eval()
with torch.no_grad():
    feats = model.forward_features(x)
    logits = model(x)
print("features", tuple(feats.shape), "logits", logits)
Attention.fused_attn = False
with torch.no_grad():
    manual = model(x)
Attention.fused_attn = True
print("fused == manual", torch.allclose(manual, logits, atol=1e-5))

try:
    model(torch.randn(1, 3, 20, 16))
except AssertionError as e:
    print("AssertionError:", e)

groups = param_groups_weight_decay(model, 0.05, model.no_weight_decay())
print("groups", [len(g["params"]) for g in groups], [g["weight_decay"] for g in groups])
opt = torch.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.999))
y = torch.tensor([0, 1, 2, 3])
model.train()
for step in range(4):
    torch.manual_seed(100 + step)
    loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
    print(f"step {step} loss {loss.item():.4f} grad_norm {gnorm.item():.4f}")

print("ls1 gamma", model.blocks[0].ls1.gamma[:4])
print("cls grad", model.cls_token.grad.flatten()[:4])
osd = opt.state_dict()
print("opt state keys", sorted(osd["state"][0].keys()), osd["param_groups"][1]["weight_decay"])

torch.manual_seed(1)
dp = DropPath(0.5)
dp.train()
ones = torch.ones(8, 2, 3)
out = dp(ones)
print(dp, "kept rows", out[:, 0, 0], "mean", round(out.mean().item(), 4))
print("eval identity", torch.equal(dp.eval()(ones), ones))
gap = VisionTransformer(global_pool="avg", num_classes=0, depth=1)
print("pooled", tuple(gap(x).shape), isinstance(gap.head, nn.Identity), math.isclose(gap.blocks[0].attn.scale, 0.25))
