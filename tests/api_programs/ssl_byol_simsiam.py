"""BYOL and SimSiam as their papers' pseudo-code: projector/predictor MLPs with BatchNorm1d (SimSiam's
affine=False output BN and a predictor bottleneck), stop-gradient by detach, negative cosine and
2-2cos losses, a target network updated with a cosine tau schedule, collapse monitoring by the per-dim std of
normalized outputs, and optimizer groups that give the predictor a fixed learning rate."""

import copy
import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def mlp(in_dim, hidden, out, last_bn=False):
    layers = [
        nn.Linear(in_dim, hidden, bias=False),
        nn.BatchNorm1d(hidden),
        nn.ReLU(inplace=True),
        nn.Linear(hidden, out, bias=not last_bn),
    ]
    if last_bn:
        layers.append(nn.BatchNorm1d(out, affine=False))
    return nn.Sequential(*layers)


class SimSiam(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), mlp(16, 16, 8, last_bn=True))
        self.predictor = mlp(8, 4, 8)

    def forward(self, x1, x2):
        z1, z2 = self.encoder(x1), self.encoder(x2)
        p1, p2 = self.predictor(z1), self.predictor(z2)
        return p1, p2, z1.detach(), z2.detach()


def D(p, z):
    return -F.cosine_similarity(p, z, dim=-1).mean()


def byol_loss(p, z):
    p, z = F.normalize(p, dim=-1, p=2), F.normalize(z, dim=-1, p=2)
    return 2 - 2 * (p * z).sum(dim=-1)


model = SimSiam()
print(model.encoder[2][4], model.encoder[2][4].weight, model.encoder[2][0].bias)
init_lr = 0.05 * 8 / 256
groups = [
    {"params": model.encoder.parameters(), "fix_lr": False},
    {"params": model.predictor.parameters(), "fix_lr": True},
]
opt = torch.optim.SGD(groups, lr=init_lr, momentum=0.9, weight_decay=1e-4)
x = torch.randn(8, 12)
epochs = 4
for epoch in range(epochs):
    cur_lr = init_lr * 0.5 * (1.0 + math.cos(math.pi * epoch / epochs))
    for g in opt.param_groups:
        g["lr"] = init_lr if g["fix_lr"] else cur_lr
    x1, x2 = x + 0.2 * torch.randn_like(x), torch.flip(x, dims=[1]) * 0.5
    p1, p2, z1, z2 = model(x1, x2)
    loss = 0.5 * (D(p1, z2) + D(p2, z1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    std = F.normalize(z1, dim=1).std(dim=0).mean().item()
    print(
        "simsiam",
        epoch,
        round(loss.item(), 4),
        [round(g["lr"], 6) for g in opt.param_groups],
        round(std, 4),
        z1.requires_grad,
        p1.grad_fn.name(),
    )
print(
    "bn",
    model.encoder[2][4].running_mean[:3].round(decimals=4).tolist(),
    model.encoder[2][4].num_batches_tracked.item(),
)

# BYOL: online + predictor against an EMA target with tau from 0.99 to 1 by cosine
online = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), mlp(16, 16, 8))
predictor = mlp(8, 16, 8)
target = copy.deepcopy(online).requires_grad_(False)
print("target grads", [p.requires_grad for p in target.parameters()][:2], target.training)
opt = torch.optim.SGD(list(online.parameters()) + list(predictor.parameters()), lr=0.05, momentum=0.9)
total = 5
for k in range(total):
    tau = 1 - (1 - 0.99) * (math.cos(math.pi * k / total) + 1) / 2
    v1, v2 = x + 0.1 * torch.randn_like(x), x * 0.9
    o1, o2 = predictor(online(v1)), predictor(online(v2))
    with torch.no_grad():
        t1, t2 = target(v1), target(v2)
    loss = (byol_loss(o1, t2.detach()) + byol_loss(o2, t1.detach())).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for po, pt in zip(online.parameters(), target.parameters()):
            pt.mul_(tau).add_(po, alpha=1 - tau)
        for bo, bt in zip(online.buffers(), target.buffers()):
            bt.copy_(bo)
    print("byol", k, round(tau, 6), round(loss.item(), 4), round(predictor[3].weight.grad.norm().item(), 4))
dist = sum((a - b).pow(2).sum() for a, b in zip(online.parameters(), target.parameters()))
print("online-target", round(dist.item(), 4), target[2][1].num_batches_tracked.item())

# stop-gradient checks and the errors cosine_similarity raises
z = torch.randn(4, 8, requires_grad=True)
l = D(predictor(z), z.detach())
l.backward()
print("sg", round(z.grad.abs().sum().item(), 4), z.detach().requires_grad, z.detach().grad_fn)
print(
    F.cosine_similarity(torch.zeros(2, 3), torch.ones(2, 3)).tolist(),
    F.cosine_similarity(torch.ones(3), torch.ones(2, 3), dim=-1).tolist(),
)
for fn in [
    lambda: F.cosine_similarity(torch.ones(2, 3), torch.ones(2, 4)),
    lambda: model.encoder[2][4](torch.randn(1, 8)),
    lambda: nn.BatchNorm1d(8, affine=False)(torch.randn(4, 6)),
]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, e)
