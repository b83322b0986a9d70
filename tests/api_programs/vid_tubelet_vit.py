"""Video transformers (ViViT / TimeSformer): tubelet embedding by a strided Conv3d, factorised positional
embeddings resized with interpolate, divided space-time attention through reshapes and SDPA, a CLS token over
time and the shape errors along the way."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class TubeletEmbed(nn.Module):
    def __init__(self, c=3, dim=16, t=2, p=4):
        super().__init__()
        self.proj = nn.Conv3d(c, dim, kernel_size=(t, p, p), stride=(t, p, p))

    def forward(self, x):
        x = self.proj(x)
        b, d, t, h, w = x.shape
        return x.flatten(3).permute(0, 2, 3, 1), (t, h, w)


class DividedBlock(nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.norm_t, self.norm_s = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv_t, self.qkv_s = nn.Linear(dim, 3 * dim), nn.Linear(dim, 3 * dim)
        self.proj_t, self.proj_s = nn.Linear(dim, dim), nn.Linear(dim, dim)

    def attend(self, x, qkv, proj):
        b, n, d = x.shape
        q, k, v = qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        out = F.scaled_dot_product_attention(q, k, v)
        return proj(out.transpose(1, 2).reshape(b, n, d))

    def forward(self, x):
        b, t, s, d = x.shape
        xt = x.permute(0, 2, 1, 3).reshape(b * s, t, d)
        xt = xt + self.attend(self.norm_t(xt), self.qkv_t, self.proj_t)
        x = xt.view(b, s, t, d).transpose(1, 2)
        xs = x.reshape(b * t, s, d)
        xs = xs + self.attend(self.norm_s(xs), self.qkv_s, self.proj_s)
        return xs.view(b, t, s, d)


class ViViT(nn.Module):
    def __init__(self, dim=16, n_cls=3, t=4, hw=4):
        super().__init__()
        self.embed = TubeletEmbed(dim=dim)
        self.pos_s = nn.Parameter(torch.linspace(-0.1, 0.1, hw * hw * dim).view(1, dim, hw, hw))
        self.pos_t = nn.Parameter(torch.linspace(-0.2, 0.2, t * dim).view(1, dim, t))
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.blocks = nn.ModuleList([DividedBlock(dim), DividedBlock(dim)])
        self.head = nn.Linear(dim, n_cls)

    def forward(self, x):
        tok, (t, h, w) = self.embed(x)
        pos_s = (
            self.pos_s
            if (h, w) == self.pos_s.shape[-2:]
            else F.interpolate(self.pos_s, size=(h, w), mode="bicubic", align_corners=False)
        )
        pos_t = self.pos_t if t == self.pos_t.shape[-1] else F.interpolate(self.pos_t, size=t, mode="linear")
        tok = tok + pos_s.flatten(2).transpose(1, 2).unsqueeze(1) + pos_t.transpose(1, 2).unsqueeze(2)
        for blk in self.blocks:
            tok = blk(tok)
        pooled = torch.cat([self.cls.expand(tok.shape[0], -1, -1), tok.mean(2)], 1)
        return self.head(pooled[:, 0] + pooled[:, 1:].mean(1))


model = ViViT()
video = torch.randn(2, 3, 8, 16, 16)
tok, thw = model.embed(video)
print("tokens", tuple(tok.shape), thw, model.embed.proj)
out = model(video)
print("logits", tuple(out.shape), out.round(decimals=4).tolist())
bigger = torch.randn(1, 3, 12, 24, 20)
print("resized pos", tuple(model.embed(bigger)[0].shape), model(bigger).round(decimals=4).tolist())
ps = F.interpolate(model.pos_s, size=(6, 5), mode="bicubic", align_corners=False)
print("bicubic pos", tuple(ps.shape), ps[0, 0, :2].round(decimals=4).tolist())
print(
    "linear pos", F.interpolate(model.pos_t, size=6, mode="linear", align_corners=True)[0, 0].round(decimals=4).tolist()
)

out.sum().backward()
print(
    "grad pos_s", round(model.pos_s.grad.abs().sum().item(), 4), "grad proj", tuple(model.embed.proj.weight.grad.shape)
)

patches = video.unfold(2, 2, 2).unfold(3, 4, 4).unfold(4, 4, 4)
print("unfold tubelets", tuple(patches.shape))
flat = patches.permute(0, 2, 3, 4, 1, 5, 6, 7).reshape(2, 4 * 4 * 4, 3 * 2 * 4 * 4)
w = model.embed.proj.weight.detach().reshape(16, -1)
manual = flat @ w.t() + model.embed.proj.bias.detach()
print("conv == unfold @ W", torch.allclose(manual, tok.detach().reshape(2, -1, 16), atol=1e-5))

q = torch.randn(2, 2, 5, 8)
mask = torch.ones(5, 5, dtype=torch.bool).tril()
a1 = F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
a2 = F.scaled_dot_product_attention(q, q, q, is_causal=True)
print("causal == tril mask", torch.allclose(a1, a2, atol=1e-6), round(a1.sum().item(), 4))

for bad in [
    lambda: model(torch.randn(2, 3, 7, 16, 16)),
    lambda: model.embed(torch.randn(2, 3, 1, 16, 16)),
    lambda: F.interpolate(model.pos_t, size=(3, 3), mode="linear"),
    lambda: F.scaled_dot_product_attention(q, q, q, attn_mask=mask, is_causal=True),
]:
    try:
        print("ok", tuple(bad().shape))
    except Exception as e:
        print(type(e).__name__, e)
