"""Managing the frozen reference and EMA copies of a policy as RLHF trainers do: deepcopy then eval and
requires_grad_(False), checks that no reference grad appears, TR-DPO soft updates with lerp_ and the
torch._foreach_* family, hard syncs with load_state_dict and copy_ under no_grad, parameters_to_vector distances,
functional_call with a detached parameter dict as a reference forward, and the in-place-on-leaf mistakes."""

import copy

import torch
import torch.nn as nn
from torch.func import functional_call
from torch.nn.utils import parameters_to_vector, vector_to_parameters

torch.manual_seed(0)


def make():
    return nn.Sequential(nn.Embedding(7, 8), nn.LayerNorm(8), nn.Linear(8, 7))


policy = make()
ref = copy.deepcopy(policy).eval().requires_grad_(False)
print("ref training:", ref.training, "policy training:", policy.training)
print("ref requires_grad:", {n: p.requires_grad for n, p in ref.named_parameters()})
print("is leaf:", all(p.is_leaf for p in ref.parameters()), "grad None:", all(p.grad is None for p in ref.parameters()))


def dist():
    return round((parameters_to_vector(policy.parameters()) - parameters_to_vector(ref.parameters())).norm().item(), 4)


opt = torch.optim.SGD(policy.parameters(), lr=0.5)
ids = torch.tensor([[1, 2, 3], [4, 5, 6]])
for step in range(3):
    with torch.no_grad():
        ref_out = ref(ids)
    out = policy(ids)
    loss = (out - ref_out).pow(2).mean() + out.logsumexp(-1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f} dist {dist()} ref grads {[p.grad for p in ref.parameters()][:1]}")

alpha = 0.6
with torch.no_grad():
    for rp, pp in zip(ref.parameters(), policy.parameters()):
        rp.mul_(1 - alpha).add_(pp, alpha=alpha)
print("after mixup:", dist())
with torch.no_grad():
    for rp, pp in zip(ref.parameters(), policy.parameters()):
        rp.lerp_(pp, 0.5)
print("after lerp_:", dist())
rps, pps = list(ref.parameters()), list(policy.parameters())
with torch.no_grad():
    torch._foreach_lerp_(rps, pps, 0.5)
print("after _foreach_lerp_:", dist())
with torch.no_grad():
    torch._foreach_mul_(rps, 0.9)
    torch._foreach_add_(rps, pps, alpha=0.1)
print("after _foreach_mul_/_add_:", dist())
norms = torch._foreach_norm([p.grad for p in pps])
print("grad norms:", [round(n.item(), 4) for n in norms], round(torch.linalg.vector_norm(torch.stack(norms)).item(), 4))
print("total via clip:", round(nn.utils.clip_grad_norm_(pps, float("inf")).item(), 4))

ref.load_state_dict(policy.state_dict())
print("after hard sync:", dist(), "still frozen:", not any(p.requires_grad for p in ref.parameters()))
ema = copy.deepcopy(policy)
with torch.no_grad():
    for e, p in zip(ema.parameters(), policy.parameters()):
        e.copy_(p * 0.0 + 1.0)
vec = parameters_to_vector(ema.parameters())
print("vec:", tuple(vec.shape), vec.sum().item())
vector_to_parameters(parameters_to_vector(policy.parameters()), ema.parameters())
print(
    "round trip equal:", torch.equal(parameters_to_vector(ema.parameters()), parameters_to_vector(policy.parameters()))
)

params = {k: v.detach() for k, v in policy.named_parameters()}
with torch.no_grad():
    fc = functional_call(policy, params, (ids,))
print("functional_call == module:", torch.allclose(fc, policy(ids)), fc.requires_grad)
sd = {k: v.clone() for k, v in policy.state_dict().items()}
sd["2.bias"] += 1
print("shifted bias effect:", round((functional_call(policy, sd, ids) - policy(ids)).mean().item(), 4))

for bad in [
    lambda: next(policy.parameters()).mul_(2),
    lambda: ref(ids).sum().backward(),
    lambda: torch._foreach_lerp_(rps, pps[:2], 0.5),
    lambda: vector_to_parameters(vec[:-1], ema.parameters()),
    lambda: parameters_to_vector([torch.ones(2), torch.ones(2, dtype=torch.float64)]),
]:
    try:
        bad()
        print("ok")
    except Exception as e:
        print(type(e).__name__, e)
