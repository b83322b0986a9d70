"""Online EWC as continual-learning papers write it: a diagonal Fisher from squared gradients (autograd.grad per
sample and per batch), means kept as registered buffers, per-parameter penalties over named_parameters dicts,
decayed Fisher accumulation across tasks, and the mistakes autograd.grad rejects."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 10), nn.Tanh(), nn.Linear(10, 4))

    def forward(self, x):
        return self.body(x)


class OnlineEWC(nn.Module):
    """Keeps anchor weights and a decayed Fisher as buffers so they follow .to() and state_dict()."""

    def __init__(self, model, gamma=0.9):
        super().__init__()
        self.gamma = gamma
        self.names = [n for n, p in model.named_parameters() if p.requires_grad]
        for n, p in model.named_parameters():
            key = n.replace(".", "__")
            self.register_buffer(f"mean_{key}", p.detach().clone())
            self.register_buffer(f"fisher_{key}", torch.zeros_like(p))

    def consolidate(self, model, fisher):
        for n, p in model.named_parameters():
            key = n.replace(".", "__")
            getattr(self, f"mean_{key}").copy_(p.detach())
            old = getattr(self, f"fisher_{key}")
            old.mul_(self.gamma).add_(fisher[n])

    def penalty(self, model):
        terms = []
        for n, p in model.named_parameters():
            key = n.replace(".", "__")
            f, m = getattr(self, f"fisher_{key}"), getattr(self, f"mean_{key}")
            terms.append((f * (p - m).pow(2)).sum())
        return torch.stack(terms).sum()


def empirical_fisher(model, x, y, per_sample=True):
    params = dict(model.named_parameters())
    fisher = {n: torch.zeros_like(p) for n, p in params.items()}
    if per_sample:
        for i in range(x.shape[0]):
            loss = F.cross_entropy(model(x[i : i + 1]), y[i : i + 1])
            grads = torch.autograd.grad(loss, list(params.values()))
            for (n, _), g in zip(params.items(), grads):
                fisher[n] += g.detach() ** 2 / x.shape[0]
    else:
        logp = F.log_softmax(model(x), dim=1)
        sampled = logp.gather(1, logp.argmax(1, keepdim=True)).sum()
        grads = torch.autograd.grad(sampled, list(params.values()), retain_graph=False)
        fisher = {n: g.pow(2) / x.shape[0] for n, g in zip(params, grads)}
    return fisher


model = MLP()
ewc = OnlineEWC(model)
print("buffers:", [n for n, _ in ewc.named_buffers()][:4], len(list(ewc.buffers())))
print("state_dict keys:", len(ewc.state_dict()), list(ewc.state_dict())[1])

tasks = []
for t in range(3):
    x = torch.randn(32, 6) + t
    y = (x[:, t] > t).long() + 2 * (x[:, (t + 1) % 6] > t).long()
    tasks.append((x, y))

opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
lam = 50.0
for t, (x, y) in enumerate(tasks):
    for step in range(25):
        opt.zero_grad()
        ce = F.cross_entropy(model(x), y)
        pen = ewc.penalty(model)
        loss = ce + lam / 2 * pen
        loss.backward()
        opt.step()
    print(f"task {t}: ce={ce.item():.4f} pen={pen.item():.4f} grad_fn={loss.grad_fn.name()}")
    fisher = empirical_fisher(model, x, y, per_sample=(t % 2 == 0))
    print("  fisher sums:", {n: round(f.sum().item(), 4) for n, f in fisher.items()})
    ewc.consolidate(model, fisher)
    accs = [round((model(xx).argmax(1) == yy).float().mean().item(), 4) for xx, yy in tasks[: t + 1]]
    print("  accs so far:", accs)

top = torch.cat([ewc.fisher_body__0__weight.flatten(), ewc.fisher_body__2__weight.flatten()])
vals, idx = top.topk(5)
print("top fisher:", vals.round(decimals=4).tolist(), idx.tolist())
print("mean buffer dtype/shape:", ewc.mean_body__2__bias.dtype, tuple(ewc.mean_body__2__bias.shape))
print("fisher norm:", round(torch.linalg.vector_norm(top).item(), 4), top.requires_grad)

x, y = tasks[0]
try:
    torch.autograd.grad(F.cross_entropy(model(x), y), [x])
except Exception as e:
    print(type(e).__name__, e)
try:
    out = model(x).sum()
    torch.autograd.grad(out, list(model.parameters()) + [torch.ones(2, requires_grad=True)])
except Exception as e:
    print(type(e).__name__, e)
out = model(x).sum()
g = torch.autograd.grad(out, list(model.parameters()) + [torch.ones(2, requires_grad=True)], allow_unused=True)
print("allow_unused last:", g[-1], "first shape:", tuple(g[0].shape))
g = torch.autograd.grad(
    model(x).sum(), [torch.ones(2, requires_grad=True)], allow_unused=True, materialize_grads=True
)
print("materialized:", g[0].tolist())
try:
    torch.autograd.grad(model(x), list(model.parameters()))
except Exception as e:
    print(type(e).__name__, e)
try:
    ewc.register_buffer("mean_body__0__weight", torch.zeros(1))
    ewc.register_buffer("a.b", torch.zeros(1))
except Exception as e:
    print(type(e).__name__, e)
try:
    ewc.register_buffer("w", nn.Parameter(torch.zeros(1)) if False else [1.0])
except Exception as e:
    print(type(e).__name__, e)
