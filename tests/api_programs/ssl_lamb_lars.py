"""Large-batch optimizers as SSL codebases hand-write them: LAMB (Adam moments with bias correction, the
trust ratio ||w||/||update|| through torch.where, a tensor step in state), LARS with the exclusion of biases and
norm weights decided by a callable in the param group, _foreach versions of the moment updates, add_param_group,
state_dict()/load_state_dict() with tensor states, step hooks, and the optimizer base class's errors."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class LAMB(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0, clamp_value=10.0):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, clamp_value=clamp_value)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.0)
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                state["step"] += 1
                step = state["step"].item()
                state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                m_hat = state["exp_avg"] / (1 - beta1**step)
                v_hat = state["exp_avg_sq"] / (1 - beta2**step)
                update = m_hat / v_hat.sqrt().add(group["eps"])
                if group["weight_decay"] != 0:
                    update.add_(p, alpha=group["weight_decay"])
                w_norm = p.norm(p=2).clamp(0, group["clamp_value"])
                u_norm = torch.linalg.vector_norm(update)
                trust = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, torch.ones_like(w_norm))
                state["trust_ratio"] = trust
                p.add_(update, alpha=-group["lr"] * trust.item())
        return loss


class LARS(torch.optim.Optimizer):
    def __init__(
        self,
        params,
        lr,
        weight_decay=0,
        momentum=0.9,
        trust_coefficient=0.001,
        weight_decay_filter=None,
        lars_adaptation_filter=None,
    ):
        defaults = dict(
            lr=lr,
            weight_decay=weight_decay,
            momentum=momentum,
            trust_coefficient=trust_coefficient,
            weight_decay_filter=weight_decay_filter,
            lars_adaptation_filter=lars_adaptation_filter,
        )
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            for p in g["params"]:
                dp = p.grad
                if dp is None:
                    continue
                if g["weight_decay_filter"] is None or not g["weight_decay_filter"](p):
                    dp = dp.add(p, alpha=g["weight_decay"])
                if g["lars_adaptation_filter"] is None or not g["lars_adaptation_filter"](p):
                    param_norm, update_norm = torch.norm(p), torch.norm(dp)
                    one = torch.ones_like(param_norm)
                    q = torch.where(
                        param_norm > 0.0,
                        torch.where(update_norm > 0, (g["trust_coefficient"] * param_norm / update_norm), one),
                        one,
                    )
                    dp = dp.mul(q)
                param_state = self.state[p]
                if "mu" not in param_state:
                    param_state["mu"] = torch.zeros_like(p)
                mu = param_state["mu"]
                mu.mul_(g["momentum"]).add_(dp)
                p.add_(mu, alpha=-g["lr"])


def exclude_bias_and_norm(p):
    return p.ndim == 1


model = nn.Sequential(nn.Linear(6, 8), nn.LayerNorm(8), nn.ReLU(), nn.Linear(8, 3))
x, y = torch.randn(32, 6), torch.randint(0, 3, (32,))
lamb = LAMB(model.parameters(), lr=0.02, weight_decay=0.01)
print(lamb)
hits = []
h = lamb.register_step_post_hook(lambda opt, args, kwargs: hits.append(len(opt.state)))
for it in range(3):
    loss = lamb.step(
        lambda: (lamb.zero_grad(), F.cross_entropy(model(x), y))[1].backward() or F.cross_entropy(model(x), y)
    )
    st = lamb.state[model[0].weight]
    print(
        "lamb",
        it,
        round(loss.item(), 4),
        st["step"],
        round(st["trust_ratio"].item(), 4),
        round(st["exp_avg_sq"].sum().item() * 1e3, 4),
    )
h.remove()
print("hooks", hits)
sd = lamb.state_dict()
print(sorted(sd["state"][0]), sd["param_groups"][0]["params"], sd["param_groups"][0]["betas"])
lamb2 = LAMB(model.parameters())
lamb2.load_state_dict(sd)
print(
    "loaded",
    lamb2.param_groups[0]["lr"],
    lamb2.state[model[0].weight]["step"].dtype,
    torch.equal(lamb2.state[model[3].bias]["exp_avg"], lamb.state[model[3].bias]["exp_avg"]),
)

lars = LARS(
    model.parameters(),
    lr=0.2,
    weight_decay=1e-6,
    weight_decay_filter=exclude_bias_and_norm,
    lars_adaptation_filter=exclude_bias_and_norm,
)
for it in range(2):
    lars.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    lars.step()
    print(
        "lars",
        it,
        round(loss.item(), 4),
        round(lars.state[model[0].weight]["mu"].norm().item(), 5),
        round(lars.state[model[1].weight]["mu"].norm().item(), 4),
    )
extra = nn.Parameter(torch.ones(3))
lars.add_param_group({"params": [extra], "lr": 0.01})
print("groups", len(lars.param_groups), lars.param_groups[1]["momentum"], lars.param_groups[1]["lr"])

# _foreach moment updates over a param list
params = [p for p in model.parameters()]
grads = [torch.ones_like(p) * 0.1 for p in params]
m = [torch.zeros_like(p) for p in params]
v = [torch.zeros_like(p) for p in params]
torch._foreach_mul_(m, 0.9)
torch._foreach_add_(m, grads, alpha=0.1)
torch._foreach_mul_(v, 0.999)
torch._foreach_addcmul_(v, grads, grads, value=0.001)
denom = torch._foreach_sqrt(v)
torch._foreach_add_(denom, 1e-8)
upd = torch._foreach_div(m, denom)
print(
    "foreach",
    [round(u.mean().item(), 4) for u in upd][:3],
    [round(n.item(), 4) for n in torch._foreach_norm(upd, 2)][:2],
)
maxes = torch._foreach_maximum(upd, 0.4)
print("max", round(maxes[0].max().item(), 4), torch._foreach_clamp_max(upd, 0.2)[1].max().item())

for fn in [
    lambda: LAMB(model.parameters(), lr=-1),
    lambda: lars.add_param_group({"params": [extra]}),
    lambda: LAMB([]),
    lambda: LAMB(torch.ones(3, requires_grad=True)),
    lambda: lamb.load_state_dict({"state": {}, "param_groups": []}),
    lambda: torch._foreach_add_(m, grads[:2]),
]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, e)
