"""minbpe / "Let's build the GPT Tokenizer": byte-level BPE merges on lists of UTF-8 bytes, then the same with tensors.

get_stats/merge in pure Python, vocab of bytes, decode with errors="replace", pair counts via unique(dim=0).
"""

import re

import torch

text = "hello héllo 👋 hello world! the lower the better, the tokenizer tokenizes tokens."
tokens = text.encode("utf-8")
tokens = list(map(int, tokens))
print(len(text), len(tokens), tokens[:8])


def get_stats(ids, counts=None):
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids, pair, idx):
    newids, i = [], 0
    while i < len(ids):
        if i < len(ids) - 1 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            newids.append(idx)
            i += 2
        else:
            newids.append(ids[i])
            i += 1
    return newids


stats = get_stats(tokens)
top_pair = max(stats, key=stats.get)
print(sorted(((v, k) for k, v in stats.items()), reverse=True)[:3], top_pair)
vocab_size, num_merges = 262, 6
ids = list(tokens)
merges = {}
for i in range(num_merges):
    stats = get_stats(ids)
    pair = max(stats, key=stats.get)
    idx = 256 + i
    ids = merge(ids, pair, idx)
    merges[pair] = idx
print(merges, len(ids), f"compression ratio: {len(tokens) / len(ids):.2f}X")
vocab = {idx: bytes([idx]) for idx in range(256)}
for (p0, p1), idx in merges.items():
    vocab[idx] = vocab[p0] + vocab[p1]


def decode(ids):
    return b"".join(vocab[idx] for idx in ids).decode("utf-8", errors="replace")


def encode(text):
    tokens = list(text.encode("utf-8"))
    while len(tokens) >= 2:
        stats = get_stats(tokens)
        pair = min(stats, key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break
        tokens = merge(tokens, pair, merges[pair])
    return tokens


print(decode(encode(text)) == text, decode([128]), encode("the token"), decode(encode("")))
gpt2pat = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[a-zA-Z]+| ?[0-9]+| ?[^\s\w]+|\s+(?!\S)|\s+""")
print(re.findall(gpt2pat, "Hello've world123 how's are you!!!?"))

# the same bookkeeping on tensors
t = torch.tensor(tokens, dtype=torch.uint8)
print(t.dtype, t.shape, t[:6], t.max(), t.to(torch.int8)[16:20], bytes(t[:5].tolist()).decode())
print(torch.frombuffer(bytearray(text.encode()), dtype=torch.uint8)[:5], bytes(t.numpy()[:5]), t.numpy().tobytes()[:3])
print(
    torch.equal(torch.tensor(list(text.encode())), t.long()), torch.as_tensor(list(b"ab")).dtype, t.sum(), t.sum().dtype
)
print(t[:4] + 200, t[:4] * 2, (t[:4] - 300), t.float().mean().round(decimals=2), t.double().std().round(decimals=3))
pairs = torch.stack([t[:-1], t[1:]], dim=1).long()
u, c = torch.unique(pairs, dim=0, return_counts=True)
print(pairs.shape, u.shape, c.max(), u[c.argmax()], c.sum() == pairs.shape[0])
key = pairs[:, 0] * 256 + pairs[:, 1]
bc = torch.bincount(key, minlength=256 * 256)
top = bc.argmax()
print(bc.shape, top // 256, top % 256, torch.div(top, 256, rounding_mode="floor"), divmod(top.item(), 256))
vals, cnts = torch.unique(key, return_counts=True)
order = torch.argsort(cnts, descending=True, stable=True)
print(vals[order][:4], cnts[order][:4], torch.sort(cnts, descending=True, stable=True).indices[:4])
ids_t = torch.tensor(tokens)
m = (ids_t[:-1] == 116) & (ids_t[1:] == 104)
print(m.nonzero().squeeze(1), m.nonzero(as_tuple=True), torch.where(m)[0], m.sum(), m.dtype)
print(ids_t.unfold(0, 2, 1)[:3], ids_t.unfold(0, 2, 1).stride(), ids_t.unfold(0, 3, 2).shape)
sp = torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]), return_counts=True, return_inverse=True)
print(sp, torch.unique(torch.tensor([3, 1, 3, 2]), sorted=True, return_inverse=True))
print(torch.tensor([], dtype=torch.long).unique(return_counts=True), torch.cat([ids_t[:2], torch.tensor([])]))
try:
    bytes(torch.tensor([256, 1]).tolist())
except ValueError as e:
    print(type(e).__name__, e)
try:
    torch.bincount(torch.tensor([-1, 2]))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.bincount(torch.tensor([1.0, 2.0]))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.frombuffer(b"", dtype=torch.uint8)
except ValueError as e:
    print(type(e).__name__, e)
print(torch.frombuffer(b"abcd", dtype=torch.int16), torch.frombuffer(b"abcdefgh", dtype=torch.uint8, count=3, offset=2))
print(torch.tensor(list("héllo".encode())), "héllo".encode().decode("utf-8", errors="replace"))
print(bytes([0xE2, 0x80]).decode("utf-8", errors="replace"), len(vocab), vocab[256], vocab[max(vocab)])
