"""Joint CTC-attention training as ESPnet/SpeechBrain recipes write it: sos/eos insertion around padded targets
with ignore_id, nn.TransformerDecoder with a causal mask from generate_square_subsequent_mask and key padding masks
for targets and encoder memory, label-smoothed cross entropy with ignore_index, CTC over the same encoder, the
weighted sum, token accuracy over non-ignored positions, and batched greedy decoding with finished masks."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)
V, D, IGNORE = 8, 16, -1
SOS = EOS = V - 1
BLANK = 0


def add_sos_eos(ys, lens):
    seqs = [y[:n] for y, n in zip(ys, lens)]
    ys_in = pad_sequence([torch.cat([torch.tensor([SOS]), s]) for s in seqs], batch_first=True, padding_value=EOS)
    ys_out = pad_sequence([torch.cat([s, torch.tensor([EOS])]) for s in seqs], batch_first=True, padding_value=IGNORE)
    return ys_in, ys_out


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(12, D)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(D, 2, 32, dropout=0.0, batch_first=True), 2, enable_nested_tensor=False
        )
        self.embed = nn.Embedding(V, D)
        self.decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(D, 2, 32, dropout=0.0, batch_first=True, norm_first=True),
            1,
            norm=nn.LayerNorm(D),
        )
        self.ctc_head, self.att_head = nn.Linear(D, V), nn.Linear(D, V)

    def encode(self, x, x_pad):
        return self.encoder(self.inp(x), src_key_padding_mask=x_pad)

    def decode(self, ys_in, memory, x_pad):
        L = ys_in.size(1)
        causal = nn.Transformer.generate_square_subsequent_mask(L)
        y_pad = ys_in == EOS
        y_pad[:, 0] = False
        h = self.decoder(
            self.embed(ys_in),
            memory,
            tgt_mask=causal,
            tgt_is_causal=True,
            tgt_key_padding_mask=y_pad,
            memory_key_padding_mask=x_pad,
        )
        return self.att_head(h)


B, T = 3, 10
x = torch.randn(B, T, 12)
x_lens = torch.tensor([10, 8, 6])
x_pad = torch.arange(T) >= x_lens[:, None]
ys = torch.tensor([[1, 2, 3, 4], [5, 2, 0, 0], [3, 0, 0, 0]])
y_lens = torch.tensor([4, 2, 1])
ys_in, ys_out = add_sos_eos(ys, y_lens)
print("ys_in", ys_in.tolist())
print("ys_out", ys_out.tolist())
print("causal", nn.Transformer.generate_square_subsequent_mask(3).tolist())

model = Model()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
for step in range(6):
    mem = model.encode(x, x_pad)
    logits = model.decode(ys_in, mem, x_pad)
    att = F.cross_entropy(logits.transpose(1, 2), ys_out, ignore_index=IGNORE, label_smoothing=0.1)
    ctc = F.ctc_loss(
        model.ctc_head(mem).log_softmax(-1).transpose(0, 1), ys, x_lens, y_lens, blank=BLANK, zero_infinity=True
    )
    loss = 0.3 * ctc + 0.7 * att
    valid = ys_out != IGNORE
    acc = (logits.argmax(-1)[valid] == ys_out[valid]).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, "ctc", round(ctc.item(), 4), "att", round(att.item(), 4), "acc", round(acc.item(), 4))

flat = F.cross_entropy(logits.reshape(-1, V), ys_out.reshape(-1), ignore_index=IGNORE, reduction="none")
print("per-token", tuple(flat.shape), "zeros at ignored", bool((flat[ys_out.reshape(-1) == IGNORE] == 0).all()))
print(
    "sum/count == mean",
    round((flat.sum() / valid.sum()).item(), 4),
    round(F.cross_entropy(logits.reshape(-1, V), ys_out.reshape(-1), ignore_index=IGNORE).item(), 4),
)

model.eval()
with torch.no_grad():
    mem = model.encode(x, x_pad)
    hyp = torch.full((B, 1), SOS)
    done = torch.zeros(B, dtype=torch.bool)
    for _ in range(6):
        nxt = model.decode(hyp, mem, x_pad)[:, -1].log_softmax(-1).argmax(-1)
        nxt = nxt.masked_fill(done, EOS)
        hyp = torch.cat([hyp, nxt[:, None]], 1)
        done |= nxt == EOS
        if done.all():
            break
print("decoded", hyp[:, 1:].tolist(), "done", done.tolist())
print("encoder pad frames ignored", torch.allclose(model.encode(x[1:2, :8], None), mem[1:2, :8], atol=1e-5))
try:
    F.cross_entropy(logits, ys_out, ignore_index=IGNORE)
except Exception as e:
    print(type(e).__name__, e)
try:
    model.decoder(model.embed(ys_in), mem, tgt_mask=torch.zeros(4, 4))
except Exception as e:
    print(type(e).__name__, e)
