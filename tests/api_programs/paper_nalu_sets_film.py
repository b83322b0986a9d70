"""Small architectures from their papers, each with the property it was built for checked numerically: NAC/NALU
(Trask et al. 2018) extrapolating addition and multiplication, Deep Sets (Zaheer et al. 2017) and the Set
Transformer's attention blocks (Lee et al. 2019) with permutation invariance and masked padding, and FiLM
conditioning (Perez et al. 2018) with per-channel affine maps predicted from a question embedding."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(2018)


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def fill_(m, seed, scale=0.3):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))
    return m


class NALU(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.W_hat = nn.Parameter(torch.empty(o, i))
        self.M_hat = nn.Parameter(torch.empty(o, i))
        self.G = nn.Parameter(torch.empty(o, i))
        for k, p in enumerate(self.parameters()):
            nn.init.constant_(p, 0.0)
            with torch.no_grad():
                p.add_(torch.from_numpy(np.random.default_rng(k).uniform(-0.5, 0.5, (o, i)).astype(np.float32)))

    def forward(self, x):
        W = torch.tanh(self.W_hat) * torch.sigmoid(self.M_hat)
        a = F.linear(x, W)
        m = torch.exp(F.linear(torch.log(torch.abs(x) + 1e-7), W))
        g = torch.sigmoid(F.linear(x, self.G))
        return g * a + (1 - g) * m


for op_name, fn in (("add", lambda x: x[:, :1] + x[:, 1:]), ("mul", lambda x: x[:, :1] * x[:, 1:])):
    model = NALU(2, 1)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    for step in range(60):
        x = torch.from_numpy(rng.uniform(1, 5, (32, 2)).astype(np.float32))
        loss = F.mse_loss(model(x), fn(x))
        opt.zero_grad()
        loss.backward()
        opt.step()
    big = torch.tensor([[20.0, 30.0], [7.0, 11.0]])
    W = torch.tanh(model.W_hat) * torch.sigmoid(model.M_hat)
    print(
        "nalu",
        op_name,
        round(loss.item(), 3),
        r(W, 2),
        r(torch.sigmoid(model.G @ torch.tensor([1.0, 1.0])), 1),
        r(model(big) / fn(big), 2),
    )


class DeepSets(nn.Module):
    def __init__(self):
        super().__init__()
        self.phi = fill_(nn.Sequential(nn.Linear(2, 8), nn.ELU(), nn.Linear(8, 8)), 1)
        self.rho = fill_(nn.Sequential(nn.Linear(8, 8), nn.ELU(), nn.Linear(8, 1)), 2)

    def forward(self, x, mask):
        h = self.phi(x) * mask.unsqueeze(-1)
        return self.rho(h.sum(1))


class MAB(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.att = fill_(nn.MultiheadAttention(d, heads, batch_first=True), 3)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff = fill_(nn.Linear(d, d), 4)

    def forward(self, q, k, key_padding_mask=None):
        h = self.ln1(q + self.att(q, k, k, key_padding_mask=key_padding_mask, need_weights=False)[0])
        return self.ln2(h + F.relu(self.ff(h)))


class PMA(nn.Module):
    def __init__(self, d, heads, seeds):
        super().__init__()
        self.S = nn.Parameter(torch.linspace(-1, 1, seeds * d).view(1, seeds, d))
        self.mab = MAB(d, heads)

    def forward(self, x, key_padding_mask=None):
        return self.mab(self.S.expand(x.size(0), -1, -1), x, key_padding_mask)


sets = arr(3, 5, 2)
mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 1, 1, 1, 0]], dtype=torch.float32)
perm = torch.from_numpy(rng.permutation(5))
ds = DeepSets()
out = ds(sets, mask)
perm_out = ds(sets[:, perm], mask[:, perm])
trunc = ds(sets[1:2, :3], mask[1:2, :3])
print(
    "deepsets", r(out), round((out - perm_out).abs().max().item(), 5), round((out[1] - trunc[0]).abs().max().item(), 5)
)

embed = fill_(nn.Linear(2, 8), 5)
sab, pma = MAB(8, 2), PMA(8, 2, seeds=1)
pad = mask == 0
h = sab(embed(sets), embed(sets), key_padding_mask=pad)
pooled = pma(h, key_padding_mask=pad)
hp = sab(embed(sets[:, perm]), embed(sets[:, perm]), key_padding_mask=pad[:, perm])
pooled_p = pma(hp, key_padding_mask=pad[:, perm])
print("set_transformer", pooled.shape, r(pooled[0, 0]), round((pooled - pooled_p).abs().max().item(), 5))
changed = sets.clone()
changed[1, 3:] = 100.0
print("padding_ignored", round((pma(sab(embed(changed), embed(changed), pad), pad) - pooled)[1].abs().max().item(), 5))


class FiLMBlock(nn.Module):
    def __init__(self, c, qdim):
        super().__init__()
        self.conv = fill_(nn.Conv2d(c, c, 3, padding=1), 6)
        self.bn = nn.BatchNorm2d(c, affine=False)
        self.film = fill_(nn.Linear(qdim, 2 * c), 7)

    def forward(self, x, q):
        gamma, beta = self.film(q).chunk(2, dim=1)
        h = self.bn(self.conv(x))
        return x + F.relu((1 + gamma)[:, :, None, None] * h + beta[:, :, None, None])


film = FiLMBlock(3, 4)
img, question = arr(2, 3, 5, 5), arr(2, 4)
opt = torch.optim.SGD(film.parameters(), lr=0.1)
for step in range(3):
    y = film(img, question)
    loss = y.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("film", step, round(loss.item(), 4), r(film.film.weight.grad, 3), r(film.bn.running_mean, 3))
gamma, beta = film.film(question).chunk(2, 1)
print("film_params", gamma.shape, r(gamma[0], 3), r(beta[1], 3), film.bn)
