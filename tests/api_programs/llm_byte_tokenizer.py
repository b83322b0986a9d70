"""Byte-level tokenization helpers as LLM repos write them: UTF-8 bytes to tensors (torch.frombuffer, tensor(list)),
GPT-2's bytes_to_unicode table, BPE merges applied with tensor pair statistics (stack/unique/counts), merge-by-mask
replacement, left/right padding with attention masks, the byte fallback of SentencePiece (<0xNN>), decoding back
with bytes(tolist()), and the dtype/shape facts that tokenizer output carries."""

import torch
import torch.nn.functional as F

text = "héllo wörld, hello world! 👋"
raw = text.encode("utf-8")
ids = torch.tensor(list(raw), dtype=torch.long)
print("n chars:", len(text), "n bytes:", ids.numel(), "max byte:", ids.max().item())
fb = torch.frombuffer(bytearray(raw), dtype=torch.uint8)
print("frombuffer:", fb.dtype, fb.shape, torch.equal(fb.long(), ids))
print("non-ascii bytes:", (ids >= 128).sum().item(), "lead bytes:", ((ids & 0xC0) == 0xC0).sum().item(),
      "continuation:", ((ids & 0xC0) == 0x80).sum().item())
n_chars = ((ids & 0xC0) != 0x80).sum().item()
print("chars counted from bytes:", n_chars, n_chars == len(text))


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(2 ** 8):
        if b not in bs:
            bs.append(b)
            cs.append(2 ** 8 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


b2u = bytes_to_unicode()
table = torch.tensor([ord(b2u[b]) for b in range(256)])
print("b2u table:", table[:4].tolist(), table[32].item(), chr(table[32].item()), table[255].item())
print("printable identity:", torch.equal(table[33:127], torch.arange(33, 127)))
mapped = table[ids]
print("mapped text:", "".join(chr(c) for c in mapped.tolist()))
inv = torch.empty(table.max().item() + 1, dtype=torch.long).fill_(-1)
inv[table] = torch.arange(256)
print("inverse roundtrip:", torch.equal(inv[mapped], ids))


# BPE training on byte ids: count adjacent pairs with unique(dim=0)
def get_stats(seq):
    pairs = torch.stack([seq[:-1], seq[1:]], dim=1)
    uniq, counts = torch.unique(pairs, dim=0, return_counts=True)
    return uniq, counts


def merge(seq, pair, new_id):
    match = (seq[:-1] == pair[0]) & (seq[1:] == pair[1])
    out, i = [], 0
    s = seq.tolist()
    m = match.tolist() + [False]
    while i < len(s):
        if m[i]:
            out.append(new_id)
            i += 2
        else:
            out.append(s[i])
            i += 1
    return torch.tensor(out, dtype=seq.dtype)


corpus = torch.tensor(list(b"low lower lowest newer wider new"), dtype=torch.long)
merges = {}
seq = corpus
for step in range(5):
    uniq, counts = get_stats(seq)
    best = counts.argmax()
    top = counts.max()
    # ties broken by the smallest pair, as unique sorts lexicographically
    pair = tuple(uniq[best].tolist())
    new_id = 256 + step
    merges[pair] = new_id
    seq = merge(seq, pair, new_id)
    print(f"merge {step}: {pair} count={top.item()} -> {new_id}, length {seq.numel()}")
vocab = {i: bytes([i]) for i in range(256)}
for (a, b), idx in merges.items():
    vocab[idx] = vocab[a] + vocab[b]
print("new tokens:", [vocab[i].decode() for i in range(256, 261)])
decoded = b"".join(vocab[i] for i in seq.tolist()).decode("utf-8")
print("decode(encode) ok:", decoded == "low lower lowest newer wider new")
print("compression ratio:", round(corpus.numel() / seq.numel(), 4))


def encode(s):
    t = torch.tensor(list(s.encode()), dtype=torch.long)
    while t.numel() >= 2:
        uniq, _ = get_stats(t)
        ranks = torch.tensor([merges.get(tuple(p), 10 ** 9) for p in uniq.tolist()])
        if ranks.min() == 10 ** 9:
            break
        pair = tuple(uniq[ranks.argmin()].tolist())
        t = merge(t, pair, merges[pair])
    return t


batch_text = ["lower", "newest wider", "low"]
encoded = [encode(s) for s in batch_text]
print("encoded:", [e.tolist() for e in encoded])

# padding: right (training) and left (generation)
PAD = 0
maxlen = max(e.numel() for e in encoded)
right = torch.stack([F.pad(e, (0, maxlen - e.numel()), value=PAD) for e in encoded])
left = torch.stack([F.pad(e, (maxlen - e.numel(), 0), value=PAD) for e in encoded])
attn_right = (torch.arange(maxlen)[None] < torch.tensor([e.numel() for e in encoded])[:, None]).long()
attn_left = attn_right.flip(-1)
print("right padded:\n", right, "\nmask:\n", attn_right)
print("left padded:\n", left)
print("left mask consistent:", torch.equal((left != PAD).long(), attn_left))
padded = torch.nn.utils.rnn.pad_sequence(encoded, batch_first=True, padding_value=PAD)
print("pad_sequence == right:", torch.equal(padded, right))
print("pad_sequence left:", torch.equal(torch.nn.utils.rnn.pad_sequence(encoded, batch_first=True,
                                                                        padding_side="left"), left))
position_ids = (attn_left.cumsum(-1) - 1).clamp(min=0)
print("left-pad position ids:\n", position_ids)
last_token = right[torch.arange(3), attn_right.sum(-1) - 1]
print("last real tokens:", last_token.tolist(), "== left[:, -1]:", torch.equal(last_token, left[:, -1]))

# SentencePiece byte fallback: unknown chars become <0xNN> pieces at ids 3 + byte
pieces = {"▁h": 300, "ello": 301, "▁w": 302, "or": 303, "ld": 304}
fallback = [3 + b for b in "👋".encode()]
print("byte fallback ids:", fallback, [f"<0x{b - 3:02X}>" for b in fallback])
back = bytes((torch.tensor(fallback) - 3).tolist()).decode("utf-8")
print("fallback decodes:", back == "👋")
print("invalid utf-8 replaced:", bytes([0x68, 0xC3, 0x28]).decode("utf-8", errors="replace"))

# token-level statistics with bincount
hist = torch.bincount(ids, minlength=256)
print("bincount shape:", tuple(hist.shape), "most common byte:", chr(hist.argmax().item()), hist.max().item())
print("unique_consecutive runs:", torch.unique_consecutive(torch.tensor(list(b"aaabccdddd")),
                                                           return_counts=True)[1].tolist())
print("vocab size rounded to 64:", (261 + 63) // 64 * 64)
emb = torch.nn.Embedding(320, 8, padding_idx=PAD)
print("padding row zero:", emb.weight[PAD].abs().sum().item(), "embedded:", tuple(emb(right).shape))
try:
    emb(torch.tensor([320]))
except IndexError as e:
    print("IndexError:", e)
