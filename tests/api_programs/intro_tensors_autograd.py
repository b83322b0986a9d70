"""The 'Introduction to PyTorch' series: the Tensors video (creation, seeds, shapes, *_like, dtypes, math with
broadcasting and its error, alteration in place, out=, clone/detach, unsqueeze/squeeze with their errors, reshape)
and the Fundamentals of Autograd (sin graph with grad_fn walks, a TinyModel's weight gradients, turning autograd
off and on, in-place on a leaf, autograd.functional.jacobian / vjp / hessian of exp_adder)."""

import math
import numpy as np
import torch

rng = np.random.default_rng(0)


def err(f):
    try:
        r = f()
        print("  ok", tuple(r.shape) if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        print(" ", type(e).__name__ + ":", str(e).splitlines()[0])


x = torch.empty(3, 4)
print(type(x).__name__, x.shape)
zeros = torch.zeros(2, 3)
print(zeros)
ones = torch.ones(2, 3)
print(ones)
torch.manual_seed(1729)
random1 = torch.rand(2, 3)
torch.manual_seed(1729)
random2 = torch.rand(2, 3)
print("same seed", torch.equal(random1, random2))
empty_like_x = torch.empty_like(x)
print(empty_like_x.shape, torch.zeros_like(x).shape, torch.ones_like(x).sum().item(), torch.rand_like(x).shape)
some_constants = torch.tensor([[3.1415926, 2.71828], [1.61803, 0.0072897]])
print(some_constants)
some_integers = torch.tensor((2, 3, 5, 7, 11, 13, 17, 19))
print(some_integers)
more_integers = torch.tensor(((2, 4, 6), [3, 6, 9]))
print(more_integers)
a = torch.ones((2, 3), dtype=torch.int16)
print(a)
b = torch.from_numpy(rng.random((2, 3))) * 20.
print(b.dtype)
c = b.to(torch.int32)
print(c.dtype, (b.int() == c).all().item())
ones = torch.zeros(2, 2) + 1
twos = torch.ones(2, 2) * 2
threes = (torch.ones(2, 2) * 7 - 1) / 2
fours = twos ** 2
sqrt2s = twos ** 0.5
print(ones, twos, threes, fours, sqrt2s, sep="\n")
powers2 = twos ** torch.tensor([[1, 2], [3, 4]])
print(powers2)
print(fours + twos, threes * fours)
err(lambda: torch.rand(2, 3) + torch.rand(3, 2))
rand = torch.from_numpy(rng.random((2, 4)).astype(np.float32))
doubled = rand * (torch.ones(1, 4) * 2)
print("broadcast", torch.allclose(doubled, rand * 2))
a = torch.ones(4, 3, 2)
b = a * torch.from_numpy(rng.random((3, 2)).astype(np.float32))
c = a * torch.from_numpy(rng.random((3, 1)).astype(np.float32))
d = a * torch.from_numpy(rng.random((1, 2)).astype(np.float32))
print(b.shape, c.shape, d.shape)
err(lambda: a * torch.ones(4, 3))
err(lambda: a * torch.ones(2, 3))
err(lambda: a * torch.ones((0,)))
a = torch.tensor([[0.2, -0.7], [1.3, 0.5]]) * 2 - 1
print("Common functions:")
print(torch.abs(a))
print(torch.ceil(a))
print(torch.floor(a))
print(torch.clamp(a, -0.5, 0.5))
angles = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
sines = torch.sin(angles)
inverses = torch.asin(sines)
print("Sine and arcsine:", angles, sines, inverses, sep="\n")
b = torch.tensor([1, 5, 11])
c = torch.tensor([2, 7, 10])
print("Bitwise XOR:", torch.bitwise_xor(b, c))
d = torch.tensor([[1., 2.], [3., 4.]])
e = torch.ones(1, 2)
print("Broadcasted, element-wise equality comparison:", torch.eq(d, e))
print("Reduction ops:", torch.max(d), torch.max(d).item(), torch.mean(d), torch.std(d), torch.prod(d),
      torch.unique(torch.tensor([1, 2, 1, 2, 1, 2])))
v1 = torch.tensor([1., 0., 0.])
v2 = torch.tensor([0., 1., 0.])
m1 = torch.tensor([[0.6, -0.1], [0.3, 0.9]])
m2 = m1 * 3
print("Vectors & Matrices:", torch.linalg.cross(v2, v1), m1, m2, torch.matmul(m1, m2), torch.linalg.svd(m2).S,
      sep="\n")
a = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print(torch.sin(a))
print(a)
print(torch.sin_(a))
print(a)
b = torch.ones(2, 2)
c = torch.full((2, 2), 0.5)
print(b.add_(c), b.mul_(c), sep="\n")
a = torch.ones(2, 2)
b = torch.full((2, 2), 3.0)
c = torch.zeros(2, 2)
old_id = id(c)
d = torch.matmul(a, b, out=c)
print(c, id(c) == old_id, id(d) == old_id)
torch.rand(2, 2, out=c)
print(id(c) == old_id)
a = torch.ones(2, 2)
b = a
a[0][1] = 561
print(b)
a = torch.ones(2, 2)
b = a.clone()
assert b is not a
print(torch.eq(a, b))
a = torch.ones(2, 2, requires_grad=True)
b = a.clone()
print(b)
c = a.detach().clone()
print(c)
a = torch.ones(3, 226, 226)
b = a.unsqueeze(0)
print(a.shape, b.shape)
c = torch.ones(1, 1, 1, 1, 1)
print(c, c.squeeze().shape, c.squeeze().dim())
a = torch.ones(1, 20)
b = a.squeeze(0)
c = torch.ones(2, 2)
d = c.squeeze(0)
print(a.shape, b.shape, c.shape, d.shape)
a = torch.ones(4, 3, 2)
c = a * torch.ones(3, 1)
print(c.shape)
b = torch.ones(3)
err(lambda: a * b.unsqueeze(1))
print((a * b.unsqueeze(1).unsqueeze(-1)).shape if False else (a * torch.ones(3).unsqueeze(1)).shape)
batch_me = torch.ones(3, 226, 226)
batch_me.unsqueeze_(0)
print(batch_me.shape)
output3d = torch.ones(6, 20, 20)
input1d = output3d.reshape(6 * 20 * 20)
print(input1d.shape, torch.reshape(output3d, (6 * 20 * 20,)).shape)
err(lambda: output3d.view(-1, 7))
err(lambda: output3d.squeeze(3))
err(lambda: output3d.unsqueeze(4))

print("-- autograd fundamentals")
a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
b = torch.sin(a)
print(b.shape, b.grad_fn.name())
c = 2 * b
d = c + 1
out = d.sum()
print("d:", d.grad_fn.name())
print([(f.name(), i) for f, i in d.grad_fn.next_functions if f is not None], d.grad_fn.next_functions[1])
print(d.grad_fn.next_functions[0][0].next_functions[0][0].name(), c.grad_fn.next_functions[1])
nf = d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
print(nf.name(), nf.variable is a)
print("out:", out.grad_fn.name(), "a.grad_fn", a.grad_fn)
out.backward()
print(torch.allclose(a.grad, 2 * torch.cos(a.detach())), round(a.grad.sum().item(), 4))

BATCH_SIZE = 16
DIM_IN = 1000
HIDDEN_SIZE = 100
DIM_OUT = 10


class TinyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = torch.nn.Linear(DIM_IN, HIDDEN_SIZE)
        self.relu = torch.nn.ReLU()
        self.layer2 = torch.nn.Linear(HIDDEN_SIZE, DIM_OUT)

    def forward(self, x):
        x = self.layer1(x)
        x = self.relu(x)
        x = self.layer2(x)
        return x


some_input = torch.from_numpy(rng.standard_normal((BATCH_SIZE, DIM_IN)).astype(np.float32))
ideal_output = torch.from_numpy(rng.standard_normal((BATCH_SIZE, DIM_OUT)).astype(np.float32))
model = TinyModel()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.03, 0.03, tuple(p.shape)).astype(np.float32)))
print(model.layer2.weight[0][0:10].shape, model.layer2.weight.grad)
optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
prediction = model(some_input)
loss = (ideal_output - prediction).pow(2).sum()
print(round(loss.item(), 3), loss.grad_fn.name())
loss.backward()
print(np.round(model.layer2.weight.grad[0][0:10].numpy().astype(np.float64), 4).tolist())
optimizer.step()
for i in range(0, 5):
    optimizer.zero_grad(set_to_none=False)
    prediction = model(some_input)
    loss = (ideal_output - prediction).pow(2).sum()
    loss.backward()
print(np.round(model.layer2.weight.grad[0][0:4].numpy().astype(np.float64), 3).tolist())
optimizer.zero_grad(set_to_none=False)
print(model.layer2.weight.grad[0][0:4])
a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3
c1 = a + b
with torch.no_grad():
    c2 = a + b
print(c1.requires_grad, c2.requires_grad)
x = torch.ones(2, 3, requires_grad=True)
y = x.detach()
print(x, y)
a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
err(lambda: torch.sin_(a))


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.tensor([0.1, -0.4]), torch.tensor([0.5, 0.2]))
J = torch.autograd.functional.jacobian(exp_adder, inputs)
print(J)


def do_some_doubling(x):
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    return y


inputs = torch.tensor([0.3, -0.2, 0.7])
my_gradients = torch.tensor([0.1, 1.0, 0.0001])
out, vjp = torch.autograd.functional.vjp(do_some_doubling, inputs, v=my_gradients)
print(out, vjp)
H = torch.autograd.functional.hessian(lambda z: (z ** 3).sum(), torch.tensor([1.0, 2.0]))
print(H)
