"""TD-MPC2-style latent planning: SimNorm latents, Mish/LayerNorm MLPs, a Q-ensemble through
torch.func.stack_module_state + vmap + functional_call, and MPPI with topk elites and softmax-weighted updates."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap
import copy

torch.manual_seed(0)
torch.set_printoptions(precision=4)
Z, A, H, N, E, K = 8, 2, 3, 32, 4, 6  # latent, actions, horizon, samples, ensemble, elites


def simnorm(x, v=4):
    shape = x.shape
    x = x.view(*shape[:-1], -1, v)
    return F.softmax(x, dim=-1).view(shape)


def mlp(i, o, act=None):
    layers = [nn.Linear(i, 16), nn.LayerNorm(16), nn.Mish(), nn.Linear(16, o)]
    return nn.Sequential(*layers, act) if act is not None else nn.Sequential(*layers)


class SimNorm(nn.Module):
    def forward(self, x):
        return simnorm(x)

    def __repr__(self):
        return "SimNorm(dim=4)"


dynamics = mlp(Z + A, Z, SimNorm())
reward = mlp(Z + A, 1)
qs = [mlp(Z + A, 1) for _ in range(E)]
print(dynamics)
params, buffers = stack_module_state(qs)
print(sorted(params.keys())[:3], params["0.weight"].shape, params["0.weight"].requires_grad, len(buffers))
base = copy.deepcopy(qs[0]).to("meta")
print(base[0].weight.device, base[0].weight.shape)


def q_fn(p, b, x):
    return functional_call(base, (p, b), (x,))


z0 = simnorm(torch.randn(1, Z))
print(z0.view(2, 4).sum(-1).round(decimals=4), z0.shape)
za = torch.cat([z0.expand(5, Z), torch.rand(5, A) * 2 - 1], -1)
q_all = vmap(q_fn, in_dims=(0, 0, None))(params, buffers, za)
print(q_all.shape, torch.allclose(q_all[2], qs[2](za), atol=1e-6))
q_min = q_all[torch.randperm(E)[:2]].min(0).values
print(q_min.shape)


@torch.no_grad()
def plan(z, iters=3, temperature=0.5, min_std=0.05):
    mean, std = torch.zeros(H, A), torch.full((H, A), 2.0)
    for it in range(iters):
        actions = (mean.unsqueeze(1) + std.unsqueeze(1) * torch.randn(H, N, A)).clamp(-1, 1)
        zz, G, disc = z.expand(N, Z), torch.zeros(N, 1), 1.0
        for t in range(H):
            inp = torch.cat([zz, actions[t]], -1)
            G = G + disc * reward(inp)
            zz = dynamics(inp)
            disc *= 0.99
        value = G + disc * vmap(q_fn, in_dims=(0, 0, None))(params, buffers, torch.cat([zz, actions[-1]], -1)).mean(0)
        value = value.nan_to_num(0.0)
        elite_idx = torch.topk(value.squeeze(1), K, dim=0).indices
        elite_value, elite_actions = value[elite_idx], actions[:, elite_idx]
        max_value = elite_value.max(0).values
        score = torch.exp(temperature * (elite_value - max_value))
        score = score / score.sum(0)
        mean = (score.unsqueeze(0) * elite_actions).sum(dim=1) / (score.sum(0) + 1e-9)
        std = (
            (score.unsqueeze(0) * (elite_actions - mean.unsqueeze(1)) ** 2).sum(dim=1) / (score.sum(0) + 1e-9)
        ).sqrt()
        std = std.clamp(min_std, 2.0)
        print(it, elite_idx.shape, score.shape, round(score.max().item(), 4), mean[0], std.shape)
    return mean[0], score


a, score = plan(z0)
print(a.requires_grad, score.requires_grad, torch.is_grad_enabled())
# gumbel-style sampling of one elite by its score
print(torch.multinomial(score.squeeze(1), 1, generator=torch.Generator().manual_seed(5)))
vals, idx = torch.topk(torch.tensor([1.0, 3.0, 3.0, 2.0, float("nan")]), 3)
print(vals, idx)
print(torch.topk(torch.tensor([[1, 5, 2], [7, 0, 7]]), 2, largest=False, sorted=True))
try:
    torch.topk(torch.randn(3), 4)
except Exception as e:
    print(type(e).__name__, e)

# training the ensemble with a vmapped loss and gradient flowing into stacked params
target = torch.randn(5, 1)
pred = vmap(q_fn, in_dims=(0, 0, None))(params, buffers, za)
loss = F.mse_loss(pred, target.expand(E, 5, 1), reduction="none").mean((1, 2)).sum()
loss.backward()
print(params["3.bias"].grad.shape, params["0.weight"].grad.abs().sum() > 0, qs[0][0].weight.grad)
print(F.mish(torch.tensor([-20.0, -1.0, 0.0, 1.0, 20.0])), nn.Mish(inplace=True))
print(nn.LayerNorm(16, elementwise_affine=False, bias=False), nn.LayerNorm(16, bias=False).state_dict().keys())
