"""Pointer-generator summarisation pieces: a bidirectional GRU encoder over packed, unsorted batches (sorted and
unsorted indices, total_length round trips, bidirectional state reshapes), Bahdanau attention with a source mask,
copy probabilities scattered into an extended vocabulary with scatter_add_, coverage loss, and PackedSequence
conveniences users reach for."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

rng = np.random.default_rng(11)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def fill(m, s=0.4):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * s))


V, OOV, E, H = 12, 3, 6, 5
src = [torch.tensor([4, 13, 7, 2]), torch.tensor([5, 9, 14, 11, 3, 2]), torch.tensor([8, 2])]  # ids >= V are OOV
lengths = torch.tensor([len(s) for s in src])
src_ext = pad_sequence(src, batch_first=True)
src_in = src_ext.masked_fill(src_ext >= V, 1)  # <unk> for the encoder
print("src_ext", src_ext.tolist())
print("src_in", src_in.tolist())

emb = nn.Embedding(V, E, padding_idx=0)
enc = nn.GRU(E, H, num_layers=2, bidirectional=True, batch_first=True)
fill(emb)
fill(enc)

packed = pack_padded_sequence(emb(src_in), lengths, batch_first=True, enforce_sorted=False)
print("packed", tuple(packed.data.shape), packed.batch_sizes.tolist(), packed.batch_sizes.dtype)
print("indices", packed.sorted_indices.tolist(), packed.unsorted_indices.tolist())
out, h_n = enc(packed)
print("out type", type(out).__name__, out.sorted_indices.tolist(), tuple(out.data.shape))
enc_out, out_lens = pad_packed_sequence(out, batch_first=True, total_length=7)
print("enc_out", tuple(enc_out.shape), out_lens.tolist(), out_lens.dtype, enc_out[2, 2:].abs().sum().item())
h4 = h_n.view(2, 2, len(src), H)  # (layers, directions, batch, hidden)
last = torch.cat([h4[-1, 0], h4[-1, 1]], dim=-1)
print("h_n", tuple(h_n.shape), "last", tuple(last.shape), r(last[0]))
fwd_end = enc_out[torch.arange(3), lengths - 1, :H]
bwd_start = enc_out[:, 0, H:]
same_f, same_b = torch.allclose(fwd_end, h4[-1, 0], atol=1e-6), torch.allclose(bwd_start, h4[-1, 1], atol=1e-6)
print("h_n matches outputs", same_f, same_b)

# Same batch through pack_sequence / unpack_sequence / unpad_sequence.
ps = pack_sequence([emb(s.clamp(max=1) * 0 + s.masked_fill(s >= V, 1)) for s in src], enforce_sorted=False)
print("pack_sequence same", torch.equal(ps.data, packed.data), torch.equal(ps.batch_sizes, packed.batch_sizes))
back = unpack_sequence(ps)
same = all(torch.equal(a, emb(b.masked_fill(b >= V, 1))) for a, b in zip(back, src))
print("unpack", [tuple(t.shape) for t in back], same)
padded_back, _ = pad_packed_sequence(ps, batch_first=True)
print("unpad", [tuple(t.shape) for t in unpad_sequence(padded_back, lengths, batch_first=True)])
print("to double", ps.to(torch.float64).data.dtype, ps.double().data.dtype, ps.is_cuda, isinstance(ps, tuple))
print("fields", PackedSequence._fields)

# Decoder step with attention and copy distribution.
W_h = nn.Linear(2 * H, H, bias=False)
W_s = nn.Linear(H, H)
v = nn.Linear(H, 1, bias=False)
dec = nn.GRUCell(E, H)
gen = nn.Linear(H + 2 * H + E, 1)
out_proj = nn.Linear(H + 2 * H, V)
for m in (W_h, W_s, v, dec, gen, out_proj):
    fill(m)
bridge = nn.Linear(2 * H, H)
fill(bridge)
s_t = torch.tanh(bridge(last))
src_mask = torch.arange(7)[None, :] < lengths[:, None]
coverage = torch.zeros(3, 7)
y_prev = torch.full((3,), 1, dtype=torch.long)
cov_losses, nll = [], []
targets = torch.tensor([[13, 7, 2], [14, 11, 2], [8, 2, 0]])
for t in range(3):
    x = emb(y_prev)
    s_t = dec(x, s_t)
    e = v(torch.tanh(W_h(enc_out) + W_s(s_t).unsqueeze(1))).squeeze(-1)
    e = e.masked_fill(~src_mask, float("-inf"))
    a = F.softmax(e, dim=-1)
    ctx = torch.bmm(a.unsqueeze(1), enc_out).squeeze(1)
    p_gen = torch.sigmoid(gen(torch.cat([ctx, s_t, x], dim=-1)))
    p_vocab = F.softmax(out_proj(torch.cat([s_t, ctx], dim=-1)), dim=-1)
    final = torch.cat([p_gen * p_vocab, torch.zeros(3, OOV)], dim=1)
    src_idx = torch.cat([src_ext, torch.zeros(3, 1, dtype=torch.long)], dim=1)
    final.scatter_add_(1, src_idx, (1 - p_gen) * a)
    cov_losses.append(torch.minimum(a, coverage).sum(1))
    coverage = coverage + a
    tgt = targets[:, t]
    step_nll = -torch.log(final.gather(1, tgt.unsqueeze(1)).squeeze(1) + 1e-12)
    nll.append(step_nll.masked_fill(tgt == 0, 0.0))
    print("t", t, "attn pad zero", a[2, 2:].sum().item(), "p_gen", r(p_gen), "sum", r(final.sum(1)))
    print("  copy mass on oov", r(final[:, V:]), "argmax", final.argmax(1).tolist())
    y_prev = tgt.masked_fill(tgt >= V, 1)
loss = torch.stack(nll, 1).sum() / (targets != 0).sum() + torch.stack(cov_losses, 1).mean()
loss.backward()
print("loss", round(loss.item(), 4), "enc grad", r(enc.weight_ih_l0.grad, 4))
print("emb pad grad", emb.weight.grad[0].sum().item())
print("coverage", r(coverage, 7))

for label, fn in [
    ("sorted required", lambda: pack_padded_sequence(emb(src_in), lengths, batch_first=True)),
    ("zero length", lambda: pack_padded_sequence(emb(src_in), torch.tensor([4, 0, 2]), True, False)),
    ("cuda lengths dtype", lambda: pack_padded_sequence(emb(src_in), lengths.float(), True, False).batch_sizes),
    ("scatter_add bad index", lambda: torch.zeros(2, 3).scatter_add_(1, torch.tensor([[0, 5]]), torch.ones(1, 2))),
    ("scatter_add dtype", lambda: torch.zeros(2, 3).scatter_add_(1, torch.tensor([[0, 1]]), torch.ones(1, 2).double())),
    ("gru wrong h0", lambda: enc(emb(src_in), torch.zeros(2, 3, H))),
]:
    try:
        res = fn()
        print(label, "ok", res.tolist() if torch.is_tensor(res) else "")
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:100])
