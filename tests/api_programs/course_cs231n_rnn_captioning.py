"""CS231n assignment 3, image captioning: vanilla RNN and LSTM steps written by hand and checked against
nn.RNNCell/nn.LSTMCell (PyTorch's i, f, g, o gate order), word embeddings, temporal affine and the masked temporal
softmax loss with gradient checks, a CaptioningRNN trained a few steps, greedy sampling, and style-transfer losses."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import gradcheck

rng = np.random.default_rng(2313)
NULL, START, END = 0, 1, 2


def T(*s, scale=1.0):
    return torch.from_numpy(scale * rng.standard_normal(s))


def r(x, k=5):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def rnn_step_forward(x, prev_h, Wx, Wh, b):
    return torch.tanh(x @ Wx + prev_h @ Wh + b)


def lstm_step_forward(x, prev_h, prev_c, Wx, Wh, b):
    a = x @ Wx + prev_h @ Wh + b
    i, f, g, o = a.chunk(4, dim=1)
    next_c = torch.sigmoid(f) * prev_c + torch.sigmoid(i) * torch.tanh(g)
    next_h = torch.sigmoid(o) * torch.tanh(next_c)
    return next_h, next_c


def rnn_forward(x, h0, Wx, Wh, b):
    hs, h = [], h0
    for t in range(x.shape[1]):
        h = rnn_step_forward(x[:, t], h, Wx, Wh, b)
        hs.append(h)
    return torch.stack(hs, dim=1)


def temporal_affine_forward(x, w, b):
    N, T_, D = x.shape
    return (x.reshape(N * T_, D) @ w + b).reshape(N, T_, -1)


def temporal_softmax_loss(x, y, mask):
    N, T_, V = x.shape
    logp = F.log_softmax(x.reshape(N * T_, V), dim=1)
    picked = logp[torch.arange(N * T_), y.reshape(-1)]
    return -(picked * mask.reshape(-1)).sum() / N


# RNN step against nn.RNNCell, with weights copied in (nn stores W^T).
N, D, H = 3, 4, 5
x, h = T(N, D), T(N, H)
Wx, Wh, b = T(D, H, scale=0.4), T(H, H, scale=0.4), T(H)
cell = nn.RNNCell(D, H).double()
with torch.no_grad():
    cell.weight_ih.copy_(Wx.t())
    cell.weight_hh.copy_(Wh.t())
    cell.bias_ih.copy_(b)
    cell.bias_hh.zero_()
print("rnn step", r(rnn_step_forward(x, h, Wx, Wh, b)), torch.allclose(cell(x, h), rnn_step_forward(x, h, Wx, Wh, b)))
print("RNNCell", cell, cell.nonlinearity, [tuple(p.shape) for p in cell.parameters()])

# LSTM step against nn.LSTMCell.
Wx4, Wh4, b4 = T(D, 4 * H, scale=0.3), T(H, 4 * H, scale=0.3), T(4 * H, scale=0.1)
c = T(N, H)
lcell = nn.LSTMCell(D, H, dtype=torch.float64)
with torch.no_grad():
    lcell.weight_ih.copy_(Wx4.t())
    lcell.weight_hh.copy_(Wh4.t())
    lcell.bias_ih.copy_(b4 / 2)
    lcell.bias_hh.copy_(b4 / 2)
nh, nc = lstm_step_forward(x, h, c, Wx4, Wh4, b4)
h2, c2 = lcell(x, (h, c))
print("lstm step", r(nh), r(nc), torch.allclose(nh, h2), torch.allclose(nc, c2))
h_only, c_only = lcell(x)
print("LSTMCell zero state", tuple(h_only.shape), h_only.dtype, torch.allclose(c_only, lstm_step_forward(
    x, torch.zeros(N, H, dtype=torch.float64), torch.zeros(N, H, dtype=torch.float64), Wx4, Wh4, b4)[1]))

# A classic mistake: squashing the chunked gates in place.
gates = T(N, 4 * H).requires_grad_() * 1
i_g, f_g, g_g, o_g = gates.chunk(4, dim=1)
try:
    i_g.sigmoid_()
except RuntimeError as e:
    print("chunk in place", type(e).__name__, str(e).split(". ")[0])
try:
    gates.unbind(0)[2].tanh_()
except RuntimeError as e:
    print("unbind in place", str(e).split(". ")[0])
with torch.no_grad():
    print("under no_grad", r(gates.chunk(4, dim=1)[1].sigmoid_(), 3))
try:
    lcell.weight_ih.data = torch.zeros(4 * H, D, dtype=torch.long)
except RuntimeError as e:
    print("int .data", e)

# Sequences: the loop against nn.RNN, and gradcheck through the whole forward.
xs = T(2, 6, D)
hs = rnn_forward(xs, h[:2], Wx, Wh, b)
rnn = nn.RNN(D, H, batch_first=True).double()
with torch.no_grad():
    rnn.weight_ih_l0.copy_(Wx.t())
    rnn.weight_hh_l0.copy_(Wh.t())
    rnn.bias_ih_l0.copy_(b)
    rnn.bias_hh_l0.zero_()
out, hn = rnn(xs, h[:2].unsqueeze(0))
print("rnn forward", tuple(hs.shape), torch.allclose(out, hs), torch.allclose(hn[0], hs[:, -1]), out.grad_fn.name())
args = tuple(t.clone().requires_grad_() for t in (xs[:, :3], h[:2], Wx, Wh, b))
print("rnn gradcheck", gradcheck(rnn_forward, args, eps=1e-6, atol=1e-5))

# Word embeddings and the temporal softmax loss with a NULL mask.
V, W = 7, 3
emb = T(V, W)
captions = torch.tensor([[START, 4, 5, END, NULL], [START, 3, END, NULL, NULL]])
wv = F.embedding(captions, emb)
print("embedding", tuple(wv.shape), torch.equal(wv[1, 4], emb[NULL]), torch.equal(wv, emb[captions]))
embg = emb.clone().requires_grad_()
F.embedding(captions, embg).sum().backward()
print("embedding grad counts", embg.grad[:, 0].tolist())
scores = T(2, 4, V)
y, mask = captions[:, 1:], captions[:, 1:] != NULL
loss = temporal_softmax_loss(scores, y, mask)
ce = F.cross_entropy(scores.reshape(-1, V), y.reshape(-1), ignore_index=NULL, reduction="sum") / 2
print("temporal loss", round(loss.item(), 4), round(ce.item(), 4), mask.sum().item(), mask.dtype)
sg = scores.clone().requires_grad_()
print("loss gradcheck", gradcheck(lambda s: temporal_softmax_loss(s, y, mask), (sg,)))
ta = temporal_affine_forward(T(2, 4, H), T(H, V), T(V))
print("temporal affine", tuple(ta.shape), r(ta, 3))


class CaptioningRNN(nn.Module):
    def __init__(self, feat_dim, wordvec_dim, hidden_dim, vocab_size, cell_type="lstm"):
        super().__init__()
        if cell_type not in {"rnn", "lstm"}:
            raise ValueError(f'Invalid cell_type "{cell_type}"')
        self.proj = nn.Linear(feat_dim, hidden_dim)
        self.embed = nn.Embedding(vocab_size, wordvec_dim, padding_idx=NULL)
        self.cell = nn.LSTMCell(wordvec_dim, hidden_dim) if cell_type == "lstm" else nn.RNNCell(wordvec_dim, hidden_dim)
        self.vocab = nn.Linear(hidden_dim, vocab_size)
        self.cell_type = cell_type

    def forward(self, features, captions):
        h = self.proj(features)
        state = (h, torch.zeros_like(h)) if self.cell_type == "lstm" else h
        outs = []
        for w in self.embed(captions[:, :-1]).unbind(1):
            state = self.cell(w, state)
            outs.append(state[0] if self.cell_type == "lstm" else state)
        scores = self.vocab(torch.stack(outs, 1))
        target = captions[:, 1:]
        return F.cross_entropy(scores.transpose(1, 2), target, ignore_index=NULL, reduction="sum") / len(captions)

    @torch.no_grad()
    def sample(self, features, max_length=5):
        h = self.proj(features)
        state = (h, torch.zeros_like(h)) if self.cell_type == "lstm" else h
        word = torch.full((features.shape[0],), START, dtype=torch.long)
        out = torch.full((features.shape[0], max_length), NULL, dtype=torch.long)
        for t in range(max_length):
            state = self.cell(self.embed(word), state)
            word = self.vocab(state[0] if self.cell_type == "lstm" else state).argmax(1)
            out[:, t] = word
        return out


for cell_type in ("rnn", "lstm"):
    model = CaptioningRNN(6, 3, 5, V, cell_type)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(0.4 * rng.standard_normal(tuple(p.shape))).float())
    feats = torch.from_numpy(rng.standard_normal((2, 6)).astype(np.float32))
    opt = torch.optim.Adam(model.parameters(), lr=5e-2)
    losses = []
    for _ in range(15):
        opt.zero_grad()
        loss = model(feats, captions)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    print(cell_type, losses[::4], model.sample(feats).tolist(), model.embed.weight.grad[NULL].abs().sum().item())
try:
    CaptioningRNN(6, 3, 5, V, "gru")
except ValueError as e:
    print("bad cell", e)


# Style transfer losses (assignment 3): content, Gram-matrix style, total variation.
def gram_matrix(features, normalize=True):
    N, C, H_, W_ = features.shape
    f = features.reshape(N, C, H_ * W_)
    g = torch.bmm(f, f.transpose(1, 2))
    return g / (C * H_ * W_) if normalize else g


def tv_loss(img, tv_weight):
    return tv_weight * ((img[:, :, 1:] - img[:, :, :-1]).pow(2).sum() + (img[..., 1:] - img[..., :-1]).pow(2).sum())


feat = torch.from_numpy(rng.standard_normal((1, 3, 4, 4)).astype(np.float32))
target = torch.from_numpy(rng.standard_normal((1, 3, 4, 4)).astype(np.float32))
G = gram_matrix(feat)
print("gram", tuple(G.shape), torch.allclose(G, G.transpose(1, 2)), r(G), r(torch.einsum("nchw,ndhw->ncd", feat, feat)
                                                                              / 48))
content = 0.5 * (feat - target).pow(2).sum()
style = ((gram_matrix(feat) - gram_matrix(target)) ** 2).sum()
print("losses", round(content.item(), 4), round(style.item(), 4), round(tv_loss(feat, 0.1).item(), 3))
img = feat.clone().requires_grad_()
total = 0.5 * (img - target).pow(2).sum() + 10 * ((gram_matrix(img) - gram_matrix(target)) ** 2).sum() + tv_loss(
    img, 0.1)
total.backward()
print("style grad", r(img.grad), total.grad_fn.name())
