"""Course-style code from the PyTorch 0.4 days: an LSTM language model with `weight.new(...)` hidden states and
repackaging through `.data`, MNIST-style accuracy via `.eq(...view_as).cpu().sum()`, implicit-dim softmax, uint8
masks, `volatile=`, init functions without underscores, and the warnings and errors all of it gives on PyTorch 2."""

import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

rng = np.random.default_rng(17)


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def show(w):
    """Each warning's category and first line, less PyTorch's build path ("Triggered internally at ...")."""
    for item in w:
        print("  warn", item.category.__name__, str(item.message).splitlines()[0].split(" (Triggered internally")[0])


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers

    def init_weights(self):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            nn.init.uniform(self.encoder.weight, -0.1, 0.1)
            nn.init.kaiming_normal(self.decoder.weight)
            nn.init.xavier_normal(self.decoder.weight)
        show(w)
        with torch.no_grad():  # deterministic values for the comparison
            for p in self.parameters():
                p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))

    def forward(self, input, hidden):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(output.view(output.size(0) * output.size(1), output.size(2)))
        return decoded.view(output.size(0), output.size(1), decoded.size(1)), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters()).data
        return (Variable(weight.new(self.nlayers, bsz, self.nhid).zero_()),
                Variable(weight.new(self.nlayers, bsz, self.nhid).zero_()))


def repackage_hidden(h):
    if isinstance(h, Variable):  # `type(h) == Variable`, as 2017 wrote it, is False on PyTorch 2
        return Variable(h.data)
    return tuple(repackage_hidden(v) for v in h)


ntokens, bptt, bsz = 11, 5, 3
corpus = torch.LongTensor(rng.integers(0, ntokens, 40).tolist())
nbatch = corpus.size(0) // bsz
data = corpus.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous()
print("batchify", tuple(data.shape), data.is_contiguous(), data.dtype, data[0].tolist())

model = RNNModel(ntokens, 4, 6, 2)
model.init_weights()
hidden = model.init_hidden(bsz)
print("type(h) == Variable", type(hidden[0]) == Variable, type(hidden[0]).__name__, Variable.__name__)  # noqa: E721
print("hidden", type(hidden).__name__, tuple(hidden[0].shape), hidden[0].dtype, hidden[0].requires_grad)
criterion = nn.CrossEntropyLoss()
lr = 0.5
total_loss = 0.0
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    for batch, i in enumerate(range(0, data.size(0) - 1, bptt)):
        seq_len = min(bptt, len(data) - 1 - i)
        inp = Variable(data[i:i + seq_len])
        target = Variable(data[i + 1:i + 1 + seq_len].view(-1))
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(inp, hidden)
        loss = criterion(output.view(-1, ntokens), target)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(-lr, p.grad.data)
        total_loss += loss.data
        print("batch", batch, seq_len, round(loss.item(), 4), round(float(norm), 4), hidden[0].requires_grad,
              hidden[0].grad_fn is not None)
show(w[:2])
print("total_loss", type(total_loss).__name__, total_loss.dtype, round(total_loss.item(), 4))
print("ppl", "{:8.2f}".format(float(np.exp(total_loss.item() / (batch + 1)))))  # noqa: UP032

# MNIST-example accuracy bookkeeping.
logits = torch.from_numpy(rng.standard_normal((8, 4)).astype(np.float32))
target = torch.LongTensor([0, 1, 2, 3, 0, 1, 2, 3])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    out = F.log_softmax(logits)
    sm = F.softmax(logits)
    sm3 = F.softmax(logits.view(2, 4, 4))
    smin = F.softmin(logits)
    m = nn.Softmax()
    ms = m(logits)
    test_loss = F.nll_loss(out, target, size_average=False).item()
show(w)
print("log_softmax", r(out), r(sm.sum(1)), r(sm3.sum(0)), r(smin), torch.allclose(ms, sm), repr(m))
pred = out.data.max(1, keepdim=True)[1]
correct = pred.eq(target.data.view_as(pred)).cpu().sum()
print("pred", pred.view(-1).tolist(), correct, correct.item(), type(correct.item()).__name__)
test_loss /= len(target)
print("Test set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)".format(  # noqa: UP032
    test_loss, correct, len(target), 100.0 * correct / len(target)))

# volatile and uint8 masks.
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    vv = Variable(torch.ones(2), volatile=True)
    print("volatile", vv.requires_grad, vv.volatile)
show(w)
x = torch.arange(6.0).view(2, 3)
mask = (x > 2).byte()
print("mask", mask.dtype, mask.tolist())
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print("uint8 index", x[mask].tolist())
    print("masked_select", torch.masked_select(x, mask.bool()).tolist())
show(w)
for bad in (lambda: x.masked_fill(mask, 0.0), lambda: torch.masked_select(x, mask), lambda: torch.where(mask, x, -x)):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            print("ok", bad().tolist())
        except RuntimeError as e:
            print("error", type(e).__name__, str(e).splitlines()[0])
    show(w)
print("type_as", torch.ones(2, dtype=torch.int64).type_as(x).dtype, x.long().type(), x.expand_as(x).shape)
print("norm", round(x.norm(p=2).item(), 4), round(x.norm(2, 1)[1].item(), 4), x.numel(), x.nelement())
