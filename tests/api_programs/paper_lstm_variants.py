"""LSTM variants from the papers, each checked against nn.LSTM/LSTMCell with copied weights: the cell equations by
hand (Hochreiter & Schmidhuber 1997 with forget gates), LSTMP's projection (Sak et al. 2014, proj_size), layer-
normalized LSTM (Ba et al. 2016), variational dropout with one mask per sequence (Gal & Ghahramani 2016), zoneout
(Krueger et al. 2017), and gradient clipping for exploding gradients (Pascanu et al. 2013)."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(1997)
I, H, P, T, B = 3, 5, 2, 4, 2


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def fill_(m, seed, scale=0.4):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))
    return m


def cell_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    gates = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    i, f, g, o = gates.chunk(4, dim=1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    h = torch.sigmoid(o) * torch.tanh(c)
    if w_hr is not None:
        h = h @ w_hr.T
    return h, c


x = arr(T, B, I)
lstm = fill_(nn.LSTM(I, H, num_layers=1), 1)
out, (hn, cn) = lstm(x)
h, c = torch.zeros(B, H), torch.zeros(B, H)
mine = []
for t in range(T):
    h, c = cell_step(x[t], h, c, lstm.weight_ih_l0, lstm.weight_hh_l0, lstm.bias_ih_l0, lstm.bias_hh_l0)
    mine.append(h)
print("lstm", round((torch.stack(mine) - out).abs().max().item(), 5), r(hn), r(cn), out.shape)
print("gate_order", [n for n, _ in lstm.named_parameters()], lstm.weight_ih_l0.shape)

# LSTMP: the hidden state is projected to proj_size
lp = fill_(nn.LSTM(I, H, proj_size=P, batch_first=True, num_layers=2), 2)
print("lstmp", lp, [tuple(p.shape) for n, p in lp.named_parameters() if "l0" in n])
xb = x.transpose(0, 1)
out, (hn, cn) = lp(xb)
print("lstmp_shapes", out.shape, hn.shape, cn.shape)
h, c = torch.zeros(B, P), torch.zeros(B, H)
seq = []
for t in range(T):
    h, c = cell_step(xb[:, t], h, c, lp.weight_ih_l0, lp.weight_hh_l0, lp.bias_ih_l0, lp.bias_hh_l0, lp.weight_hr_l0)
    seq.append(h)
layer0 = torch.stack(seq, 1)
h, c = torch.zeros(B, P), torch.zeros(B, H)
for t in range(T):
    h, c = cell_step(
        layer0[:, t], h, c, lp.weight_ih_l1, lp.weight_hh_l1, lp.bias_ih_l1, lp.bias_hh_l1, lp.weight_hr_l1
    )
print(
    "lstmp_match",
    round((h - out[:, -1]).abs().max().item(), 5),
    round((c - cn[1]).abs().max().item(), 5),
    r(out[0, -1]),
)
h0, c0 = arr(2, B, P), arr(2, B, H)
out2, _ = lp(xb, (h0, c0))
print("lstmp_init", r(out2[1, 0]))
for bad in ((arr(2, B, H), c0), (h0, arr(2, B, P))):
    try:
        lp(xb, bad)
    except RuntimeError as e:
        print("RuntimeError", e)
try:
    nn.LSTM(I, H, proj_size=H)
except ValueError as e:
    print("ValueError", e)
try:
    nn.GRU(I, H, proj_size=2)
except ValueError as e:
    print("ValueError", e)
bi = fill_(nn.LSTM(I, H, proj_size=P, bidirectional=True), 3)
o, (hb, cb) = bi(x)
print("bi_lstmp", o.shape, hb.shape, cb.shape, r(o[-1, 0]))


class LayerNormLSTMCell(nn.Module):
    def __init__(self, i, h):
        super().__init__()
        self.ih, self.hh = nn.Linear(i, 4 * h, bias=False), nn.Linear(h, 4 * h, bias=False)
        self.ln_ih, self.ln_hh, self.ln_c = nn.LayerNorm(4 * h), nn.LayerNorm(4 * h), nn.LayerNorm(h)

    def forward(self, x, state):
        h, c = state
        gates = self.ln_ih(self.ih(x)) + self.ln_hh(self.hh(h))
        i, f, g, o = gates.chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(self.ln_c(c)), c


ln_cell = fill_(LayerNormLSTMCell(I, H), 4)
head = fill_(nn.Linear(H, 1), 5)
opt = torch.optim.Adam([*ln_cell.parameters(), *head.parameters()], lr=0.02)
target = x.sum(-1, keepdim=True).cumsum(0)
masks = [torch.from_numpy((rng.uniform(size=(B, H)) > 0.3).astype(np.float32) / 0.7) for _ in range(3)]
zone = [torch.from_numpy(rng.uniform(size=(T, B, H)) < 0.2) for _ in range(3)]
for step in range(3):
    h, c = torch.zeros(B, H), torch.zeros(B, H)
    loss = 0.0
    for t in range(T):
        h_new, c_new = ln_cell(x[t], (h * masks[step], c))
        h = torch.where(zone[step][t], h, h_new)
        c = torch.where(zone[step][t], c, c_new)
        loss = loss + F.mse_loss(head(h), target[t])
    opt.zero_grad()
    loss.backward()
    total = nn.utils.clip_grad_norm_([*ln_cell.parameters(), *head.parameters()], max_norm=0.5)
    after = torch.sqrt(
        sum(p.grad.pow(2).sum() for p in ln_cell.parameters()) + sum(p.grad.pow(2).sum() for p in head.parameters())
    )
    opt.step()
    print("ln_lstm", step, round(loss.item(), 4), round(total.item(), 4), round(after.item(), 4), int(zone[step].sum()))

# LSTMCell agrees with the hand-written step, and clip_grad_value_ / non-finite checks
cell = fill_(nn.LSTMCell(I, H), 6)
h, c = cell(x[0])
h2, c2 = cell_step(
    x[0], torch.zeros(B, H), torch.zeros(B, H), cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh
)
print("lstm_cell", round((h - h2).abs().max().item(), 5), cell, r(c))
h.sum().backward()
nn.utils.clip_grad_value_(cell.parameters(), clip_value=0.05)
print("clip_value", round(max(p.grad.abs().max().item() for p in cell.parameters()), 4))
cell.weight_ih.grad[0, 0] = float("nan")
try:
    nn.utils.clip_grad_norm_(cell.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError", str(e).split(",")[0])
print("nonfinite_norm", nn.utils.clip_grad_norm_(cell.parameters(), 1.0))
print("get_total_norm", round(nn.utils.get_total_norm([torch.ones(3), torch.full((2,), 2.0)], norm_type=2.0).item(), 4))
