"""torch.nn.utils for library authors: parametrizations (orthogonal, spectral_norm, weight_norm), pruning
(l1_unstructured, random masks, global_unstructured, remove), conv-bn fusion, functional_call with tied weights,
clip_grad_norm_ (foreach, error_if_nonfinite), clip_grad_value_, parameters_to_vector and back."""

import numpy as np
import torch
from torch import nn
import torch.nn.utils.parametrize as P
import torch.nn.utils.prune as prune
from torch.nn.utils.parametrizations import orthogonal, spectral_norm, weight_norm
from torch.func import functional_call

rng = np.random.default_rng(5)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def det(m, scale=0.5):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


# orthogonal parametrization: default map and explicit ones
for kind in ("matrix_exp", "cayley", "householder"):
    lin = det(nn.Linear(4, 4))
    orthogonal(lin, orthogonal_map=kind)
    W = lin.weight
    print("orth", kind, torch.allclose(W @ W.T, torch.eye(4), atol=1e-5), type(lin.parametrizations.weight[0]).__name__)
tall = orthogonal(det(nn.Linear(3, 5)))
print("orth_tall", tuple(tall.weight.shape), torch.allclose(tall.weight.T @ tall.weight, torch.eye(3), atol=1e-5))
print("orth_keys", sorted(tall.state_dict().keys()))

# spectral norm (new API) in train and eval
sn = spectral_norm(det(nn.Linear(5, 4)), n_power_iterations=20)
x = T(3, 5)
for _ in range(3):
    sn(x)
sn.eval()
sigma = torch.linalg.matrix_norm(sn.weight.detach(), ord=2).item()
print("spectral", round(sigma, 3), sorted(k for k in sn.state_dict().keys()))
print("spectral_buffers", sorted(n for n, _ in sn.named_buffers()))

# weight norm (new API): g and v, then remove
wn = weight_norm(det(nn.Linear(4, 3)), dim=0)
g0, v = wn.parametrizations.weight.original0, wn.parametrizations.weight.original1
print("wn_shapes", tuple(g0.shape), tuple(v.shape), torch.allclose(g0.flatten(), v.norm(dim=1)))
out_before = wn(x[:, :4])
P.remove_parametrizations(wn, "weight")
print("wn_removed", P.is_parametrized(wn), type(wn.weight).__name__, torch.allclose(out_before, wn(x[:, :4])))

# pruning
net = det(nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3)))
prune.l1_unstructured(net[0], name="weight", amount=0.4)
mask = net[0].weight_mask
print("l1", int(mask.sum().item()), mask.numel(), sorted(n for n, _ in net[0].named_parameters()))
print("l1_buffers", sorted(n for n, _ in net[0].named_buffers()), prune.is_pruned(net))
kept = net[0].weight_orig.detach().abs()[mask.bool()].min().item()
dropped = net[0].weight_orig.detach().abs()[~mask.bool()].max().item()
print("l1_order", kept >= dropped, torch.equal(net[0].weight, net[0].weight_orig * mask))
prune.ln_structured(net[2], name="weight", amount=1, n=2, dim=0)
print("ln_structured", net[2].weight_mask.sum(dim=1).tolist())
hooks = list(net[0]._forward_pre_hooks.values())
print("prune_hook", type(hooks[0]).__name__, hooks[0]._tensor_name, hooks[0].amount)
prune.remove(net[0], "weight")
print("removed", sorted(n for n, _ in net[0].named_parameters()), int((net[0].weight == 0).sum().item()))
net2 = det(nn.Sequential(nn.Linear(6, 5), nn.Linear(5, 3)))
params = [(net2[0], "weight"), (net2[1], "weight")]
prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=12)
zeros = [int((m.weight == 0).sum().item()) for m, _ in params]
print("global", sum(zeros), zeros)
try:
    prune.l1_unstructured(nn.Linear(2, 2), name="weight", amount=1.5)
except ValueError as e:
    print("amount_err", str(e))
try:
    prune.remove(nn.Linear(2, 2), "weight")
except ValueError as e:
    print("remove_err", str(e))

# conv-bn fusion
conv = det(nn.Conv2d(2, 3, 3, padding=1))
bn = nn.BatchNorm2d(3)
with torch.no_grad():
    bn.running_mean.copy_(T(3) * 0.1)
    bn.running_var.copy_(T(3).abs() + 0.5)
    bn.weight.copy_(T(3))
    bn.bias.copy_(T(3))
conv.eval(), bn.eval()
img = T(1, 2, 5, 5)
fused = torch.nn.utils.fuse_conv_bn_eval(conv, bn)
print("fused", torch.allclose(fused(img), bn(conv(img)), atol=1e-5), fused.bias is not None, fused.training)
lin_f = torch.nn.utils.fusion.fuse_linear_bn_eval(det(nn.Linear(4, 3)).eval(), nn.BatchNorm1d(3).eval())
print("fused_linear", type(lin_f).__name__, tuple(lin_f.weight.shape))
try:
    torch.nn.utils.fuse_conv_bn_eval(conv.train(), bn)
except AssertionError as e:
    print("fuse_train", type(e).__name__, str(e))


# functional_call with tied weights
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 3)
        self.out = nn.Linear(3, 5, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, idx):
        return self.out(self.emb(idx))


tied = det(Tied())
idx = torch.tensor([0, 3, 4])
newW = T(5, 3)
y1 = functional_call(tied, {"emb.weight": newW}, (idx,))
print("tied", torch.allclose(y1, (newW[idx]) @ newW.T), list(dict(tied.named_parameters()).keys()))
y2 = functional_call(tied, {"emb.weight": newW}, (idx,), tie_weights=False)
print("untied", torch.allclose(y2, newW[idx] @ tied.emb.weight.detach().T, atol=1e-6))
try:
    functional_call(tied, {"emb.weight": newW, "out.weight": T(5, 3)}, (idx,))
except ValueError as e:
    print("tied_err", str(e)[:80])

# gradient clipping and vectorising
m = det(nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2)))
m(T(6, 4)).pow(2).sum().backward()
grads_before = torch.nn.utils.parameters_to_vector([p.grad for p in m.parameters()])
for foreach in (None, True, False):
    gs = [p.grad.clone() for p in m.parameters()]
    total = torch.nn.utils.clip_grad_norm_(m.parameters(), max_norm=1.0, foreach=foreach)
    after = torch.nn.utils.get_total_norm([p.grad for p in m.parameters()])
    print("clip", foreach, round(total.item(), 4), round(after.item(), 4), round(grads_before.norm().item(), 4))
    for p, g in zip(m.parameters(), gs):
        p.grad.copy_(g)
inf_total = torch.nn.utils.clip_grad_norm_(m.parameters(), max_norm=2.0, norm_type="inf")
print("clip_inf", round(inf_total.item(), 4), round(max(p.grad.abs().max().item() for p in m.parameters()), 4))
m[0].bias.grad[0] = float("nan")
try:
    torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("nonfinite", str(e).split(".")[0])
m.zero_grad()
m(T(2, 4)).sum().backward()
torch.nn.utils.clip_grad_value_(m.parameters(), clip_value=0.1)
print("clip_value", round(max(p.grad.abs().max().item() for p in m.parameters()), 4))
vec = torch.nn.utils.parameters_to_vector(m.parameters())
print("p2v", tuple(vec.shape), r(vec, 4))
torch.nn.utils.vector_to_parameters(torch.arange(vec.numel(), dtype=torch.float32), m.parameters())
print("v2p", r(m[0].weight, 5), r(m[1].bias))
try:
    torch.nn.utils.vector_to_parameters(torch.zeros(3), m.parameters())
except RuntimeError as e:
    print("v2p_err", type(e).__name__)
