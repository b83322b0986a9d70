"""Conditional GANs: cGAN concatenation of one_hot labels and nn.Embedding codes, a projection discriminator
(inner product with a class embedding), ACGAN's auxiliary classifier with cross entropy, conditional BatchNorm via
embedding-chunked gains, per-class sampling grids with repeat_interleave, and the label errors users hit."""

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)
n_classes, nz = 5, 6


class CondBN(nn.Module):
    def __init__(self, c, n_classes):
        super().__init__()
        self.bn = nn.BatchNorm2d(c, affine=False)
        self.embed = nn.Embedding(n_classes, c * 2)
        self.embed.weight.data[:, :c].normal_(1, 0.02)
        self.embed.weight.data[:, c:].zero_()

    def forward(self, x, y):
        gamma, beta = self.embed(y).chunk(2, 1)
        return gamma.view(-1, x.size(1), 1, 1) * self.bn(x) + beta.view(-1, x.size(1), 1, 1)


class G(nn.Module):
    def __init__(self):
        super().__init__()
        self.label_emb = nn.Embedding(n_classes, n_classes)
        self.fc = nn.Linear(nz + n_classes, 4 * 4 * 4)
        self.cbn = CondBN(4, n_classes)
        self.up = nn.ConvTranspose2d(4, 1, 4, 2, 1)

    def forward(self, z, y):
        h = torch.cat((self.label_emb(y), z), -1)
        h = self.fc(h).view(-1, 4, 4, 4)
        return torch.tanh(self.up(F.relu(self.cbn(h, y))))


class ProjD(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, 2, 1), nn.LeakyReLU(0.2))
        self.linear = nn.Linear(8, 1)
        self.embed = nn.Embedding(n_classes, 8)
        self.aux = nn.Linear(8, n_classes)

    def forward(self, x, y):
        h = self.body(x).sum(dim=[2, 3])
        out = self.linear(h).squeeze(1) + torch.sum(self.embed(y) * h, dim=1)
        return out, self.aux(h)


g, d = G(), ProjD()
y = torch.tensor([0, 1, 2, 3, 4, 0])
z = torch.randn(6, nz)
img = g(z, y)
out, cls = d(img, y)
print("img", tuple(img.shape), "D", out.round(decimals=4).tolist(), "cls", tuple(cls.shape))
oh = F.one_hot(y, num_classes=n_classes)
print("one_hot", oh.dtype, oh.sum(0).tolist(), F.one_hot(torch.tensor([[1, 2], [0, 0]])).shape)
print("one_hot -1", tuple(F.one_hot(torch.tensor([3, 1])).shape))
# cGAN input by concatenation of one-hot maps on the image channels.
maps = oh.float()[:, :, None, None].expand(-1, -1, 8, 8)
print("cat maps", tuple(torch.cat([img, maps], 1).shape), maps.is_contiguous(), maps.stride())

# ACGAN losses.
adv = F.binary_cross_entropy_with_logits(out, torch.ones_like(out))
aux = F.cross_entropy(cls, y)
print(
    "adv",
    round(adv.item(), 4),
    "aux",
    round(aux.item(), 4),
    "aux ls",
    round(F.cross_entropy(cls, y, label_smoothing=0.1).item(), 4),
)
(adv + aux).backward()
print("embed grad rows", g.label_emb.weight.grad.abs().sum(1).gt(0).tolist())
print("cbn grad", round(g.cbn.embed.weight.grad.abs().sum().item(), 4))
print("acc", (cls.argmax(1) == y).float().mean().item())

# Per-class grids: repeat_interleave labels, fixed z per column.
rows = torch.arange(n_classes).repeat_interleave(3)
zz = torch.randn(3, nz).repeat(n_classes, 1)
print("grid labels", rows.tolist(), tuple(zz.shape), torch.equal(zz[0], zz[3]))
g.eval()
with torch.no_grad():
    grid = g(zz, rows)
print("grid", tuple(grid.shape), round(grid.mean().item(), 4))
print("cbn eval stats", g.cbn.bn.running_mean.round(decimals=4).tolist())

# Embedding options used by class-conditional code.
emb = nn.Embedding(n_classes, 3, max_norm=1.0)
v = emb(torch.tensor([1, 1, 2]))
print("max_norm", emb.weight.norm(dim=1).le(1.0001).tolist())
emb_p = nn.Embedding(n_classes + 1, 3, padding_idx=n_classes)
print("padding row", emb_p.weight[n_classes].tolist(), emb_p)
idx_null = torch.where(torch.rand(6) < 0.3, torch.full((6,), n_classes), y)
print("null labels", idx_null.tolist(), emb_p(idx_null).shape)

ones_emb = nn.Embedding.from_pretrained(torch.ones(3, 2), max_norm=1.0)
print("renormed rows", ones_emb(torch.tensor([0, 1, 1])).round(decimals=4).tolist(), ones_emb.weight[2].tolist())

# Errors.
try:
    F.one_hot(torch.tensor([], dtype=torch.long), num_classes=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([0, 5]), num_classes=5)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([0.0, 1.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([-1, 1]))
except Exception as e:
    print(type(e).__name__, e)
try:
    g.label_emb(torch.tensor([5]))
except Exception as e:
    print(type(e).__name__, e)
try:
    g.label_emb(torch.tensor([1.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(cls, y.float())
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cat([img, oh], 1)
except Exception as e:
    print(type(e).__name__, e)
