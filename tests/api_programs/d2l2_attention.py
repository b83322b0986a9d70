"""d2l.ai chapter 11 (attention mechanisms) as the book writes it: Nadaraya-Watson kernel regression with a
learnable bandwidth, masked_softmax via sequence_mask, additive and scaled dot-product attention, and the
Bahdanau attention decoder on a GRU encoder, with shapes, weights, gradients and a few mistakes."""

import math
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

rng = np.random.default_rng(11)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def init_(m):
    with torch.no_grad():
        for name, p in m.named_parameters():
            p.copy_(torch.from_numpy((0.3 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))


# 11.2 attention pooling: Nadaraya-Watson
n_train = 50
x_train, _ = torch.sort(torch.from_numpy(rng.random(n_train).astype(np.float32)) * 5)


def f(x):
    return 2 * torch.sin(x) + x**0.8


y_train = f(x_train) + torch.from_numpy(rng.normal(0.0, 0.5, (n_train,)).astype(np.float32))
x_test = torch.arange(0, 5, 0.1)
y_truth = f(x_test)
n_test = len(x_test)
print("data", n_test, x_test.dtype, r(y_truth, 4))
y_hat = torch.repeat_interleave(y_train.mean(), n_test)
print("avg_pool", y_hat.shape, round(y_hat[0].item(), 4))
X_repeat = x_test.repeat_interleave(n_train).reshape((-1, n_train))
attention_weights = nn.functional.softmax(-(X_repeat - x_train) ** 2 / 2, dim=1)
y_hat = torch.matmul(attention_weights, y_train)
print("nw_nonparam", attention_weights.shape, r(y_hat, 4), round(attention_weights.sum(1).mean().item(), 4))

X = torch.ones((2, 1, 4))
Y = torch.ones((2, 4, 6))
print("bmm", torch.bmm(X, Y).shape)
weights = torch.ones((2, 10)) * 0.1
values = torch.arange(20.0).reshape((2, 10))
print("bmm_pool", torch.bmm(weights.unsqueeze(1), values.unsqueeze(-1)).squeeze().tolist())
# the usual slip: integer values from torch.arange(20)
for fn in (lambda: torch.bmm(weights.unsqueeze(1), torch.arange(20).reshape(2, 10, 1)),
           lambda: torch.bmm(weights.double().unsqueeze(1), values.unsqueeze(-1)),
           lambda: torch.matmul(weights.unsqueeze(1), torch.arange(20).reshape(2, 10, 1)),
           lambda: torch.bmm(weights.unsqueeze(1), values.unsqueeze(-1),
                             out=torch.empty(2, 1, 1, dtype=torch.float64))):
    try:
        fn()
    except RuntimeError as e:
        print("RuntimeError", e)


class NWKernelRegression(nn.Module):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = nn.Parameter(torch.tensor([0.5]), requires_grad=True)

    def forward(self, queries, keys, values):
        queries = queries.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]))
        self.attention_weights = nn.functional.softmax(-((queries - keys) * self.w) ** 2 / 2, dim=1)
        return torch.bmm(self.attention_weights.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)


X_tile = x_train.repeat((n_train, 1))
Y_tile = y_train.repeat((n_train, 1))
keys = X_tile[(1 - torch.eye(n_train)).type(torch.bool)].reshape((n_train, -1))
values = Y_tile[(1 - torch.eye(n_train)).type(torch.bool)].reshape((n_train, -1))
net = NWKernelRegression()
loss = nn.MSELoss(reduction="none")
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
for epoch in range(5):
    trainer.zero_grad()
    l = loss(net(x_train, keys, values), y_train)
    l.sum().backward()
    trainer.step()
    print(f"epoch {epoch + 1}, loss {float(l.sum()):.4f}, w {net.w.item():.4f}")
keys = x_train.repeat((n_test, 1))
values = y_train.repeat((n_test, 1))
y_hat = net(x_test, keys, values).unsqueeze(1).detach()
print("nw_param", y_hat.shape, r(y_hat, 4), net.attention_weights.shape)


# 11.3 masked softmax
def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)


S = T(2, 2, 4)
print("ms1", r(masked_softmax(S.clone(), torch.tensor([2, 3])), 8))
print("ms2", r(masked_softmax(S.clone(), torch.tensor([[1, 3], [2, 4]])), 8))
print("seqmask", sequence_mask(torch.tensor([[1, 2, 3], [4, 5, 6]]), torch.tensor([1, 2])))


class AdditiveAttention(nn.Module):
    def __init__(self, key_size, query_size, num_hiddens, dropout, **kwargs):
        super(AdditiveAttention, self).__init__(**kwargs)  # noqa: UP008
        self.W_k = nn.Linear(key_size, num_hiddens, bias=False)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = queries.unsqueeze(2) + keys.unsqueeze(1)
        features = torch.tanh(features)
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


queries, keys = torch.normal(0, 1, (2, 1, 20)), torch.ones((2, 10, 2))
queries = T(2, 1, 20)
values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
valid_lens = torch.tensor([2, 6])
attention = AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)
init_(attention)
attention.eval()
out = attention(queries, keys, values, valid_lens)
print("additive", out.shape, r(out, 8), r(attention.attention_weights[1], 7))
print(attention)


class DotProductAttention(nn.Module):
    def __init__(self, dropout, **kwargs):
        super(DotProductAttention, self).__init__(**kwargs)  # noqa: UP008
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


queries = T(2, 1, 2)
attention = DotProductAttention(dropout=0.5)
attention.eval()
out = attention(queries, keys, values, valid_lens)
print("dot", out.shape, r(out, 8), r(attention.attention_weights[0], 3))
kq = T(2, 5, 2).requires_grad_()
out = attention(queries, kq, values[:, :5], torch.tensor([3, 5]))
out.sum().backward()
print("dot_grad", r(kq.grad[0], 10), r(kq.grad[1], 4))
ref = F.scaled_dot_product_attention(queries, kq.detach(), values[:, :5])
print("vs_sdpa", torch.allclose(attention(queries, kq.detach(), values[:, :5]), ref, atol=1e-5))
try:
    torch.bmm(queries, keys)
except RuntimeError as e:
    print("RuntimeError", e)


# 11.4 Bahdanau attention on a GRU encoder-decoder
class Seq2SeqEncoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)

    def forward(self, X, *args):
        embs = self.embedding(X.t().type(torch.int64))
        outputs, state = self.rnn(embs)
        return outputs, state


class Seq2SeqAttentionDecoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
        super().__init__()
        self.attention = AdditiveAttention(num_hiddens, num_hiddens, num_hiddens, dropout)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
        self.dense = nn.LazyLinear(vocab_size)

    def init_state(self, enc_outputs, enc_valid_lens):
        outputs, hidden_state = enc_outputs
        return (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)

    def forward(self, X, state):
        enc_outputs, hidden_state, enc_valid_lens = state
        X = self.embedding(X).permute(1, 0, 2)
        outputs, self._attention_weights = [], []
        for x in X:
            query = torch.unsqueeze(hidden_state[-1], dim=1)
            context = self.attention(query, enc_outputs, enc_outputs, enc_valid_lens)
            x = torch.cat((context, torch.unsqueeze(x, dim=1)), dim=-1)
            out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)
            outputs.append(out)
            self._attention_weights.append(self.attention.attention_weights)
        outputs = self.dense(torch.cat(outputs, dim=0))
        return outputs.permute(1, 0, 2), [enc_outputs, hidden_state, enc_valid_lens]


vocab_size, embed_size, num_hiddens, num_layers = 10, 8, 16, 2
batch_size, num_steps = 4, 7
encoder = Seq2SeqEncoder(vocab_size, embed_size, num_hiddens, num_layers)
decoder = Seq2SeqAttentionDecoder(vocab_size, embed_size, num_hiddens, num_layers)
X = torch.from_numpy(rng.integers(0, vocab_size, (batch_size, num_steps)))
print("lazy", decoder.dense)
state = decoder.init_state(encoder(X), torch.tensor([7, 5, 3, 2]))
Y, _ = decoder(X, state)
print("lazy_after", decoder.dense, decoder.dense.weight.shape)
init_(encoder)
init_(decoder)
enc = encoder(X)
print("enc", enc[0].shape, enc[1].shape, r(enc[1][-1], 4))
state = decoder.init_state(enc, torch.tensor([7, 5, 3, 2]))
Y, state = decoder(X, state)
print("dec", Y.shape, len(state), state[0].shape, state[1].shape, r(Y[0, 0], 5))
w = torch.cat(decoder._attention_weights, 1)
print("attn_w", w.shape, r(w[3, 0], 7), r(w.sum(-1)[:, 0], 4))
loss = F.cross_entropy(Y.reshape(-1, vocab_size), X.reshape(-1), reduction="none")
print("loss", loss.shape, round(loss.mean().item(), 4))
loss.mean().backward()
g = decoder.attention.W_q.weight.grad
print("grad", g.shape, round(g.norm().item(), 4), encoder.embedding.weight.grad.shape,
      round(encoder.rnn.weight_hh_l0.grad.abs().sum().item(), 4))
