"""What people print when asking on the forums: reprs of tensors with grad_fn, state_dicts, named tuples and
small models; the gotchas behind the questions: where/nonzero/unique counts, take_along_dim and index_select,
in-place ops on expanded or views, integer division and dtype promotion, clone vs assignment aliasing,
requires_grad on non-float tensors, and tensors as dict keys and in sets."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", out if not isinstance(out, torch.Tensor) else (tuple(out.shape), out.dtype))
    except (RuntimeError, ValueError, TypeError, IndexError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0])


torch.set_printoptions(precision=4)
w = torch.tensor([[0.5, -1.25], [2.0, 0.125]], requires_grad=True)
y = w * 3
print(w)
print(y)
print(y.sum())
print(y.mean(dim=0, keepdim=True))
print(w.t())
print(w[0])
print(w.detach())
print(torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor([True, False]), torch.tensor(2.5, dtype=torch.float64))
print(torch.zeros(2, 0), torch.tensor([]), torch.empty(0, 3).shape)
print(torch.arange(6).view(2, 3) / 4)
print(torch.tensor([1e-5, 1.0, 1e5]))
print(torch.tensor([[1.0, float("nan")], [float("inf"), -0.0]]))
print(torch.tensor([1, 2]).to(torch.float16), torch.tensor([0.1], dtype=torch.bfloat16))
print(torch.max(w, 1))
print(torch.sort(torch.tensor([2, 1])))
print(torch.linalg.eigh(torch.eye(2)))

lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    lin.bias.fill_(0.5)
print(lin.state_dict())
print(lin.weight)
print(list(lin.parameters())[1])
print(nn.Sequential(lin, nn.ReLU(), nn.Dropout(0.1), nn.Softmax(dim=-1)))
print(nn.ModuleList([nn.Conv2d(3, 8, 3, stride=2, bias=False), nn.BatchNorm2d(8, momentum=0.01)]))
print(nn.ModuleDict({"emb": nn.Embedding(10, 4, padding_idx=0), "lstm": nn.LSTM(4, 8, batch_first=True)}))
print(lin(torch.ones(1, 2)))

# where / nonzero / unique
t = torch.tensor([[0, 3, 0], [5, 0, 6]])
print(torch.nonzero(t))
print(t.nonzero(as_tuple=True))
print(torch.where(t > 0))
print(torch.where(t > 0, t, -1))
print(torch.argwhere(t))
u = torch.tensor([3, 1, 3, 2, 1, 3])
print(torch.unique(u))
print(torch.unique(u, return_counts=True))
print(torch.unique(u, sorted=True, return_inverse=True, return_counts=True))
print(torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 1]), return_counts=True))
print(torch.bincount(u), torch.bincount(u, minlength=6), u.bincount(weights=torch.ones(6) * 0.5))
print(torch.unique(torch.tensor([[1, 2], [1, 2], [0, 1]]), dim=0))
catch("bincount_neg", lambda: torch.bincount(torch.tensor([-1, 2])))
catch("bincount_float", lambda: torch.bincount(torch.tensor([1.0, 2.0])))

# take_along_dim / index_select
m = torch.arange(12.0).view(3, 4)
i = m.argsort(dim=1, descending=True)
print(torch.take_along_dim(m, i, dim=1))
print(torch.take_along_dim(m, torch.tensor([[0], [1], [2]]), 1).squeeze(1))
print(m.index_select(1, torch.tensor([3, 0])))
print(torch.take(m, torch.tensor([0, 5, 11])))
catch("index_select_2d", lambda: m.index_select(0, torch.tensor([[0]])))
catch("index_select_float", lambda: m.index_select(0, torch.tensor([0.0])))

# in-place on expanded / views, aliasing
base = torch.zeros(3)
alias = base
cl = base.clone()
alias += 1
print(base, cl, alias is base)
v = m[0]
v.fill_(-1)
print(m[0], v._base is m, m[:, 0].is_contiguous())
print(m.T.contiguous().view(-1)[:4])
catch("expand_write", lambda: torch.zeros(1, 3).expand(2, 3).mul_(2))
catch("overlap_copy", lambda: torch.zeros(3).expand(2, 3).copy_(torch.ones(2, 3)))
c = torch.zeros(2, 2)
c[0] = torch.tensor([1.0, 2.0])
c[:, 1] += 5
print(c)
catch("setitem_shape", lambda: c.__setitem__(0, torch.ones(3)))

# dtype promotion and integer division
a = torch.tensor([5, -5, 7])
print(a / 2, a // 2, torch.div(a, 2, rounding_mode="trunc"), torch.div(a, 2, rounding_mode="floor"))
print(a % 3, torch.fmod(a, 3), torch.remainder(a, -3))
print((a * 1.5).dtype, (a + True).dtype, (torch.tensor([True]) + torch.tensor([True])).dtype,
      (a.float() + torch.tensor(1, dtype=torch.float64)).dtype, (a + torch.tensor([1.0], dtype=torch.float16)).dtype)
print(torch.tensor([1, 2]) == torch.tensor([1.0, 2.0]), torch.tensor(3) ** -1.0, torch.tensor([3]).float().mean())
catch("int_pow_neg", lambda: torch.tensor([3]) ** -1)
catch("int_mean", lambda: torch.tensor([1, 2]).mean())
catch("int_grad", lambda: torch.tensor([1, 2], requires_grad=True))
catch("int_requires", lambda: torch.tensor([1, 2]).requires_grad_())
catch("long_to_float_inplace", lambda: torch.tensor([1, 2]).add_(0.5))
print(torch.tensor([1.7, -1.7]).long(), torch.tensor([1.7, -1.7]).int().dtype, torch.tensor([1.5, 2.5]).round())

# hashing and truthiness
k = torch.tensor(1)
d = {k: "a"}
print(d[k], torch.tensor(1) in d, len({torch.tensor(1), torch.tensor(1)}))
catch("bool_ambig", lambda: bool(torch.tensor([1.0, 2.0]) > 0))
catch("if_tensor", lambda: "yes" if torch.tensor([0.0]) else "no")
print(torch.tensor([1, 2, 3]).numpy().tolist(), np.asarray(torch.tensor([1.0])).dtype,
      torch.tensor(np.float64(2.0)).dtype)
print(F.softmax(torch.tensor([1.0, 2.0, 3.0]), dim=0), torch.tensor([1, 2]).float().softmax(0).dtype)
