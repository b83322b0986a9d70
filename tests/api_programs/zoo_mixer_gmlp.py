"""MLP-Mixer and gMLP as their reference implementations write them: patch embedding with nn.Unflatten and einsum
patchify, token mixing through transposes and kernel-1 Conv1d, the spatial gating unit (chunk, near-zero weights and
unit biases), tanh-approximate GELU, nn.init helpers, weight tying checks, and a short training run."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(3)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def patchify(imgs, p):
    n, c, h, w = imgs.shape
    x = imgs.reshape(n, c, h // p, p, w // p, p)
    x = torch.einsum("nchpwq->nhwpqc", x)
    return x.reshape(n, (h // p) * (w // p), p * p * c)


class MlpBlock(nn.Module):
    def __init__(self, dim, hidden, approximate="none"):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(dim, hidden), nn.Linear(hidden, dim)
        self.approximate = approximate

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x), approximate=self.approximate))


class MixerBlock(nn.Module):
    def __init__(self, num_patches, dim, tokens_hidden, channels_hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mixing = MlpBlock(num_patches, tokens_hidden)
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mixing = MlpBlock(dim, channels_hidden, approximate="tanh")

    def forward(self, x):
        y = self.norm1(x).transpose(1, 2)
        x = x + self.token_mixing(y).transpose(1, 2)
        return x + self.channel_mixing(self.norm2(x))


class MlpMixer(nn.Module):
    def __init__(self, num_classes=3, patch=2, img=8, dim=8, depth=2):
        super().__init__()
        n = (img // patch) ** 2
        self.stem = nn.Conv2d(3, dim, patch, stride=patch)
        self.blocks = nn.ModuleList([MixerBlock(n, dim, 8, 16) for _ in range(depth)])
        self.pre_head_ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def forward(self, x):
        x = self.stem(x).flatten(2).transpose(1, 2)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.pre_head_ln(x).mean(dim=1))


class SpatialGatingUnit(nn.Module):
    def __init__(self, d_ffn, seq_len):
        super().__init__()
        self.norm = nn.LayerNorm(d_ffn // 2)
        self.spatial_proj = nn.Conv1d(seq_len, seq_len, kernel_size=1)
        nn.init.constant_(self.spatial_proj.bias, 1.0)
        nn.init.normal_(self.spatial_proj.weight, std=1e-6)

    def forward(self, x):
        u, v = x.chunk(2, dim=-1)
        v = self.spatial_proj(self.norm(v))
        return u * v


class gMLPBlock(nn.Module):
    def __init__(self, d_model, d_ffn, seq_len):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.channel_proj1 = nn.Linear(d_model, d_ffn)
        self.channel_proj2 = nn.Linear(d_ffn // 2, d_model)
        self.sgu = SpatialGatingUnit(d_ffn, seq_len)

    def forward(self, x):
        residual = x
        x = F.gelu(self.channel_proj1(self.norm(x)))
        x = self.sgu(x)
        return self.channel_proj2(x) + residual


def fill(model, scale=0.3):
    with torch.no_grad():
        for name, p in model.named_parameters():
            base = 1.0 if (p.ndim == 1 and "norm" in name and name.endswith("weight")) else 0.0
            p.copy_(torch.from_numpy((base + scale * rng.standard_normal(p.shape)).astype(np.float32)))


imgs = torch.from_numpy(rng.standard_normal((2, 3, 8, 8)).astype(np.float32))
pt = patchify(imgs, 2)
print("patchify", tuple(pt.shape), r(pt[0, 1], 6))
unf = nn.Unflatten(2, (4, 4))
print(unf, tuple(unf(pt.transpose(1, 2)).shape))
print("unfold == patchify", torch.allclose(F.unfold(imgs, 2, stride=2).transpose(1, 2).reshape(2, 16, 3, 4)
                                           .permute(0, 1, 3, 2).reshape(2, 16, 12), pt))

mixer = MlpMixer()
print("head zero-init", mixer.head.weight.abs().sum().item(), "logits at init", mixer(imgs).tolist())
print("params", sum(p.numel() for p in mixer.parameters()),
      [n for n, _ in mixer.blocks[0].named_children()])
fill(mixer)
out = mixer(imgs)
print("mixer logits", r(out, 6))
y = torch.tensor([2, 0])
loss = F.cross_entropy(out, y)
loss.backward()
print("loss", round(loss.item(), 4), "token grad", round(mixer.blocks[0].token_mixing.fc1.weight.grad.norm().item(), 4),
      "stem grad", round(mixer.stem.weight.grad.norm().item(), 4))
g = torch.linspace(-3, 3, 7)
print("gelu", np.round(F.gelu(g).numpy(), 3).tolist(), "tanh", r(F.gelu(g, approximate="tanh"), 7))
print(nn.GELU("tanh"))
try:
    F.gelu(g, approximate="fast")
except Exception as e:
    print(type(e).__name__, e)

seq = 6
block = gMLPBlock(8, 16, seq)
print("sgu init", round(block.sgu.spatial_proj.weight.abs().max().item(), 4) < 1e-4,
      block.sgu.spatial_proj.bias.tolist())
fill(block)
tokens = torch.from_numpy(rng.standard_normal((3, seq, 8)).astype(np.float32))
o = block(tokens)
print("gmlp", tuple(o.shape), r(o, 6))
print("conv1d == einsum", torch.allclose(block.sgu.spatial_proj(tokens),
                                         torch.einsum("ts,bsd->btd", block.sgu.spatial_proj.weight.squeeze(-1), tokens)
                                         + block.sgu.spatial_proj.bias[None, :, None], atol=1e-5))
try:
    block(torch.zeros(3, seq + 1, 8))
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[0])

model = nn.Sequential(*[gMLPBlock(8, 16, seq) for _ in range(2)], nn.LayerNorm(8))
fill(model, 0.2)
head = nn.Linear(8, 5)
fill(head)
target = torch.from_numpy(rng.integers(0, 5, size=(3, seq)))
opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=1e-2, amsgrad=True)
for step in range(4):
    opt.zero_grad()
    logits = head(model(tokens))
    loss = F.cross_entropy(logits.reshape(-1, 5), target.reshape(-1))
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
print("state", sorted(opt.state[head.weight].keys()), r(opt.state[head.weight]["max_exp_avg_sq"], 3))
