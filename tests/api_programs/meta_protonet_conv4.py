"""Prototypical networks as few-shot research code writes them: a Conv-4 backbone with batch norm, an N-way K-shot
episode drawn with a seeded Generator, prototypes as class means, log_softmax over negative squared Euclidean
distances from torch.cdist (and its p/compute_mode variants), episode accuracy, and cdist's shape errors."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def conv_block(cin, cout):
    conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
    return nn.Sequential(conv, nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2))


class Conv4(nn.Module):
    def __init__(self, cin=1, hid=8):
        super().__init__()
        self.encoder = nn.Sequential(conv_block(cin, hid), conv_block(hid, hid), conv_block(hid, hid))

    def forward(self, x):
        return self.encoder(x).flatten(1)


# a toy "omniglot": 12 classes of 20 images, each class a noisy template
templates = torch.randn(12, 1, 16, 16)
images = templates.repeat_interleave(20, 0) + 0.6 * torch.randn(240, 1, 16, 16)
labels = torch.arange(12).repeat_interleave(20)


def sample_episode(gen, n_way=4, k_shot=3, n_query=5):
    classes = torch.randperm(12, generator=gen)[:n_way]
    sup, qry = [], []
    for c in classes.tolist():
        idx = (labels == c).nonzero(as_tuple=True)[0]
        perm = idx[torch.randperm(idx.numel(), generator=gen)]
        sup.append(images[perm[:k_shot]])
        qry.append(images[perm[k_shot:k_shot + n_query]])
    return classes, torch.stack(sup), torch.stack(qry)


def proto_loss(model, sup, qry):
    n_way, k_shot = sup.shape[:2]
    n_query = qry.shape[1]
    z = model(torch.cat([sup.flatten(0, 1), qry.flatten(0, 1)]))
    z_sup, z_qry = z[: n_way * k_shot], z[n_way * k_shot:]
    protos = z_sup.view(n_way, k_shot, -1).mean(1)
    dists = torch.cdist(z_qry, protos) ** 2
    log_p = F.log_softmax(-dists, dim=1)
    target = torch.arange(n_way).repeat_interleave(n_query)
    loss = F.nll_loss(log_p, target)
    acc = (log_p.argmax(1) == target).float().mean()
    return loss, acc, dists


gen = torch.Generator().manual_seed(42)
classes, sup, qry = sample_episode(gen)
print("episode classes", classes.tolist(), "support", tuple(sup.shape), "query", tuple(qry.shape))

model = Conv4()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
for episode in range(6):
    _, sup, qry = sample_episode(gen)
    loss, acc, dists = proto_loss(model, sup, qry)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print(f"episode {episode} loss {loss.item():.4f} acc {acc.item():.4f} lr {sched.get_last_lr()[0]:.5f}")
print("dists grad_fn", dists.grad_fn.name())

model.eval()
with torch.no_grad():
    _, sup, qry = sample_episode(gen, n_way=5, k_shot=1, n_query=2)
    loss, acc, dists = proto_loss(model, sup, qry)
    print("eval 5-way 1-shot loss", round(loss.item(), 4), "acc", round(acc.item(), 4), tuple(dists.shape))

# cdist variants against explicit formulas
a = torch.randn(2, 5, 3, dtype=torch.float64)
b = torch.randn(2, 4, 3, dtype=torch.float64)
diff = a.unsqueeze(2) - b.unsqueeze(1)
for p in [0.0, 1.0, 2.0, 3.0, float("inf")]:
    d = torch.cdist(a, b, p=p)
    if p == 0:
        ref = (diff != 0).sum(-1).to(a.dtype)
    elif p == float("inf"):
        ref = diff.abs().amax(-1)
    else:
        ref = diff.abs().pow(p).sum(-1).pow(1 / p)
    print("p", p, tuple(d.shape), d.dtype, torch.allclose(d, ref), round(d.sum().item(), 4))
for mode in ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"]:
    print(mode, round(torch.cdist(a, b, compute_mode=mode).sum().item(), 4))

# gradient through cdist, including a zero distance
x = torch.tensor([[0.0, 0.0], [1.0, 2.0]], requires_grad=True)
y = torch.tensor([[0.0, 0.0], [3.0, -1.0]])
d = torch.cdist(x, y)
d.sum().backward()
print("cdist grad at a zero distance", x.grad.round(decimals=4).tolist())

for bad in [lambda: torch.cdist(torch.randn(3, 4), torch.randn(5, 3)),
            lambda: torch.cdist(torch.randn(4), torch.randn(5, 4)),
            lambda: torch.cdist(torch.randn(3, 4), torch.randn(5, 4), p=-1.0),
            lambda: torch.cdist(torch.randn(3, 4), torch.randn(5, 4), compute_mode="fast")]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
