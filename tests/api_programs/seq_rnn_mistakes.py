"""Debugging a recurrent tagger: the errors PyTorch's RNN modules give for the usual mistakes (input width, ranks,
hidden-state shapes and kinds, dtypes, bad constructor arguments, packed-sequence misuse), their reprs and
parameter bookkeeping, and the fixes that make each call work."""

import warnings

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

rng = np.random.default_rng(17)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def arr(*shape, s=0.5):
    return torch.from_numpy((rng.standard_normal(shape) * s).astype(np.float32))


def fill(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(arr(*p.shape))
    return m


def attempt(label, fn):
    try:
        out = fn()
        if isinstance(out, tuple):
            out = out[0]
        if isinstance(out, PackedSequence):
            out = out.data
        print(label, "ok", tuple(out.shape), r(out, 3))
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:110])


lstm = fill(nn.LSTM(4, 3, num_layers=2, batch_first=True))
gru = fill(nn.GRU(4, 3, batch_first=True, bidirectional=True))
rnn = fill(nn.RNN(4, 3, nonlinearity="relu", bias=False))
for m in (lstm, gru, rnn):
    print(m, sum(p.numel() for p in m.parameters()), list(m.state_dict())[:3])
x = arr(2, 5, 4)

attempt("good", lambda: lstm(x))
attempt("wrong width", lambda: lstm(arr(2, 5, 3)))
attempt("4-D input", lambda: lstm(x[None]))
attempt("1-D input", lambda: gru(x[0, 0]))
attempt("hx not tuple", lambda: lstm(x, torch.zeros(2, 2, 3)))
attempt("gru given tuple", lambda: gru(x, (torch.zeros(2, 2, 3), torch.zeros(2, 2, 3))))
attempt("h0 batch-first", lambda: lstm(x, (torch.zeros(2, 2, 3), torch.zeros(2, 2, 3))))
attempt("h0 wrong layers", lambda: lstm(x, (torch.zeros(1, 2, 3), torch.zeros(1, 2, 3))))
attempt("c0 wrong size", lambda: lstm(x, (torch.zeros(2, 2, 3), torch.zeros(2, 2, 4))))
attempt("gru h0 one direction", lambda: gru(x, torch.zeros(1, 2, 3)))
attempt("double input", lambda: lstm(x.double()))
attempt("fixed by .double()", lambda: fill(nn.LSTM(4, 3, batch_first=True)).double()(x.double()))
attempt("long input", lambda: rnn(torch.ones(5, 2, 4, dtype=torch.long)))
attempt("hx on unbatched", lambda: rnn(x[0], torch.zeros(1, 2, 3)))
attempt("time-major by mistake", lambda: rnn(x))

for label, ctor in [
    ("hidden 0", lambda: nn.LSTM(4, 0)),
    ("layers 0", lambda: nn.GRU(4, 3, num_layers=0)),
    ("bad nonlinearity", lambda: nn.RNN(4, 3, nonlinearity="gelu")),
    ("dropout 1.5", lambda: nn.LSTM(4, 3, dropout=1.5)),
    ("float hidden", lambda: nn.LSTM(4, 3.0)),
    ("proj on GRU", lambda: nn.GRU(4, 3, proj_size=2)),
    ("negative proj", lambda: nn.LSTM(4, 3, proj_size=-1)),
    ("cell bad nonlinearity", lambda: nn.RNNCell(4, 3, nonlinearity="sigmoid")),
]:
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = ctor()
        print(label, "ok", m, [str(x.message)[:60] for x in w])
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:110])

# Packed-sequence misuse.
lens = torch.tensor([5, 2])
attempt("lengths tensor ok", lambda: lstm(pack_padded_sequence(x, lens, batch_first=True)))
attempt("lengths list", lambda: lstm(pack_padded_sequence(x, [5, 2], batch_first=True)))
attempt("forgot batch_first", lambda: pack_padded_sequence(x, lens))
attempt("lengths 2-D", lambda: pack_padded_sequence(x, lens[None], batch_first=True))
attempt("lengths count", lambda: pack_padded_sequence(x, torch.tensor([5, 2, 1]), batch_first=True))
attempt("pad a tensor", lambda: pad_packed_sequence(x))
packed = pack_padded_sequence(x, lens, batch_first=True)
attempt("total_length short", lambda: pad_packed_sequence(packed, batch_first=True, total_length=4))
attempt("cell on packed", lambda: nn.LSTMCell(4, 3)(packed))
attempt("linear on packed data", lambda: fill(nn.Linear(4, 2))(packed.data))
print("packed repr", repr(PackedSequence(torch.ones(3, 1), torch.tensor([2, 1])))[:120])
manual = PackedSequence(packed.data, packed.batch_sizes)
attempt("manual packed", lambda: lstm(manual))
print("manual sorted_indices", manual.sorted_indices, manual.unsorted_indices)

# Gradients through a packed, bidirectional GRU: padded steps get none.
xg = x.clone().requires_grad_(True)
out, hn = gru(pack_padded_sequence(xg, lens, batch_first=True))
padded, _ = pad_packed_sequence(out, batch_first=True)
(padded.sum() + hn.sum()).backward()
print("grad on padding", xg.grad[1, 2:].abs().sum().item(), "grad real", r(xg.grad[1, :2], 8))
print("weight grads", [(n, round(p.grad.norm().item(), 4)) for n, p in gru.named_parameters()][:4])
print("requires_grad out", out.data.requires_grad, type(out.data.grad_fn).__name__ != "NoneType", hn.is_leaf)
