"""Seeded randomness on non-contiguous tensors, as attention, convolution and sampling code meets it: dropout on
transposed and permuted activations (batch-first attention outputs), channels_last feature maps, multinomial over
transposed probability tables, in-place samplers on strided views, *_like draws and Bernoulli with tensor
probabilities; PyTorch fills each in its memory order, and the printed numbers show it."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


def show(name, t):
    print(f"{name:<22} stride={t.stride()} contiguous={t.is_contiguous()}")
    print(t)


torch.manual_seed(10)
act = torch.arange(1.0, 13.0).reshape(3, 4)
show("dropout(x.t())", F.dropout(act.t(), 0.5))
show("dropout(x)", F.dropout(act, 0.5))
perm = torch.ones(2, 3, 4).permute(2, 0, 1)
out = F.dropout(perm, 0.4)
print("permuted dropout", out.stride(), out.sum((1, 2)).tolist())
cl = torch.ones(1, 3, 2, 2).contiguous(memory_format=torch.channels_last)
dcl = F.dropout(cl, 0.5)
print("channels_last dropout", dcl.is_contiguous(memory_format=torch.channels_last), dcl[0, :, 0, 0].tolist(),
      dcl[0, 0].flatten().tolist())
show("alpha_dropout(x.t())", F.alpha_dropout(act.t() / 12, 0.3, training=True))

torch.manual_seed(11)
probs = torch.softmax(torch.randn(5, 3), 0).t()
print("probs stride", probs.stride())
print("multinomial no-repl", torch.multinomial(probs, 2).tolist())
print("multinomial one", torch.multinomial(probs, 1).flatten().tolist())
print("multinomial repl", torch.multinomial(probs, 4, replacement=True).tolist())
print("contiguous copy", torch.multinomial(probs.contiguous(), 2).tolist())

torch.manual_seed(12)
base = torch.zeros(4, 5)
base.t()[:3].normal_()
print("normal_ on t()[:3]", base)
grid = torch.zeros(3, 4, dtype=torch.float64)
grid.t().uniform_(-1, 1)
print("uniform_ on t()", grid)
ex = torch.zeros(2, 3)
ex.t().exponential_(2.0)
print("exponential_ on t()", ex)
rb = torch.zeros(3, 4)
rb.t().random_(0, 10)
print("random_ on t()", rb)
bt = torch.zeros(2, 4)
bt.t().bernoulli_(torch.tensor([0.1, 0.9]))
print("bernoulli_ tensor p on t()", bt)

torch.manual_seed(13)
xt = torch.zeros(3, 4).t()
print("randn_like(t) stride", torch.randn_like(xt).stride(), torch.randn_like(xt).flatten()[:4])
print("rand_like(t)", torch.rand_like(xt)[0])
feat = torch.zeros(2, 3, 2, 2).to(memory_format=torch.channels_last)
r = torch.randn_like(feat)
print("randn_like channels_last", r.is_contiguous(memory_format=torch.channels_last), r[0, :, 0, 0])
print("bernoulli(p.t())", torch.bernoulli(torch.full((4, 2), 0.5).t()))

torch.manual_seed(14)
mha = nn.MultiheadAttention(8, 2, dropout=0.25, batch_first=True)
x = torch.randn(2, 5, 8)
mha.train()
o1, w1 = mha(x, x, x)
print("mha weights dropout", w1[0, 0])
o2, _ = mha(x, x, x, need_weights=False)
print("mha sdpa dropout", round(o2.sum().item(), 4), o2[1, 2, :4])
enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2, batch_first=True)
enc.train()
print("encoder train", enc(x)[0, :2])
conv = nn.Conv2d(3, 4, 3, padding=1).to(memory_format=torch.channels_last)
img = torch.randn(2, 3, 5, 5).contiguous(memory_format=torch.channels_last)
y = F.dropout(conv(img), 0.3)
print("conv channels_last out", y.is_contiguous(memory_format=torch.channels_last), round(y.sum().item(), 4))
d2 = nn.Dropout2d(0.5)(conv(img))
print("dropout2d channels_last", d2.sum((2, 3)))
lstm_out = torch.randn(6, 2, 4).transpose(0, 1)
print("dropout on transposed lstm out", F.dropout(lstm_out, 0.5)[0, :, 0])
