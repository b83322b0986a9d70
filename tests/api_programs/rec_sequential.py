"""Sequential recommendation: SASRec-style causal self-attention and GRU4Rec over padded, packed sessions."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(91)
torch.set_printoptions(precision=4)

n_items, max_len, d = 20, 6, 8
sessions = [torch.randint(1, n_items, (n,)) for n in (6, 4, 5, 2, 3)]
print("session lengths", [len(s) for s in sessions])
# left-padded (SASRec) and right-padded (GRU4Rec) batches, item 0 is padding
right = pad_sequence(sessions, batch_first=True, padding_value=0)
left = pad_sequence([s.flip(0) for s in sessions], batch_first=True).flip(1)
print("right padded\n", right)
print("left padded\n", left)
print("padding_side", torch.equal(pad_sequence(sessions, batch_first=True, padding_side="left"), left))
inputs, targets = left[:, :-1], left[:, 1:]
print("inputs", inputs.shape, "targets", targets[0].tolist())


class SASRec(nn.Module):
    def __init__(self):
        super().__init__()
        self.item = nn.Embedding(n_items, d, padding_idx=0)
        self.pos = nn.Embedding(max_len, d)
        layer = nn.TransformerEncoderLayer(d, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)

    def forward(self, seq):
        L = seq.shape[1]
        h = self.item(seq) * d ** 0.5 + self.pos(torch.arange(L)).unsqueeze(0)
        causal = nn.Transformer.generate_square_subsequent_mask(L)
        pad = seq == 0
        h = self.encoder(h, mask=causal, src_key_padding_mask=pad, is_causal=True)
        return self.norm(h)


model = SASRec()
causal = nn.Transformer.generate_square_subsequent_mask(4)
print("causal mask\n", causal)
out = model(inputs)
print("hidden", out.shape)
logits = out @ model.item.weight.T
print("logits", logits.shape)
loss = F.cross_entropy(logits.reshape(-1, n_items), targets.reshape(-1), ignore_index=0)
print("initial loss", round(loss.item(), 4), "counted", int((targets != 0).sum()))

# causality: changing a later item must not change earlier positions
alt = inputs.clone()
alt[0, -1] = (alt[0, -1] % (n_items - 1)) + 1
model.eval()
with torch.no_grad():
    a, b = model(inputs), model(alt)
print("prefix unchanged", torch.allclose(a[0, :-1], b[0, :-1], atol=1e-6), "last changed",
      not torch.allclose(a[0, -1], b[0, -1]))
model.train()

# hand-written attention weights with a combined causal + padding mask
q = k = model.item(inputs[:2])
scores = q @ k.transpose(1, 2) / d ** 0.5
mask = torch.ones(inputs.shape[1], inputs.shape[1], dtype=torch.bool).tril()
mask = mask & (inputs[:2] != 0).unsqueeze(1)
scores = scores.masked_fill(~mask, float("-inf"))
attn = torch.softmax(scores, dim=-1)
print("attn row sums", attn.nan_to_num(0.0).sum(-1))
print("fully masked rows give nan", attn.isnan().any(-1).tolist())
sdpa = F.scaled_dot_product_attention(q.unsqueeze(1), k.unsqueeze(1), k.unsqueeze(1), attn_mask=mask.unsqueeze(1))
print("sdpa", sdpa.shape, "nan rows", sdpa.isnan().any(-1).squeeze(1).tolist())

opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(40):
    logits = model(inputs) @ model.item.weight.T
    loss = F.cross_entropy(logits.reshape(-1, n_items), targets.reshape(-1), ignore_index=0)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 13 == 0:
        print(f"sasrec step {step} loss {loss.item():.4f}")
print("padding row moved by the tied output", round(model.item.weight[0].abs().sum().item(), 4))


class GRU4Rec(nn.Module):
    def __init__(self):
        super().__init__()
        self.item = nn.Embedding(n_items, d, padding_idx=0)
        self.gru = nn.GRU(d, 12, batch_first=True)
        self.out = nn.Linear(12, n_items)

    def forward(self, seq, lengths):
        packed = pack_padded_sequence(self.item(seq), lengths, batch_first=True, enforce_sorted=False)
        out, h = self.gru(packed)
        out, out_lens = pad_packed_sequence(out, batch_first=True, total_length=seq.shape[1])
        return self.out(out), h, out_lens


lengths = torch.tensor([len(s) - 1 for s in sessions])
x, y = right[:, :-1], right[:, 1:]
gru = GRU4Rec()
logits, h, out_lens = gru(x, lengths)
print("gru logits", logits.shape, "h", h.shape, "lens", out_lens.tolist())
packed = pack_padded_sequence(torch.zeros(5, 5, 1), lengths, batch_first=True, enforce_sorted=False)
print("batch_sizes", packed.batch_sizes.tolist(), "sorted", packed.sorted_indices.tolist(),
      "unsorted", packed.unsorted_indices.tolist())
last = logits[torch.arange(5), lengths - 1]
print("last step == final hidden", torch.allclose(gru.out(h[0]), last, atol=1e-6))
print("padded steps are zero before the head", bool((logits[4, 2:] == gru.out.bias).all()))
opt = torch.optim.Adagrad(gru.parameters(), lr=0.1)
for step in range(30):
    logits, _, _ = gru(x, lengths)
    loss = F.cross_entropy(logits.transpose(1, 2), y, ignore_index=0)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("gru final loss", round(loss.item(), 4))
with torch.no_grad():
    logits, _, _ = gru(x, lengths)
    nxt = logits[torch.arange(5), lengths - 1].topk(3).indices
print("next-item top3", nxt.tolist(), "true", [s[-1].item() for s in sessions])
