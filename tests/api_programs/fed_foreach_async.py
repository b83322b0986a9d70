"""Server aggregation with torch._foreach ops as fast FedAvg implementations write it (foreach add/mul/lerp over
parameter lists), FedAvgM server momentum, and asynchronous FedAsync/FedBuff updates mixed with staleness-decayed
weights through lerp_; every variant checked against a plain per-tensor loop."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 6), nn.SiLU(), nn.Linear(6, 2))
clients = [copy.deepcopy(model) for _ in range(3)]
for k, c in enumerate(clients):
    with torch.no_grad():
        for p in c.parameters():
            p.add_(torch.randn_like(p) * 0.1 * (k + 1))

weights = [0.5, 0.3, 0.2]
params = [p.detach() for p in model.parameters()]
acc = torch._foreach_mul([p.detach() for p in clients[0].parameters()], weights[0])
for w, c in zip(weights[1:], clients[1:]):
    torch._foreach_add_(acc, [p.detach() for p in c.parameters()], alpha=w)
loop = [sum(w * list(c.parameters())[i].detach() for w, c in zip(weights, clients)) for i in range(len(params))]
print("foreach avg", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(acc, loop)), [tuple(a.shape) for a in acc])

deltas = torch._foreach_sub(acc, params)
print("delta norms", [round(n.item(), 4) for n in torch._foreach_norm(deltas)])
print("norm ord1", [round(n.item(), 4) for n in torch._foreach_norm(deltas, 1)])

# FedAvgM: server momentum over pseudo-gradients
buf = (
    torch._foreach_zeros_like(params)
    if hasattr(torch, "_foreach_zeros_like")
    else [torch.zeros_like(p) for p in params]
)
beta, server_lr = 0.9, 1.0
work = [p.clone() for p in params]
for rnd in range(3):
    pseudo = torch._foreach_sub(work, acc)
    torch._foreach_mul_(buf, beta)
    torch._foreach_add_(buf, pseudo)
    torch._foreach_add_(work, buf, alpha=-server_lr)
    print("fedavgm", rnd, round(sum(b.abs().sum() for b in buf).item(), 4))

# the same with an SGD server optimizer on the pseudo-gradient
m2 = copy.deepcopy(model)
sopt = torch.optim.SGD(m2.parameters(), lr=server_lr, momentum=beta, foreach=True)
for rnd in range(3):
    for p, a in zip(m2.parameters(), acc):
        p.grad = p.detach() - a
    sopt.step()
print("sgd server equal", all(torch.allclose(p, w, atol=1e-5) for p, w in zip(m2.parameters(), work)))

# FedAsync: the server mixes each arriving model with weight alpha * s(staleness)
server = [p.clone() for p in params]
version = 0
arrivals = [(0, 0), (1, 0), (2, 1), (0, 3)]
for cid, base_version in arrivals:
    staleness = version - base_version
    alpha = 0.6 * (staleness + 1) ** -0.5
    for s, c in zip(server, clients[cid].parameters()):
        s.lerp_(c.detach(), alpha)
    version += 1
    print("async", cid, "staleness", staleness, "alpha", round(alpha, 4), round(server[0].sum().item(), 4))
w_t = torch.tensor(0.25)
mixed = torch.lerp(params[0], server[0], w_t)
print(
    "lerp tensor weight",
    round(mixed.sum().item(), 4),
    torch.lerp(torch.zeros(2), torch.ones(2), torch.tensor([0.0, 0.5])).tolist(),
)
torch._foreach_lerp_(server, params, 0.5)
print("foreach lerp", round(server[2].sum().item(), 4))

# FedBuff: buffer K deltas, then apply their mean
buffer, K = [], 2
for cid in (0, 1, 2, 0):
    buffer.append(torch._foreach_sub([p.detach() for p in clients[cid].parameters()], params))
    if len(buffer) == K:
        mean = [torch.stack(ts).mean(0) for ts in zip(*buffer)]
        torch._foreach_add_(params, mean)
        print("fedbuff flush", round(sum(m.abs().sum() for m in mean).item(), 4))
        buffer.clear()
print(
    "foreach misc",
    [round(t.sum().item(), 4) for t in torch._foreach_sqrt(torch._foreach_abs(deltas))][:2],
    [round(t.max().item(), 4) for t in torch._foreach_maximum(deltas, 0.0)][:2],
)
print("addcmul", round(torch._foreach_addcmul(deltas, deltas, deltas, value=0.5)[1].sum().item(), 4))

try:
    torch._foreach_add_(acc, [torch.zeros(3)] * 4)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch._foreach_add(acc, acc[:2])
except Exception as e:
    print(type(e).__name__, e)
try:
    params[0].lerp_(torch.zeros(6, 4, dtype=torch.float64), 0.5)
except Exception as e:
    print(type(e).__name__, e)
