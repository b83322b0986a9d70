"""micrograd's Value engine (Karpathy's lecture 1) checked against torch autograd in float64.

The learner builds the same expression with Values and with tensors, then compares data and grads.
"""

import math
import warnings

import torch


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data:.4f})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        out = Value(self.data**k, (self,), f"**{k}")

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __truediv__(self, other):
        return self * other**-1

    def __rtruediv__(self, other):
        return other * self**-1

    __radd__ = __add__
    __rmul__ = __mul__

    def tanh(self):
        t = (math.exp(2 * self.data) - 1) / (math.exp(2 * self.data) + 1)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Value(max(0.0, self.data), (self,), "ReLU")

        def _backward():
            self.grad += (out.data > 0) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


# the neuron from the lecture
x1, x2, w1, w2, b = Value(2.0), Value(0.0), Value(-3.0), Value(1.0), Value(6.8813735870195432)
n = x1 * w1 + x2 * w2 + b
e = (2 * n).exp()
o = (e - 1) / (e + 1)
o.backward()
print("micrograd", o, [round(v.grad, 4) for v in (x1, x2, w1, w2)])

tx1 = torch.Tensor([2.0]).double()
tx1.requires_grad = True
tx2 = torch.Tensor([0.0]).double().requires_grad_()
tw1 = torch.tensor([-3.0], dtype=torch.double, requires_grad=True)
tw2 = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
tb = torch.tensor([6.8813735870195432], dtype=torch.double, requires_grad=True)
tn = tx1 * tw1 + tx2 * tw2 + tb
to = torch.tanh(tn)
print("torch", round(to.data.item(), 4), to.dtype, to.grad_fn.name(), tn.is_leaf, tx1.is_leaf)
to.backward()
print([round(t.grad.item(), 4) for t in (tx1, tx2, tw1, tw2)], tx1.grad.dtype, tx1.grad.shape)
print("o.item", to.item() == to.data.item(), type(to.item()).__name__)

# a longer expression: the micrograd README example
a, bb = Value(-4.0), Value(2.0)
c = a + bb
d = a * bb + bb**3
c = c + c + 1
c = c + 1 + c + (-a)
d = d + d * 2 + (bb + a).relu()
d = d + 3 * d + (bb - a).relu()
e = c - d
f = e**2
g = f / 2.0
g = g + 10.0 / f
g.backward()
amg, bmg, gmg = a, bb, g

a = torch.Tensor([-4.0]).double()
bb = torch.Tensor([2.0]).double()
a.requires_grad = True
bb.requires_grad = True
c = a + bb
d = a * bb + bb**3
c = c + c + 1
c = c + 1 + c + (-a)
d = d + d * 2 + (bb + a).relu()
d = d + 3 * d + (bb - a).relu()
e = c - d
f = e**2
g = f / 2.0
g = g + 10.0 / f
g.backward()
print("fwd", round(gmg.data, 4), round(g.data.item(), 4), abs(gmg.data - g.data.item()) < 1e-6)
print("grad a", round(amg.grad, 4), round(a.grad.item(), 4), abs(amg.grad - a.grad.item()) < 1e-6)
print("grad b", round(bmg.grad, 4), round(bb.grad.item(), 4), abs(bmg.grad - bb.grad.item()) < 1e-6)
print(type(g.grad_fn).__name__, g.grad_fn.next_functions[0][0].name())

# non-leaf .grad is None with a warning; retain_grad fixes it
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print("nonleaf grad", e.grad)
print(len(w), w[0].category.__name__, str(w[0].message)[:120])
try:
    g.backward()
except RuntimeError as err:
    print(type(err).__name__, str(err).split(".")[0])
# relu at 0 has derivative 0 in both
z = torch.zeros(1, dtype=torch.float64, requires_grad=True)
z.relu().backward()
v = Value(0.0)
v.relu().backward()
print("relu'(0)", z.grad.item(), v.grad)
# the legacy constructor the lecture starts from, and its refusals
print(torch.Tensor([2.0]).dtype, torch.Tensor(2, 3).shape, torch.Tensor([[1, 2]]).new([3, 4]), torch.Tensor().shape)
for bad in (lambda: torch.Tensor(2.0), lambda: torch.Tensor([1.0]).new(2.5), lambda: torch.Tensor("x")):
    try:
        bad()
    except TypeError as err:
        print(type(err).__name__, err)
