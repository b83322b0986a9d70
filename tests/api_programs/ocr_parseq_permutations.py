"""A PARSeq-style permuted autoregressive text decoder as its reference code writes it: position queries attending to
character embeddings under attention masks built from permutations (the canonical left-to-right order, its reverse
and a seeded random one), float -inf masks from torch.triu and bool masks for padding, nn.MultiheadAttention with
per-head weights, nn.TransformerDecoderLayer with norm_first, cross-attention to a patch memory, and the loss
averaged over permutations with ignore_index."""

import torch
from torch import nn

F = torch.nn.functional

torch.manual_seed(0)
PAD, BOS, EOS = 0, 1, 2
V, D, L, P = 9, 16, 5, 6  # vocab, width, max label length (+eos), memory patches


def perm_mask(perm):
    """Content/query masks for one permutation of positions 0..L-1 (position 0 = BOS slot)."""
    n = len(perm) + 1
    order = torch.cat([torch.tensor([0]), perm + 1])
    mask = torch.full((n, n), float("-inf"))
    for i in range(n):
        mask[order[i], order[: i + 1]] = 0.0
    content = mask[:-1, :-1].clone()
    query = mask[1:, :-1]
    return content, query


canonical = torch.arange(L)
perms = [canonical, canonical.flip(0), torch.randperm(L)]
print("perms", [p.tolist() for p in perms])
c0, q0 = perm_mask(canonical)
causal = nn.Transformer.generate_square_subsequent_mask(L)
print("canonical query mask == causal", torch.equal(q0, causal), causal.dtype)
print("triu form", torch.equal(causal, torch.triu(torch.full((L, L), float("-inf")), diagonal=1)))
print("reverse query mask", (perm_mask(perms[1])[1] == 0).int().tolist())

emb = nn.Embedding(V, D, padding_idx=PAD)
pos_q = nn.Parameter(torch.randn(1, L, D) * 0.02)
mha = nn.MultiheadAttention(D, 4, batch_first=True, dropout=0.0)
layer = nn.TransformerDecoderLayer(D, 4, 32, dropout=0.0, batch_first=True, norm_first=True)
head = nn.Linear(D, V)
memory = torch.randn(2, P, D)

labels = torch.tensor([[3, 4, 5, EOS, PAD], [6, EOS, PAD, PAD, PAD]])
tgt_in = torch.cat([torch.full((2, 1), BOS), labels[:, :-1]], 1)
key_pad = tgt_in == PAD
print("key padding", key_pad.int().tolist())

q = pos_q.expand(2, -1, -1)
ctx = emb(tgt_in)
out, w = mha(q, ctx, ctx, attn_mask=q0, key_padding_mask=key_pad, need_weights=True, average_attn_weights=False)
print("per-head weights", tuple(w.shape), "row sums", w.sum(-1)[0, 0].round(decimals=4).tolist())
print("first query sees BOS and one key", (w[:, :, 0] > 0).sum(-1).tolist())
_, wavg = mha(q, ctx, ctx, attn_mask=q0, key_padding_mask=key_pad)
print("averaged", tuple(wavg.shape), torch.allclose(wavg, w.mean(1), atol=1e-6))
bool_mask = q0 == float("-inf")
out_b, _ = mha(q, ctx, ctx, attn_mask=bool_mask, key_padding_mask=key_pad)
print("bool mask same", torch.allclose(out, out_b, atol=1e-6))

params = [pos_q, *emb.parameters(), *layer.parameters(), *head.parameters()]
opt = torch.optim.AdamW(params, lr=3e-3, weight_decay=0.01)
for step in range(4):
    losses = []
    for perm in perms:
        cm, qm = perm_mask(perm)
        h = layer(
            pos_q.expand(2, -1, -1),
            memory,
            tgt_mask=qm,
            memory_mask=None,
            tgt_key_padding_mask=None,
            memory_key_padding_mask=torch.tensor([[False] * P, [False] * 4 + [True] * 2]),
        )
        logits = head(h)
        losses.append(F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=PAD))
    loss = torch.stack(losses).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), [round(l.item(), 4) for l in losses])

with torch.no_grad():
    h = layer(pos_q.expand(2, -1, -1), memory, tgt_mask=causal, tgt_is_causal=True)
    pred = head(h).argmax(-1)
print("pred", pred.tolist(), "eos first", (pred == EOS).int().argmax(1).tolist())
print(
    layer.self_attn.batch_first,
    layer.norm_first,
    type(layer.activation).__name__
    if not callable(layer.activation) or isinstance(layer.activation, nn.Module)
    else layer.activation.__name__,
)
try:
    mha(q, ctx, ctx, attn_mask=torch.zeros(3, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    mha(q, ctx, ctx, key_padding_mask=key_pad[:, :3])
except Exception as e:
    print(type(e).__name__, e)
