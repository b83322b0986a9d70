"""Memory-augmented networks from their papers: the Neural Turing Machine's addressing (Graves et al. 2014: content
focus by cosine similarity, interpolation, circular shift by a 3-tap convolution, sharpening), the DNC's usage-based
allocation (Graves et al. 2016: sorted usage, exclusive cumulative product, scatter back) and temporal link matrix,
and an end-to-end memory network hop (Sukhbaatar et al. 2015), trained a few steps on a copy task."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(2014)
N, M, B = 6, 4, 2


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def address(memory, key, beta, gate, shift, gamma, w_prev):
    sim = F.cosine_similarity(memory, key.unsqueeze(1), dim=-1, eps=1e-8)
    w_c = F.softmax(beta * sim, dim=1)
    w_g = gate * w_c + (1 - gate) * w_prev
    padded = F.pad(w_g.unsqueeze(1), (1, 1), mode="circular")
    w_s = F.conv1d(padded.transpose(0, 1), shift.flip(1).unsqueeze(1), groups=w_g.size(0)).squeeze(0)
    w_s_roll = sum(shift[:, j : j + 1] * torch.roll(w_g, j - 1, dims=1) for j in range(3))
    w = w_s.pow(gamma)
    return w / (w.sum(1, keepdim=True) + 1e-16), w_c, (w_s - w_s_roll).abs().max()


memory = arr(B, N, M)
key = arr(B, M)
beta = torch.tensor([[2.0], [5.0]])
gate = torch.tensor([[0.9], [0.3]])
shift = F.softmax(arr(B, 3), dim=1)
gamma = torch.tensor([[1.5], [3.0]])
w_prev = F.one_hot(torch.tensor([0, 5]), N).float()
w, w_c, err = address(memory, key, beta, gate, shift, gamma, w_prev)
print("ntm_content", r(w_c[0], 6), w_c.argmax(1).tolist())
print("ntm_weights", r(w[0], 6), r(w[1], 6), round(err.item(), 6), r(w.sum(1)))
print("circular_pad", F.pad(torch.arange(4.0).view(1, 1, 4), (2, 1), mode="circular").tolist())

erase, add = torch.sigmoid(arr(B, M)), torch.tanh(arr(B, M))
new_mem = memory * (1 - w.unsqueeze(2) * erase.unsqueeze(1)) + w.unsqueeze(2) * add.unsqueeze(1)
read = torch.bmm(w.unsqueeze(1), new_mem).squeeze(1)
print("ntm_rw", r(read[0]), r(torch.einsum("bn,bnm->bm", w, new_mem)[0]), new_mem.shape)

# DNC allocation weighting
usage = torch.tensor([[0.9, 0.1, 0.5, 0.0, 0.7, 0.3], [0.2, 0.2, 0.9, 0.95, 0.1, 0.4]])
sorted_usage, phi = torch.sort(usage, dim=1, stable=True)
prod = torch.cumprod(torch.cat([torch.ones(B, 1), sorted_usage[:, :-1]], dim=1), dim=1)
alloc_sorted = (1 - sorted_usage) * prod
alloc = torch.zeros_like(usage).scatter(1, phi, alloc_sorted)
print("dnc_alloc", r(alloc[0], 6), r(alloc[1], 6), phi.tolist())
alloc_b = torch.empty_like(usage)
alloc_b.scatter_(1, phi, alloc_sorted)
print("dnc_scatter_", torch.equal(alloc, alloc_b), r(torch.gather(alloc, 1, phi)[0], 3))

# temporal link matrix
w_write = F.softmax(arr(B, N), dim=1)
precedence = torch.zeros(B, N)
link = torch.zeros(B, N, N)
for step in range(3):
    w_write = F.softmax(arr(B, N) * (step + 1), dim=1)
    link = (1 - w_write.unsqueeze(2) - w_write.unsqueeze(1)) * link + w_write.unsqueeze(2) * precedence.unsqueeze(1)
    link = link * (1 - torch.eye(N)).unsqueeze(0)
    precedence = (1 - w_write.sum(1, keepdim=True)) * precedence + w_write
read_w = F.softmax(arr(B, N), dim=1)
fwd = torch.bmm(link, read_w.unsqueeze(2)).squeeze(2)
bwd = torch.bmm(link.transpose(1, 2), read_w.unsqueeze(2)).squeeze(2)
print("dnc_link", r(fwd[0], 6), r(bwd[1], 6), round(link.diagonal(dim1=1, dim2=2).abs().sum().item(), 6))


# end-to-end memory network on a copy/recall toy
class MemN2N(nn.Module):
    def __init__(self, vocab, d, hops=2):
        super().__init__()
        self.A = nn.ModuleList(nn.Embedding(vocab, d) for _ in range(hops + 1))
        self.pos = nn.Parameter(torch.zeros(5, d))
        self.hops = hops

    def forward(self, story, query):
        u = self.A[0](query).sum(1)
        attns = []
        for k in range(self.hops):
            m = self.A[k](story).sum(2) + self.pos[: story.size(1)]
            c = self.A[k + 1](story).sum(2)
            p = F.softmax(torch.einsum("bsd,bd->bs", m, u), dim=1)
            attns.append(p)
            u = u + torch.einsum("bs,bsd->bd", p, c)
        return u @ self.A[-1].weight.T, attns


net = MemN2N(9, 6)
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(
            torch.from_numpy(np.random.default_rng(30 + i).standard_normal(tuple(p.shape)).astype(np.float32) * 0.2)
        )
story = torch.from_numpy(rng.integers(1, 9, (4, 3, 2)))
query = story[:, 1, :1]
answer = story[:, 1, 1]
opt = torch.optim.Adam(net.parameters(), lr=0.05)
for step in range(5):
    logits, attns = net(story, query)
    loss = F.cross_entropy(logits, answer)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(net.parameters(), 40.0)
    opt.step()
    print("memn2n", step, round(loss.item(), 4), r(attns[-1][0], 3), (logits.argmax(1) == answer).sum().item())
print("tied", net.A[-1].weight.shape, logits.shape, story.dtype, query.shape)
try:
    F.pad(torch.zeros(1, 1, 3), (4, 0), mode="circular")
except RuntimeError as e:
    print("RuntimeError", e)
try:
    F.conv1d(torch.zeros(1, 2, 5), torch.zeros(2, 1, 3), groups=3)
except RuntimeError as e:
    print("RuntimeError", e)
