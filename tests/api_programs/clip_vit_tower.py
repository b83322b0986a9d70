"""A CLIP vision tower as open_clip writes it: conv patch embedding with stride, class token, learned positional
embeddings, pre-LN residual attention blocks over nn.MultiheadAttention, ln_post on the class token and a
projection matrix; shapes, parameter counts, reprs and a backward pass."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class ResidualAttentionBlock(nn.Module):
    def __init__(self, d_model, n_head, mlp_ratio=4.0):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_head, batch_first=True)
        self.ln_2 = nn.LayerNorm(d_model)
        hidden = int(d_model * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(d_model, hidden), nn.GELU(approximate="tanh"), nn.Linear(hidden, d_model))

    def attention(self, x, attn_mask=None):
        return self.attn(x, x, x, need_weights=False, attn_mask=attn_mask)[0]

    def forward(self, x, attn_mask=None):
        x = x + self.attention(self.ln_1(x), attn_mask)
        x = x + self.mlp(self.ln_2(x))
        return x


class VisionTransformer(nn.Module):
    def __init__(self, image_size=16, patch_size=4, width=32, layers=2, heads=4, output_dim=16):
        super().__init__()
        self.grid = image_size // patch_size
        self.conv1 = nn.Conv2d(3, width, kernel_size=patch_size, stride=patch_size, bias=False)
        scale = width**-0.5
        self.class_embedding = nn.Parameter(scale * torch.randn(width))
        self.positional_embedding = nn.Parameter(scale * torch.randn(self.grid**2 + 1, width))
        self.ln_pre = nn.LayerNorm(width)
        self.blocks = nn.ModuleList([ResidualAttentionBlock(width, heads) for _ in range(layers)])
        self.ln_post = nn.LayerNorm(width)
        self.proj = nn.Parameter(scale * torch.randn(width, output_dim))

    def forward(self, x):
        x = self.conv1(x)  # [B, width, grid, grid]
        x = x.reshape(x.shape[0], x.shape[1], -1).permute(0, 2, 1)  # [B, grid**2, width]
        cls = self.class_embedding.to(x.dtype) + torch.zeros(x.shape[0], 1, x.shape[-1], dtype=x.dtype)
        x = torch.cat([cls, x], dim=1)
        x = x + self.positional_embedding.to(x.dtype)
        x = self.ln_pre(x)
        for blk in self.blocks:
            x = blk(x)
        pooled = self.ln_post(x[:, 0, :])
        return pooled @ self.proj, x[:, 1:]


model = VisionTransformer()
n_params = sum(p.numel() for p in model.parameters())
print("params", n_params, "trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
print(model.conv1)
print(model.blocks[0].mlp)
print(model.blocks[0].attn)
print("pos", tuple(model.positional_embedding.shape), "cls", tuple(model.class_embedding.shape))
for name, p in list(model.named_parameters())[:6]:
    print(name, tuple(p.shape), p.dtype)

images = torch.randn(3, 3, 16, 16)
emb, tokens = model(images)
print("emb", tuple(emb.shape), emb.dtype, emb.grad_fn.__class__.__name__)
print("tokens", tuple(tokens.shape))
print("emb[0]", emb[0, :6].round(decimals=4).tolist())
print("tokens sum", round(tokens.sum().item(), 4), round(tokens.abs().mean().item(), 4))

# patch embedding equals unfold + matmul
patches = F.unfold(images, kernel_size=4, stride=4)  # [B, 3*16, 16]
w = model.conv1.weight.reshape(model.conv1.out_channels, -1)
via_unfold = (w @ patches).transpose(1, 2)
via_conv = model.conv1(images).flatten(2).transpose(1, 2)
print("unfold==conv", torch.allclose(via_unfold, via_conv, atol=1e-5), tuple(via_unfold.shape))

# interpolating the positional embedding to a larger grid (fine-tuning at higher resolution)
pos = model.positional_embedding.detach()
cls_pos, grid_pos = pos[:1], pos[1:]
grid_pos = grid_pos.reshape(1, 4, 4, -1).permute(0, 3, 1, 2)
for mode in ["bicubic", "bilinear", "nearest"]:
    kw = {} if mode == "nearest" else {"align_corners": False}
    up = F.interpolate(grid_pos, size=(6, 6), mode=mode, **kw)
    new_pos = torch.cat([cls_pos, up.permute(0, 2, 3, 1).reshape(36, -1)], dim=0)
    print(mode, tuple(new_pos.shape), round(new_pos.sum().item(), 4), round(new_pos[5, :3].sum().item(), 4))

emb_n = F.normalize(emb, dim=-1)
loss = (emb_n @ emb_n.t()).triu(diagonal=1).sum()
loss.backward()
print("loss", round(loss.item(), 4))
print("grad cls", round(model.class_embedding.grad.norm().item(), 4))
print("grad pos", round(model.positional_embedding.grad.abs().sum().item(), 4))
print("grad conv", round(model.conv1.weight.grad.norm().item(), 4), model.conv1.bias)
print("grad proj", tuple(model.proj.grad.shape), round(model.proj.grad.sum().item(), 4))

try:
    model(torch.randn(2, 3, 20, 20))
except Exception as e:
    print(type(e).__name__, e)
try:
    model(torch.randn(2, 1, 16, 16))
except Exception as e:
    print(type(e).__name__, e)
