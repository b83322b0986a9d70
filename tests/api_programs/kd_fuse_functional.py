"""Deployment-time compression steps: conv/linear-BN folding, functional_call with swapped weights, clipping."""

import torch

nn = torch.nn
F = torch.nn.functional
from torch.func import functional_call  # noqa: E402

torch.manual_seed(0)
conv = nn.Conv2d(2, 3, 3, bias=False)
bn = nn.BatchNorm2d(3)
with torch.no_grad():
    bn.running_mean.copy_(torch.tensor([0.5, -0.2, 0.1]))
    bn.running_var.copy_(torch.tensor([2.0, 0.5, 1.5]))
    bn.weight.copy_(torch.tensor([1.5, 0.8, 1.0]))
    bn.bias.copy_(torch.tensor([0.1, 0.0, -0.3]))
conv.eval()
bn.eval()
x = torch.randn(2, 2, 5, 5)
fused = nn.utils.fuse_conv_bn_eval(conv, bn)
print(type(fused).__name__, fused.bias is not None, round((fused(x) - bn(conv(x))).abs().max().item(), 4))
print("fused bias", fused.bias.round(decimals=4).tolist(), type(fused.weight).__name__, fused.weight.requires_grad)
w, b = nn.utils.fuse_conv_bn_weights(
    conv.weight, conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
)
print(type(w).__name__, round(w.sum().item(), 4), b.round(decimals=4).tolist())
lin, bn1 = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
bn1.running_var.fill_(4.0)
fl = nn.utils.fuse_linear_bn_eval(lin, bn1)
xl = torch.randn(5, 3)
print(type(fl).__name__, round((fl(xl) - bn1(lin(xl))).abs().max().item(), 4))
convT = nn.ConvTranspose2d(3, 2, 3).eval()
bnT = nn.BatchNorm2d(2).eval()
fT = nn.utils.fuse_conv_bn_eval(convT, bnT, transpose=True)
print(
    "transpose",
    round((fT(x[:, :1].repeat(1, 3, 1, 1)) - bnT(convT(x[:, :1].repeat(1, 3, 1, 1)))).abs().max().item(), 4),
)
try:
    nn.utils.fuse_conv_bn_eval(conv.train(), bn)
except Exception as e:
    print(type(e).__name__, e)

# functional_call: run a model with other weights without touching it
model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
params = {"0.weight": torch.eye(2), "0.bias": torch.zeros(2)}
out = functional_call(model, params, (torch.tensor([[1.0, -1.0]]),))
print(round(out.item(), 4), torch.equal(model[0].weight, torch.eye(2)))
lin2 = nn.Linear(2, 2)
print(functional_call(lin2, {"weight": torch.eye(2), "bias": torch.zeros(2)}, torch.ones(1, 2)).tolist())
print(functional_call(lin2, ({"weight": torch.eye(2)}, {"bias": torch.ones(2)}), (torch.ones(1, 2),)).tolist())
print(functional_call(lin2, {"weight": torch.eye(2)}, (torch.ones(1, 2),), {}).shape)
for bad in [
    dict(parameter_and_buffer_dicts={"weight": torch.eye(2)}, strict=True),
    dict(
        parameter_and_buffer_dicts={"weight": torch.eye(2), "bias": torch.zeros(2), "foo": torch.ones(1)}, strict=True
    ),
    dict(parameter_and_buffer_dicts=({"weight": torch.eye(2)}, {"weight": torch.ones(2, 2)})),
]:
    try:
        functional_call(lin2, args=(torch.ones(1, 2),), **bad)
    except Exception as e:
        print(type(e).__name__, e)
emb = nn.Embedding(5, 3)
tied = nn.Sequential(emb, nn.Linear(3, 5, bias=False))
tied[1].weight = emb.weight
ids = torch.tensor([1])
print(functional_call(tied, {"0.weight": torch.ones(5, 3)}, (ids,), tie_weights=True).tolist())
print(functional_call(tied, {"0.weight": torch.ones(5, 3)}, (ids,), tie_weights=False).sum().item() != 15.0)
# gradients through functional_call reach the given tensors, not the module
wt = torch.eye(2, requires_grad=True)
functional_call(lin2, {"weight": wt}, (torch.ones(3, 2),)).sum().backward()
print(wt.grad.tolist(), lin2.weight.grad)

# gradient clipping as fine-tuning loops call it
ps = [nn.Parameter(torch.ones(3)) for _ in range(2)]
for p in ps:
    p.grad = torch.full((3,), 2.0)
print(
    round(nn.utils.clip_grad_norm_(ps, 1.0, norm_type=2.0, foreach=True).item(), 4),
    ps[0].grad.round(decimals=4).tolist(),
)
ps[0].grad = torch.full((3,), 2.0)
print(round(nn.utils.clip_grad_norm_(ps, 1.0, norm_type="inf").item(), 4), ps[0].grad.round(decimals=4).tolist())
ps[0].grad[0] = float("inf")
try:
    nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, e)
print(nn.utils.get_total_norm([p.grad for p in ps], norm_type="inf"))
nn.utils.clip_grad_value_(ps, 0.1)
print(ps[1].grad.tolist(), ps[0].grad.tolist())
