"""Sequence packing as SFT/pretraining code does it: documents concatenated into fixed-length rows, position_ids
that restart per document, cu_seqlens for varlen kernels, block-diagonal causal masks from document ids, labels
shifted with -100 at boundaries and padding, and cross_entropy with ignore_index, label smoothing and per-token
reductions; packed attention checked against running each document alone."""

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)

docs = [[5, 9, 2, 7, 1], [3, 3, 8], [6, 4, 4, 10, 2, 9, 11], [12, 1]]
EOS, PAD, L = 0, 13, 8

# greedy packing with EOS separators into rows of L tokens
stream = []
doc_ids = []
for i, d in enumerate(docs):
    stream += d + [EOS]
    doc_ids += [i] * (len(d) + 1)
stream = torch.tensor(stream)
doc_ids = torch.tensor(doc_ids)
n_rows = -(-stream.numel() // L)
pad = n_rows * L - stream.numel()
input_ids = F.pad(stream, (0, pad), value=PAD).view(n_rows, L)
seg = F.pad(doc_ids, (0, pad), value=-1).view(n_rows, L)
print("input_ids:\n", input_ids)
print("segment ids:\n", seg)

# position ids restart at each document start within a row
starts = torch.ones_like(seg, dtype=torch.bool)
starts[:, 1:] = seg[:, 1:] != seg[:, :-1]
idx = torch.arange(L).expand(n_rows, L)
last_start = torch.where(starts, idx, torch.zeros_like(idx)).cummax(dim=1).values
position_ids = idx - last_start
print("position_ids:\n", position_ids)

# cu_seqlens over the flattened batch (flash-attn varlen convention)
flat_seg = seg.flatten()
boundaries = torch.ones(flat_seg.numel(), dtype=torch.bool)
boundaries[1:] = (flat_seg[1:] != flat_seg[:-1]) | (torch.arange(1, flat_seg.numel()) % L == 0)
lengths = torch.diff(torch.cat([boundaries.nonzero().flatten(), torch.tensor([flat_seg.numel()])]))
cu_seqlens = F.pad(torch.cumsum(lengths, 0, dtype=torch.int32), (1, 0))
print("seqlens:", lengths.tolist(), "cu_seqlens:", cu_seqlens.tolist(), cu_seqlens.dtype,
      "max_seqlen:", int(lengths.max()))
pos_from_cu = torch.arange(flat_seg.numel()) - torch.repeat_interleave(cu_seqlens[:-1], lengths)
print("positions from cu_seqlens == position_ids:", torch.equal(pos_from_cu.view(n_rows, L), position_ids))

# block-diagonal causal mask (B, 1, L, L) from segment ids
same_doc = seg[:, :, None] == seg[:, None, :]
causal = torch.tril(torch.ones(L, L, dtype=torch.bool))
valid = (seg != -1)
mask = same_doc & causal & valid[:, None, :]
mask = mask | torch.eye(L, dtype=torch.bool)  # keep padded query rows attending to themselves
print("mask row 1 (int):\n", mask[1].int())
print("block_diag of per-doc tril:", torch.equal(
    mask[0, :6, :6], torch.block_diag(torch.ones(6, 6).tril(), torch.ones(0, 0)).bool()))
bd = torch.block_diag(*[torch.ones(n, n).tril() for n in (2, 6)]).bool()
print("row 1 blocks via block_diag:", torch.equal(bd, mask[1]))

# packed attention == per-document attention
D = 4
emb = torch.sin(torch.arange(14 * D, dtype=torch.float32).reshape(14, D) * 0.5)
x = emb[input_ids]
q = k = v = x.unsqueeze(1)
packed_out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask.unsqueeze(1)).squeeze(1)
flat_x = emb[stream]
ok = True
for i in range(len(docs)):
    sel = (doc_ids == i).nonzero().flatten()
    r, c = sel // L, sel % L
    # a document split across rows attends only within its row piece
    for row in r.unique():
        part = sel[r == row]
        xi = flat_x[part].unsqueeze(0)
        alone = F.scaled_dot_product_attention(xi, xi, xi, is_causal=True)[0]
        ok &= torch.allclose(alone, packed_out[row, part % L], atol=1e-6)
print("packed == per-document:", ok)

# labels: next token, -100 across document boundaries and on padding
labels = input_ids.clone()
labels[seg == -1] = -100
shift_labels = torch.full_like(labels, -100)
shift_labels[:, :-1] = labels[:, 1:]
cross = torch.zeros_like(seg, dtype=torch.bool)
cross[:, :-1] = seg[:, 1:] != seg[:, :-1]
shift_labels[cross] = -100
print("shifted labels:\n", shift_labels)

V = 14
logits = torch.cos(torch.arange(n_rows * L * V, dtype=torch.float32).reshape(n_rows, L, V) * 0.071) * 3
loss = F.cross_entropy(logits.view(-1, V), shift_labels.view(-1))
loss_sum = F.cross_entropy(logits.view(-1, V), shift_labels.view(-1), reduction="sum")
per_tok = F.cross_entropy(logits.view(-1, V), shift_labels.view(-1), reduction="none")
n_valid = (shift_labels != -100).sum()
print(f"mean {loss.item():.4f} sum {loss_sum.item():.4f} n_valid {n_valid.item()} "
      f"sum/n {(loss_sum / n_valid).item():.4f}")
print("ignored tokens give 0:", per_tok.view(n_rows, L)[shift_labels == -100].abs().sum().item())
print("per-token:\n", per_tok.view(n_rows, L))
ls = F.cross_entropy(logits.view(-1, V), shift_labels.view(-1), label_smoothing=0.1)
logp = logits.view(-1, V).log_softmax(-1)
m = shift_labels.view(-1) != -100
manual_ls = (0.9 * -logp[m].gather(1, shift_labels.view(-1)[m, None]).squeeze(1) - 0.1 * logp[m].mean(-1)).mean()
print(f"label smoothing {ls.item():.4f} manual {manual_ls.item():.4f}")
custom_ignore = F.cross_entropy(logits.view(-1, V), shift_labels.view(-1).clamp(min=0).masked_fill(~m, PAD),
                                ignore_index=PAD)
print(f"ignore_index=PAD {custom_ignore.item():.4f} same: {torch.allclose(custom_ignore, loss)}")
nll = F.nll_loss(logp, shift_labels.view(-1), reduction="mean")
print(f"nll_loss {nll.item():.4f}")

# per-document loss with index_add_ (document-level averaging)
doc_loss = torch.zeros(len(docs)).index_add_(0, seg.view(-1)[m], per_tok[m])
doc_cnt = torch.zeros(len(docs)).index_add_(0, seg.view(-1)[m], torch.ones(int(m.sum())))
print("per-document mean loss:", doc_loss / doc_cnt)
all_ignored = F.cross_entropy(logits[0], torch.full((L,), -100))
print("all ignored -> nan:", all_ignored.isnan().item(),
      "sum:", F.cross_entropy(logits[0], torch.full((L,), -100), reduction="sum").item())
try:
    F.cross_entropy(logits.view(-1, V), shift_labels.view(-1).clamp(max=V + 2).masked_fill(~m, V + 2))
except IndexError as e:
    print("IndexError:", e)
print("probability targets:", round(F.cross_entropy(logits[0], F.softmax(logits[1], -1)).item(), 4))
