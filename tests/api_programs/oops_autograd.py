"""Autograd mistakes and what PyTorch says: in-place edits of leaves that require grad, a saved tensor modified
before backward (the version-counter message with its hint), backward twice, grad of a non-scalar, .numpy() and
item() on the wrong tensors, integer tensors that require grad, detach/no_grad confusions, torch.autograd.grad
with unused or non-differentiable inputs, and the fixes people were told to use."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(9)


def T(*s, grad=False):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32)).requires_grad_(grad)


def R(t):
    return round(t.item(), 4) if t.numel() == 1 else t.detach().round(decimals=4).tolist()


def oops(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    print(f"{name}: ok", R(out) if isinstance(out, torch.Tensor) else out)


# in-place on leaves
w = T(3, grad=True)
oops("leaf_add_", lambda: w.add_(1))
oops("leaf_zero_", lambda: w.zero_())
oops("leaf_setitem", lambda: w.__setitem__(0, 5.0))
oops("leaf_fill_", lambda: w.fill_(0.0))
oops("leaf_clamp_", lambda: w.clamp_(0, 1))
oops("leaf_no_grad", lambda: torch.no_grad()(lambda: w.add_(1))())
oops("leaf_data", lambda: w.data.mul_(0.5))
oops("leaf_requires_grad_false", lambda: w.requires_grad_(False))
w.requires_grad_(True)
lin = nn.Linear(2, 2)
oops("param_uniform_", lambda: lin.weight.uniform_(0, 1))
oops("param_copy_", lambda: lin.weight.copy_(torch.eye(2)))
oops("param_init", lambda: nn.init.constant_(lin.bias, 0.5))
oops("view_of_leaf", lambda: w[:2].mul_(2))
oops("requires_grad_nonleaf", lambda: (w * 2).requires_grad_(False))
oops("leaf_out", lambda: torch.add(torch.ones(3), 1, out=w))


# modified saved tensors
def saved_exp():
    x = T(3, grad=True)
    y = x.exp()
    y.add_(1)
    y.sum().backward()


def saved_input():
    x = T(3, grad=True)
    h = x * 2
    y = h.pow(2)
    h.mul_(3)
    y.sum().backward()


def saved_sigmoid_view():
    x = T(2, 3, grad=True)
    y = torch.sigmoid(x)
    y[0].zero_()
    y.sum().backward()


def saved_fixed():
    x = T(3, grad=True)
    h = x * 2
    y = h.pow(2)
    h = h * 3
    y.sum().backward()
    return x.grad


def saved_tanh_relu():
    x = T(4, grad=True)
    y = torch.tanh(x)
    z = torch.relu_(y)
    z.sum().backward()


def saved_matmul():
    a, b = T(2, 2, grad=True), T(2, 2, grad=True)
    c = a @ b
    b.detach().add_(1)
    c.sum().backward()
    return a.grad


oops("saved_exp", saved_exp)
oops("saved_input", saved_input)
oops("saved_sigmoid_view", saved_sigmoid_view)
oops("saved_fixed", saved_fixed)
oops("saved_tanh_relu", saved_tanh_relu)
oops("saved_detach_shares", lambda: saved_matmul().shape)

# backward twice and non-scalars
x = T(3, grad=True)
loss = (x.sin() * x).sum()
loss.backward()
oops("backward_twice", lambda: loss.backward())
loss2 = (x * x).sum()
loss2.backward()
oops("backward_twice_mul", lambda: loss2.backward())
loss3 = (x + 1).sum()
loss3.backward()
oops("backward_twice_add", lambda: loss3.backward() or x.grad)
vec = x * 2
oops("backward_vector", lambda: vec.backward())
oops("backward_vector_grad", lambda: vec.backward(torch.ones(2)))
oops("backward_vector_fix", lambda: vec.backward(torch.ones(3), retain_graph=True))
oops("grad_nonscalar", lambda: torch.autograd.grad(vec, x))
oops("grad_no_requires", lambda: torch.autograd.grad(T(3).sum(), x))
oops("grad_wrt_nonleaf_unused", lambda: torch.autograd.grad((x * 3).sum(), vec))
oops("grad_allow_unused", lambda: torch.autograd.grad((x * 3).sum(), vec, allow_unused=True))
oops("grad_int_input", lambda: torch.autograd.grad((x * 3).sum(), torch.ones(3, dtype=torch.long)))
oops("backward_no_grad", lambda: T(3).sum().backward())
with torch.no_grad():
    inside = (x * 2).sum()
oops("backward_under_no_grad", lambda: inside.backward())
oops("backward_detached", lambda: (x.detach() * 2).sum().backward())
oops("backward_inputs", lambda: (x * 2).sum().backward(inputs=[T(3)]))
oops("backward_complex", lambda: (x * 1j).sum().backward())

# numpy, item, and friends
oops("numpy_requires_grad", lambda: x.numpy())
oops("numpy_fix", lambda: x.detach().numpy().round(4).tolist())
oops("numpy_nonleaf", lambda: (x * 2).numpy())
oops("item_multi", lambda: x.item())
oops("item_empty", lambda: torch.tensor([]).item())
oops("float_multi", lambda: float(x))
oops("int_multi", lambda: int(torch.tensor([1, 2])))
oops("bool_multi", lambda: bool(torch.tensor([True, False])))
oops("bool_empty", lambda: bool(torch.tensor([])))
oops("tolist_ok", lambda: x.tolist().__len__())
oops("index_multi", lambda: [1, 2, 3][torch.tensor([1, 2])])
oops("len_scalar", lambda: len(torch.tensor(3.0)))
oops("iter_scalar", lambda: list(torch.tensor(3.0)))

# dtypes that cannot require grad
oops("int_requires_grad", lambda: torch.tensor([1, 2, 3], requires_grad=True))
oops("int_requires_grad_", lambda: torch.arange(4).requires_grad_())
oops("bool_requires_grad", lambda: torch.zeros(2, dtype=torch.bool).requires_grad_())
oops("float_fix", lambda: torch.arange(4.0).requires_grad_().sum())
oops("mean_int", lambda: torch.tensor([1, 2, 3]).mean())
oops("mean_int_fix", lambda: torch.tensor([1, 2, 3]).float().mean())
oops("mean_int_dtype", lambda: torch.tensor([1, 2, 4]).mean(dtype=torch.float64))
oops("std_int", lambda: torch.tensor([1, 2, 3]).std())
oops("exp_int_ok", lambda: torch.tensor([0, 1]).exp())
oops("grad_of_int_result", lambda: torch.autograd.grad(x.sum().long(), x))
oops("long_grad_to_float", lambda: x.long().requires_grad)
oops("argmax_grad", lambda: x.argmax().requires_grad)
oops("round_grad", lambda: torch.autograd.grad(x.round().sum(), x)[0])

# setting .grad by hand
g = T(3, grad=True)
oops("grad_wrong_shape", lambda: setattr(g, "grad", torch.ones(2)))
oops("grad_wrong_dtype", lambda: setattr(g, "grad", torch.ones(3, dtype=torch.float64)))
oops("grad_not_tensor", lambda: setattr(g, "grad", [1.0, 2.0, 3.0]))
oops("grad_ok", lambda: setattr(g, "grad", torch.ones(3)) or g.grad)
oops("nonleaf_grad", lambda: (g * 2).grad)
oops("retain_grad_leaf", lambda: g.retain_grad() or g.retains_grad)
oops("retain_grad_no_req", lambda: T(2).retain_grad())
