"""Decoding and checking code around recurrent models: CTC loss in its input forms (padded and concatenated targets,
blank index, reductions, zero_infinity, unbatched), greedy CTC decoding with unique_consecutive, a vectorised beam
search over a GRU decoder (flattened topk, floor division, index_select of states, finished masks), tie-breaking of
max/argmax/sort that Viterbi code relies on, initial states with unsorted packed batches, and gradcheck of RNN cells."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

rng = np.random.default_rng(21)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def arr(*shape, s=1.0, dtype=np.float32):
    return torch.from_numpy((rng.standard_normal(shape) * s).astype(dtype))


# CTC loss.
T, N, C = 8, 3, 5
logits = arr(T, N, C).requires_grad_(True)
log_probs = logits.log_softmax(2)
targets = torch.tensor([[1, 2, 2], [3, 1, 0], [4, 0, 0]])
in_lens = torch.tensor([8, 7, 5])
tgt_lens = torch.tensor([3, 2, 1])
for red in ["none", "sum", "mean"]:
    print("ctc", red, r(F.ctc_loss(log_probs, targets, in_lens, tgt_lens, reduction=red)))
flat = torch.cat([targets[i, : tgt_lens[i]] for i in range(N)])
same = torch.allclose(F.ctc_loss(log_probs, flat, in_lens, tgt_lens), F.ctc_loss(log_probs, targets, in_lens, tgt_lens))
print("concat targets", flat.tolist(), same)
print("tuple lengths", r(F.ctc_loss(log_probs, targets, (8, 7, 5), (3, 2, 1), reduction="none")))
blank4 = F.ctc_loss(log_probs, targets.clamp(max=3), in_lens, tgt_lens, blank=4, reduction="none")
print("blank=4", r(blank4))
impossible = torch.tensor([[1, 1, 1, 1, 1]])
lp1 = log_probs[:4, :1]
print("infinite", F.ctc_loss(lp1, impossible, [4], [5], reduction="none").tolist())
print("zero_infinity", F.ctc_loss(lp1, impossible, [4], [5], reduction="none", zero_infinity=True).tolist())
crit = nn.CTCLoss(blank=0, zero_infinity=True)
print(crit, r(crit(log_probs, targets, in_lens, tgt_lens)))
unb = F.ctc_loss(log_probs[:, 0], targets[0], in_lens[:1], tgt_lens[:1])
print("unbatched", r(unb), r(F.ctc_loss(log_probs[:, :1], targets[:1], in_lens[:1], tgt_lens[:1])))
F.ctc_loss(log_probs, targets, in_lens, tgt_lens).backward()
print("ctc grad", r(logits.grad[0]), "beyond length", logits.grad[6:, 2].abs().sum().item())

# Greedy decoding.
best = log_probs.argmax(2).t()
for b in range(N):
    path = best[b, : in_lens[b]]
    collapsed = torch.unique_consecutive(path)
    print("greedy", path.tolist(), "->", collapsed[collapsed != 0].tolist())
u, inv, cnt = torch.unique_consecutive(best, return_inverse=True, return_counts=True, dim=1)
print("unique_consecutive dim=1", tuple(u.shape), inv.tolist(), cnt.tolist())

# Ties: max/argmax return the first maximal index; stable sort keeps order.
tie = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0]])
print("max ties", tie.max(1).indices.tolist(), tie.argmax(1).tolist(), tie.min(1).indices.tolist())
print("stable sort", torch.sort(tie, dim=1, descending=True, stable=True).indices.tolist())
print("argsort stable", torch.argsort(tie[1], stable=True).tolist(), tie.flatten().argmax().item())

# Vectorised beam search over a GRU decoder.
V, H, B, K = 7, 6, 2, 3
EOS, BOS = 1, 0
emb = nn.Embedding(V, H)
gru = nn.GRU(H, H, batch_first=True)
proj = nn.Linear(H, V)
with torch.no_grad():
    for m in (emb, gru, proj):
        for p in m.parameters():
            p.copy_(arr(*p.shape, s=0.8))
h = arr(1, B, H, s=0.5).repeat_interleave(K, dim=1)
tokens = torch.full((B * K, 1), BOS, dtype=torch.long)
scores = torch.tensor([0.0] + [-1e9] * (K - 1)).repeat(B)
finished = torch.zeros(B * K, dtype=torch.bool)
with torch.no_grad():
    for step in range(5):
        out, h = gru(emb(tokens[:, -1:]), h)
        logp = F.log_softmax(proj(out[:, -1]), dim=-1)
        logp[finished] = -1e9
        logp[finished, EOS] = 0.0
        cand = (scores.unsqueeze(1) + logp).view(B, K * V)
        top_s, top_i = cand.topk(K, dim=1)
        beam_idx = torch.div(top_i, V, rounding_mode="floor")
        tok = top_i % V
        base = (torch.arange(B) * K).unsqueeze(1)
        sel = (base + beam_idx).view(-1)
        tokens = torch.cat([tokens.index_select(0, sel), tok.view(-1, 1)], dim=1)
        h = h.index_select(1, sel)
        scores = top_s.view(-1)
        finished = finished.index_select(0, sel) | (tok.view(-1) == EOS)
        print("step", step, "beams", beam_idx.tolist(), "tok", tok.tolist(), "done", int(finished.sum()))
full = torch.full_like(scores, tokens.shape[1] - 1, dtype=torch.long)
lengths = torch.where(finished, (tokens == EOS).int().argmax(1), full)
normed = scores / lengths.clamp(min=1).float() ** 0.6
print("final", tokens.view(B, K, -1)[:, 0].tolist(), r(normed, 6), lengths.tolist())

# Initial states with an unsorted packed batch are given in the caller's order.
lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True, proj_size=2, bidirectional=True)
with torch.no_grad():
    for p in lstm.parameters():
        p.copy_(arr(*p.shape, s=0.5))
x = arr(3, 5, 3)
lens = torch.tensor([2, 5, 3])
h0, c0 = arr(4, 3, 2), arr(4, 3, 4)
out, (hn, cn) = lstm(pack_padded_sequence(x, lens, batch_first=True, enforce_sorted=False), (h0, c0))
padded, _ = pad_packed_sequence(out, batch_first=True)
single, (h1, c1) = lstm(x[0:1, :2], (h0[:, 0:1].contiguous(), c0[:, 0:1].contiguous()))
print("proj packed", tuple(padded.shape), tuple(hn.shape), tuple(cn.shape))
print("row 0 alone", torch.allclose(single[0], padded[0, :2], atol=1e-5), torch.allclose(h1[:, 0], hn[:, 0], atol=1e-5))
print("hn", r(hn[:, 1], 8))

# Gradcheck of recurrent cells in float64.
torch.manual_seed(0)
for cell in (nn.GRUCell(3, 2).double(), nn.LSTMCell(3, 2).double(), nn.RNNCell(3, 2, nonlinearity="tanh").double()):
    inp = arr(4, 3, dtype=np.float64).requires_grad_(True)

    def f(z, cell=cell):
        o = cell(z)
        return o[0] if isinstance(o, tuple) else o

    print(type(cell).__name__, "gradcheck", torch.autograd.gradcheck(f, (inp,)))

for label, fn in [
    ("ctc int targets float", lambda: F.ctc_loss(log_probs, targets.float(), in_lens, tgt_lens)),
    ("ctc input too long", lambda: F.ctc_loss(log_probs, targets, torch.tensor([9, 7, 5]), tgt_lens)),
    ("unique_consecutive bad dim", lambda: torch.unique_consecutive(best, dim=3)),
    ("topk too big", lambda: torch.zeros(2, 3).topk(4)),
]:
    try:
        res = fn()
        print(label, "ok", r(res))
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:100])
