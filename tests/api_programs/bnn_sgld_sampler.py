"""Stochastic-gradient Langevin dynamics and preconditioned SGLD as torch.optim.Optimizer subclasses."""
import math

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


class SGLD(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, temperature=1.0, precondition=False, alpha=0.99, eps=1e-5):
        if lr <= 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, temperature=temperature, precondition=precondition, alpha=alpha, eps=eps)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["v"] = torch.zeros_like(p)
                state["step"] += 1
                g = p.grad
                if group["precondition"]:
                    state["v"].mul_(group["alpha"]).addcmul_(g, g, value=1 - group["alpha"])
                    G = 1.0 / (state["v"].sqrt() + group["eps"])
                else:
                    G = torch.ones_like(p)
                noise = torch.randn_like(p) * torch.sqrt(2 * group["lr"] * group["temperature"] * G)
                p.add_(-group["lr"] * G * g + noise)
        return loss


# target: posterior of a Gaussian mean with known variance; exact answer is Normal
torch.manual_seed(0)
data = 1.5 + 0.8 * torch.randn(50)
prior = D.Normal(0.0, 2.0)
n = data.numel()
post_prec = 1 / 4 + n / 0.64
post_mean = (data.sum() / 0.64) / post_prec
print("exact", round(post_mean.item(), 3), round(1 / math.sqrt(post_prec), 3))

for precond in [False, True]:
    theta = nn.Parameter(torch.tensor([0.0]))
    opt = SGLD([theta], lr=1e-3 if not precond else 2e-3, precondition=precond)
    draws = []
    for it in range(3000):
        def closure():
            opt.zero_grad()
            nlp = -(D.Normal(theta, 0.8).log_prob(data).sum() + prior.log_prob(theta).sum())
            nlp.backward()
            return nlp
        loss = opt.step(closure)
        if it >= 1000 and it % 5 == 0:
            draws.append(theta.item())
    draws = torch.tensor(draws)
    print("precond", precond, "mean", round(draws.mean().item(), 1), "std within 50%",
          abs(draws.std().item() / (1 / math.sqrt(post_prec)) - 1) < 0.5, "loss", type(loss).__name__)
    st = opt.state[theta]
    print("state", sorted(st), st["step"], opt.param_groups[0]["precondition"])

print(repr(opt).splitlines()[0], len(repr(opt).splitlines()))
sd = opt.state_dict()
print("state_dict", sorted(sd), sorted(sd["param_groups"][0]))
opt2 = SGLD([nn.Parameter(torch.zeros(1))], lr=0.5)
opt2.load_state_dict(sd)
print("loaded lr", opt2.param_groups[0]["lr"], "step", opt2.state[opt2.param_groups[0]["params"][0]]["step"])
opt.add_param_group({"params": [nn.Parameter(torch.zeros(2))], "lr": 0.1})
print("groups", len(opt.param_groups), opt.param_groups[1]["temperature"], opt.param_groups[1]["lr"])
try:
    opt.add_param_group({"params": [theta]})
except Exception as e:
    print(type(e).__name__, e)
try:
    SGLD([theta], lr=-1)
except Exception as e:
    print(type(e).__name__, e)
try:
    SGLD([], lr=0.1)
except Exception as e:
    print(type(e).__name__, e)

# cyclical step size schedule (cSGMCMC) via LambdaLR on the custom optimizer
net = nn.Linear(2, 1)
o = SGLD(net.parameters(), lr=0.01)
M = 10
sched = torch.optim.lr_scheduler.LambdaLR(o, lambda k: 0.5 * (math.cos(math.pi * (k % M) / M) + 1))
lrs = []
for k in range(12):
    lrs.append(round(o.param_groups[0]["lr"], 5))
    o.step()
    sched.step()
print("cyclical lr", lrs)
print("initial_lr", o.param_groups[0]["initial_lr"], "last_epoch", sched.last_epoch, round(sched.get_last_lr()[0], 5))
# SGD with no noise is the temperature -> 0 limit
torch.manual_seed(1)
w1 = nn.Parameter(torch.tensor([1.0, -1.0]))
w2 = nn.Parameter(torch.tensor([1.0, -1.0]))
cold = SGLD([w1], lr=0.1, temperature=0.0)
sgd = torch.optim.SGD([w2], lr=0.1)
for _ in range(5):
    for w, o_ in [(w1, cold), (w2, sgd)]:
        o_.zero_grad()
        (w ** 2).sum().backward()
        o_.step()
print("cold == sgd", torch.allclose(w1, w2), [round(v, 4) for v in w1.tolist()])
