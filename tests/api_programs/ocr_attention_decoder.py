"""An attention decoder for scene text (ASTER/SAR-style) as research code writes it: a BiGRU encoder over the
feature columns, Bahdanau attention computed with bmm and masked_fill over padded widths, an nn.GRUCell with
teacher forcing against sampled predictions, cross-entropy with ignore_index and label_smoothing over the
decoded steps, and greedy inference that stops at <eos> per sample."""

import torch
from torch import nn
F = torch.nn.functional

torch.manual_seed(0)
PAD, SOS, EOS = 0, 1, 2
VOCAB = ["<pad>", "<sos>", "<eos>"] + list("abcde")
V = len(VOCAB)


class Attn(nn.Module):
    def __init__(self, enc, dec, hid):
        super().__init__()
        self.We = nn.Linear(enc, hid, bias=False)
        self.Wd = nn.Linear(dec, hid)
        self.v = nn.Linear(hid, 1, bias=False)

    def forward(self, h, enc, mask):
        e = self.v(torch.tanh(self.We(enc) + self.Wd(h).unsqueeze(1))).squeeze(-1)  # (N, T)
        e = e.masked_fill(~mask, float("-inf"))
        a = e.softmax(-1)
        ctx = torch.bmm(a.unsqueeze(1), enc).squeeze(1)
        return ctx, a


class Decoder(nn.Module):
    def __init__(self, enc=12, dec=10):
        super().__init__()
        self.emb = nn.Embedding(V, 6, padding_idx=PAD)
        self.attn = Attn(enc, dec, 8)
        self.cell = nn.GRUCell(6 + enc, dec)
        self.init_h = nn.Linear(enc, dec)
        self.out = nn.Linear(dec + enc, V)

    def forward(self, enc, mask, targets=None, max_len=5, tf_ratio=1.0):
        N = enc.size(0)
        denom = mask.sum(1, keepdim=True).float()
        h = torch.tanh(self.init_h((enc * mask.unsqueeze(-1)).sum(1) / denom))
        y = torch.full((N,), SOS, dtype=torch.long)
        steps = targets.size(1) if targets is not None else max_len
        logits, alphas = [], []
        for t in range(steps):
            ctx, a = self.attn(h, enc, mask)
            h = self.cell(torch.cat([self.emb(y), ctx], -1), h)
            logit = self.out(torch.cat([h, ctx], -1))
            logits.append(logit)
            alphas.append(a)
            use_tf = targets is not None and torch.rand(()).item() < tf_ratio
            y = targets[:, t] if use_tf else logit.argmax(-1)
        return torch.stack(logits, 1), torch.stack(alphas, 1)


encoder = nn.GRU(4, 6, batch_first=True, bidirectional=True)
decoder = Decoder()
feats = torch.randn(3, 7, 4)
widths = torch.tensor([7, 5, 3])
mask = torch.arange(7)[None] < widths[:, None]
words = ["abc", "ed", "a"]
tgt = torch.full((3, 4), PAD)
for i, w in enumerate(words):
    ids = [VOCAB.index(c) for c in w] + [EOS]
    tgt[i, : len(ids)] = torch.tensor(ids)
print("targets", tgt.tolist(), "mask", mask.int().tolist())

params = list(encoder.parameters()) + list(decoder.parameters())
opt = torch.optim.Adam(params, lr=0.02)
for step in range(5):
    enc, _ = encoder(feats)
    logits, alphas = decoder(enc, mask, tgt, tf_ratio=1.0)
    loss = F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1), ignore_index=PAD, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), tuple(logits.shape))

print("alpha rows sum", alphas.sum(-1).round(decimals=4).tolist())
print("alpha beyond width", alphas[2, :, 3:].abs().max().item(), alphas[1, 0].round(decimals=4).tolist())
per_tok = F.cross_entropy(logits.transpose(1, 2), tgt, ignore_index=PAD, reduction="none")
print("per token", per_tok.round(decimals=4).tolist())
print("nll equal", torch.allclose(F.nll_loss(logits.log_softmax(-1).transpose(1, 2), tgt, ignore_index=PAD),
                                  F.cross_entropy(logits.transpose(1, 2), tgt, ignore_index=PAD)))

torch.manual_seed(1)
with torch.no_grad():
    enc, _ = encoder(feats)
    mixed, _ = decoder(enc, mask, tgt, tf_ratio=0.5)
    pred_logits, _ = decoder(enc, mask, None, max_len=5)
print("scheduled sampling logits sum", round(mixed.sum().item(), 4))
pred = pred_logits.argmax(-1)
is_eos = pred == EOS
first = torch.where(is_eos.any(1), is_eos.int().argmax(1), torch.full((3,), pred.size(1)))
print("pred", pred.tolist(), "eos at", first.tolist())
print("decoded", ["".join(VOCAB[i] for i in row[:n].tolist()) for row, n in zip(pred, first)])
cell = nn.GRUCell(3, 2)
print(cell, cell(torch.randn(3)).shape)
try:
    cell(torch.randn(2, 3), torch.randn(3, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    cell(torch.randn(2, 4))
except Exception as e:
    print(type(e).__name__, e)
