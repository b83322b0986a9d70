"""d2l.ai chapters 9-10: a character vocabulary, one-hot inputs, an RNN from scratch (init_rnn_state, tanh
recurrence, torch.cat of outputs), gradient clipping by hand (global norm over params), prediction by warm-up,
perplexity from cross-entropy; the concise nn.RNN; GRU and LSTM from scratch checked against nn.GRU and nn.LSTM
with copied weights (gate order r,z,n and i,f,g,o), and truncated BPTT with detach_ of the carried state."""

import collections
import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

rng = np.random.default_rng(9)


def randn(*shape, std=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * std).astype(np.float32))


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


text = "the time machine by h g wells " * 6
tokens = list(text)


class Vocab:
    """Vocabulary for text, most frequent first after <unk>."""

    def __init__(self, tokens=[], min_freq=0, reserved_tokens=[]):
        counter = collections.Counter(tokens)
        self.token_freqs = sorted(counter.items(), key=lambda x: (-x[1], x[0]))
        self.idx_to_token = list(sorted(set(["<unk>"] + reserved_tokens + [
            token for token, freq in self.token_freqs if freq >= min_freq])))
        self.token_to_idx = {token: idx for idx, token in enumerate(self.idx_to_token)}

    def __len__(self):
        return len(self.idx_to_token)

    def __getitem__(self, tokens):
        if not isinstance(tokens, (list, tuple)):
            return self.token_to_idx.get(tokens, self.unk)
        return [self.__getitem__(token) for token in tokens]

    def to_tokens(self, indices):
        if hasattr(indices, "__len__") and len(indices) > 1:
            return [self.idx_to_token[int(index)] for index in indices]
        return self.idx_to_token[indices]

    @property
    def unk(self):
        return self.token_to_idx["<unk>"]


vocab = Vocab(tokens)
corpus = [vocab[t] for t in tokens]
print(len(vocab), vocab.token_freqs[:4], vocab[list("time")], vocab.to_tokens(vocab[list("hg")]))
print(F.one_hot(torch.tensor([0, 2]), len(vocab)))
X = torch.arange(10).reshape((2, 5))
print(F.one_hot(X.T, 28).shape, F.one_hot(X.T, 28).dtype)
try:
    F.one_hot(torch.tensor([0.0, 1.0]), 3)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    F.one_hot(torch.tensor([0, 5]), 3)
except RuntimeError as e:
    print("RuntimeError:", e)

num_steps, batch_size, num_hiddens = 6, 4, 16
array = torch.tensor([corpus[i : i + num_steps + 1] for i in range(0, len(corpus) - num_steps - 1, num_steps)])
Xs, Ys = array[:, :-1], array[:, 1:]
print(array.shape, Xs[:2], Ys[0])


def get_params(vocab_size, num_hiddens):
    num_inputs = num_outputs = vocab_size

    def normal(shape):
        return randn(*shape, std=0.1)

    W_xh = normal((num_inputs, num_hiddens))
    W_hh = normal((num_hiddens, num_hiddens))
    b_h = torch.zeros(num_hiddens)
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs)
    params = [W_xh, W_hh, b_h, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params


def init_rnn_state(batch_size, num_hiddens):
    return (torch.zeros((batch_size, num_hiddens)),)


def rnn(inputs, state, params):
    W_xh, W_hh, b_h, W_hq, b_q = params
    (H,) = state
    outputs = []
    for X in inputs:
        H = torch.tanh(torch.mm(X, W_xh) + torch.mm(H, W_hh) + b_h)
        Y = torch.mm(H, W_hq) + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H,)


class RNNModelScratch:
    def __init__(self, vocab_size, num_hiddens, get_params, init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X, state):
        X = F.one_hot(X.T, self.vocab_size).type(torch.float32)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size):
        return self.init_state(batch_size, self.num_hiddens)


net = RNNModelScratch(len(vocab), num_hiddens, get_params, init_rnn_state, rnn)
state = net.begin_state(Xs.shape[0])
Y, new_state = net(Xs, state)
print(Y.shape, len(new_state), new_state[0].shape, r(Y, 4))


def predict_ch8(prefix, num_preds, net):
    state = net.begin_state(batch_size=1)
    outputs = [vocab[prefix[0]]]
    get_input = lambda: torch.tensor([outputs[-1]]).reshape((1, 1))
    for y in prefix[1:]:
        _, state = net(get_input(), state)
        outputs.append(vocab[y])
    for _ in range(num_preds):
        y, state = net(get_input(), state)
        outputs.append(int(y.argmax(dim=1).reshape(1)))
    return "".join([vocab.idx_to_token[i] for i in outputs])


def grad_clipping(net, theta):
    params = net.parameters() if isinstance(net, nn.Module) else net.params
    params = [p for p in params if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum(p.grad**2) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm
    return norm


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


loss = nn.CrossEntropyLoss()
for epoch in range(4):
    state, total, n = None, 0.0, 0
    for i in range(0, Xs.shape[0], batch_size):
        X, Y = Xs[i : i + batch_size], Ys[i : i + batch_size]
        if state is None or X.shape[0] != state[0].shape[0]:
            state = net.begin_state(X.shape[0])
        else:
            for s in state:
                s.detach_()
        y = Y.T.reshape(-1)
        y_hat, state = net(X, state)
        l = loss(y_hat, y.long()).mean()
        l.backward()
        norm = grad_clipping(net, 1)
        sgd(net.params, lr=1, batch_size=1)
        total, n = total + l.item() * y.numel(), n + y.numel()
    print(f"epoch {epoch} perplexity {math.exp(total / n):.3f} norm {float(norm):.3f}")
print(predict_ch8("time ", 10, net))

# concise nn.RNN and the torch clip utility agree with the hand clip
rnn_layer = nn.RNN(len(vocab), num_hiddens)
print(rnn_layer, [n for n, _ in rnn_layer.named_parameters()])
with torch.no_grad():
    rnn_layer.weight_ih_l0.copy_(net.params[0].T)
    rnn_layer.weight_hh_l0.copy_(net.params[1].T)
    rnn_layer.bias_ih_l0.copy_(net.params[2])
    rnn_layer.bias_hh_l0.zero_()
state = torch.zeros((1, batch_size, num_hiddens))
inp = F.one_hot(Xs[:batch_size].T, len(vocab)).float()
Y, state_new = rnn_layer(inp, state)
H_ref = rnn(inp, (state[0],), net.params)[1][0]
print(Y.shape, state_new.shape, torch.allclose(state_new[0], H_ref, atol=1e-5), torch.allclose(Y[-1], state_new[0]))
try:
    nn.utils.clip_grad_value_(rnn_layer.parameters(), clip_value=1.0)  # before any backward
except RuntimeError as e:
    print("RuntimeError:", e)
out = nn.Linear(num_hiddens, len(vocab))(Y.reshape((-1, Y.shape[-1])))
out.sum().backward()
total_norm = nn.utils.clip_grad_norm_(rnn_layer.parameters(), max_norm=0.5)
print(round(total_norm.item(), 4) > 0.5,
      round(torch.sqrt(sum((p.grad**2).sum() for p in rnn_layer.parameters())).item(), 4))


def gru_scratch(inputs, H, p):
    W_xz, W_hz, b_z, W_xr, W_hr, b_r, W_xh, W_hh, b_h = p
    outputs = []
    for X in inputs:
        Z = torch.sigmoid((X @ W_xz) + (H @ W_hz) + b_z)
        R = torch.sigmoid((X @ W_xr) + (H @ W_hr) + b_r)
        H_tilde = torch.tanh((X @ W_xh) + ((R * H) @ W_hh) + b_h)
        H = Z * H + (1 - Z) * H_tilde
        outputs.append(H)
    return torch.stack(outputs), H


ni, nh = 5, 3
gp = [randn(ni, nh, std=0.5), randn(nh, nh, std=0.5), randn(nh, std=0.1)] * 1
gp = [randn(*t.shape, std=0.5) for t in gp * 3]
gru = nn.GRU(ni, nh)
with torch.no_grad():
    gru.weight_ih_l0.copy_(torch.cat([gp[3].T, gp[0].T, gp[6].T]))
    gru.weight_hh_l0.copy_(torch.cat([gp[4].T, gp[1].T, gp[7].T]))
    gru.bias_ih_l0.copy_(torch.cat([gp[5], gp[2], gp[8]]))
    gru.bias_hh_l0.zero_()
seq = randn(7, 2, ni)
o1, h1 = gru_scratch(seq, torch.zeros(2, nh), gp)
o2, h2 = gru(seq)
# PyTorch resets after the hidden matmul (r * (W_hn h)), the book before it ((r * h) W_hh): only step 0 agrees
print(gru, torch.allclose(o1[0], o2[0], atol=1e-5), torch.allclose(o1, o2, atol=1e-5),
      r(h2, 6), h2.shape, o2.grad_fn.name())


def lstm_scratch(inputs, H_C, p):
    W_xi, W_hi, b_i, W_xf, W_hf, b_f, W_xo, W_ho, b_o, W_xc, W_hc, b_c = p
    (H, C) = H_C
    outputs = []
    for X in inputs:
        I = torch.sigmoid((X @ W_xi) + (H @ W_hi) + b_i)
        Fg = torch.sigmoid((X @ W_xf) + (H @ W_hf) + b_f)
        O = torch.sigmoid((X @ W_xo) + (H @ W_ho) + b_o)
        C_tilde = torch.tanh((X @ W_xc) + (H @ W_hc) + b_c)
        C = Fg * C + I * C_tilde
        H = O * torch.tanh(C)
        outputs.append(H)
    return torch.stack(outputs), (H, C)


lp = [randn(*s, std=0.5) for s in [(ni, nh), (nh, nh), (nh,)] * 4]
lstm = nn.LSTM(ni, nh, num_layers=1)
order = [0, 1, 3, 2]  # i, f, g(c~), o in PyTorch; the book's list is i, f, o, c~
with torch.no_grad():
    lstm.weight_ih_l0.copy_(torch.cat([lp[3 * k].T for k in order]))
    lstm.weight_hh_l0.copy_(torch.cat([lp[3 * k + 1].T for k in order]))
    lstm.bias_ih_l0.copy_(torch.cat([lp[3 * k + 2] for k in order]))
    lstm.bias_hh_l0.zero_()
h0, c0 = randn(2, nh, std=0.1), randn(2, nh, std=0.1)
o1, (h1, c1) = lstm_scratch(seq, (h0, c0), lp)
o2, (h2, c2) = lstm(seq, (h0[None], c0[None]))
print(lstm, torch.allclose(o1, o2, atol=1e-5), torch.allclose(c1, c2[0], atol=1e-5), r(c2, 6))
deep = nn.LSTM(ni, nh, num_layers=2, batch_first=True, bidirectional=True)
out, (hn, cn) = deep(seq.transpose(0, 1))
print(deep, out.shape, hn.shape, cn.shape, len(deep.state_dict()), list(deep.state_dict())[-2:])
try:
    lstm(seq, torch.zeros(1, 2, nh))
except Exception as e:
    print(type(e).__name__ + ":", e)
try:
    lstm(seq, torch.zeros(2, 2, nh))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    lstm(seq[:, 0], torch.zeros(2, nh))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    gru(seq, torch.zeros(2, 2, nh))
except RuntimeError as e:
    print("RuntimeError:", e)
cell = nn.LSTMCell(ni, nh)
cell.load_state_dict({k[:-3]: v for k, v in lstm.state_dict().items()})  # weight_ih_l0 -> weight_ih
hc = cell(seq[0], (h0, c0))
print(cell, [tuple(t.shape) for t in hc], torch.allclose(hc[0], o2[0], atol=1e-6))
try:
    cell(seq[0], h0)
except TypeError as e:
    print("TypeError:", e)
try:
    nn.RNN(ni, nh)(randn(7, 2, ni + 1))
except RuntimeError as e:
    print("RuntimeError:", e)
