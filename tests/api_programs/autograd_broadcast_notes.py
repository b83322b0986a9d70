"""The 'Autograd mechanics' and 'Broadcasting semantics' notes: requires_grad propagation and freezing a pretrained
trunk, no_grad / inference_mode / set_grad_enabled (as context, decorator and function), retain_grad, is_leaf,
grad_fn names and next_functions, in-place correctness checks with their RuntimeErrors, tensor and Node hooks,
the broadcasting rules with their error messages, and in-place ops that may not change a tensor's shape."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)


def T(*s, rg=False):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32)).requires_grad_(rg)


def err(f):
    try:
        r = f()
        print("  ok", tuple(r.shape) if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        print(" ", type(e).__name__ + ":", str(e).splitlines()[0])


# requires_grad propagation
x = T(5, 5)
y = T(5, 5)
z = T(5, 5, rg=True)
a = x + y
print("a", a.requires_grad, a.is_leaf, a.grad_fn)
b = a + z
print("b", b.requires_grad, b.is_leaf, b.grad_fn.name())

model = nn.Sequential(nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, 4))
for param in model.parameters():
    param.requires_grad = False
model[2] = nn.Linear(6, 3)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(T(*p.shape) * 0.3)
optimizer = torch.optim.SGD(model[2].parameters(), lr=1e-2, momentum=0.9)
print("trainable", [n for n, p in model.named_parameters() if p.requires_grad])
out = model(T(2, 8)).sum()
out.backward()
print("frozen grads", model[0].weight.grad, model[2].weight.grad.shape)
model.requires_grad_(True)
print("all", all(p.requires_grad for p in model.parameters()))
model[0].requires_grad_(False)
print("after", [p.requires_grad for p in model.parameters()])

# grad modes
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    y = x * 2
print("no_grad", y.requires_grad, y.grad_fn, torch.is_grad_enabled())


@torch.no_grad()
def doubler(x):
    return x * 2


print("decorated", doubler(x).requires_grad, doubler.__name__)
with torch.set_grad_enabled(False):
    print("set_grad_enabled(False)", (x * 2).requires_grad)
torch.set_grad_enabled(False)
print("function", (x * 2).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.no_grad():
    with torch.enable_grad():
        print("nested enable", (x * 2).requires_grad)
with torch.inference_mode():
    y = x * 2
print("inference", y.requires_grad, y.is_inference(), x.is_inference(), torch.is_inference_mode_enabled())
err(lambda: (y * x).sum().backward())
err(lambda: y.add_(1))
with torch.inference_mode(mode=False):
    print("mode False", (x * 2).requires_grad, (x * 2).is_inference())


@torch.inference_mode()
def infer(x):
    return x.exp()


print("inference decorator", infer(x).is_inference(), infer(x).requires_grad)
print("clone escapes", y.clone().is_inference())

# retain_grad, is_leaf, hooks
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 3
b.retain_grad()
c = b.exp()
d = c.sum()
print("leaf", a.is_leaf, b.is_leaf, b.retains_grad, c.retains_grad, d.requires_grad)
d.backward(retain_graph=True)
print("b.grad", b.grad)
print("c.grad is None:", c.grad is None)
print("grad_fn", d.grad_fn.name(), [f.name() for f, _ in d.grad_fn.next_functions],
      c.grad_fn.next_functions[0][0].name(), b.grad_fn.next_functions[0][0].name())
print("acc var", b.grad_fn.next_functions[0][0].variable is a, b.grad_fn.next_functions[1])
a.grad = None
h = b.register_hook(lambda g: g * 0.5)
seen = []
h2 = a.register_hook(lambda g: seen.append(g.clone()))
d.backward(retain_graph=True)
print("hooked a.grad", a.grad, "seen", seen[0])
h.remove()
h2.remove()
a.grad.zero_()
d.backward()
print("unhooked a.grad", a.grad)
err(lambda: d.backward())
nh = []
c = (a * 3).exp()
fh = c.grad_fn.register_hook(lambda gi, go: nh.append((len(gi), tuple(go[0].shape))))
c.sum().backward()
print("node hook", nh, type(fh).__name__)
p = torch.ones(3, requires_grad=True)
p.register_hook(lambda g: g.clamp(max=0.5))
(p * 2).sum().backward()
print("clamped", p.grad)
err(lambda: torch.ones(2).register_hook(lambda g: g))

# in-place correctness
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid()
print("version", b._version)
b.mul_(2)
print("version after", b._version)
err(lambda: b.sum().backward())
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 1
c = b ** 2
b.add_(1)
err(lambda: c.sum().backward())
err(lambda: a.add_(1))
err(lambda: a.data.add_(1))
w = torch.ones(3, requires_grad=True)
e = w.exp()
v = e[:2]
v.mul_(2)
print("view inplace", e.grad_fn.name(), v.grad_fn.name(), e._version, v._version)
err(lambda: e.sum().backward())
e = w * 3
e[:2].mul_(2)
e.sum().backward()
print("grad through view", w.grad, e.grad_fn.next_functions[0][0].name())
leaf = torch.zeros(4, requires_grad=True)
err(lambda: leaf[:2].fill_(1.0))
with torch.no_grad():
    leaf[:2] = 1.0
print("no_grad edit", leaf, leaf.grad_fn, leaf.is_leaf)
x = torch.ones(3, requires_grad=True)
y = x.relu()
y.add_(1)
err(lambda: y.sum().backward())
y = x.tanh() * 1
y.add_(1)
y.sum().backward()
print("safe inplace", x.grad, y.grad_fn.name())

# broadcasting semantics
x = torch.empty(5, 7, 3)
y = torch.empty(5, 7, 3)
print("same", (x + y).size())
x = torch.empty((0,))
y = torch.empty(2, 2)
err(lambda: x + y)
x = torch.empty(5, 3, 4, 1)
y = torch.empty(3, 1, 1)
print("broadcast", (x + y).size())
x = torch.empty(5, 2, 4, 1)
y = torch.empty(3, 1, 1)
err(lambda: x + y)
x = torch.empty(1)
y = torch.empty(3, 1, 7)
print((x + y).size())
x = torch.empty(5, 1, 4, 1)
y = torch.empty(3, 1, 1)
print(x.add_(y).size() if False else (x + y).size())
x = torch.empty(1, 3, 1)
y = torch.empty(3, 1, 7)
err(lambda: x.add_(y))
x = torch.empty(5, 3, 4, 1)
y = torch.empty(3, 1, 1)
print("in-place ok", x.add_(y).size())
print("broadcast_shapes", torch.broadcast_shapes((5, 1, 4, 1), (3, 1, 1)), torch.broadcast_shapes((2,), ()))
err(lambda: torch.broadcast_shapes((5, 2), (3,)))
err(lambda: torch.broadcast_to(torch.ones(3), (2, 4)))
err(lambda: torch.ones(2, 3).expand(3, 3))
err(lambda: torch.ones(3).mul_(torch.ones(2, 3)))
err(lambda: torch.ones(3).clamp_(max=torch.zeros(2, 3)))
err(lambda: torch.ones(3).lerp_(torch.zeros(2, 3), 0.5))
err(lambda: torch.add(torch.ones(3), torch.ones(2, 3), out=torch.ones(3)))
err(lambda: torch.arange(3).gcd_(torch.arange(6).view(2, 3)))
err(lambda: torch.ones(3).bitwise_and_(torch.ones(2, 3)))
err(lambda: torch.ones(3).float_power_(2))
err(lambda: torch.ones(3, dtype=torch.float64).float_power_(torch.ones(2, 3)))
print("out shapes", [t.shape for t in torch.broadcast_tensors(torch.ones(3, 1), torch.ones(4))])
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = torch.tensor([[1.0], [2.0]], requires_grad=True)
(x * y).sum().backward()
print("broadcast grads", x.grad, y.grad.flatten().tolist())
x = torch.ones(4, 1)
y = torch.arange(3.0)
print("outer via broadcast", (x * y).shape, torch.ones(3).pow(torch.ones(2, 1)).shape)
print("legacy", torch.add(torch.ones(4), torch.ones(4)).shape)
