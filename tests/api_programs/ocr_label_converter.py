"""The label converters of OCR toolkits (CTCLabelConverter/AttnLabelConverter) with tensors: a charset with
case folding and an unknown fallback, batch encoding to concatenated and padded forms, lengths and offsets by
cumsum, splitting flat targets back by torch.split with a list of lengths, repeat_interleave for per-character
sample ids, bytes through torch.frombuffer and uint8 views, one-hot targets, and decoding with index_select."""

import torch
F = torch.nn.functional

CHARSET = "0123456789abcdefghijklmnopqrstuvwxyz"


class CTCLabelConverter:
    def __init__(self, charset):
        self.chars = ["[blank]"] + list(charset) + ["[unk]"]
        self.lut = torch.full((256,), len(self.chars) - 1, dtype=torch.long)
        for i, c in enumerate(charset, start=1):
            self.lut[ord(c)] = i
            if c.isalpha():
                self.lut[ord(c.upper())] = i

    def encode(self, texts):
        raw = torch.frombuffer(bytearray("".join(texts).encode("ascii")), dtype=torch.uint8)
        flat = self.lut[raw.long()]
        lengths = torch.tensor([len(t) for t in texts], dtype=torch.int32)
        return flat, lengths

    def decode(self, flat, lengths):
        names = self.chars
        return ["".join(names[i] for i in part.tolist()) for part in torch.split(flat, lengths.tolist())]


conv = CTCLabelConverter(CHARSET)
texts = ["Hello", "w0rld", "", "a-b", "OCR42"]
flat, lengths = conv.encode(texts)
print("flat", flat.tolist(), flat.dtype)
print("lengths", lengths.tolist(), lengths.dtype)
print("decode", conv.decode(flat, lengths))
offsets = torch.cumsum(lengths, 0, dtype=torch.long) - lengths.long()
print("offsets", offsets.tolist(), offsets.dtype)
sample_of_char = torch.repeat_interleave(torch.arange(len(texts)), lengths.long())
print("sample ids", sample_of_char.tolist())
position = torch.arange(len(flat)) - offsets[sample_of_char]
print("positions", position.tolist())
padded = torch.zeros(len(texts), int(lengths.max()), dtype=torch.long)
padded[sample_of_char, position] = flat
print("padded", padded.tolist())
print("unk count", (flat == len(conv.chars) - 1).sum().item())
parts = torch.tensor_split(flat, offsets[1:])
print("tensor_split", [p.tolist() for p in parts])
print("split sizes", [tuple(p.shape) for p in flat.split([5, 5, 0, 3, 5])])

GO, STOP = 0, 1
attn_chars = ["[GO]", "[s]"] + list(CHARSET)
L = 6
attn = torch.full((len(texts), L + 1), GO, dtype=torch.long)
for i, t in enumerate(texts):
    ids = [attn_chars.index(c) if c in attn_chars else attn_chars.index("z") for c in t.lower()] + [STOP]
    attn[i, 1 : 1 + len(ids)] = torch.tensor(ids[:L])
print("attn targets", attn.tolist())
onehot = F.one_hot(attn[:, 1:], num_classes=len(attn_chars))
print("one_hot", tuple(onehot.shape), onehot.dtype, onehot.sum().item())
picked = torch.tensor(attn_chars and list(range(len(attn_chars)))).index_select(0, attn[0])
print("index_select", picked.tolist())
stop_pos = (attn[:, 1:] == STOP).int().argmax(1)
print("stop positions", stop_pos.tolist())
mask = torch.arange(L)[None] < stop_pos[:, None]
print("mask", mask.int().tolist())
chars = torch.tensor([ord(c) for c in "abc"], dtype=torch.uint8)
print("bytes", bytes(chars.tolist()).decode(), chars.numpy().tobytes())
print("view as int8", chars.view(torch.int8).tolist(), torch.tensor([200], dtype=torch.uint8).view(torch.int8).tolist())
for bad in (lambda: torch.split(flat, [5, 5, 0, 3]),
            lambda: F.one_hot(torch.tensor([3, 40]), num_classes=38),
            lambda: F.one_hot(torch.tensor([1.0])),
            lambda: torch.repeat_interleave(torch.arange(3), torch.tensor([1, 2]))):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
