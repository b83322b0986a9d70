"""Optimizers written from scratch as papers release them: a Lion subclass of torch.optim.Optimizer (defaults,
per-group options, lazily created state, closure support, @torch.no_grad step), a LARS wrapper-style optimizer with a
trust ratio and exclusion of biases, and a Lookahead wrapper holding an inner optimizer; their reprs, state_dicts,
load_state_dict round trips, add_param_group with defaults filled in, and the base class's errors."""

import torch
from torch import nn
from torch.optim import Optimizer

torch.manual_seed(0)
torch.set_printoptions(precision=4)


class Lion(Optimizer):
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not all(0.0 <= b < 1.0 for b in betas):
            raise ValueError(f"Invalid betas: {betas}")
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

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
                    state["exp_avg"] = torch.zeros_like(p)
                exp_avg = state["exp_avg"]
                p.mul_(1 - group["lr"] * group["weight_decay"])
                update = exp_avg.mul(beta1).add(p.grad, alpha=1 - beta1).sign_()
                p.add_(update, alpha=-group["lr"])
                exp_avg.mul_(beta2).add_(p.grad, alpha=1 - beta2)
        return loss


class LARS(Optimizer):
    def __init__(self, params, lr=0.1, momentum=0.9, weight_decay=1e-4, trust_coefficient=0.001):
        defaults = dict(lr=lr, momentum=momentum, weight_decay=weight_decay, trust_coefficient=trust_coefficient,
                        lars_exclude=False)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                if not group["lars_exclude"]:
                    d_p = d_p.add(p, alpha=group["weight_decay"])
                    p_norm, g_norm = torch.norm(p), torch.norm(d_p)
                    q = torch.where(p_norm > 0.0,
                                    torch.where(g_norm > 0, group["trust_coefficient"] * p_norm / g_norm, 1.0), 1.0)
                    d_p = d_p.mul(q)
                state = self.state[p]
                if "mu" not in state:
                    state["mu"] = torch.zeros_like(p)
                mu = state["mu"]
                mu.mul_(group["momentum"]).add_(d_p)
                p.add_(mu, alpha=-group["lr"])


class Lookahead:
    """A wrapper, not an Optimizer subclass: it shares the inner optimizer's groups and state."""

    def __init__(self, base, k=3, alpha=0.5):
        self.base = base
        self.k, self.alpha = k, alpha
        self.param_groups = base.param_groups
        self.defaults = base.defaults
        self.state = base.state
        self._slow = [[p.detach().clone() for p in g["params"]] for g in self.param_groups]
        self._count = 0

    def step(self, closure=None):
        loss = self.base.step(closure)
        self._count += 1
        if self._count % self.k == 0:
            with torch.no_grad():
                for group, slow in zip(self.param_groups, self._slow):
                    for p, s in zip(group["params"], slow):
                        s.add_(p - s, alpha=self.alpha)
                        p.copy_(s)
        return loss

    def zero_grad(self, set_to_none=True):
        self.base.zero_grad(set_to_none)

    def state_dict(self):
        return {"base": self.base.state_dict(), "slow": self._slow, "count": self._count}


X = torch.randn(32, 5)
y = (X @ torch.tensor([1.0, -1.0, 2.0, 0.0, 0.5]) > 0).long()


def model():
    torch.manual_seed(4)
    return nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2))


def train(net, opt, steps=6, closure=False):
    out = []
    for _ in range(steps):
        def fn():
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(X), y)
            loss.backward()
            return loss
        if closure:
            out.append(round(opt.step(fn).item(), 4))
        else:
            loss = fn()
            opt.step()
            out.append(round(loss.item(), 4))
    return out


net = model()
lion = Lion([{"params": net[0].parameters(), "weight_decay": 0.1}, {"params": net[2].parameters()}], lr=1e-2)
print(lion)
print("lion losses:", train(net, lion, closure=True))
print("lion state:", {k: tuple(v.shape) for k, v in lion.state[net[0].weight].items()})
print("weights:", net[2].weight.detach()[0])
sd = lion.state_dict()
print("sd groups:", [{k: v for k, v in g.items() if k != "params"} for g in sd["param_groups"]])
net2 = model()
lion2 = Lion(net2.parameters(), lr=5.0)
try:
    lion2.load_state_dict(sd)
except ValueError as e:
    print("ValueError:", e)
lion2 = Lion([{"params": net2[0].parameters()}, {"params": net2[2].parameters()}])
lion2.load_state_dict(sd)
print("loaded lr/wd:", [(g["lr"], g["weight_decay"]) for g in lion2.param_groups],
      torch.equal(lion2.state[net2[0].weight]["exp_avg"], lion.state[net[0].weight]["exp_avg"]))

net = model()
biases = [p for n, p in net.named_parameters() if n.endswith("bias")]
weights = [p for n, p in net.named_parameters() if not n.endswith("bias")]
lars = LARS([{"params": weights}, {"params": biases, "lars_exclude": True, "weight_decay": 0.0}], lr=0.5)
print("lars losses:", train(net, lars))
print("lars groups:", [(g["lars_exclude"], g["weight_decay"]) for g in lars.param_groups])
print("lars mu[0]:", lars.state[weights[0]]["mu"][0, :4])

net = model()
la = Lookahead(torch.optim.SGD(net.parameters(), lr=0.5, momentum=0.9), k=3, alpha=0.5)
print("lookahead losses:", train(net, la, steps=7))
print("lookahead slow == fast after sync:", torch.equal(la._slow[0][0], net[0].weight) is False,
      la._count)
print("inner state keys:", sorted(la.base.state_dict()["state"][0]), sorted(la.state_dict()))
print("shared groups:", la.param_groups is la.base.param_groups, "slow head:", la._slow[0][2][0])

# add_param_group fills in the defaults
extra = nn.Parameter(torch.zeros(3))
lion.add_param_group({"params": extra, "lr": 0.5})
print("added group:", {k: v for k, v in lion.param_groups[-1].items() if k != "params"})

# base-class errors
try:
    Lion([], lr=0.1)
except ValueError as e:
    print("ValueError:", e)
try:
    Lion(torch.zeros(3, requires_grad=True))
except TypeError as e:
    print("TypeError:", str(e)[:80])
try:
    Lion([torch.zeros(2, 2).t().requires_grad_().exp()])
except ValueError as e:
    print("ValueError:", e)
try:
    Lion({nn.Parameter(torch.zeros(1))})
except TypeError as e:
    print("TypeError:", str(e)[:70])
try:
    Lion([nn.Parameter(torch.zeros(1))], lr=-1.0)
except ValueError as e:
    print("ValueError:", e)


class NoStep(Optimizer):
    pass


try:
    NoStep([nn.Parameter(torch.zeros(1))], {"lr": 0.1}).step()
except NotImplementedError as e:
    print("NotImplementedError:", repr(e))
print(NoStep([nn.Parameter(torch.zeros(1))], {"lr": 0.1}))
