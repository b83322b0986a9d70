"""Autograd mistakes and PyTorch's words for them, printed whole: in-place ops on leaves that require grad,
backward twice through a freed graph, grad of a non-scalar, tensors modified in place after being saved (the
version-counter message with its op names and versions), .numpy() on a tensor requiring grad, integer tensors
that require grad, torch.autograd.grad on unused inputs, and the fixes that work."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {out}")
    else:
        print(f"{name}: ok {out}")
    return out


# --- in-place on leaves -------------------------------------------------------------------------------------
w = torch.randn(3, requires_grad=True)
show("leaf_add_", lambda: w.add_(1))
show("leaf_mul_", lambda: w.mul_(0.5))
show("leaf_zero_", lambda: w.zero_())
show("leaf_setitem", lambda: w.__setitem__(0, 1.0))
show("leaf_clamp_", lambda: w.clamp_(min=0))
show("leaf_normal_", lambda: w.normal_())
show("leaf_copy_", lambda: w.copy_(torch.ones(3)))
show("leaf_relu_inplace", lambda: F.relu(w, inplace=True))
show("leaf_view_add_", lambda: w[:2].add_(1))
show("leaf_out", lambda: torch.add(torch.ones(3), 1, out=w))


def under_no_grad():
    with torch.no_grad():
        w.mul_(0.5)
    return w


show("leaf_no_grad", under_no_grad)
show("leaf_data", lambda: w.data.add_(1) is not None)
lin = nn.Linear(2, 2)
show("param_fill_", lambda: lin.weight.fill_(0.1))
show("param_init_ok", lambda: nn.init.constant_(lin.weight, 0.1).sum())

# --- backward twice -----------------------------------------------------------------------------------------


def twice(fn):
    def run():
        x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = fn(x)
        y.backward()
        y.backward()
        return x.grad
    return run


show("twice_exp", twice(lambda x: x.exp().sum()))
show("twice_mul", twice(lambda x: (x * x).sum()))
show("twice_sigmoid", twice(lambda x: torch.sigmoid(x).mean()))
show("twice_pow", twice(lambda x: x.pow(3).sum()))
show("twice_add_only", twice(lambda x: (x + 1).sum()))


def twice_retained():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    return x.grad


show("twice_retained", twice_retained)


def twice_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.tanh() * x).sum()
    torch.autograd.grad(y, x)
    return torch.autograd.grad(y, x)


show("autograd_grad_twice", twice_grad)

# --- non-scalar outputs -------------------------------------------------------------------------------------
x = torch.randn(2, 3, requires_grad=True)
show("backward_vector", lambda: (x * 2).backward())
show("grad_vector", lambda: torch.autograd.grad(x * 2, x))
show("backward_gradient_shape", lambda: (x * 2).backward(torch.ones(3)))
show("backward_gradient_ok", lambda: (x * 2).backward(torch.ones(2, 3)) or x.grad)
show("backward_no_grad_fn", lambda: torch.ones(3).sum().backward())
show("grad_no_grad_fn", lambda: torch.autograd.grad(torch.ones(3).sum(), x))
show("grad_unused", lambda: torch.autograd.grad((x * 2).sum(), [x, torch.ones(2, requires_grad=True)]))
show("grad_allow_unused",
     lambda: torch.autograd.grad((x * 2).sum(), [x, torch.ones(2, requires_grad=True)], allow_unused=True)[1])
show("grad_input_not_requiring", lambda: torch.autograd.grad((x * 2).sum(), torch.ones(2)))
show("grad_outputs_shape", lambda: torch.autograd.grad(x * 2, x, grad_outputs=torch.ones(3)))


def under_no_grad_backward():
    with torch.no_grad():
        y = (x * 3).sum()
    y.backward()


show("no_grad_backward", under_no_grad_backward)


def detached_backward():
    y = (x.detach() * 3).sum()
    y.backward()


show("detached_backward", detached_backward)

# --- version counter ----------------------------------------------------------------------------------------


def modified(op, after):
    def run():
        a = torch.randn(4, requires_grad=True)
        b = a * 1.0
        c = op(b)
        after(b, c)
        c.sum().backward()
        return a.grad
    return run


show("exp_then_mul_", modified(torch.exp, lambda b, c: c.mul_(2)))
show("sigmoid_then_add_", modified(torch.sigmoid, lambda b, c: c.add_(1)))
show("tanh_then_zero_", modified(torch.tanh, lambda b, c: c.zero_()))
show("pow_input_add_", modified(lambda b: b.pow(2), lambda b, c: b.add_(1)))
show("mul_input_twice", modified(lambda b: b * b, lambda b, c: (b.mul_(2), b.mul_(2))))
show("sqrt_input_setitem", modified(torch.sqrt, lambda b, c: b.__setitem__(0, 4.0)))
show("relu_inplace_ok", modified(lambda b: F.relu(b) * 2, lambda b, c: c.add_(1)))
show("add_then_add_ok", modified(lambda b: b + 1, lambda b, c: c.mul_(3)))


def matmul_weight_modified():
    lin = nn.Linear(3, 2)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    out = lin(torch.randn(4, 3))
    loss1 = out.pow(2).sum()
    loss1.backward(retain_graph=True)
    opt.step()
    loss2 = out.abs().sum()
    loss2.backward()


show("step_between_backwards", matmul_weight_modified)


def view_of_saved():
    a = torch.randn(2, 3, requires_grad=True)
    b = a.clone()
    c = b.sin()
    b[0].fill_(1)
    c.sum().backward()


show("view_modified", view_of_saved)


def unpack_version():
    a = torch.randn(3, requires_grad=True)
    b = a.exp()
    print("  version before", b._version)
    b += 1
    print("  version after", b._version)
    b.sum().backward()


show("exp_iadd", unpack_version)

# --- numpy and integer tensors ------------------------------------------------------------------------------
y = torch.randn(3, requires_grad=True)
show("numpy_requires_grad", lambda: y.numpy())
show("numpy_nonleaf", lambda: (y * 2).numpy())
show("numpy_detach", lambda: y.detach().numpy().round(4).tolist())
show("tolist_ok", lambda: [round(v, 4) for v in (y * 2).tolist()])
show("int_requires_grad", lambda: torch.ones(3, dtype=torch.int64).requires_grad_())
show("int_factory", lambda: torch.zeros(2, dtype=torch.int32, requires_grad=True))
show("bool_factory", lambda: torch.tensor([True], requires_grad=True))
show("complex_ok", lambda: torch.zeros(2, dtype=torch.complex64, requires_grad=True).requires_grad)
show("argmax_backward", lambda: y.argmax().float().backward())
show("round_grad", lambda: torch.autograd.grad(y.round().sum(), y))
show("nonleaf_grad_warning_free", lambda: (y * 2).retain_grad())
show("requires_grad_nonleaf", lambda: (y * 2).requires_grad_(False))
show("detach_inplace_view", lambda: y[:2].detach_())
