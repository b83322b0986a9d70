"""Training-loop questions with accepted answers: backward twice and retain_graph, grads accumulating without
zero_grad (and set_to_none), gradient accumulation over micro-batches, clip_grad_norm_'s return, the 'module.'
prefix of DataParallel checkpoints, buffers vs parameters in state_dict, saving to a buffer and loading back,
model.to(dtype), and the leaf/non-leaf .grad questions."""

import io
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(13)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def R(t):
    return round(t.item(), 4) if t.ndim == 0 else t.round(decimals=4).tolist()


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", R(out) if isinstance(out, torch.Tensor) else out)
    except (RuntimeError, ValueError, TypeError, IndexError, KeyError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0])


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.register_buffer("scale", torch.tensor([2.0, 0.5]))
        self.register_buffer("tmp", torch.zeros(1), persistent=False)
        self.alpha = nn.Parameter(torch.tensor(0.5))

    def forward(self, x):
        return self.fc(x) * self.scale * self.alpha


def fixed(m):
    with torch.no_grad():
        m.fc.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        m.fc.bias.copy_(torch.tensor([0.05, -0.05]))
    return m


model = fixed(Model())
print(list(model.state_dict()), [n for n, _ in model.named_parameters()], [n for n, _ in model.named_buffers()])
x, y = T(6, 3), T(6, 2)

# backward twice
loss = F.mse_loss(model(x), y)
loss.backward(retain_graph=True)
g1 = model.fc.weight.grad.clone()
loss.backward()
print("accumulated", torch.allclose(model.fc.weight.grad, 2 * g1), R(g1[0]))
catch("backward_twice", lambda: loss.backward())
h = (model.alpha * 2).exp()
h.backward()
catch("backward_saved", lambda: h.backward())
catch("backward_no_grad", lambda: (x * 2).sum().backward())
model.zero_grad()
print("zero_grad", model.fc.weight.grad, model.alpha.grad)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
F.mse_loss(model(x), y).backward()
opt.zero_grad(set_to_none=False)
print("zeros", model.fc.weight.grad.abs().sum().item(), model.alpha.grad)

# gradient accumulation equals the full batch
full = fixed(Model())
F.mse_loss(full(x), y).backward()
acc = fixed(Model())
for xb, yb in zip(x.chunk(3), y.chunk(3)):
    (F.mse_loss(acc(xb), yb) / 3).backward()
print("accum_equal", all(torch.allclose(a.grad, b.grad, atol=1e-6)
                         for a, b in zip(full.parameters(), acc.parameters())))
norm = nn.utils.clip_grad_norm_(acc.parameters(), max_norm=0.1)
print("clip", R(norm), R(torch.sqrt(sum(p.grad.pow(2).sum() for p in acc.parameters()))), norm.dtype)
print("clip_value", nn.utils.clip_grad_value_(acc.parameters(), 0.01), R(acc.fc.weight.grad.abs().max()))
print("inf_norm", R(nn.utils.clip_grad_norm_(full.parameters(), 1.0, norm_type="inf")))

# DataParallel-style prefixes
sd = OrderedDict(("module." + k, v) for k, v in model.state_dict().items())
catch("prefixed", lambda: Model().load_state_dict(sd))
clean = OrderedDict((k[len("module."):] if k.startswith("module.") else k, v) for k, v in sd.items())
m2 = Model()
print(m2.load_state_dict(clean), torch.equal(m2.fc.weight, model.fc.weight))
nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, "module.")
print(list(sd))

# save / load through a buffer
buf = io.BytesIO()
torch.save({"epoch": 3, "model": model.state_dict(), "opt": opt.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf)
print(ck["epoch"], sorted(ck), list(ck["opt"]), ck["opt"]["param_groups"][0]["lr"], ck["model"]["scale"].tolist())
m3 = Model()
m3.load_state_dict(ck["model"])
print("loaded", torch.allclose(m3(x), model(x)), m3.tmp.tolist())
catch("bad_key", lambda: ck["model"]["fc.weights"])
m4 = Model()
r = m4.load_state_dict({"fc.weight": torch.zeros(2, 3), "extra": torch.ones(1)}, strict=False)
print(r.missing_keys, r.unexpected_keys, bool(r.missing_keys))

# dtype moves
md = fixed(Model()).to(torch.float64)
print(md.fc.weight.dtype, md.scale.dtype, md.alpha.dtype, md.double().fc.bias.dtype, fixed(Model()).half().scale.dtype)
catch("dtype_mismatch", lambda: md(x))
print(md(x.double()).dtype, R(md(x.double())[0]))
catch("to_int", lambda: Model().to(torch.int64).fc.weight.dtype)

# leaf / non-leaf grads
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
b.retain_grad()
c = (b ** 2).sum()
c.backward()
print("grads", a.grad.tolist(), b.grad.tolist(), a.is_leaf, b.is_leaf, b.grad_fn.name())
d = torch.tensor([1.0, 2.0]).requires_grad_()
print("leaf", d.is_leaf, (d * 1).is_leaf, torch.tensor([1.0]).is_leaf,
      torch.tensor([1.0], requires_grad=True).double().is_leaf)
catch("grad_of_nonscalar", lambda: torch.autograd.grad((a * 2), a))
print("grad_outputs", torch.autograd.grad((a * 2), a, grad_outputs=torch.ones(2))[0].tolist())
catch("grad_unused", lambda: torch.autograd.grad((a * 2).sum(), [a, torch.ones(1, requires_grad=True)]))
print("allow_unused", torch.autograd.grad((a * 2).sum(), [a, torch.ones(1, requires_grad=True)], allow_unused=True)[1])
catch("no_requires", lambda: torch.ones(2).sum().backward())
