"""The autograd errors higher-order code runs into, in PyTorch's words: backward through a freed graph (and
retain_graph), grad of non-scalars, unused inputs and allow_unused/materialize_grads, is_grads_batched shapes,
detect_anomaly's NaN report, inference_mode against no_grad, in-place modification of saved tensors, and
create_graph subtleties."""

import warnings

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(label, fn):
    try:
        r = fn()
        print(f"{label}: ok", r)
    except Exception as e:
        msg = str(e).splitlines()[0] if str(e) else ""
        print(f"{label}: {type(e).__name__}: {msg}")


x = torch.randn(3, requires_grad=True)

# freed graphs
y = (x.exp() * x).sum()
y.backward()
show("second backward", lambda: y.backward())
x.grad = None
y2 = (x.exp() * x).sum()
y2.backward(retain_graph=True)
y2.backward()
print("retain_graph twice, grad accumulated:", torch.allclose(x.grad, 2 * (x.exp() * (x + 1)).detach()))
x.grad = None
y3 = (x + 1).sum()  # a graph that saved nothing runs again
y3.backward()
y3.backward()
print("no saved tensors, second backward ok:", x.grad)
y4 = (x * 2).sum()  # the number 2 is saved as a wrapped tensor, and freed
y4.backward()
show("second backward, x * 2", lambda: y4.backward())
g_only = x.sin().sum()
torch.autograd.grad(g_only, x)
show("grad after grad", lambda: torch.autograd.grad(g_only, x))
show("saved attr after free", lambda: g_only.grad_fn.next_functions[0][0]._saved_self)

# non-scalar outputs
show("backward non-scalar", lambda: (x * 2).backward())
show("grad non-scalar", lambda: torch.autograd.grad(x * 2, x))
show("grad_outputs shape", lambda: torch.autograd.grad(x * 2, x, grad_outputs=torch.ones(2)))
show("grad_outputs count", lambda: torch.autograd.grad([x * 2, x * 3], x, grad_outputs=[torch.ones(3)]))
show("no grad output", lambda: torch.autograd.grad(torch.ones(3).sum(), x))
show("input not requiring grad", lambda: torch.autograd.grad((x * 2).sum(), torch.ones(3)))

# unused inputs
u = torch.randn(2, requires_grad=True)
show("unused", lambda: torch.autograd.grad((x * 2).sum(), [x, u]))
print("allow_unused:", torch.autograd.grad((x * 2).sum(), [x, u], allow_unused=True))
print("materialize_grads:", torch.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True))
show("materialize with allow_unused=False",
     lambda: torch.autograd.grad((x * 2).sum(), [u], allow_unused=False, materialize_grads=True))
(gx,) = torch.autograd.grad((x ** 2).sum(), x, create_graph=True)
show("second-order of linear term",
     lambda: torch.autograd.grad((gx * 0 + x.detach()).sum(), x))
(lin,) = torch.autograd.grad((x * 3).sum(), x, create_graph=True)
print("grad of a linear function: requires_grad", lin.requires_grad, lin.grad_fn)

# is_grads_batched
J = torch.autograd.grad(x.sin(), x, torch.eye(3), is_grads_batched=True)[0]
print("batched jacobian diag == cos:", torch.allclose(J.diagonal(), x.cos().detach()))
show("batched bad shape", lambda: torch.autograd.grad(x.sin(), x, torch.ones(3, 2), is_grads_batched=True))
out = x.unsqueeze(0) * torch.ones(2, 1)
(Jb,) = torch.autograd.grad(out, x, torch.randn(4, 2, 3), is_grads_batched=True)
print("batched over a (2, 3) output:", tuple(Jb.shape))

# detect_anomaly
a = torch.tensor([0.0, 1.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        z = (a.sqrt() * 0).sum()  # 0 * inf in backward
        show("anomaly sqrt", lambda: z.backward())
    print("anomaly warnings:", len(caught) > 0, "first mentions forward:",
          any("forward call that caused the error" in str(w.message) for w in caught))
with torch.autograd.detect_anomaly(check_nan=False):
    a.grad = None
    (a.sqrt() * 0).sum().backward()
    print("check_nan=False grad:", a.grad)
print("anomaly enabled outside:", torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
with torch.autograd.set_detect_anomaly(True):
    print("set_detect_anomaly inside:", torch.is_anomaly_enabled())

# inference_mode vs no_grad
with torch.no_grad():
    n = x * 2
print("no_grad result:", n.requires_grad, n.is_inference())
with torch.inference_mode():
    inf = x * 2
    print("inside inference_mode: is_inference_mode_enabled", torch.is_inference_mode_enabled(),
          "grad enabled", torch.is_grad_enabled())
print("inference tensor:", inf.is_inference(), inf.requires_grad)
show("inference tensor in autograd", lambda: (inf * x).sum().backward())
show("inplace on inference tensor", lambda: inf.add_(1))
show("save inference for backward", lambda: (x * inf).sum())
show("requires_grad on inference", lambda: inf.requires_grad_())
c = inf.clone()
print("clone outside is normal:", c.is_inference(), (c * x).sum().requires_grad)
with torch.inference_mode(mode=False):
    print("inference_mode(False): grad enabled", torch.is_grad_enabled())


@torch.inference_mode()
def predict(t):
    return t * 2


print("decorated:", predict(x).is_inference(), predict(x).requires_grad)

# in-place modification of a saved tensor
w = torch.randn(3, requires_grad=True)
h = w.sigmoid()
loss = h.sum()
h.mul_(2)
show("modified saved result", lambda: loss.backward())
v = w * 1
e = v.exp().sum()
v.add_(1)
print("version counter:", v._version)
show("modified saved input", lambda: e.backward())
show("leaf inplace", lambda: w.add_(1))
with torch.no_grad():
    w.add_(1)
print("leaf inplace under no_grad ok, version:", w._version)
show("view of leaf inplace", lambda: w[:2].mul_(2))
show("set requires_grad on non-leaf", lambda: setattr(w * 2, "requires_grad", False))
show("int tensor requires grad", lambda: torch.ones(2, dtype=torch.long, requires_grad=True))
show("grad of int output", lambda: torch.autograd.grad(x.argmax(), x))
