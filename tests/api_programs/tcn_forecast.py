"""Time-series forecasting: a TCN of dilated causal Conv1d blocks under the weight_norm parametrization, an LSTM
forecaster over variable-length series (pack_padded_sequence with enforce_sorted=False and an initial state),
proj_size, truncated BPTT with detached state, autoregressive GRUCell/LSTMCell decoding, bidirectional multi-layer
LSTM with dropout in eval mode, and the errors of packing."""

import warnings
import numpy as np
import torch
from torch import nn
from torch.nn.utils.parametrizations import weight_norm
from torch.nn.utils import parametrize
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, PackedSequence

rng = np.random.default_rng(3)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def det(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


class CausalBlock(nn.Module):
    def __init__(self, cin, cout, k, dilation):
        super().__init__()
        self.pad = (k - 1) * dilation
        self.conv1 = weight_norm(nn.Conv1d(cin, cout, k, dilation=dilation))
        self.conv2 = weight_norm(nn.Conv1d(cout, cout, k, dilation=dilation))
        self.down = nn.Conv1d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x):
        h = torch.relu(self.conv1(nn.functional.pad(x, (self.pad, 0))))
        h = torch.relu(self.conv2(nn.functional.pad(h, (self.pad, 0))))
        return torch.relu(h + self.down(x))


class TCN(nn.Module):
    def __init__(self, cin=2, ch=(4, 4, 4), k=3):
        super().__init__()
        layers, c = [], cin
        for i, co in enumerate(ch):
            layers.append(CausalBlock(c, co, k, 2**i))
            c = co
        self.net = nn.Sequential(*layers)
        self.head = nn.Conv1d(c, 1, 1)

    def forward(self, x):
        return self.head(self.net(x))


t = torch.arange(40, dtype=torch.float32) / 4
series = torch.stack([torch.sin(t), torch.cos(0.5 * t)])[None] + 0.05 * T(1, 2, 40)
tcn = det(TCN(), 0.4)
blk = tcn.net[0]
print("wn_params", sorted(n for n, _ in blk.conv1.named_parameters()))
print("wn_shapes", blk.conv1.parametrizations.weight.original0.shape, blk.conv1.parametrizations.weight.original1.shape)
print("wn_is_param", parametrize.is_parametrized(blk.conv1), parametrize.is_parametrized(blk.conv1, "bias"))
g = blk.conv1.parametrizations.weight.original0
v = blk.conv1.parametrizations.weight.original1
print("wn_weight", r(blk.conv1.weight), r(g * v / v.norm(dim=(1, 2), keepdim=True)))
y = tcn(series)
print("tcn_out", y.shape, r(y[0, 0, :6]), r(y[0, 0, -3:]))
# causality: changing the future leaves the past unchanged
s2 = series.clone()
s2[..., 30:] += 5.0
y2 = tcn(s2)
print("causal", torch.allclose(y[..., :30], y2[..., :30]), bool((y[..., 30:] != y2[..., 30:]).any()))
opt = torch.optim.Adam(tcn.parameters(), lr=0.01)
for step in range(5):
    pred = tcn(series[..., :-1])
    loss = nn.functional.mse_loss(pred[0, 0], series[0, 0, 1:])
    opt.zero_grad()
    loss.backward()
    opt.step()
print("tcn_train", round(loss.item(), 4), r(g.grad, 4))
parametrize.remove_parametrizations(blk.conv1, "weight", leave_parametrized=True)
print("removed", sorted(n for n, _ in blk.conv1.named_parameters()), type(blk.conv1.weight).__name__)
print("tcn_sd", [k for k in tcn.state_dict() if k.startswith("net.1.conv1")])


class Forecaster(nn.Module):
    def __init__(self, d_in=2, hidden=5, horizon=3):
        super().__init__()
        self.lstm = nn.LSTM(d_in, hidden, num_layers=2, batch_first=True, proj_size=3)
        self.head = nn.Linear(3, horizon)

    def forward(self, x, lengths, state=None):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.lstm(packed, state)
        padded, lens = pad_packed_sequence(out, batch_first=True, padding_value=-9.0)
        return self.head(h[-1]), padded, lens, (h, c)


lengths = torch.tensor([5, 8, 3, 6])
x = T(4, 8, 2)
for i, n in enumerate(lengths.tolist()):
    x[i, n:] = 0.0
fc = det(Forecaster())
print("lstm_shapes", [(k, tuple(v.shape)) for k, v in fc.lstm.state_dict().items()][:5])
pred, padded, lens, (h, c) = fc(x, lengths)
print("fc_pred", pred.shape, r(pred))
print("fc_padded", padded.shape, lens.tolist(), r(padded[2, 2:4]), h.shape, c.shape)
# the packed state equals running each series alone, in the caller's order
solo = [fc.lstm(x[i : i + 1, :n])[1][0][-1, 0] for i, n in enumerate(lengths.tolist())]
print("fc_solo", torch.allclose(torch.stack(solo), h[-1], atol=1e-6))
h0 = T(2, 4, 3) * 0.1
c0 = T(2, 4, 5) * 0.1
pred0 = fc(x, lengths, (h0, c0))[0]
print("fc_state", r(pred0))
packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
print("packed", packed.batch_sizes.tolist(), packed.sorted_indices.tolist(), packed.unsorted_indices.tolist())
print("packed_is", isinstance(packed, PackedSequence), isinstance(packed, tuple), packed.data.shape, packed.is_cuda)
p64 = packed.to(torch.float64)
print("packed_to", p64.data.dtype, p64.batch_sizes.dtype, packed.cpu() is packed, None in packed, packed.count(None))
print("packed_double_lstm", r(det(nn.LSTM(2, 2)).double()(p64)[1][0]), fc.lstm.bias_ih_l0 == None)  # noqa: E711 (research code does this)
for bad in (
    lambda: pack_padded_sequence(x, lengths, batch_first=True),
    lambda: pack_padded_sequence(x, torch.tensor([5, 8, 0, 6]), batch_first=True, enforce_sorted=False),
    lambda: pack_padded_sequence(x, torch.tensor([5, 8, 3]), batch_first=True, enforce_sorted=False),
    lambda: fc.lstm(T(4, 8, 3)),
    lambda: fc.lstm(x, (T(2, 4, 5), c0)),
    lambda: fc.lstm(x[0], (h0, c0)),
    lambda: fc.lstm(x.double()),
):
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print("pack_err", type(e).__name__, str(e))

# truncated BPTT: carry the state across windows, detached
lstm = det(nn.LSTM(1, 4, batch_first=True))
head = det(nn.Linear(4, 1))
opt = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.05)
long = torch.sin(torch.arange(48, dtype=torch.float32) / 3).view(1, 48, 1)
state = None
for w in range(0, 40, 8):
    xw, yw = long[:, w : w + 8], long[:, w + 1 : w + 9]
    out, state = lstm(xw, state)
    state = tuple(s.detach() for s in state)
    loss = nn.functional.mse_loss(head(out), yw)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("tbptt", round(loss.item(), 4), state[0].requires_grad, r(state[1]))

# autoregressive decoding with cells
enc = det(nn.GRUCell(1, 6))
dec = det(nn.LSTMCell(1, 6))
proj = det(nn.Linear(6, 1))
hx = torch.zeros(2, 6)
obs = long[0, :10, 0].repeat(2, 1) * torch.tensor([[1.0], [0.5]])
for i in range(10):
    hx = enc(obs[:, i : i + 1], hx)
cx = torch.zeros_like(hx)
inp = obs[:, -1:]
outs = []
with torch.no_grad():
    for _ in range(5):
        hx, cx = dec(inp, (hx, cx))
        inp = proj(hx)
        outs.append(inp)
print("ar_decode", r(torch.cat(outs, 1), 10))
print("cell_unbatched", enc(obs[0, :1], torch.zeros(6)).shape, dec(obs[0, :1])[1].shape)
try:
    enc(obs[:, :2], hx)
except RuntimeError as e:
    print("cell_err", str(e))

# bidirectional multi-layer LSTM with dropout: eval is deterministic, the single-layer dropout warns
bi = det(nn.LSTM(2, 3, num_layers=3, bidirectional=True, dropout=0.3), 0.4)
bi.eval()
o1, (hn, cn) = bi(x.transpose(0, 1))
o2, _ = bi(x.transpose(0, 1))
print("bi", o1.shape, hn.shape, torch.equal(o1, o2), r(o1[-1, 0]), r(hn[-2:, 0]))
print("bi_dirs", torch.allclose(o1[-1, :, :3], hn[-2]), torch.allclose(o1[0, :, 3:], hn[-1]))
print("bi_repr", bi)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    nn.LSTM(2, 3, num_layers=1, dropout=0.2)
print("dropout_warn", len(w), str(w[0].message)[:60])
gru_relu = det(nn.RNN(2, 3, num_layers=2, nonlinearity="relu", batch_first=True))
print("rnn_relu", r(gru_relu(x)[0][1, -1]), gru_relu)
print("OK")
