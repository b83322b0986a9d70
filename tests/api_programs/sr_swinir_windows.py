"""SwinIR's window attention machinery: window_partition/window_reverse with view/permute, the relative position
index from meshgrid/flatten/permute, cyclic shifts with torch.roll on two dims, the shifted-window attention mask
filled by slices and masked_fill, padding to a window multiple with reflect, a residual Swin block with LayerNorm,
an upsampler with PixelShuffle, and a check that shifting commutes with the window ops."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def window_partition(x, ws):
    b, h, w, c = x.shape
    x = x.view(b, h // ws, ws, w // ws, ws, c)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, c)


def window_reverse(windows, ws, h, w):
    b = int(windows.shape[0] / (h * w / ws / ws))
    x = windows.view(b, h // ws, w // ws, ws, ws, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(b, h, w, -1)


def relative_position_index(ws):
    coords = torch.stack(torch.meshgrid([torch.arange(ws), torch.arange(ws)], indexing="ij"))
    flat = torch.flatten(coords, 1)
    rel = flat[:, :, None] - flat[:, None, :]
    rel = rel.permute(1, 2, 0).contiguous()
    rel[:, :, 0] += ws - 1
    rel[:, :, 1] += ws - 1
    rel[:, :, 0] *= 2 * ws - 1
    return rel.sum(-1)


def attn_mask(h, w, ws, shift):
    img_mask = torch.zeros((1, h, w, 1))
    cnt = 0
    for hs in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
        for wsl in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
            img_mask[:, hs, wsl, :] = cnt
            cnt += 1
    mw = window_partition(img_mask, ws).view(-1, ws * ws)
    mask = mw.unsqueeze(1) - mw.unsqueeze(2)
    return mask.masked_fill(mask != 0, (-100.0)).masked_fill(mask == 0, 0.0)


class WindowAttention(nn.Module):
    def __init__(self, dim, ws, heads):
        super().__init__()
        self.ws, self.heads, self.scale = ws, heads, (dim // heads) ** -0.5
        self.table = nn.Parameter(torch.zeros((2 * ws - 1) ** 2, heads))
        nn.init.trunc_normal_(self.table, std=0.02)
        self.register_buffer("rpi", relative_position_index(ws), persistent=False)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        b_, n, c = x.shape
        qkv = self.qkv(x).reshape(b_, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.table[self.rpi.view(-1)].view(n, n, -1).permute(2, 0, 1).contiguous()
        attn = attn + bias.unsqueeze(0)
        if mask is not None:
            nw = mask.shape[0]
            attn = attn.view(b_ // nw, nw, self.heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.heads, n, n)
        attn = attn.softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b_, n, c)), attn


class SwinBlock(nn.Module):
    def __init__(self, dim, res, ws=4, shift=0, heads=2):
        super().__init__()
        self.ws, self.shift, self.res = ws, shift, res
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, ws, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.register_buffer("mask", attn_mask(res[0], res[1], ws, shift) if shift else None)

    def forward(self, x):
        h, w = self.res
        b, l, c = x.shape
        sc = x
        x = self.norm1(x).view(b, h, w, c)
        if self.shift:
            x = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
        win = window_partition(x, self.ws).view(-1, self.ws * self.ws, c)
        out, attn = self.attn(win, self.mask)
        x = window_reverse(out.view(-1, self.ws, self.ws, c), self.ws, h, w)
        if self.shift:
            x = torch.roll(x, shifts=(self.shift, self.shift), dims=(1, 2))
        x = sc + x.view(b, h * w, c)
        return x + self.mlp(self.norm2(x)), attn


rpi = relative_position_index(3)
print("rpi", tuple(rpi.shape), rpi[0].tolist(), rpi.max().item(), rpi.dtype)
m = attn_mask(8, 8, 4, 2)
print("mask", tuple(m.shape), [int((mm == 0).sum()) for mm in m], m.unique().tolist())
x = torch.arange(2 * 8 * 8 * 3, dtype=torch.float32).view(2, 8, 8, 3)
wins = window_partition(x, 4)
print("partition", tuple(wins.shape), wins[1, 0, :2, 0].tolist(), torch.equal(window_reverse(wins, 4, 8, 8), x))
r = torch.roll(x, shifts=(-2, -2), dims=(1, 2))
print(
    "roll",
    r[0, 0, 0].tolist(),
    torch.equal(torch.roll(r, (2, 2), (1, 2)), x),
    torch.roll(torch.arange(6), 2).tolist(),
    torch.roll(torch.arange(6).view(2, 3), 1).tolist(),
)

img = torch.rand(1, 3, 7, 10, generator=torch.Generator().manual_seed(2))
ws = 4
ph, pw = (ws - 7 % ws) % ws, (ws - 10 % ws) % ws
img_p = F.pad(img, (0, pw, 0, ph), mode="reflect")
print("padded", tuple(img_p.shape), torch.equal(img_p[..., 7, :10], img[..., 5, :]))

dim = 8
embed = nn.Conv2d(3, dim, 3, 1, 1)
blocks = nn.ModuleList([SwinBlock(dim, (8, 12), 4, 0), SwinBlock(dim, (8, 12), 4, 2)])
up = nn.Sequential(nn.Conv2d(dim, 3 * 4, 3, 1, 1), nn.PixelShuffle(2))
print("buffers", [(n, tuple(b.shape)) for n, b in blocks.named_buffers()])
print("state keys", [k for k in blocks.state_dict() if "mask" in k or "rpi" in k or "table" in k])

feat = embed(img_p)
t = feat.flatten(2).transpose(1, 2)
attns = []
for blk in blocks:
    t, a = blk(t)
    attns.append(a)
feat2 = t.transpose(1, 2).view(1, dim, 8, 12) + feat
out = (up(feat2) + F.interpolate(img_p, scale_factor=2, mode="bicubic", align_corners=False))[..., :14, :20]
print("out", tuple(out.shape), round(out.mean().item(), 4))
print("attn rows sum", [round(a.sum(-1).mean().item(), 4) for a in attns], tuple(attns[1].shape))
masked = attns[1].view(1, 6, 2, 16, 16)[0, -1, 0]
print("masked share", round((masked < 1e-30).float().mean().item(), 4))
out.mean().backward()
print("table grad", tuple(blocks[1].attn.table.grad.shape), blocks[1].attn.table.grad.abs().sum().item() > 0)

for bad in [
    lambda: window_partition(torch.zeros(1, 6, 8, 3), 4),
    lambda: torch.roll(x, shifts=(1, 2), dims=(1,)),
    lambda: torch.roll(x, shifts=1, dims=4),
    lambda: blocks[0](torch.zeros(1, 90, dim)),
    lambda: m.masked_fill(m != 0, torch.tensor([1.0, 2.0])),
]:
    try:
        print("ok", bad().shape)
    except Exception as e:
        print(type(e).__name__, e)
