"""The 'Autograd mechanics' sections on locally disabling gradients and multithreading: requires_grad vs no_grad
vs inference_mode vs eval(), the modes as decorators (also on generators) and nested, set_grad_enabled's argument
check, inference tensors' restrictions, concurrent backward passes in threads on separate and shared graphs, and
the mistakes of the 'Neural Networks' page: unbatched conv input with wrong channels, torch.save to a non-file."""

import io
import threading
import numpy as np
import torch
import torch.nn as nn


def err(f):
    try:
        r = f()
        print("  ok", r)
    except Exception as e:
        print(" ", type(e).__name__ + ":", str(e).splitlines()[0])


x = torch.ones(3, requires_grad=True)


@torch.no_grad()
def gen():
    for i in range(2):
        yield (x * 2).requires_grad, torch.is_grad_enabled()


print("generator", list(gen()), torch.is_grad_enabled())


@torch.enable_grad()
def f2():
    return (x * 2).requires_grad


with torch.no_grad():
    print("enable_grad inside no_grad", f2(), torch.is_grad_enabled())


@torch.set_grad_enabled(False)
def f3():
    return (x * 2).requires_grad


print("set_grad_enabled decorator", f3(), torch.is_grad_enabled())
for v in (1, None, "train"):
    err(lambda: torch.set_grad_enabled(v))
for phase in ("train", "val"):
    with torch.set_grad_enabled(phase == "train"):
        out = x * 3
    print(phase, out.requires_grad, torch.is_grad_enabled())
with torch.inference_mode():
    with torch.inference_mode(False):
        t = torch.ones(1)
        print("nested inference off", t.is_inference(), torch.is_inference_mode_enabled())
    with torch.no_grad():
        print("no_grad inside inference", torch.is_inference_mode_enabled(), torch.is_grad_enabled())
z = torch.ones(2, requires_grad=True)
with torch.no_grad():
    w = z * 2
    w.requires_grad_()
print("requires_grad_ under no_grad", w.requires_grad, w.is_leaf, w.grad_fn)
with torch.inference_mode():
    inf = torch.ones(2)
    inf_view = inf[:1]
    print("inside", inf.is_inference(), inf_view.is_inference(), inf.requires_grad)
err(lambda: inf.requires_grad_())
err(lambda: torch.ones(2, requires_grad=True) * inf)
print("mixing without grad", (torch.ones(2) * inf).is_inference(), inf.clone().is_inference())
err(lambda: inf.add_(1))
err(lambda: inf._version)
print("normal version", torch.ones(2).add_(1)._version)


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(2)
        self.dp = nn.Dropout(0.5)

    def forward(self, v):
        return self.dp(self.bn(v))


m = Tiny()
m.eval()
print("eval", m.training, m.bn.training, m.dp.training, m.train(False) is m)
inp = torch.from_numpy(np.array([[1.0, 2.0], [3.0, 5.0]], dtype=np.float32)).requires_grad_()
o = m(inp)
print("eval output keeps grad", o.requires_grad, o.grad_fn.name(), m.bn.running_mean)
m.train()
o = m.bn(inp)
print("train", m.bn.training, m.bn.running_mean, m.bn.num_batches_tracked)
err(lambda: m.train("yes"))

# multithreaded autograd
res = []


def train_fn():
    x = torch.ones(5, 5, requires_grad=True)
    y = (x + 3) * (x + 4) * 0.5
    y.sum().backward()
    res.append(x.grad.sum().item())


threads = [threading.Thread(target=train_fn) for _ in range(4)]
for th in threads:
    th.start()
for th in threads:
    th.join()
print("threads", res)
x = torch.ones(3, requires_grad=True)
y = (x * x).sum()


def bw():
    y.backward(retain_graph=True)


ts = [threading.Thread(target=bw) for _ in range(3)]
for th in ts:
    th.start()
for th in ts:
    th.join()
print("shared graph", x.grad)
modes = []


def mode_in_thread():
    modes.append(torch.is_grad_enabled())


with torch.no_grad():
    th = threading.Thread(target=mode_in_thread)
    th.start()
    th.join()
print("grad mode is thread-local", modes, torch.is_grad_enabled())

# 'Neural Networks' page mistakes
conv = nn.Conv2d(1, 6, 5)
err(lambda: conv(torch.ones(1, 32, 32)).shape)
err(lambda: conv(torch.ones(2, 32, 32)))
err(lambda: conv(torch.ones(32, 32)))
err(lambda: nn.Conv2d(1, 2, 3, padding=1, padding_mode="reflect")(torch.ones(2, 8, 8)))
err(lambda: nn.ConvTranspose2d(1, 2, 3)(torch.ones(2, 8, 8)))
err(lambda: torch.save(conv.state_dict(), 5))
err(lambda: torch.load(None))
buf = io.BytesIO()
torch.save(conv.state_dict(), buf)
print("saved", buf.tell() > 0, sorted(torch.load(io.BytesIO(buf.getvalue()), weights_only=True)))
