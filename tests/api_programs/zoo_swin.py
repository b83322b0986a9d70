"""Swin Transformer as its reference implementation writes it: window partition and reverse with view/permute,
shifted windows through torch.roll, the relative position bias table gathered by a registered index buffer, the
shifted-window attention mask built from slices, PatchMerging with strided slicing, and a short training run."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(1)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)


def window_reverse(windows, window_size, H, W):
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)


class WindowAttention(nn.Module):
    def __init__(self, dim, window_size, num_heads, qkv_bias=True):
        super().__init__()
        self.dim = dim
        self.window_size = window_size
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim ** -0.5
        self.relative_position_bias_table = nn.Parameter(
            torch.zeros((2 * window_size[0] - 1) * (2 * window_size[1] - 1), num_heads))
        coords_h = torch.arange(self.window_size[0])
        coords_w = torch.arange(self.window_size[1])
        coords = torch.stack(torch.meshgrid([coords_h, coords_w], indexing="ij"))
        coords_flatten = torch.flatten(coords, 1)
        relative_coords = coords_flatten[:, :, None] - coords_flatten[:, None, :]
        relative_coords = relative_coords.permute(1, 2, 0).contiguous()
        relative_coords[:, :, 0] += self.window_size[0] - 1
        relative_coords[:, :, 1] += self.window_size[1] - 1
        relative_coords[:, :, 0] *= 2 * self.window_size[1] - 1
        relative_position_index = relative_coords.sum(-1)
        self.register_buffer("relative_position_index", relative_position_index)
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, mask=None):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape(B_, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q = q * self.scale
        attn = (q @ k.transpose(-2, -1))
        relative_position_bias = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(
            self.window_size[0] * self.window_size[1], self.window_size[0] * self.window_size[1], -1)
        relative_position_bias = relative_position_bias.permute(2, 0, 1).contiguous()
        attn = attn + relative_position_bias.unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            attn = attn.view(B_ // nW, nW, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        attn = self.softmax(attn)
        x = (attn @ v).transpose(1, 2).reshape(B_, N, C)
        return self.proj(x)

    def extra_repr(self):
        return f"dim={self.dim}, window_size={self.window_size}, num_heads={self.num_heads}"


class SwinBlock(nn.Module):
    def __init__(self, dim, input_resolution, num_heads, window_size=2, shift_size=0):
        super().__init__()
        self.input_resolution = input_resolution
        self.window_size, self.shift_size = window_size, shift_size
        self.norm1 = nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, (window_size, window_size), num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        if self.shift_size > 0:
            H, W = self.input_resolution
            img_mask = torch.zeros((1, H, W, 1))
            slices = (slice(0, -window_size), slice(-window_size, -shift_size), slice(-shift_size, None))
            cnt = 0
            for h in slices:
                for w in slices:
                    img_mask[:, h, w, :] = cnt
                    cnt += 1
            mask_windows = window_partition(img_mask, window_size).view(-1, window_size * window_size)
            attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
            attn_mask = attn_mask.masked_fill(attn_mask != 0, (-100.0)).masked_fill(attn_mask == 0, 0.0)
        else:
            attn_mask = None
        self.register_buffer("attn_mask", attn_mask)

    def forward(self, x):
        H, W = self.input_resolution
        B, L, C = x.shape
        shortcut = x
        x = self.norm1(x).view(B, H, W, C)
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
        x_windows = window_partition(x, self.window_size).view(-1, self.window_size * self.window_size, C)
        attn_windows = self.attn(x_windows, mask=self.attn_mask)
        attn_windows = attn_windows.view(-1, self.window_size, self.window_size, C)
        x = window_reverse(attn_windows, self.window_size, H, W)
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
        x = shortcut + x.view(B, H * W, C)
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    def __init__(self, input_resolution, dim):
        super().__init__()
        self.input_resolution = input_resolution
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = nn.LayerNorm(4 * dim)

    def forward(self, x):
        H, W = self.input_resolution
        B, L, C = x.shape
        x = x.view(B, H, W, C)
        x0, x1 = x[:, 0::2, 0::2, :], x[:, 1::2, 0::2, :]
        x2, x3 = x[:, 0::2, 1::2, :], x[:, 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3], -1).view(B, -1, 4 * C)
        return self.reduction(self.norm(x))


x = torch.arange(2 * 4 * 4 * 3, dtype=torch.float32).view(2, 4, 4, 3)
w = window_partition(x, 2)
print("windows", tuple(w.shape), w[1, :, :, 0].tolist())
print("reverse ok", torch.equal(window_reverse(w, 2, 4, 4), x))
print("roll", torch.roll(torch.arange(6).view(2, 3), shifts=(1, -1), dims=(0, 1)).tolist(),
      torch.roll(torch.arange(5), 2).tolist(), torch.roll(torch.arange(4).view(2, 2), 1).tolist())
wa = WindowAttention(4, (2, 2), 2)
print(wa, wa.relative_position_bias_table.shape, wa.relative_position_index.tolist())
blk = SwinBlock(4, (4, 4), 2, window_size=2, shift_size=1)
print("mask", tuple(blk.attn_mask.shape), blk.attn_mask[-1].tolist())
print("buffers", [n for n, _ in blk.named_buffers()])


class TinySwin(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, 4, kernel_size=2, stride=2)
        self.blocks = nn.Sequential(SwinBlock(4, (4, 4), 2, 2, 0), SwinBlock(4, (4, 4), 2, 2, 1))
        self.merge = PatchMerging((4, 4), 4)
        self.norm = nn.LayerNorm(8)
        self.avgpool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Linear(8, num_classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = self.merge(self.blocks(x))
        x = self.avgpool(self.norm(x).transpose(1, 2))
        return self.head(torch.flatten(x, 1))


model = TinySwin()
with torch.no_grad():
    for name, p in model.named_parameters():
        base = 1.0 if ("norm" in name and name.endswith("weight")) else 0.0
        p.copy_(torch.from_numpy((base + 0.3 * rng.standard_normal(p.shape)).astype(np.float32)))
print("params", sum(p.numel() for p in model.parameters()), "state keys", len(model.state_dict()))
img = torch.from_numpy(rng.standard_normal((2, 3, 8, 8)).astype(np.float32))
out = model(img)
print("logits", tuple(out.shape), r(out, 6))
y = torch.tensor([0, 2])
loss = F.cross_entropy(out, y)
loss.backward()
print("loss", round(loss.item(), 4))
for n in ["blocks.1.attn.relative_position_bias_table", "blocks.1.attn.qkv.weight", "merge.reduction.weight"]:
    print(" grad", n, round(dict(model.named_parameters())[n].grad.norm().item(), 4))
tbl = model.blocks[1].attn.relative_position_bias_table.grad
print("bias table grad rows", tbl.shape, r(tbl.sum(1), 9))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(img), y)
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
