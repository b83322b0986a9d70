"""PackNet and Piggyback-style parameter isolation: per-task binary masks from magnitude quantiles, pruning through
torch.nn.utils.prune (custom_from_mask, l1_unstructured, global_unstructured, remove), gradients of earlier tasks'
weights zeroed with tensor hooks and post-accumulate-grad hooks, and the masks' bookkeeping."""

import torch
from torch.nn.utils import prune

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

net = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4))
owner = {n: torch.zeros_like(p, dtype=torch.uint8) for n, p in net.named_parameters() if n.endswith("weight")}
print("owner dtypes:", {n: (o.dtype, tuple(o.shape)) for n, o in owner.items()})


def train(x, y, task, steps=20):
    hooks = []
    for n, p in net.named_parameters():
        if n in owner:
            frozen = (owner[n] > 0) & (owner[n] != task)
            hooks.append(p.register_hook(lambda g, m=frozen: g.masked_fill(m, 0.0)))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
    for h in hooks:
        h.remove()
    return loss


def prune_free(task, keep=0.5):
    for n, p in net.named_parameters():
        if n not in owner:
            continue
        free = owner[n] == 0
        mags = p.detach().abs()[free]
        thresh = torch.quantile(mags, 1 - keep)
        take = free & (p.detach().abs() >= thresh)
        owner[n][take] = task
        with torch.no_grad():
            p[free & ~take] = 0.0


tasks = [(torch.randn(24, 6), torch.randint(0, 4, (24,))) for _ in range(3)]
before = net[0].weight.detach().clone()
for t, (x, y) in enumerate(tasks, start=1):
    loss = train(x, y, t)
    prune_free(t)
    counts = {n: torch.bincount(o.flatten().long(), minlength=4).tolist() for n, o in owner.items()}
    print(f"task {t}: loss={loss.item():.4f} owners={counts}")
    if t == 1:
        snap1 = net[0].weight.detach().clone()
print("task-1 weights kept:", torch.equal(net[0].weight[owner["0.weight"] == 1], snap1[owner["0.weight"] == 1]))


def eval_task(t, x, y):
    saved = {n: p.detach().clone() for n, p in net.named_parameters()}
    with torch.no_grad():
        for n, p in net.named_parameters():
            if n in owner:
                p.mul_(((owner[n] > 0) & (owner[n] <= t)).to(p.dtype))
        acc = (net(x).argmax(1) == y).float().mean().item()
        for n, p in net.named_parameters():
            p.copy_(saved[n])
    return round(acc, 4)


print("accs:", [eval_task(t, *tasks[t - 1]) for t in range(1, 4)])

m = nn.Linear(5, 3)
mask = (torch.arange(15).reshape(3, 5) % 2 == 0).float()
prune.custom_from_mask(m, "weight", mask)
print("pruned:", prune.is_pruned(m), [n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()])
print("weight type:", type(m.weight).__name__, m.weight.grad_fn.name(), (m.weight == 0).sum().item())
print("forward pre hooks:", [type(h).__name__ for h in m._forward_pre_hooks.values()])
prune.l1_unstructured(m, "weight", amount=0.4)
print("after l1:", int(m.weight_mask.sum().item()), type(list(m._forward_pre_hooks.values())[0]).__name__)
prune.remove(m, "weight")
print("removed:", prune.is_pruned(m), type(m.weight).__name__, (m.weight == 0).sum().item())

a, b = nn.Linear(4, 4), nn.Linear(4, 2)
prune.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=10)
print("global:", int((a.weight == 0).sum()), int((b.weight == 0).sum()), a.weight_mask.dtype)
prune.ln_structured(a, "weight", amount=1, n=2, dim=0)
print("ln rows zero:", (a.weight.abs().sum(1) == 0).tolist())

acc_hits = []
p = nn.Parameter(torch.ones(3))
p.register_post_accumulate_grad_hook(lambda param: acc_hits.append(param.grad.clone().tolist()))
(p * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
(p * 2).sum().backward()
print("post-accumulate:", acc_hits)
q = torch.quantile(torch.tensor([1.0, 2.0, 3.0, 10.0]), torch.tensor([0.25, 0.5]), interpolation="midpoint")
print("quantile modes:", q.tolist(), torch.quantile(torch.arange(5.0), 0.3, interpolation="nearest").item(),
      torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0]), 0.5).item())

for bad in [lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5),
            lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=5),
            lambda: prune.remove(nn.Linear(2, 2), "weight"),
            lambda: prune.custom_from_mask(nn.Linear(2, 2), "nope", torch.ones(2)),
            lambda: torch.quantile(torch.arange(5), 0.5),
            lambda: torch.quantile(torch.arange(5.0), 1.5),
            lambda: torch.quantile(torch.arange(5.0), 0.5, interpolation="mean"),
            lambda: torch.tensor([1.0]).register_hook(lambda g: g)]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
