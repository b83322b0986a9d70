"""GShard-style top-2 gating with expert capacity: dispatch and combine tensors built from cumsum positions and
one_hot over the capacity axis, einsum dispatch "sec,sm->ecm", experts as 3-D weights run by bmm/baddbmm, the
GShard auxiliary loss (mean gates times mean assignments), and the one_hot misuse PyTorch rejects."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
S, M, E, H = 12, 6, 4, 8          # tokens, model dim, experts, expert hidden
capacity_factor = 0.75
capacity = math.ceil(2 * capacity_factor * S / E)
print("capacity:", capacity)

grid = torch.arange(S * M, dtype=torch.float32).view(S, M)
x = torch.sin(grid * 0.37) + torch.cos(grid * 1.3)
wg = torch.cos(torch.arange(M * E, dtype=torch.float32).view(M, E) * 0.53)
w_in = torch.cos(torch.arange(E * M * H, dtype=torch.float32).view(E, M, H) * 0.11) * 0.3
b_in = torch.linspace(-0.2, 0.2, E * H).view(E, 1, H)
w_out = torch.sin(torch.arange(E * H * M, dtype=torch.float32).view(E, H, M) * 0.07) * 0.3

logits = x @ wg
gates = F.softmax(logits, dim=1)
index_1 = torch.argmax(gates, dim=1)
mask1 = F.one_hot(index_1, num_classes=E)
logits_except1 = logits.masked_fill(mask1.bool(), float("-inf"))
index_2 = torch.argmax(logits_except1, dim=1)
mask2 = F.one_hot(index_2, num_classes=E)
print("top1:", index_1.tolist())
print("top2:", index_2.tolist())

# GShard aux loss: mean gate prob per expert times fraction of tokens whose first choice is that expert
me = torch.mean(gates, dim=0)
ce = torch.mean(mask1.float(), dim=0)
l_aux = torch.mean(me * ce) * E * E
print("l_aux:", round(l_aux.item(), 4), "ce:", ce.tolist())

locations1 = torch.cumsum(mask1, dim=0) - 1
locations2 = torch.cumsum(mask2, dim=0) - 1
locations2 += torch.sum(mask1, dim=0, keepdim=True)
print("locations dtype:", locations1.dtype, "second-choice offsets:", torch.sum(mask1, dim=0).tolist())
mask1 = mask1 * torch.lt(locations1, capacity)
mask2 = mask2 * torch.lt(locations2, capacity)
print("kept first:", mask1.sum().item(), "kept second:", mask2.sum().item())

locations1_s = torch.sum(locations1 * mask1, dim=1)
locations2_s = torch.sum(locations2 * mask2, dim=1)
mask1_float = mask1.to(gates.dtype)
mask2_float = mask2.to(gates.dtype)
gates1_s = torch.einsum("se,se->s", gates, mask1_float)
gates2_s = torch.einsum("se,se->s", gates, mask2_float)
denom_s = torch.clamp(gates1_s + gates2_s, min=torch.finfo(gates.dtype).eps)
gates1_s, gates2_s = gates1_s / denom_s, gates2_s / denom_s
gates1 = torch.einsum("s,se->se", gates1_s, mask1_float)
gates2 = torch.einsum("s,se->se", gates2_s, mask2_float)
locations1_sc = F.one_hot(locations1_s, num_classes=capacity).to(gates.dtype)
locations2_sc = F.one_hot(locations2_s, num_classes=capacity).to(gates.dtype)
combine1_sec = torch.einsum("se,sc->sec", gates1, locations1_sc)
combine2_sec = torch.einsum("se,sc->sec", gates2, locations2_sc)
combine_weights = combine1_sec + combine2_sec
dispatch_mask = combine_weights.bool()
print("combine:", tuple(combine_weights.shape), "slots used:", dispatch_mask.sum().item())
print("slots per expert:", dispatch_mask.sum(dim=(0, 2)).tolist())
print("dropped tokens:", (~dispatch_mask.any(-1).any(-1)).nonzero().flatten().tolist())

dispatched = torch.einsum("sec,sm->ecm", dispatch_mask.to(x.dtype), x)
print("dispatched:", tuple(dispatched.shape), round(dispatched.sum().item(), 4))
h = torch.baddbmm(b_in, dispatched, w_in)
h = F.gelu(h, approximate="tanh")
expert_out = torch.bmm(h, w_out)
print("expert out:", tuple(expert_out.shape), expert_out[1, 0].round(decimals=4).tolist())
y = torch.einsum("sec,ecm->sm", combine_weights, expert_out)
print("y[:3]:", y[:3].round(decimals=4).tolist())

# dense check: every expert on every token, weighted by combine weights summed over capacity
dense = torch.bmm(F.gelu(torch.baddbmm(b_in, x.expand(E, S, M), w_in), approximate="tanh"), w_out)
ref = torch.einsum("se,esm->sm", combine_weights.sum(-1), dense)
print("matches dense:", torch.allclose(y, ref, atol=1e-5))

try:
    F.one_hot(torch.tensor([0, 3, 5]), num_classes=4)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([0, -1]), num_classes=4)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.one_hot(torch.tensor([0.0, 1.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.baddbmm(b_in, dispatched, w_in.transpose(1, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("sec,sm->ecm", dispatch_mask, x)
except Exception as e:
    print(type(e).__name__, e)
