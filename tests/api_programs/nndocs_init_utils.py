"""torch.nn.init and torch.nn.utils as documented: calculate_gain for every nonlinearity, fans of each layout, the
deterministic initialisers' values and the random ones' bounds and moments, clip_grad_norm_/clip_grad_value_
(foreach, error_if_nonfinite, inf norm), parameters_to_vector, the rnn packing utilities, weight_norm and
spectral_norm parametrizations, and torch.nn.utils.prune."""

import math

import numpy as np
import torch
from torch import nn
from torch.nn import init
from torch.nn.utils import parametrizations, parametrize, prune, rnn as rnn_utils


def err(f):
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__ + ":", str(e).splitlines()[0][:160])


for nl, p in [("linear", None), ("conv1d", None), ("conv3d", None), ("conv_transpose2d", None), ("sigmoid", None),
              ("tanh", None), ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 1),
              ("selu", None)]:
    print("gain", nl, p, round(init.calculate_gain(nl, p), 6))
err(lambda: init.calculate_gain("gelu"))
err(lambda: init.calculate_gain("leaky_relu", "x"))
fan = init._calculate_fan_in_and_fan_out
for shape in [(7, 3), (8, 4, 3), (16, 4, 3, 5), (6, 2, 2, 2, 3)]:
    print("fans", shape, fan(torch.empty(shape)))
err(lambda: fan(torch.empty(5)))

w = torch.empty(3, 5)
print("constant", init.constant_(w, 0.3)[0].tolist(), init.ones_(w).sum().item(), init.zeros_(w).sum().item())
print("eye", init.eye_(torch.empty(3, 5)).tolist())
d = init.dirac_(torch.empty(4, 2, 3))
print("dirac", d.sum().item(), d[:, :, 1].tolist())
print("dirac groups", init.dirac_(torch.empty(4, 2, 3, 3), groups=2).sum(dim=(2, 3)).tolist())
err(lambda: init.eye_(torch.empty(2, 3, 4)))
err(lambda: init.dirac_(torch.empty(3, 5)))
torch.manual_seed(0)
big = torch.empty(400, 300)
for name, fn in [("uniform", lambda t: init.uniform_(t, -0.5, 1.5)), ("normal", lambda t: init.normal_(t, 2.0, 0.5)),
                 ("trunc", lambda t: init.trunc_normal_(t, 0.0, 1.0, -0.5, 0.5)),
                 ("xavier_u", init.xavier_uniform_), ("xavier_n", lambda t: init.xavier_normal_(t, gain=2.0)),
                 ("kaiming_u", lambda t: init.kaiming_uniform_(t, a=math.sqrt(5))),
                 ("kaiming_n", lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"))]:
    t = fn(big)
    print(name, round(t.min().item(), 1) if name in ("uniform", "trunc") else "",
          round(t.max().item(), 1) if name in ("uniform", "trunc") else "",
          abs(round(t.mean().item(), 1)), round(t.std().item(), 2))
bound = 1 / math.sqrt(300)
print("kaiming bound", round(bound, 4), bool(init.kaiming_uniform_(big, a=math.sqrt(5)).abs().max() <= bound))
q = init.orthogonal_(torch.empty(3, 5), gain=2.0)
print("orthogonal", np.round((q @ q.T).numpy(), 4).tolist())
s = init.sparse_(torch.empty(10, 4), sparsity=0.3)
print("sparse zeros per column", (s == 0).sum(0).tolist())
err(lambda: init.kaiming_normal_(big, mode="fan_avg"))
err(lambda: init.xavier_uniform_(torch.empty(3)))

# clipping
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))


def grads():
    net.zero_grad()
    net(torch.tensor([[1.0, -2.0, 0.5], [0.3, 0.1, -1.0]])).pow(2).sum().backward()
    return [p.grad.clone() for p in net.parameters()]


g0 = grads()
print("grad norms", [round(g.norm().item(), 4) for g in g0])
for kw in [dict(max_norm=1.0), dict(max_norm=1.0, norm_type="inf"), dict(max_norm=0.5, norm_type=1.0),
           dict(max_norm=100.0), dict(max_norm=1.0, foreach=True)]:
    grads()
    total = nn.utils.clip_grad_norm_(net.parameters(), **kw)
    print("clip", kw, round(total.item(), 4), [round(p.grad.norm().item(), 4) for p in net.parameters()])
grads()
nn.utils.clip_grad_value_(net.parameters(), 0.25)
print("clip value", [round(p.grad.abs().max().item(), 4) for p in net.parameters()])
print("get_total_norm", round(nn.utils.get_total_norm([g for g in g0], 2.0).item(), 4))
net[0].weight.grad[0, 0] = float("nan")
err(lambda: nn.utils.clip_grad_norm_(net.parameters(), 1.0, error_if_nonfinite=True))
print("nan total", nn.utils.clip_grad_norm_(net.parameters(), 1.0).item())
vec = nn.utils.parameters_to_vector(net.parameters())
print("p2v", tuple(vec.shape), round(vec.sum().item(), 4))
nn.utils.vector_to_parameters(torch.arange(vec.numel(), dtype=torch.float32), net.parameters())
print("v2p", net[2].bias.tolist(), net[0].weight[1].tolist())
err(lambda: nn.utils.vector_to_parameters(torch.ones(3), net.parameters()))

# rnn packing utilities: the docstring's examples
seqs = [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0]), torch.tensor([6.0])]
padded = rnn_utils.pad_sequence(seqs, batch_first=True, padding_value=-1)
left = rnn_utils.pad_sequence(seqs, padding_side="left")
print("pad", padded.tolist(), rnn_utils.pad_sequence(seqs).shape, left.T.tolist())
packed = rnn_utils.pack_padded_sequence(padded, torch.tensor([3, 2, 1]), batch_first=True)
print(packed)
out, lens = rnn_utils.pad_packed_sequence(packed, batch_first=True, total_length=5)
print("unpacked", out.tolist(), lens.tolist())
ps = rnn_utils.pack_sequence([seqs[1], seqs[0], seqs[2]], enforce_sorted=False)
print("pack_sequence", ps.data.tolist(), ps.batch_sizes.tolist(), ps.sorted_indices.tolist(),
      ps.unsorted_indices.tolist())
print("unpack", [t.tolist() for t in rnn_utils.unpack_sequence(ps)],
      [t.tolist() for t in rnn_utils.unpad_sequence(padded, torch.tensor([3, 2, 1]), batch_first=True)])
err(lambda: rnn_utils.pack_padded_sequence(padded, torch.tensor([1, 3, 2]), batch_first=True))
err(lambda: rnn_utils.pack_padded_sequence(padded, torch.tensor([3, 2, 0]), batch_first=True))

# parametrizations and pruning
lin = nn.Linear(4, 3)
with torch.no_grad():
    lin.weight.copy_(torch.arange(12.0).reshape(3, 4) / 10 - 0.5)
    lin.bias.zero_()
wn = parametrizations.weight_norm(lin)
print(wn)
print("weight_norm", np.round(wn.parametrizations.weight.original0.detach().flatten().numpy(), 4).tolist(),
      parametrize.is_parametrized(wn), parametrize.is_parametrized(wn, "bias"))
sn = parametrizations.spectral_norm(nn.Linear(4, 3))
with torch.no_grad():
    sn.parametrizations.weight.original.copy_(torch.arange(12.0).reshape(3, 4) / 10 - 0.5)
for _ in range(30):  # each training-mode access runs one power iteration
    sn(torch.ones(1, 4))
sn.eval()
print("spectral", round(torch.linalg.matrix_norm(sn.weight, 2).item(), 3), sorted(dict(sn.named_buffers())),
      round(torch.linalg.svdvals(sn.parametrizations.weight.original).max().item(), 4))
m = nn.Linear(4, 3)
with torch.no_grad():
    m.weight.copy_(torch.arange(12.0).reshape(3, 4) - 5.5)
prune.l1_unstructured(m, "weight", amount=0.5)
print("l1 prune", m.weight_mask.flatten().tolist(), sorted(n for n, _ in m.named_buffers()), prune.is_pruned(m))
prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
hook = next(iter(m._forward_pre_hooks.values()))
print("ln structured", m.weight_mask.sum(1).tolist(), type(hook).__name__, hook._tensor_name)
prune.remove(m, "weight")
print("removed", prune.is_pruned(m), sorted(n for n, _ in m.named_parameters()), int((m.weight == 0).sum()))
m2 = nn.Linear(4, 3)
prune.custom_from_mask(m2, "bias", torch.tensor([1.0, 0.0, 1.0]))
print("custom", m2.bias_mask.tolist(), (m2.bias == 0).tolist())
err(lambda: prune.l1_unstructured(m2, "weight", amount=1.5))
err(lambda: prune.l1_unstructured(m2, "weight", amount=20))
