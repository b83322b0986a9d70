"""FedProx and SCAFFOLD on a logistic-regression federation: the proximal term mu/2 ||w - w_global||^2 added to
the local loss, SCAFFOLD's server and client control variates applied as gradient corrections inside the local
step, and the drift between them printed round by round."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
d, n_clients = 5, 4
true_w = torch.randn(d, 2)
clients = []
for k in range(n_clients):
    x = torch.randn(30, d) * (1 + 0.3 * k) + k * 0.5
    y = (x @ true_w + 0.5 * torch.randn(30, 2)).argmax(1)
    clients.append((x, y))

model = nn.Linear(d, 2)
init_state = copy.deepcopy(model.state_dict())


def fedprox_local(gmodel, x, y, mu, steps=5, lr=0.1):
    local = copy.deepcopy(gmodel)
    gparams = [p.detach().clone() for p in gmodel.parameters()]
    opt = torch.optim.SGD(local.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(local(x), y)
        prox = sum(((p - g) ** 2).sum() for p, g in zip(local.parameters(), gparams))
        (loss + mu / 2 * prox).backward()
        opt.step()
    return local, loss.item(), prox.item()


for mu in (0.0, 0.5):
    model.load_state_dict(init_state)
    for rnd in range(3):
        locals_, stats = [], []
        for x, y in clients:
            loc, l, p = fedprox_local(model, x, y, mu)
            locals_.append(loc)
            stats.append((round(l, 4), round(p, 4)))
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(torch.stack([dict(m.named_parameters())[name] for m in locals_]).mean(0))
    print("fedprox mu", mu, stats)
    print("  weight", model.weight.detach().round(decimals=4).tolist())

# SCAFFOLD
model.load_state_dict(init_state)
c_global = [torch.zeros_like(p) for p in model.parameters()]
c_local = [[torch.zeros_like(p) for p in model.parameters()] for _ in clients]
lr, K, lr_g = 0.1, 5, 1.0
for rnd in range(3):
    dys, dcs = [], []
    for i, (x, y) in enumerate(clients):
        local = copy.deepcopy(model)
        for _ in range(K):
            local.zero_grad(set_to_none=True)
            F.cross_entropy(local(x), y).backward()
            with torch.no_grad():
                for p, cg, cl in zip(local.parameters(), c_global, c_local[i]):
                    p.sub_(p.grad + cg - cl, alpha=lr)
        with torch.no_grad():
            new_c = [cl - cg + (g - p) / (K * lr)
                     for cl, cg, g, p in zip(c_local[i], c_global, model.parameters(), local.parameters())]
            dys.append([p - g for p, g in zip(local.parameters(), model.parameters())])
            dcs.append([nc - cl for nc, cl in zip(new_c, c_local[i])])
            c_local[i] = new_c
    with torch.no_grad():
        for j, p in enumerate(model.parameters()):
            p.add_(torch.stack([dy[j] for dy in dys]).mean(0), alpha=lr_g)
            c_global[j] += torch.stack([dc[j] for dc in dcs]).mean(0) * (len(dcs) / len(clients))
    with torch.no_grad():
        loss = sum(F.cross_entropy(model(x), y) for x, y in clients) / len(clients)
    print("scaffold round", rnd, round(loss.item(), 4),
          "c_norm", round(torch.cat([c.flatten() for c in c_global]).norm().item(), 4))
print("c_global bias", c_global[1].round(decimals=4).tolist())
print("client drift", [round(sum((a - b).norm() ** 2 for a, b in zip(cl, c_global)).sqrt().item(), 4)
                       for cl in c_local])
print("requires_grad", [c.requires_grad for c in c_global], c_global[0].grad_fn)

p = model.weight
try:
    with torch.no_grad():
        p.sub_(p.grad, alpha=0.1)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(2, 5).sub_(torch.ones(2, 5), alpha=0.5j)
except Exception as e:
    print(type(e).__name__, e)
