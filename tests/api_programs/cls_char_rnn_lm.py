"""A classic char-level language model (Karpathy/word_language_model style): a vocabulary from text, an
Embedding -> 2-layer LSTM (or GRU) -> Linear decoder with tied weights, init_hidden, repackaging hidden states
between truncated-BPTT chunks, gradient clipping, perplexity, state_dict keys of the RNNs, flatten_parameters,
and greedy sampling from a prime string."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(21)
text = "the quick brown fox jumps over the lazy dog. the dog sleeps; the fox runs. " * 3
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for c, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
print("vocab", len(chars), repr("".join(chars)), "tokens", data.numel(), data.dtype)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.0, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError("When using the tied flag, nhid must be equal to emsize")
            self.decoder.weight = self.encoder.weight
        self.rnn_type, self.nhid, self.nlayers = rnn_type, nhid, nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def fill_(model):
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))


try:
    RNNModel("LSTM", len(chars), 8, 12, 2, tie_weights=True)
except ValueError as e:
    print("ValueError:", e)

train_data = batchify(data, 4)
print("batchified", tuple(train_data.shape), train_data.is_contiguous(), train_data[:3, 0].tolist())
for rnn_type in ("LSTM", "GRU"):
    model = RNNModel(rnn_type, len(chars), 16, 16, 2, tie_weights=True)
    fill_(model)
    print(rnn_type, model.rnn)
    print(" keys", [k for k in model.state_dict() if k.startswith("rnn")][:4], len(model.state_dict()))
    print(" tied", model.decoder.weight is model.encoder.weight, "unique params", len(list(model.parameters())),
          "numel", sum(p.numel() for p in model.parameters()))
    print(" all_weights", len(model.rnn.all_weights), [tuple(w.shape) for w in model.rnn.all_weights[0]])
    model.rnn.flatten_parameters()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    hidden = model.init_hidden(4)
    print(" hidden", tuple(hidden[0].shape) if rnn_type == "LSTM" else tuple(hidden.shape))
    model.train()
    bptt, total_loss, steps = 8, 0.0, 0
    for epoch in range(2):
        hidden = model.init_hidden(4)
        for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
            inp, targets = get_batch(train_data, i, bptt)
            hidden = repackage_hidden(hidden)
            model.zero_grad()
            output, hidden = model(inp, hidden)
            loss = F.nll_loss(output, targets)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-0.5)
            total_loss += loss.item()
            steps += 1
        print(f" epoch {epoch} batches {batch + 1} last loss {loss.item():.4f} ppl {math.exp(loss.item()):.3f} "
              f"clip norm {norm.item():.4f}")
    print(" hidden grad_fn after repackage", repackage_hidden(hidden)[0].grad_fn if rnn_type == "LSTM"
          else repackage_hidden(hidden).grad_fn, "avg", round(total_loss / steps, 4))

    model.eval()
    with torch.no_grad():
        val_in, val_t = get_batch(train_data, 0, 16)
        out, _ = model(val_in, model.init_hidden(4))
        val_loss = F.nll_loss(out, val_t, reduction="sum").item() / val_t.numel()
        print(f" eval loss {val_loss:.4f} ppl {math.exp(val_loss):.3f}")
        prime = "the "
        hidden = model.init_hidden(1)
        inp = torch.tensor([[stoi[c]] for c in prime])
        out, hidden = model(inp, hidden)
        generated = prime
        word = out[-1].argmax().view(1, 1)
        for _ in range(20):
            generated += itos[word.item()]
            out, hidden = model(word, hidden)
            word = out.argmax(dim=1).view(1, 1)
        print(" greedy", repr(generated))
        probs = out.exp()[0]
        top = probs.topk(3)
        print(" top3", [(itos[i], round(v, 4)) for v, i in zip(top.values.tolist(), top.indices.tolist())])

lstm = nn.LSTM(4, 6, num_layers=1, batch_first=True, bidirectional=True)
print("bi-lstm keys", list(lstm.state_dict().keys()))
gru_cell = nn.GRUCell(3, 5)
print("gru cell", gru_cell, [tuple(p.shape) for p in gru_cell.parameters()])
try:
    lstm(torch.zeros(2, 3, 5))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    lstm(torch.zeros(2, 3, 4), (torch.zeros(1, 2, 6), torch.zeros(1, 2, 6)))
except RuntimeError as e:
    print("RuntimeError:", e)
