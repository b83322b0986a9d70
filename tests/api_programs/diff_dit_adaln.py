"""A DiT (Peebles & Xie) as its reference code writes it: numpy 2-D sin-cos position tables loaded into a frozen
Parameter, patchify by Conv2d and by F.unfold, adaLN-Zero modulation chunked six ways, LayerNorm without affine
parameters, an MLP with tanh-approximated GELU, unpatchify by einsum, the zero initialisation that makes every
block an identity at step 0, and learned-sigma output splitting."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def r(t, n=5):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


def get_1d_sincos(embed_dim, pos):
    omega = np.arange(embed_dim // 2, dtype=np.float64) / (embed_dim / 2.0)
    omega = 1.0 / 10000**omega
    out = np.einsum("m,d->md", pos.reshape(-1), omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def get_2d_sincos(embed_dim, grid_size):
    grid_h = np.arange(grid_size, dtype=np.float32)
    grid_w = np.arange(grid_size, dtype=np.float32)
    grid = np.stack(np.meshgrid(grid_w, grid_h), axis=0).reshape([2, 1, grid_size, grid_size])
    emb_h = get_1d_sincos(embed_dim // 2, grid[0])
    emb_w = get_1d_sincos(embed_dim // 2, grid[1])
    return np.concatenate([emb_h, emb_w], axis=1)


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class DiTBlock(nn.Module):
    def __init__(self, d, heads, mlp_ratio=2.0):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d, elementwise_affine=False, eps=1e-6)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d, elementwise_affine=False, eps=1e-6)
        self.mlp = nn.Sequential(
            nn.Linear(d, int(d * mlp_ratio)), nn.GELU(approximate="tanh"), nn.Linear(int(d * mlp_ratio), d)
        )
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(d, 6 * d, bias=True))

    def attn(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        return self.proj(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, n, d))

    def forward(self, x, c):
        sh_msa, sc_msa, g_msa, sh_mlp, sc_mlp, g_mlp = self.adaLN_modulation(c).chunk(6, dim=1)
        x = x + g_msa.unsqueeze(1) * self.attn(modulate(self.norm1(x), sh_msa, sc_msa))
        return x + g_mlp.unsqueeze(1) * self.mlp(modulate(self.norm2(x), sh_mlp, sc_mlp))


class DiT(nn.Module):
    def __init__(self, size=8, patch=2, cin=2, d=16, depth=2, heads=2, learn_sigma=True):
        super().__init__()
        self.p, self.cin, self.cout = patch, cin, cin * 2 if learn_sigma else cin
        self.x_embedder = nn.Conv2d(cin, d, patch, stride=patch)
        n = (size // patch) ** 2
        self.pos_embed = nn.Parameter(torch.zeros(1, n, d), requires_grad=False)
        self.t_embedder = nn.Sequential(nn.Linear(d, d), nn.SiLU(), nn.Linear(d, d))
        self.blocks = nn.ModuleList([DiTBlock(d, heads) for _ in range(depth)])
        self.norm_final = nn.LayerNorm(d, elementwise_affine=False, eps=1e-6)
        self.linear = nn.Linear(d, patch * patch * self.cout)
        self.adaLN_final = nn.Sequential(nn.SiLU(), nn.Linear(d, 2 * d))
        self.initialize_weights()

    def initialize_weights(self):
        def _basic_init(m):
            if isinstance(m, nn.Linear):
                torch.nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)

        self.apply(_basic_init)
        pos = get_2d_sincos(self.pos_embed.shape[-1], int(self.pos_embed.shape[1] ** 0.5))
        self.pos_embed.data.copy_(torch.from_numpy(pos).float().unsqueeze(0))
        w = self.x_embedder.weight.data
        nn.init.xavier_uniform_(w.view([w.shape[0], -1]))
        nn.init.constant_(self.x_embedder.bias, 0)
        for block in self.blocks:
            nn.init.constant_(block.adaLN_modulation[-1].weight, 0)
            nn.init.constant_(block.adaLN_modulation[-1].bias, 0)
        nn.init.constant_(self.adaLN_final[-1].weight, 0)
        nn.init.constant_(self.adaLN_final[-1].bias, 0)
        nn.init.constant_(self.linear.weight, 0)
        nn.init.constant_(self.linear.bias, 0)

    def unpatchify(self, x):
        c, p = self.cout, self.p
        h = w = int(x.shape[1] ** 0.5)
        x = x.reshape(x.shape[0], h, w, p, p, c)
        x = torch.einsum("nhwpqc->nchpwq", x)
        return x.reshape(x.shape[0], c, h * p, h * p)

    def forward(self, x, temb):
        x = self.x_embedder(x).flatten(2).transpose(1, 2) + self.pos_embed
        c = self.t_embedder(temb)
        for blk in self.blocks:
            x = blk(x, c)
        shift, scale = self.adaLN_final(c).chunk(2, dim=1)
        return self.unpatchify(self.linear(modulate(self.norm_final(x), shift, scale)))


pos = get_2d_sincos(8, 3)
print("pos table:", pos.shape, pos.dtype, np.round(pos[4], 4).tolist())
model = DiT()
print("frozen pos:", model.pos_embed.requires_grad, model.pos_embed.dtype, r(model.pos_embed[0, 5], 8))
print(
    model.blocks[0].norm1,
    model.blocks[0].mlp[1],
    "params:",
    sum(p.numel() for p in model.parameters() if p.requires_grad),
)
x = torch.randn(2, 2, 8, 8)
temb = torch.randn(2, 16)
out = model(x, temb)
print("out at init:", tuple(out.shape), out.abs().sum().item())
eps, var = out.chunk(2, dim=1)
print("split:", tuple(eps.shape), tuple(var.shape))

# patchify by unfold matches the conv embedder with the weight flattened
patches = F.unfold(x, kernel_size=2, stride=2)
emb_unfold = (model.x_embedder.weight.flatten(1) @ patches).transpose(1, 2) + model.x_embedder.bias
emb_conv = model.x_embedder(x).flatten(2).transpose(1, 2)
print("unfold patches:", tuple(patches.shape), torch.allclose(emb_unfold, emb_conv, atol=1e-5))
back = F.fold(patches, output_size=(8, 8), kernel_size=2, stride=2)
print("fold round trip:", torch.equal(back, x))
tp = x.unfold(2, 2, 2).unfold(3, 2, 2)
print("Tensor.unfold:", tuple(tp.shape), torch.equal(tp[0, :, 1, 2].reshape(-1), patches[0, :, 1 * 4 + 2]))

# one step: only the zero-initialised output layers get gradients at first
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3, weight_decay=0)
loss = F.mse_loss(eps, torch.randn_like(eps))
loss.backward()
has = {
    n: (p.grad is not None and p.grad.abs().sum().item() > 0) for n, p in model.named_parameters() if p.requires_grad
}
print("nonzero grads:", sorted(n for n, v in has.items() if v))
opt.step()
opt.zero_grad()
out2 = model(x, temb)
F.mse_loss(out2.chunk(2, dim=1)[0], torch.randn_like(eps)).backward()
print(
    "after one step:",
    round(out2.abs().sum().item(), 4),
    "blocks get grads:",
    model.blocks[0].adaLN_modulation[-1].weight.grad.abs().sum().item() > 0,
    model.pos_embed.grad,
)
try:
    model.unpatchify(torch.randn(2, 15, 16))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.fold(patches, output_size=(8, 8), kernel_size=3, stride=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("nhwpqc->nchpw", torch.randn(1, 2, 2, 2, 2, 3))
except Exception as e:
    print(type(e).__name__, e)
