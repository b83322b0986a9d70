"""The word-language-model recipe on a tiny corpus: a tokenised stream batchified into columns, truncated BPTT
with get_batch and detached hidden states, an LSTM with tied input/output embeddings, gradient clipping and an
LR annealed on validation loss, perplexity, seeded sampling with temperature, and the recurrent cells (LSTMCell,
GRUCell, RNNCell with relu) unrolled by hand against the fused layers, plus hidden-state shape errors."""

import math

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

text = ("the quick brown fox jumps over the lazy dog . the dog sleeps . the fox runs . "
        "a quick dog jumps over a lazy fox . the lazy dog runs . ") * 4
words = text.split()
itos = sorted(set(words)) + ["<eos>"]
stoi = {w: i for i, w in enumerate(itos)}
stream = torch.tensor([stoi[w] for w in words] + [stoi["<eos>"]])
V = len(itos)
print("V", V, "stream", stream.numel())


def batchify(data, bsz):
    nb = data.size(0) // bsz
    return data[: nb * bsz].view(bsz, -1).t().contiguous()


train = batchify(stream[:120], 4)
val = batchify(stream[120:], 2)
print("train", tuple(train.shape), train.is_contiguous(), "val", tuple(val.shape))
print(train[:3])
BPTT = 7


def get_batch(src, i):
    n = min(BPTT, len(src) - 1 - i)
    return src[i : i + n], src[i + 1 : i + 1 + n].reshape(-1)


x0, y0 = get_batch(train, 0)
print("batch", tuple(x0.shape), tuple(y0.shape), y0[:4].tolist())


class RNNModel(nn.Module):
    def __init__(self, ntoken, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, nhid)
        self.rnn = nn.LSTM(nhid, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight
        self.nlayers, self.nhid = nlayers, nhid
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)

    def forward(self, x, hidden):
        emb = self.drop(self.encoder(x))
        out, hidden = self.rnn(emb, hidden)
        return self.decoder(self.drop(out)).view(-1, self.decoder.out_features), hidden

    def init_hidden(self, bsz):
        w = next(self.parameters())
        return (w.new_zeros(self.nlayers, bsz, self.nhid), w.new_zeros(self.nlayers, bsz, self.nhid))


def repackage(h):
    return tuple(v.detach() for v in h) if isinstance(h, tuple) else h.detach()


model = RNNModel(V, 12, 2)
print("tied", model.decoder.weight is model.encoder.weight, "params", sum(p.numel() for p in model.parameters()))
print("state_dict keys", list(model.state_dict())[:3], len(model.state_dict()))


def evaluate(src):
    model.eval()
    total, hidden = 0.0, model.init_hidden(src.size(1))
    with torch.no_grad():
        for i in range(0, src.size(0) - 1, BPTT):
            x, y = get_batch(src, i)
            out, hidden = model(x, hidden)
            total += len(x) * F.cross_entropy(out, y).item()
    return total / (len(src) - 1)


lr = 5.0
best = None
for epoch in range(3):
    model.train()
    hidden = model.init_hidden(4)
    for i in range(0, train.size(0) - 1, BPTT):
        x, y = get_batch(train, i)
        hidden = repackage(hidden)
        model.zero_grad()
        out, hidden = model(x, hidden)
        loss = F.cross_entropy(out, y)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        with torch.no_grad():
            for p in model.parameters():
                p.add_(p.grad, alpha=-lr)
    v = evaluate(val)
    print(f"epoch {epoch} lr {lr} val loss {v:.4f} ppl {math.exp(v):.4f} last norm {norm.item():.4f}")
    if best is None or v < best:
        best = v
    else:
        lr /= 4.0
print("hidden requires_grad after repackage", repackage(hidden)[0].requires_grad, hidden[0].grad_fn is not None)

# sampling with temperature
torch.manual_seed(3)
model.eval()
inp = torch.tensor([[stoi["the"]]])
h = model.init_hidden(1)
out_words = []
with torch.no_grad():
    for _ in range(8):
        logits, h = model(inp, h)
        probs = F.softmax(logits[-1] / 0.8, -1)
        w = torch.multinomial(probs, 1)
        inp.fill_(w.item())
        out_words.append(itos[w.item()])
print("sample:", " ".join(out_words))

# cells unrolled by hand equal the fused layers
torch.manual_seed(4)
lstm = nn.LSTM(3, 5)
cell = nn.LSTMCell(3, 5)
with torch.no_grad():
    for a, b in (("weight_ih", "weight_ih_l0"), ("weight_hh", "weight_hh_l0"), ("bias_ih", "bias_ih_l0"),
                 ("bias_hh", "bias_hh_l0")):
        getattr(cell, a).copy_(getattr(lstm, b))
seq = torch.randn(4, 2, 3)
hc = (torch.zeros(2, 5), torch.zeros(2, 5))
outs = []
for t in range(4):
    hc = cell(seq[t], hc)
    outs.append(hc[0])
fused, (hn, cn) = lstm(seq)
print("LSTMCell == LSTM", torch.allclose(torch.stack(outs), fused, atol=1e-6), torch.allclose(hc[1], cn[0], atol=1e-6))
print("cell without state", tuple(cell(seq[0])[0].shape), "unbatched", tuple(cell(seq[0, 0])[0].shape))

gru = nn.GRU(3, 4)
gcell = nn.GRUCell(3, 4)
gcell.load_state_dict({k[:-3]: v for k, v in gru.state_dict().items()})
hg = torch.zeros(2, 4)
for t in range(4):
    hg = gcell(seq[t], hg)
print("GRUCell == GRU", torch.allclose(hg, gru(seq)[1][0], atol=1e-6))
rcell = nn.RNNCell(3, 4, nonlinearity="relu")
print(rcell, bool((rcell(seq[0]) >= 0).all()))
rnn = nn.RNN(3, 4, nonlinearity="relu", num_layers=2, batch_first=True)
print(rnn, [tuple(w.shape) for w in rnn.all_weights[1]])
print("flat weight names", rnn._flat_weights_names[:4])
rnn.flatten_parameters()
o, hr = rnn(seq.transpose(0, 1))
print("rnn", tuple(o.shape), tuple(hr.shape), round(o.sum().item(), 4))

for bad in ((torch.zeros(1, 2, 5), torch.zeros(1, 2, 5)), (torch.zeros(1, 3, 5), torch.zeros(1, 2, 5))):
    try:
        lstm(seq, (bad[0], bad[1]) if bad[0].size(0) == 2 else bad)
        lstm(seq, (torch.zeros(2, 2, 5), torch.zeros(1, 2, 5)))
    except Exception as err:
        print(type(err).__name__, err)
try:
    gru(seq, torch.zeros(2, 2, 4))
except Exception as err:
    print(type(err).__name__, err)
try:
    lstm(seq.double())
except Exception as err:
    print(type(err).__name__, str(err)[:90])
try:
    nn.RNN(3, 4, nonlinearity="gelu")
except Exception as err:
    print(type(err).__name__, err)
