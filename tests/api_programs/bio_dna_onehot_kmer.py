"""DNA sequence encoding as genomics models write it: string to index tensors through a lookup table, one-hot with
F.one_hot and N masking, reverse complement by flipping, k-mer counts with unfold and base-4 hashing, GC content per
window, a PWM log-odds scanner as Conv1d on both strands, and the errors a mis-shaped batch raises."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
seqs = ["ACGTACGTTGCA", "GGGCCCATATNN", "TTTTACGCGCGA"]
lut = torch.full((128,), 4, dtype=torch.long)
for i, b in enumerate("ACGT"):
    lut[ord(b)] = i
codes = torch.stack([lut[torch.tensor([ord(c) for c in s])] for s in seqs])
print("codes", codes.dtype, codes.shape, codes[1].tolist())

onehot = F.one_hot(codes, num_classes=5)[..., :4].to(torch.float32)
print("onehot", onehot.shape, onehot.dtype, onehot.sum((0, 1)).tolist(), "N rows", (onehot.sum(-1) == 0).sum().item())
x = onehot.permute(0, 2, 1).contiguous()
print("channels-first", x.shape, x.stride(), x.is_contiguous())

comp = torch.tensor([3, 2, 1, 0, 4])
rc_codes = comp[codes].flip(-1)
rc_onehot = x.flip(1).flip(2)
print(
    "revcomp",
    "".join("ACGTN"[i] for i in rc_codes[0].tolist()),
    torch.equal(F.one_hot(rc_codes, 5)[..., :4].permute(0, 2, 1).float(), rc_onehot),
)

k = 3
windows = codes.unfold(1, k, 1)
print("unfold", windows.shape, windows.stride(), windows[0, :3].tolist())
valid = (windows < 4).all(-1)
powers = 4 ** torch.arange(k - 1, -1, -1)
kmer_id = (windows * powers).sum(-1)
counts = torch.zeros(len(seqs), 4**k, dtype=torch.long)
counts.scatter_add_(1, kmer_id.clamp(max=4**k - 1), valid.long())
print("kmer counts", counts.sum(1).tolist(), counts.argmax(1).tolist(), counts[0].nonzero().flatten().tolist()[:8])
print("bincount", torch.bincount(kmer_id[0], minlength=64).nonzero().flatten().tolist())
spectrum = counts.float() / counts.sum(1, keepdim=True)
print("kmer cos sim", F.cosine_similarity(spectrum[:, None], spectrum[None], dim=-1).round(decimals=4).tolist())

gc = x[:, 1:3].sum(1)
gc_win = F.avg_pool1d(gc[:, None], kernel_size=4, stride=2).squeeze(1)
print("gc windows", gc_win.shape, gc_win.round(decimals=4).tolist())
gc_unf = gc.unfold(-1, 4, 2).mean(-1)
print("avg_pool == unfold mean", torch.allclose(gc_win, gc_unf))

pfm = torch.tensor([[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.1, 0.1, 0.7, 0.1], [0.1, 0.1, 0.1, 0.7]])
pwm = torch.log2(pfm / 0.25).T
scanner = nn.Conv1d(4, 2, kernel_size=4, bias=False, padding="same")
with torch.no_grad():
    scanner.weight.copy_(torch.stack([pwm, pwm.flip(0).flip(1)]))
scores = scanner(x)
print("scanner", scores.shape, scores.grad_fn is None, scores.requires_grad, type(scores.grad_fn).__name__)
best, pos = scores.max(-1)
print("best score", best.round(decimals=4).tolist(), "pos", pos.tolist())
both = torch.maximum(scores[:, 0], scores[:, 1])
print("hits > 3", (both > 3).nonzero().tolist())
print("logsumexp over positions", torch.logsumexp(scores, dim=-1).round(decimals=4).tolist())
valid_conv = F.conv1d(x, scanner.weight, padding="valid")
print("valid conv", valid_conv.shape, valid_conv[0, 0, :4].round(decimals=4).tolist())
pooled, idx = F.max_pool1d(valid_conv, kernel_size=3, stride=3, return_indices=True)
print("maxpool idx", pooled.shape, idx[0].tolist())

try:
    F.one_hot(torch.tensor([0, 5]), num_classes=5)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([0.0, 1.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    scanner(onehot)
except Exception as e:
    print(type(e).__name__, e)
try:
    codes.unfold(1, 20, 1)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.conv1d(x, scanner.weight, padding="same", stride=2)
except Exception as e:
    print(type(e).__name__, e)
