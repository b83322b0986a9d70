"""A sequence tagger pushed through PyTorch's function transforms and compilers: Viterbi written for torch.jit.script
(typed lists, tuple returns), a traced LSTM, torch.compile of a GRU tagger, torch.func per-example gradients of a
GRU cell classifier (functional_call + vmap + grad), an ensemble by stack_module_state, jvp through a GRU, and a
double-backward input-gradient penalty through an LSTM."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.func import functional_call, grad, jacrev, jvp, stack_module_state, vmap

rng = np.random.default_rng(51)


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def arr(*shape, s=0.4):
    return torch.from_numpy((rng.standard_normal(shape) * s).astype(np.float32))


def fill(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(arr(*p.shape))
    return m


@torch.jit.script
def viterbi(emit: torch.Tensor, trans: torch.Tensor) -> tuple[torch.Tensor, list[int]]:
    score = emit[0]
    bps: list[torch.Tensor] = []
    for t in range(1, emit.size(0)):
        s, idx = (score.unsqueeze(1) + trans).max(0)
        score = s + emit[t]
        bps.append(idx)
    best = int(score.argmax())
    path = [best]
    for bp in bps[::-1]:
        best = int(bp[best])
        path.append(best)
    path.reverse()
    return score.max(), path


emit, trans = arr(6, 4, s=1.0), arr(4, 4, s=1.0)
best, path = viterbi(emit, trans)
print("viterbi", round(best.item(), 4), path, torch.jit.is_scripting())
brute = max(
    (sum(emit[t, p[t]] for t in range(6)) + sum(trans[p[t], p[t + 1]] for t in range(5))).item()
    for p in np.ndindex(*(4,) * 6)
)
print("brute force agrees", abs(brute - best.item()) < 1e-5)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6)
        self.rnn = nn.GRU(6, 5, batch_first=True, bidirectional=True)
        self.out = nn.Linear(10, 4)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h).log_softmax(-1)


tagger = fill(Tagger())
words = torch.from_numpy(rng.integers(0, 10, size=(3, 6)))
eager = tagger(words)
compiled = torch.compile(tagger)
print("compile", torch.allclose(compiled(words), eager, atol=1e-6), tuple(eager.shape), r(eager[0, 0], 4))
paths = [viterbi(eager[b], trans)[1] for b in range(3)]
print("tagger paths", paths)
traced = torch.jit.trace(fill(nn.LSTM(3, 2)), (arr(4, 1, 3),))
probe = arr(5, 2, 3)
print("traced", isinstance(traced, torch.jit.ScriptModule), r(traced(probe)[0][-1], 4))

# Per-example gradients of a GRU-cell classifier.
cell = fill(nn.GRUCell(3, 4))
head = fill(nn.Linear(4, 2))
params = {"cell." + k: v for k, v in cell.named_parameters()}
params.update({"head." + k: v for k, v in head.named_parameters()})
net = nn.ModuleDict({"cell": cell, "head": head})


def gru_step(p, x, h):
    """GRUCell's equations by hand (PyTorch's fused gru_cell does not run under vmap)."""
    gi, gh = F.linear(x, p["cell.weight_ih"], p["cell.bias_ih"]), F.linear(h, p["cell.weight_hh"], p["cell.bias_hh"])
    (ir, iz, i_n), (hr, hz, hn) = gi.chunk(3, -1), gh.chunk(3, -1)
    rr, z = torch.sigmoid(ir + hr), torch.sigmoid(iz + hz)
    return (1 - z) * torch.tanh(i_n + rr * hn) + z * h


def run(p, seq, label):
    h = torch.zeros(4)
    for t in range(seq.shape[0]):
        h = gru_step(p, seq[t], h)
    logits = functional_call(net["head"], {k[5:]: v for k, v in p.items() if k.startswith("head.")}, (h,))
    return F.cross_entropy(logits.unsqueeze(0), label.unsqueeze(0))


xx, hh = arr(2, 3, s=1.0), arr(2, 4, s=1.0)
print("hand step = GRUCell", torch.allclose(gru_step(params, xx, hh), cell(xx, hh), atol=1e-6))
seqs, labels = arr(4, 5, 3, s=1.0), torch.tensor([0, 1, 1, 0])
per_ex = vmap(grad(run), in_dims=(None, 0, 0))(params, seqs, labels)
print("per-example", sorted(per_ex)[:3], tuple(per_ex["cell.weight_hh"].shape))
manual = grad(run)(params, seqs[2], labels[2])
print("matches single", torch.allclose(per_ex["head.weight"][2], manual["head.weight"], atol=1e-6))
print("grad norms", r(torch.stack([g.flatten(1).norm(dim=1) for g in per_ex.values()]).sum(0), 4))
mean_loss = torch.stack([run(params, seqs[i], labels[i]) for i in range(4)]).mean()
mean_loss.backward()
print("mean of per-example = batch grad", torch.allclose(per_ex["cell.bias_ih"].mean(0), cell.bias_ih.grad, atol=1e-6))

# Ensemble of cells.
cells = [fill(nn.GRUCell(3, 4)) for _ in range(3)]
ps, bs = stack_module_state(cells)
base = cells[0]
ens = vmap(lambda p, b, x: functional_call(base, (p, b), (x,)), in_dims=(0, 0, None))(ps, bs, seqs[:, 0])
print("ensemble", tuple(ens.shape), torch.allclose(ens[1], cells[1](seqs[:, 0]), atol=1e-6))
print("jacrev", tuple(jacrev(lambda x: cell(x))(seqs[0, 0]).shape))

# jvp and double backward.
gru = fill(nn.GRU(3, 4))
x = arr(5, 2, 3, s=1.0)
_, tangent = jvp(lambda z: gru(z)[0], (x,), (torch.ones_like(x),))
eps = 1e-3
fd = (gru(x.double().float() + eps)[0] - gru(x - eps)[0]) / (2 * eps)
print("jvp", r(tangent[-1, 0], 4), "fd close", torch.allclose(tangent, fd, atol=1e-2))
lstm = fill(nn.LSTM(3, 4))
xg = x.clone().requires_grad_(True)
out = lstm(xg)[0]
(gx,) = torch.autograd.grad(out.sum(), xg, create_graph=True)
penalty = gx.pow(2).sum()
penalty.backward()
print("penalty", round(penalty.item(), 4), "w_ih grad", r(lstm.weight_ih_l0.grad, 4), gx.requires_grad)

for label, fn in [
    ("vmap over ragged", lambda: vmap(lambda s: s.sum())([torch.ones(2), torch.ones(3)])),
    ("grad of non-scalar", lambda: grad(lambda z: z * 2)(torch.ones(2))),
    ("functional_call missing", lambda: functional_call(cell, {"weight_ih": cell.weight_ih}, (xx,), strict=True)),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:100])
