"""micrograd's nn.py (Neuron, Layer, MLP) trained on the lecture's 4-sample dataset, mirrored in torch float64.

Weights copied from the Values into tensors; sum() of tensors, squared-error loss, manual SGD and the SVM demo loss.
"""

import random
import warnings

import torch
import torch.nn as nn


class Value:
    def __init__(self, data, _children=()):
        self.data, self.grad = data, 0.0
        self._backward, self._prev = lambda: None, set(_children)

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        out = Value(self.data**k, (self,))

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        import math

        t = math.tanh(self.data)
        out = Value(t, (self,))

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    __radd__ = __add__
    __rmul__ = __mul__

    def __rsub__(self, other):
        return other + (-self)

    def backward(self):
        topo, seen = [], set()

        def build(v):
            if v not in seen:
                seen.add(v)
                for c in v._prev:
                    build(c)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


class Neuron:
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(random.uniform(-1, 1))

    def __call__(self, x):
        return sum((wi * xi for wi, xi in zip(self.w, x)), self.b).tanh()

    def parameters(self):
        return self.w + [self.b]


class Layer:
    def __init__(self, nin, nout):
        self.neurons = [Neuron(nin) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]


class MLP:
    def __init__(self, nin, nouts):
        sz = [nin] + nouts
        self.layers = [Layer(sz[i], sz[i + 1]) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


random.seed(1337)
n = MLP(3, [4, 4, 1])
xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
ys = [1.0, -1.0, -1.0, 1.0]
print(len(n.parameters()))

tmodel = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1), nn.Tanh()).double()
with torch.no_grad():
    for lin, layer in zip(tmodel[::2], n.layers):
        lin.weight.copy_(torch.tensor([[w.data for w in nr.w] for nr in layer.neurons]))
        lin.bias.copy_(torch.tensor([nr.b.data for nr in layer.neurons]))
X, Y = torch.tensor(xs, dtype=torch.float64), torch.tensor(ys).double()
print(tmodel[0].weight.dtype, X.dtype, Y.dtype, sum(p.numel() for p in tmodel.parameters()))

for k in range(10):
    ypred = [n(x) for x in xs]
    loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))
    for p in n.parameters():
        p.grad = 0.0
    loss.backward()
    for p in n.parameters():
        p.data += -0.05 * p.grad

    tpred = tmodel(X).squeeze(-1)
    tloss = sum((yout - ygt) ** 2 for ygt, yout in zip(Y, tpred))
    tmodel.zero_grad()
    tloss.backward()
    with torch.no_grad():
        for p in tmodel.parameters():
            p += -0.05 * p.grad
    print(k, round(loss.data, 6), round(tloss.item(), 6), abs(loss.data - tloss.item()) < 1e-5, type(tloss).__name__)
print([round(y.data, 4) for y in ypred], tpred.detach().round(decimals=4), tloss.grad_fn.name(), tpred.grad_fn.name())
g0 = torch.tensor([p.grad for p in n.layers[0].neurons[0].w], dtype=torch.float64)
print(g0.dtype, torch.allclose(g0, tmodel[0].weight.grad[0]), sum([torch.tensor(1.0), torch.tensor(2.0)]), sum([]))

# the moons-style SVM loss with L2 regularisation, written as in the demo notebook
scores = tmodel(X).squeeze(1)
losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(Y, scores)]
data_loss = sum(losses) * (1.0 / len(losses))
reg_loss = 1e-4 * sum((p * p).sum() for p in tmodel.parameters())
total = data_loss + reg_loss
accuracy = [(yi > 0) == (scorei.item() > 0) for yi, scorei in zip(Y, scores)]
print(round(total.item(), 6), sum(accuracy) / len(accuracy), type(sum(accuracy)).__name__, accuracy[0])
total.backward()
print(tmodel[0].weight.grad.shape, tmodel[0].weight.grad.dtype, round(reg_loss.item(), 6))
print(nn.functional.mse_loss(tpred, Y, reduction="sum").item() == tloss.item(), torch.stack(losses).shape)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    for p in tmodel.parameters():
        p.data.add_(-0.05, p.grad)  # the 2017-era update some course code still has
    cond = torch.where(torch.tensor([1, 0], dtype=torch.uint8), torch.ones(2), torch.zeros(2))
    big = tmodel[0].weight.detach().resize(12)
print(cond, big.shape, [str(m.message).splitlines()[-1][-100:] for m in w])
try:
    tmodel[0].weight.detach().resize(13)
except RuntimeError as e:
    print(type(e).__name__, e)
