"""Efficient-attention variants as their reference implementations write them: Longformer's sliding chunks through
as_strided and the pad-and-view diagonal shuffles, causal linear attention with the elu+1 feature map and cumsum,
Nystromformer landmarks with the iterative Moore-Penrose inverse, and flash-style blocked attention with an online
softmax and logsumexp, each checked against dense attention and trained for a few steps."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(10)


def r(t, n=4):
    return np.round(t.detach().double().flatten()[:n].numpy(), 4).tolist()


def npt(*shape, scale=1.0):
    return torch.from_numpy((scale * rng.standard_normal(shape)).astype(np.float32))


def chunk(hidden_states, window_overlap):
    hidden_states = hidden_states.view(hidden_states.size(0), torch.div(hidden_states.size(1), (window_overlap * 2),
                                                                        rounding_mode="trunc"),
                                       window_overlap * 2, hidden_states.size(2))
    chunk_size = list(hidden_states.size())
    chunk_size[1] = chunk_size[1] * 2 - 1
    chunk_stride = list(hidden_states.stride())
    chunk_stride[1] = chunk_stride[1] // 2
    return hidden_states.as_strided(size=chunk_size, stride=chunk_stride)


def pad_and_transpose_last_two_dims(hidden_states_padded, padding):
    hidden_states_padded = F.pad(hidden_states_padded, padding)
    return hidden_states_padded.view(*hidden_states_padded.size()[:-2], hidden_states_padded.size(-1),
                                     hidden_states_padded.size(-2))


def sliding_chunks_matmul_qk(q, k, w):
    bsz, seqlen, d = q.shape
    chunks_count = seqlen // w - 1
    chunk_q, chunk_k = chunk(q, w), chunk(k, w)
    chunk_attn = torch.einsum("bcxd,bcyd->bcxy", (chunk_q, chunk_k))
    chunk_attn = pad_and_transpose_last_two_dims(chunk_attn, padding=(0, 0, 0, 1))
    diag = chunk_attn.new_zeros((bsz, chunks_count + 1, w, w * 2 + 1))
    diag[:, :-1, :, w:] = chunk_attn[:, :, :w, : w + 1]
    diag[:, -1, :, w:] = chunk_attn[:, -1, w:, : w + 1]
    diag[:, 1:, :, :w] = chunk_attn[:, :, -(w + 1):-1, w + 1:]
    diag[:, 0, 1:w, 1:w] = chunk_attn[:, 0, : w - 1, 1 - w:]
    return diag.view(bsz, seqlen, 2 * w + 1)


x = torch.arange(2 * 8 * 1, dtype=torch.float32).view(2, 8, 1)
c = chunk(x, 2)
print("chunks", tuple(c.shape), c.stride(), c[0, :, :, 0].tolist())
print("pad-transpose", pad_and_transpose_last_two_dims(torch.arange(6.).view(1, 2, 3), (0, 0, 0, 1))[0].tolist())
w = 2
q, k = npt(2, 8, 4), npt(2, 8, 4)
band = sliding_chunks_matmul_qk(q, k, w)
dense = q @ k.transpose(1, 2)
idx = torch.arange(8)[:, None] + torch.arange(-w, w + 1)[None, :]
valid = (idx >= 0) & (idx < 8)
ref = torch.gather(dense, 2, idx.clamp(0, 7).expand(2, -1, -1)).masked_fill(~valid, 0.0)
print("band", tuple(band.shape), "matches dense diagonals",
      torch.allclose(band.masked_fill(~valid, 0.0), ref, atol=1e-5))
print("band row 3", r(band[0, 3], 5))


def elu_feature_map(x):
    return F.elu(x) + 1


def causal_linear_attention(q, k, v, eps=1e-6):
    q, k = elu_feature_map(q), elu_feature_map(k)
    kv = torch.einsum("bnd,bne->bnde", k, v).cumsum(dim=1)
    z = 1.0 / (torch.einsum("bnd,bnd->bn", q, k.cumsum(dim=1)) + eps)
    return torch.einsum("bnd,bnde,bn->bne", q, kv, z)


v = npt(2, 8, 3)
lin = causal_linear_attention(q, k, v)
sim = elu_feature_map(q) @ elu_feature_map(k).transpose(1, 2)
sim = sim.masked_fill(torch.ones(8, 8, dtype=torch.bool).triu(1), 0.0)
print("linear attn", tuple(lin.shape), torch.allclose(lin, (sim / sim.sum(-1, keepdim=True)) @ v, atol=1e-5),
      r(lin[1, -1], 3))


def iterative_inv(mat, n_iter=6):
    I = torch.eye(mat.size(-1), device=mat.device)
    K = mat
    V = 1 / torch.max(torch.sum(K, dim=-2)) * K.transpose(-1, -2)
    for _ in range(n_iter):
        KV = torch.matmul(K, V)
        V = torch.matmul(0.25 * V, 13 * I - torch.matmul(KV, 15 * I - torch.matmul(KV, 7 * I - KV)))
    return V


def nystrom_attention(q, k, v, num_landmarks=4):
    b, n, d = q.shape
    q = q / math.sqrt(math.sqrt(d))
    k = k / math.sqrt(math.sqrt(d))
    q_land = q.reshape(b, num_landmarks, n // num_landmarks, d).mean(dim=-2)
    k_land = k.reshape(b, num_landmarks, n // num_landmarks, d).mean(dim=-2)
    kernel_1 = F.softmax(q @ k_land.transpose(-1, -2), dim=-1)
    kernel_2 = F.softmax(q_land @ k_land.transpose(-1, -2), dim=-1)
    kernel_3 = F.softmax(q_land @ k.transpose(-1, -2), dim=-1)
    return kernel_1 @ iterative_inv(kernel_2) @ (kernel_3 @ v), kernel_2


ny, k2 = nystrom_attention(q, k, v)
inv = iterative_inv(k2, 20)
print("pinv", torch.allclose(inv, torch.linalg.pinv(k2), atol=1e-3), "inverse",
      torch.allclose(k2 @ inv, torch.eye(4).expand(2, 4, 4), atol=1e-3))
full = F.softmax(q @ k.transpose(1, 2) / 2.0, dim=-1) @ v
print("nystrom", tuple(ny.shape), r(ny[0, 0], 3), "rel err", round(((ny - full).norm() / full.norm()).item(), 2))


def blocked_attention(q, k, v, block=3, causal=True):
    b, n, d = q.shape
    scale = d ** -0.5
    out = torch.zeros_like(v)
    m = torch.full((b, n, 1), float("-inf"))
    l = torch.zeros(b, n, 1)
    for start in range(0, n, block):
        kb, vb = k[:, start:start + block], v[:, start:start + block]
        s = q @ kb.transpose(1, 2) * scale
        if causal:
            qi = torch.arange(n)[:, None]
            kj = torch.arange(start, start + kb.shape[1])[None, :]
            s = s.masked_fill(kj > qi, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        p = torch.exp(s - m_new)
        corr = torch.exp(m - m_new)
        l = l * corr + p.sum(-1, keepdim=True)
        out = out * corr + p @ vb
        m = m_new
    return out / l, (m + l.log()).squeeze(-1)


fo, lse = blocked_attention(q, k, v)
sdpa = F.scaled_dot_product_attention(q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1), is_causal=True).squeeze(1)
scores = (q @ k.transpose(1, 2) / 2.0).masked_fill(torch.ones(8, 8, dtype=torch.bool).triu(1), float("-inf"))
print("flash == sdpa", torch.allclose(fo, sdpa, atol=1e-5), "lse",
      torch.allclose(lse, torch.logsumexp(scores, -1), atol=1e-5), r(lse[0], 4))


class LinearAttentionLM(nn.Module):
    def __init__(self, vocab=9, d=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, vocab)

    def forward(self, tokens):
        h = self.emb(tokens)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        return self.out(h + causal_linear_attention(q, k, v))


lm = LinearAttentionLM()
with torch.no_grad():
    for p in lm.parameters():
        p.copy_(npt(*p.shape, scale=0.4))
tokens = torch.from_numpy(rng.integers(0, 9, size=(3, 9)))
opt = torch.optim.Adam(lm.parameters(), lr=2e-2)
for step in range(4):
    opt.zero_grad()
    logits = lm(tokens[:, :-1])
    loss = F.cross_entropy(logits.transpose(1, 2), tokens[:, 1:])
    loss.backward()
    if step == 0:
        print("grad qkv", round(lm.qkv.weight.grad.norm().item(), 4), "emb", round(lm.emb.weight.grad.norm().item(), 4))
    opt.step()
    print("step", step, round(loss.item(), 4), "ppl", round(loss.exp().item(), 3))
