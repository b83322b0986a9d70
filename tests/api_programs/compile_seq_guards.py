"""torch.compile where guards matter: a GRU classifier over batches of changing length (mark_dynamic), a
@torch.compile method on a module, a compiled closure over a Python global that changes, dict and kwargs inputs
and outputs, a compiled function mutating a list argument, gradients through a compiled function with
torch.autograd.grad, reduce-overhead outputs kept across steps (cudagraph_mark_step_begin), and config.patch."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(33)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=4):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def init_(m, seed):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    return m


class GRUClassifier(nn.Module):
    def __init__(self, d_in=3, hidden=6, classes=2):
        super().__init__()
        self.gru = nn.GRU(d_in, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, classes)

    def forward(self, x):
        out, h = self.gru(x)
        return self.fc(out.mean(1) + h[-1])

    @torch.compile
    def predict(self, x):
        return self.forward(x).softmax(-1)


model = init_(GRUClassifier(), 1)
cmodel = torch.compile(model)
opt = torch.optim.RMSprop(model.parameters(), lr=0.01)
for step, (bs, L) in enumerate([(4, 5), (4, 7), (3, 5), (4, 9), (4, 7)]):
    x, y = T(bs, L, 3), torch.from_numpy(rng.integers(0, 2, bs))
    torch._dynamo.mark_dynamic(x, 1)
    loss = F.cross_entropy(cmodel(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, tuple(x.shape), round(loss.item(), 4), r(model.fc.bias, 2))
with torch.no_grad():
    xt = T(2, 6, 3)
    print("predict", r(model.predict(xt)), r(model.predict(xt[:1])), torch.allclose(model.predict(xt),
                                                                                   model(xt).softmax(-1)))

# a global read by a compiled function: changing it must change the result (PyTorch guards on it)
SCALE = 2.0


@torch.compile
def scaled_tanh(x):
    return torch.tanh(x) * SCALE


v = torch.tensor([0.5, -1.0])
outs = []
for s in (2.0, 2.0, 3.0, 3.0, 0.5):
    SCALE = s
    outs.append(r(scaled_tanh(v), 2))
print("global_guard", outs)


# dict inputs/outputs and keyword arguments
@torch.compile
def heads(batch, *, temperature=1.0, normalize=False):
    feats = batch["x"] @ batch["w"]
    if normalize:
        feats = F.normalize(feats, dim=-1)
    return {"logits": feats / temperature, "probs": (feats / temperature).softmax(-1), "n": feats.shape[0]}


batch = {"x": T(3, 4), "w": T(4, 2)}
for kw in ({}, {"temperature": 0.5}, {"normalize": True}, {"temperature": 0.5}, {}):
    o = heads(batch, **kw)
    print("heads", kw, r(o["probs"]), o["n"], sorted(o))


# a compiled function that appends to a list argument (a side effect PyTorch replays at each call)
@torch.compile
def log_norms(x, history):
    n = x.norm()
    history.append(n)
    return x / n


hist = []
for k in range(3):
    log_norms(torch.full((4,), float(k + 1)), hist)
print("history", len(hist), [round(h.item(), 4) for h in hist])


# gradients through a compiled function (backward outside it)
@torch.compile
def energy(pos, k: float):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = (d ** 2).sum(-1) + torch.eye(pos.shape[0])
    return k * (1.0 / r2).triu(1).sum()


pos = T(4, 2).requires_grad_()
for k in (1.0, 1.0, 1.0, 0.5):
    e = energy(pos, k)
    (g,) = torch.autograd.grad(e, pos)
pos_e = pos.detach().clone().requires_grad_()
d = pos_e[:, None, :] - pos_e[None, :, :]
e_ref = 0.5 * (1.0 / ((d ** 2).sum(-1) + torch.eye(4))).triu(1).sum()
(g_ref,) = torch.autograd.grad(e_ref, pos_e)
print("energy", round(e.item(), 4), r(g), torch.allclose(g, g_ref, atol=1e-5), e.requires_grad)

# reduce-overhead: outputs kept across steps stay intact
net = init_(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)), 2).eval()
fast = torch.compile(net, mode="reduce-overhead")
kept = []
with torch.inference_mode():
    for i in range(4):
        torch.compiler.cudagraph_mark_step_begin()
        kept.append(fast(torch.full((2, 3), float(i))))
print("kept", [r(k, 2) for k in kept])


# config.patch as a decorator and a context manager
@torch._dynamo.config.patch(recompile_limit=2)
def run_many_shapes():
    f = torch.compile(lambda t: t.cumsum(0) * torch._dynamo.config.recompile_limit, dynamic=False)
    return [f(torch.ones(n)).tolist()[-1] for n in (2, 3, 4, 5)]


print("patched", run_many_shapes(), torch._dynamo.config.recompile_limit)
with torch._dynamo.config.patch("suppress_errors", True):
    print("suppress_inside", torch._dynamo.config.suppress_errors)
print("suppress_after", torch._dynamo.config.suppress_errors)
