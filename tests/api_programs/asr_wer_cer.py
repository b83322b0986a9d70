"""Scoring ASR output the way evaluation scripts do it with tensors: a Levenshtein table filled by anti-diagonals
with torch.minimum, a backtrace counting substitutions/deletions/insertions, a batched edit distance over padded
token tensors with lengths, corpus WER/CER as ratios of sums, string-to-id vocabularies, and the int dtypes along
the way."""

import torch

VOCAB = {c: i for i, c in enumerate("_ abcdefghijklmnopqrstuvwxyz'")}


def encode(text):
    return torch.tensor([VOCAB[c] for c in text], dtype=torch.int64)


def edit_table(ref, hyp):
    R, H = ref.numel(), hyp.numel()
    d = torch.zeros(R + 1, H + 1, dtype=torch.int32)
    d[:, 0] = torch.arange(R + 1, dtype=torch.int32)
    d[0, :] = torch.arange(H + 1, dtype=torch.int32)
    for k in range(2, R + H + 1):
        i = torch.arange(max(1, k - H), min(R, k - 1) + 1)
        j = k - i
        sub = d[i - 1, j - 1] + (ref[i - 1] != hyp[j - 1]).to(torch.int32)
        best = torch.minimum(torch.minimum(d[i - 1, j] + 1, d[i, j - 1] + 1), sub)
        d[i, j] = best
    return d


def backtrace(d, ref, hyp):
    i, j = ref.numel(), hyp.numel()
    counts = {"S": 0, "D": 0, "I": 0, "C": 0}
    while i > 0 or j > 0:
        if i > 0 and j > 0 and d[i, j] == d[i - 1, j - 1] + int(ref[i - 1] != hyp[j - 1]):
            counts["C" if ref[i - 1] == hyp[j - 1] else "S"] += 1
            i, j = i - 1, j - 1
        elif i > 0 and d[i, j] == d[i - 1, j] + 1:
            counts["D"] += 1
            i -= 1
        else:
            counts["I"] += 1
            j -= 1
    return counts


def batched_distance(refs, ref_lens, hyps, hyp_lens):
    B, R = refs.shape
    H = hyps.shape[1]
    prev = torch.arange(H + 1).expand(B, H + 1).clone()
    out = torch.zeros(B, dtype=torch.long)
    out[ref_lens == 0] = hyp_lens[ref_lens == 0]
    for i in range(1, R + 1):
        cur = torch.empty_like(prev)
        cur[:, 0] = i
        for j in range(1, H + 1):
            cost = (refs[:, i - 1] != hyps[:, j - 1]).long()
            cur[:, j] = torch.stack([prev[:, j] + 1, cur[:, j - 1] + 1, prev[:, j - 1] + cost]).amin(0)
        done = ref_lens == i
        out[done] = cur[done].gather(1, hyp_lens[done].unsqueeze(1)).squeeze(1)
        prev = cur
    return out


pairs = [
    ("the cat sat on the mat", "the cat sat on mat"),
    ("speech recognition", "speech wreck a nition"),
    ("hello world", "hello world"),
    ("a b c", "x a b c y"),
]
tot_err, tot_words, tot_cerr, tot_chars = 0, 0, 0, 0
for ref_s, hyp_s in pairs:
    words = sorted(set(ref_s.split()) | set(hyp_s.split()))
    wid = {w: i for i, w in enumerate(words)}
    r = torch.tensor([wid[w] for w in ref_s.split()])
    h = torch.tensor([wid[w] for w in hyp_s.split()])
    d = edit_table(r, h)
    c = backtrace(d, r, h)
    dc = edit_table(encode(ref_s), encode(hyp_s))
    print(repr(hyp_s), "wer dist", d[-1, -1].item(), d.dtype, c, "cer dist", dc[-1, -1].item())
    tot_err += d[-1, -1].item()
    tot_words += r.numel()
    tot_cerr += dc[-1, -1].item()
    tot_chars += len(ref_s)
print("corpus WER", round(tot_err / tot_words, 4), "CER", round(tot_cerr / tot_chars, 4))
print("table", edit_table(encode("kitten"), encode("sitting")).tolist())

refs = torch.nn.utils.rnn.pad_sequence([encode(a) for a, _ in pairs], batch_first=True, padding_value=-1)
hyps = torch.nn.utils.rnn.pad_sequence([encode(b) for _, b in pairs], batch_first=True, padding_value=-2)
ref_lens = torch.tensor([len(a) for a, _ in pairs])
hyp_lens = torch.tensor([len(b) for _, b in pairs])
dist = batched_distance(refs, ref_lens, hyps, hyp_lens)
print("batched", dist.tolist(), dist.dtype, "padded", tuple(refs.shape), tuple(hyps.shape))
cer = dist.sum().float() / ref_lens.sum()
print("batched CER", round(cer.item(), 4), cer.dtype)
per_utt = dist.double() / ref_lens.clamp_min(1)
print("per-utterance", per_utt.round(decimals=4).tolist(), per_utt.dtype)
print(
    "empty ref",
    batched_distance(
        torch.zeros(1, 0, dtype=torch.long), torch.tensor([0]), encode("ab")[None], torch.tensor([2])
    ).tolist(),
)
print(
    "true_divide ints",
    torch.true_divide(dist, ref_lens).round(decimals=4).tolist(),
    "floor",
    torch.div(dist * 100, ref_lens, rounding_mode="floor").tolist(),
)
try:
    torch.minimum(torch.tensor([1, 2]), torch.tensor([1, 2, 3]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.stack([dist, ref_lens[:2]])
except Exception as e:
    print(type(e).__name__, e)
