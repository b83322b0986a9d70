"""Supervised fine-tuning before RLHF, with packed sequences: documents concatenated into one row with position
ids that restart per document (cumsum/repeat_interleave tricks), cu_seqlens from F.pad(cumsum), a block-diagonal
causal mask from torch.block_diag and from segment-id equality, completion-only labels with ignore_index=-100,
cross_entropy with label_smoothing and class weights, per-document losses via scatter_reduce/index_add_, and the
label errors PyTorch reports."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
V = 8
docs = [torch.tensor([2, 5, 6, 1]), torch.tensor([3, 7, 1]), torch.tensor([4, 4, 6, 6, 1])]
prompt_lens = torch.tensor([2, 1, 3])
lengths = torch.tensor([len(d) for d in docs])
ids = torch.cat(docs)
L = ids.numel()
cu_seqlens = F.pad(torch.cumsum(lengths, 0, dtype=torch.int32), (1, 0))
print("cu_seqlens:", cu_seqlens.tolist(), cu_seqlens.dtype)
seg = torch.repeat_interleave(torch.arange(len(docs)), lengths)
print("segment ids:", seg.tolist())
starts = cu_seqlens[:-1].long()
position_ids = torch.arange(L) - starts.repeat_interleave(lengths)
print("position ids:", position_ids.tolist())
alt = torch.cat([torch.arange(n) for n in lengths.tolist()])
print("same as per-doc arange:", torch.equal(position_ids, alt))

blocks = torch.block_diag(*[torch.ones(n, n, dtype=torch.bool).tril() for n in lengths.tolist()])
same_seg = (seg[:, None] == seg[None, :]) & (torch.arange(L)[:, None] >= torch.arange(L)[None, :])
print("block_diag mask == segment mask:", torch.equal(blocks, same_seg), tuple(blocks.shape), blocks.dtype)
print("block_diag mixed:", torch.block_diag(torch.ones(1, 2), torch.tensor([[3]]), torch.tensor(5.0)).tolist())

labels = ids.clone()
labels[:-1] = ids[1:]
labels[cu_seqlens[1:].long() - 1] = -100
in_prompt = position_ids < prompt_lens.repeat_interleave(lengths) - 1
labels[in_prompt] = -100
print("labels:", labels.tolist())

torch.manual_seed(0)
logits = torch.randn(L, V, requires_grad=True)
q = torch.randn(1, 2, L, 4)
attn = F.scaled_dot_product_attention(q, q, q, attn_mask=blocks)
ref = torch.cat(
    [
        F.scaled_dot_product_attention(q[:, :, a:b], q[:, :, a:b], q[:, :, a:b], is_causal=True)
        for a, b in zip(cu_seqlens[:-1].tolist(), cu_seqlens[1:].tolist())
    ],
    2,
)
print("packed attention == per-doc:", torch.allclose(attn, ref, atol=1e-6))

ce = F.cross_entropy(logits, labels)
print("ce:", round(ce.item(), 4), ce.grad_fn.name())
print("ce smoothed:", round(F.cross_entropy(logits, labels, label_smoothing=0.1).item(), 4))
w = torch.linspace(0.5, 1.5, V)
print(
    "ce weighted:",
    round(F.cross_entropy(logits, labels, weight=w).item(), 4),
    round(F.cross_entropy(logits, labels, weight=w, label_smoothing=0.2).item(), 4),
)
print(
    "ce sum/none:",
    round(F.cross_entropy(logits, labels, reduction="sum").item(), 4),
    F.cross_entropy(logits, labels, reduction="none")[labels == -100].tolist(),
)
nll = F.nll_loss(F.log_softmax(logits, -1), labels, ignore_index=-100, reduction="none")
valid = labels != -100
per_doc = torch.zeros(len(docs)).index_add_(0, seg[valid], nll[valid])
counts = torch.bincount(seg[valid], minlength=len(docs))
print("per-doc loss:", (per_doc / counts).round(decimals=4).tolist(), counts.tolist())
mean_sr = torch.zeros(len(docs)).scatter_reduce(0, seg[valid], nll[valid], reduce="mean", include_self=False)
print("scatter_reduce mean:", mean_sr.round(decimals=4).tolist())
max_sr = torch.full((len(docs),), -1.0).scatter_reduce(0, seg[valid], nll[valid], reduce="amax")
print("scatter_reduce amax:", max_sr.round(decimals=4).tolist())
(per_doc / counts).mean().backward()
print(
    "grad rows zero on ignored:",
    logits.grad[~valid].abs().sum().item(),
    "sum:",
    round(logits.grad.sum().item(), 6) + 0.0,
)
print(
    "all ignored:",
    F.cross_entropy(logits[:2], torch.tensor([-100, -100])).item(),
    F.cross_entropy(logits[:2], torch.tensor([-100, -100]), reduction="sum").item(),
)

for bad in [
    lambda: F.cross_entropy(logits, labels.float()),
    lambda: F.cross_entropy(logits, labels.clamp(min=0) + 1),
    lambda: F.cross_entropy(logits, labels, weight=torch.ones(V + 1)),
    lambda: F.cross_entropy(logits, labels, label_smoothing=1.5),
    lambda: F.nll_loss(logits, labels.int()),
    lambda: torch.zeros(3).scatter_reduce(0, seg, nll, reduce="avg"),
    lambda: torch.block_diag(torch.ones(2, 2, 2)),
    lambda: torch.repeat_interleave(torch.arange(3), torch.tensor([1.0, 2.0, 3.0])),
]:
    try:
        r = bad()
        print("ok", r if r.numel() > 1 else round(r.item(), 4))
    except Exception as e:
        print(type(e).__name__, e)
