"""A 2018-era training script still run as-is: Variable wrappers, .data updates, legacy tensor constructors,
size_average/reduce loss flags, F.sigmoid/F.tanh, init without underscores, clip_grad_norm, and their warnings."""

import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

rng = np.random.default_rng(3)


def r(t, k=6):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def show(w):
    """Print each recorded warning's category and first message line (PyTorch's stderr is not compared)."""
    for item in w:
        print("  warn", item.category.__name__, str(item.message).splitlines()[0])


# Variables are plain tensors now.
x = Variable(torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32)), requires_grad=True)
print("variable", type(x).__name__, x.requires_grad, x.is_leaf, x.dtype, isinstance(x, Variable))
v2 = Variable(torch.ones(2))
print("variable_nograd", v2.requires_grad, v2.grad_fn)
y = (x * 2).sum()
y.backward()
print("x.grad.data", r(x.grad.data), x.grad.data.requires_grad)
print("x.data", type(x.data).__name__, x.data.requires_grad, x.data.shape)

# Legacy constructors and type strings.
ft = torch.FloatTensor(2, 3).fill_(1.5)
print("FloatTensor", ft.dtype, ft.shape, r(ft), ft.type())
lt = torch.LongTensor([1, 2, 3])
print("LongTensor", lt.dtype, lt.tolist(), lt.type())
bt = torch.ByteTensor([0, 1, 2])
print("ByteTensor", bt.dtype, bt.type())
dt = torch.DoubleTensor([[1.0, 2.0]])
print("DoubleTensor", dt.dtype, dt.type(), repr(dt))
it = torch.IntTensor(3).zero_()
print("IntTensor", it.tolist(), it.type())
t3 = torch.Tensor(3).fill_(2.0)
print("Tensor(3)", t3.tolist(), t3.dtype, torch.Tensor([1, 2]).dtype)
conv = lt.type(torch.FloatTensor)
print("type(FloatTensor)", conv.dtype, conv.tolist(), lt.type("torch.DoubleTensor").dtype)
print("type str", lt.float().type(), lt.double().type(), lt.int().type(), torch.zeros(1).bool().type())
print("isinstance", isinstance(ft, torch.FloatTensor), isinstance(lt, torch.FloatTensor),
      isinstance(lt, torch.LongTensor))

# tensor.new and friends.
base = torch.zeros(2, 2, dtype=torch.float64)
n1 = base.new(3).fill_(1)
n2 = base.new([1, 2])
n3 = base.new_zeros(2, 3)
n4 = base.new_tensor([[1, 2]])
n5 = base.new_ones((1, 2), dtype=torch.int32)
n6 = base.new_full((2,), 7)
n7 = base.new_empty(0)
news = (("new3", n1), ("new_list", n2), ("new_zeros", n3), ("new_tensor", n4), ("new_ones", n5), ("new_full", n6))
for nm, t in news + (("new_empty", n7),):
    print(nm, t.dtype, tuple(t.shape), t.tolist())

# Deprecated functionals.
z = torch.linspace(-2, 2, 5)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    s = F.sigmoid(z)
    th = F.tanh(z)
print("F.sigmoid", r(s), "F.tanh", r(th))
show(w)

# Deprecated loss flags.
pred = torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32))
tgt = torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    l_sum = F.mse_loss(pred, tgt, size_average=False)
    l_none = F.mse_loss(pred, tgt, reduce=False)
    l_mean = F.l1_loss(pred, tgt, size_average=True, reduce=True)
    crit = nn.MSELoss(size_average=False)
print("mse size_average=False", round(l_sum.item(), 4), "reduce=False", tuple(l_none.shape),
      "l1", round(l_mean.item(), 4))
print("crit", crit.reduction, round(crit(pred, tgt).item(), 4))
show(w)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    nll = nn.NLLLoss(size_average=False, reduce=True)
    bce = nn.BCELoss(reduce=False)
print("nll", nll.reduction, "bce", bce.reduction)
show(w)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()  # noqa: UP008 (the 2018 spelling)
        self.fc1 = nn.Linear(3, 5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


net = Net()
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    nn.init.xavier_uniform(net.fc1.weight)
    nn.init.constant(net.fc1.bias, 0.1)
    nn.init.normal(net.fc2.weight)
show(w)
# Deterministic weights for the run.
net.fc1.weight.data.copy_(torch.from_numpy(rng.standard_normal((5, 3)).astype(np.float32) * 0.5))
net.fc2.weight.data = torch.from_numpy(rng.standard_normal((2, 5)).astype(np.float32) * 0.5)
net.fc2.bias.data.fill_(0.0)

data = Variable(torch.from_numpy(rng.standard_normal((8, 3)).astype(np.float32)))
labels = Variable(torch.LongTensor(rng.integers(0, 2, 8).tolist()))
lr = 0.1
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    for step in range(3):
        for p in net.parameters():
            if p.grad is not None:
                p.grad.data.zero_()
        out = net(data)
        loss = F.cross_entropy(out, labels)
        loss.backward()
        total = torch.nn.utils.clip_grad_norm(net.parameters(), 1.0)
        for p in net.parameters():
            p.data.add_(-lr, p.grad.data)
        print("step", step, round(loss.item(), 4), round(float(total), 4), round(loss.data.item(), 4))
show(w[:2])
print("warn count", len(w))
_, predicted = torch.max(out.data, 1)
correct = (predicted == labels).sum()
print("acc", correct.item(), correct.dtype, 100.0 * correct.item() / labels.size(0))
print("weights", r(net.fc1.weight.data), r(net.fc2.bias.data))
