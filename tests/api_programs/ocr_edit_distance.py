"""Character and word error rates as OCR evaluation scripts compute them with tensors: a vocabulary that maps
strings to int64 codes with an unknown token, Levenshtein distance by a row-wise dynamic program using
torch.minimum and cummin tricks, a batched anti-diagonal-free version over padded tensors, normalised CER/WER,
accuracy at the sequence level, and case-insensitive scoring with NED as ICDAR reports it."""

import torch


class Vocab:
    def __init__(self, chars):
        self.itos = ["<blank>", "<unk>"] + list(chars)
        self.stoi = {c: i for i, c in enumerate(self.itos)}

    def encode(self, s):
        return torch.tensor([self.stoi.get(c, 1) for c in s], dtype=torch.int64)

    def decode(self, t):
        return "".join(self.itos[i] for i in t.tolist())


def levenshtein(a, b):
    """Edit distance between 1-D tensors, one DP row at a time."""
    prev = torch.arange(len(b) + 1)
    for i in range(1, len(a) + 1):
        sub = prev[:-1] + (a[i - 1] != b).long()
        dele = prev[1:] + 1
        cur = torch.cat([torch.tensor([i]), torch.minimum(sub, dele)])
        # insertions propagate left to right: cur[j] = min_k (cur[k] + j - k)
        j = torch.arange(len(b) + 1)
        cur = (cur - j).cummin(0).values + j
        prev = cur
    return int(prev[-1])


def batched_levenshtein(pred, pred_len, ref, ref_len):
    """Edit distance for padded batches (N, Lp) against (N, Lr); each row's answer is read at its lengths."""
    N, Lp = pred.shape
    Lr = ref.shape[1]
    j = torch.arange(Lr + 1).expand(N, -1)
    prev = j.clone()
    rows = [prev]
    for i in range(1, Lp + 1):
        neq = (pred[:, i - 1 : i] != ref).long()
        sub = prev[:, :-1] + neq
        dele = prev[:, 1:] + 1
        cur = torch.cat([torch.full((N, 1), i), torch.minimum(sub, dele)], 1)
        cur = (cur - j).cummin(1).values + j
        rows.append(cur)
        prev = cur
    table = torch.stack(rows, 1)  # (N, Lp+1, Lr+1)
    return table[torch.arange(N), pred_len, ref_len]


vocab = Vocab("abcdefghijklmnopqrstuvwxyz0123456789 ")
refs = ["hello world", "ocr 2024", "text", "", "kitten"]
hyps = ["helo wrld", "ocr 2O24", "text", "ab", "sitting"]
print("encode", vocab.encode("ocr 2O24").tolist(), "round trip", repr(vocab.decode(vocab.encode("ocr 2O24"))))

dists = [levenshtein(vocab.encode(h), vocab.encode(r)) for h, r in zip(hyps, refs)]
print("char distances", dists)
ref_chars = torch.tensor([len(r) for r in refs])
cer = torch.tensor(dists, dtype=torch.float) / ref_chars.clamp(min=1)
print("per-line CER", cer.round(decimals=4).tolist())
print("corpus CER", round(sum(dists) / ref_chars.sum().item(), 4))

pad = lambda seqs: torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=0)
P = pad([vocab.encode(h) for h in hyps])
R = pad([vocab.encode(r) if r else torch.zeros(0, dtype=torch.long) for r in refs])
plen = torch.tensor([len(h) for h in hyps])
print("padded", tuple(P.shape), tuple(R.shape), P.dtype)
bd = batched_levenshtein(P, plen, R, ref_chars)
print("batched", bd.tolist(), "agree", bd.tolist() == dists)

# WER on word ids
words = sorted({w for s in refs + hyps for w in s.split()})
wid = {w: i for i, w in enumerate(words)}
wer_d = [levenshtein(torch.tensor([wid[w] for w in h.split()], dtype=torch.long),
                     torch.tensor([wid[w] for w in r.split()], dtype=torch.long)) for h, r in zip(hyps, refs)]
n_words = torch.tensor([len(r.split()) for r in refs])
print("word distances", wer_d, "WER", round(sum(wer_d) / n_words.sum().item(), 4))

# NED (1 - normalised edit distance) with case folding, ICDAR 2019 style
def ned(h, r):
    h, r = h.lower(), r.lower()
    d = levenshtein(vocab.encode(h), vocab.encode(r))
    return 1 - d / max(len(h), len(r), 1)


scores = torch.tensor([ned(h, r) for h, r in zip(["HELLO world", "Text"], ["hello world", "text"])])
print("1-NED", scores.round(decimals=4).tolist(), scores.mean().item())
exact = torch.tensor([h == r for h, r in zip(hyps, refs)])
print("seq acc", exact.float().mean().item(), exact.dtype, exact.sum().item())
print("unk count", (P == 1).sum(1).tolist())
hist = torch.bincount(P.flatten(), minlength=len(vocab.itos))
print("histogram top", hist.topk(3).indices.tolist(), hist.topk(3).values.tolist())
