"""ColBERT late interaction: per-token embeddings with padding masks, MaxSim by einsum, bmm and broadcasting,
query augmentation with [MASK] tokens, nested tensors for variable-length documents, and PLAID-style centroid
pruning; the masks' -inf/NaN corners and the shape mistakes of such code."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

B, Lq, Ld, N, dim = 2, 4, 6, 3, 8
Q = F.normalize(torch.randn(B, Lq, dim), dim=-1)
D = F.normalize(torch.randn(N, Ld, dim), dim=-1)
doc_lens = torch.tensor([6, 3, 4])
d_mask = torch.arange(Ld)[None, :] < doc_lens[:, None]
print("mask", d_mask.int().tolist())
D = D * d_mask.unsqueeze(-1)

# MaxSim three ways
sim = torch.einsum("bqd,nkd->bnqk", Q, D)
sim = sim.masked_fill(~d_mask[None, :, None, :], float("-inf"))
s1 = sim.max(dim=-1).values.sum(-1)
print("einsum", s1)
s2 = (Q.unsqueeze(1) @ D.transpose(1, 2).unsqueeze(0)).masked_fill(~d_mask[None, :, None, :], -1e4).amax(-1).sum(-1)
print("matmul", torch.allclose(s1, s2), s2.shape)
flat = torch.bmm(Q.repeat_interleave(N, 0), D.repeat(B, 1, 1).transpose(1, 2))
print("bmm", flat.shape, flat.is_contiguous())
s3 = flat.view(B, N, Lq, Ld).masked_fill(~d_mask[None, :, None, :], float("-inf")).amax(dim=-1).sum(-1)
print("bmm agrees", torch.allclose(s1, s3))

# query-side mask: padded query tokens contribute 0, not -inf
q_mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]], dtype=torch.bool)
s4 = (sim.max(-1).values * q_mask[:, None, :]).sum(-1)
print("query masked", s4)
print("argmax tokens", sim[0, 1].argmax(-1).tolist(), sim[0, 1].max(-1))

# a fully padded document row: max over all -inf
empty = torch.full((2, 3), float("-inf"))
print("all -inf max", empty.max(-1).values.tolist(), empty.logsumexp(-1).tolist(), empty.softmax(-1)[0].tolist())
print("amax of empty dim", torch.zeros(2, 0).amax(dim=0).shape if False else "skip")
for fn in (lambda: torch.zeros(2, 0).amax(dim=1), lambda: torch.zeros(2, 0).max(dim=1), lambda: torch.zeros(0).max()):
    try:
        print("ok", fn())
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
print("amax empty other dim", torch.zeros(2, 0).amax(dim=0))

# gradients flow only to the maximal token (amax splits ties evenly, max picks one)
x = torch.tensor([[0.5, 0.9, 0.9], [0.1, 0.2, 0.3]], requires_grad=True)
x.amax(-1).sum().backward()
print("amax grad", x.grad.tolist())
x.grad = None
x.max(-1).values.sum().backward()
print("max grad", x.grad.tolist())
x.grad = None
torch.max(x, 1, keepdim=True)[0].sum().backward()
print("max keepdim grad", x.grad.tolist())

# variable-length documents as a nested tensor
docs = [torch.randn(l, dim) for l in doc_lens.tolist()]
nt = torch.nested.nested_tensor(docs)
print("nested", nt.is_nested, nt.dim(), nt.size(0), [t.shape[0] for t in nt.unbind()])
padded = torch.nested.to_padded_tensor(nt, 0.0)
print("padded", padded.shape, padded[1, 3:].abs().sum().item())
padded_ninf = torch.nested.to_padded_tensor(nt, float("-inf"), output_size=(3, 7, dim))
print("padded out", padded_ninf.shape, padded_ninf[1, 3, 0].item())
pad2 = torch.nn.utils.rnn.pad_sequence(docs, batch_first=True, padding_value=-1.0)
print("pad_sequence", pad2.shape, pad2[2, 4:, 0].tolist(), torch.equal(pad2[0], docs[0]))
pad3 = torch.nn.utils.rnn.pad_sequence(docs, padding_side="left", batch_first=True)
print("left pad", pad3[1, :3].abs().sum().item(), torch.equal(pad3[1, 3:], docs[1]))

# query augmentation: pad with [MASK] ids to a fixed length instead of [PAD]
ids = [torch.tensor([101, 7, 8]), torch.tensor([101, 9])]
aug = torch.nn.utils.rnn.pad_sequence(ids, batch_first=True, padding_value=103)
aug = F.pad(aug, (0, 5 - aug.shape[1]), value=103)
print("augmented", aug.tolist())

# centroid pruning: keep tokens whose best centroid score passes a threshold
centroids = F.normalize(torch.randn(5, dim), dim=-1)
codes = (D.view(-1, dim) @ centroids.T).argmax(-1).view(N, Ld)
cscore = Q[0] @ centroids.T
keep = cscore.amax(0) > 0.2
print("codes", codes.tolist(), "keep", keep.tolist())
cand = torch.isin(codes, keep.nonzero().squeeze(1)) & d_mask
print("candidates", cand.sum(1).tolist(), torch.isin(codes, torch.tensor([0, 2]), invert=True).sum().item())
approx = (cscore[:, codes].masked_fill(~cand[None], float("-inf"))).amax(-1)
print("approx", approx.clamp(min=0).sum(0))

for fn in (
    lambda: torch.einsum("bqd,nkd->bnqk", Q, D[:, :, :4]),
    lambda: torch.einsum("bqd,nkd->bnq", Q),
    lambda: torch.bmm(Q, D.transpose(1, 2)),
    lambda: sim.masked_fill(d_mask, 0.0),
    lambda: torch.nested.nested_tensor([torch.randn(2, 3), torch.randn(2)]),
    lambda: torch.nested.to_padded_tensor(nt, 0.0, output_size=(3, 2, dim)),
):
    try:
        print("ok", fn().shape)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
