"""Personalised federated learning: FedPer-style shared bodies with local heads (named_parameters filtered by
prefix, requires_grad_ toggled per phase, optimizer param groups), and Ditto's personal models regularised
towards the global one with lambda/2 ||v - w||^2, evaluated per client."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class PNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 12), nn.GELU(), nn.Linear(12, 12), nn.GELU())
        self.head = nn.Linear(12, 3)

    def forward(self, x):
        return self.head(self.body(x))


clients = []
for k in range(3):
    x = torch.randn(40, 4)
    perm = torch.roll(torch.arange(3), shifts=k)
    y = perm[(x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 1).long()]
    clients.append((x, y))

server = PNet()
heads = [copy.deepcopy(server.head) for _ in clients]
body_keys = [n for n, _ in server.named_parameters() if n.startswith("body.")]
print("body keys", body_keys)

for rnd in range(4):
    bodies = []
    for k, (x, y) in enumerate(clients):
        local = copy.deepcopy(server)
        local.head.load_state_dict(heads[k].state_dict())
        local.body.requires_grad_(False)
        opt = torch.optim.SGD(
            [{"params": local.head.parameters(), "lr": 0.2}, {"params": local.body.parameters(), "lr": 0.05}]
        )
        for _ in range(3):
            opt.zero_grad()
            F.cross_entropy(local(x), y).backward()
            opt.step()
        head_frozen_body = all(p.grad is None for p in local.body.parameters())
        local.body.requires_grad_(True)
        for _ in range(3):
            opt.zero_grad()
            F.cross_entropy(local(x), y).backward()
            opt.step()
        heads[k].load_state_dict(local.head.state_dict())
        bodies.append(local.body.state_dict())
    avg = {k: sum(b[k] for b in bodies) / len(bodies) for k in bodies[0]}
    server.body.load_state_dict(avg)
    accs = []
    with torch.no_grad():
        for k, (x, y) in enumerate(clients):
            logits = heads[k](server.body(x))
            accs.append(round((logits.argmax(-1) == y).float().mean().item(), 4))
    print("fedper round", rnd, accs, "frozen phase grads None", head_frozen_body)
print("groups", [len(g["params"]) for g in opt.param_groups], [g["lr"] for g in opt.param_groups])

# Ditto
lam, global_model = 0.5, PNet()
personal = [copy.deepcopy(global_model) for _ in clients]
for rnd in range(3):
    updates = []
    for k, (x, y) in enumerate(clients):
        local = copy.deepcopy(global_model)
        opt = torch.optim.SGD(local.parameters(), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            F.cross_entropy(local(x), y).backward()
            opt.step()
        updates.append([p.detach() - g.detach() for p, g in zip(local.parameters(), global_model.parameters())])
        popt = torch.optim.SGD(personal[k].parameters(), lr=0.1)
        for _ in range(2):
            popt.zero_grad()
            loss = F.cross_entropy(personal[k](x), y)
            reg = sum(
                (v - w.detach()).pow(2).sum() for v, w in zip(personal[k].parameters(), global_model.parameters())
            )
            (loss + lam / 2 * reg).backward()
            popt.step()
    with torch.no_grad():
        for i, p in enumerate(global_model.parameters()):
            p.add_(torch.stack([u[i] for u in updates]).mean(0))
    dist = [
        round(
            torch.sqrt(sum(((v - w) ** 2).sum() for v, w in zip(pm.parameters(), global_model.parameters()))).item(), 4
        )
        for pm in personal
    ]
    print("ditto round", rnd, "dist", dist, "reg", round(reg.item(), 4))

with torch.no_grad():
    for k, (x, y) in enumerate(clients):
        g_acc = (global_model(x).argmax(1) == y).float().mean().item()
        p_acc = (personal[k](x).argmax(1) == y).float().mean().item()
        print("client", k, "global", round(g_acc, 4), "personal", round(p_acc, 4))

frozen = PNet().requires_grad_(False)
print("all frozen", sum(p.requires_grad for p in frozen.parameters()), frozen.head.weight.requires_grad)
try:
    torch.optim.SGD([{"params": server.head.parameters()}, {"params": server.head.parameters()}], lr=0.1)
except Exception as e:
    print(type(e).__name__, e)
try:
    loss = F.cross_entropy(frozen(clients[0][0]), clients[0][1])
    loss.backward()
except Exception as e:
    print(type(e).__name__, e)
try:
    server.head.load_state_dict(server.body[0].state_dict())
except Exception as e:
    print(type(e).__name__, e)
