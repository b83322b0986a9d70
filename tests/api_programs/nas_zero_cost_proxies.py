"""Zero-cost NAS proxies scoring untrained candidates: SNIP (|g * w|), GraSP (Hessian-gradient product by double
backward), SynFlow (sign-linearised network on an all-ones input, double precision), NASWOT's log-determinant of
the ReLU binary-code kernel through forward hooks and slogdet, gradient norm and Fisher, and the ranking."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
X, Y = torch.randn(8, 1, 6, 6), torch.randint(0, 4, (8,))


def candidate(width, depth, act=nn.ReLU):
    layers, c = [], 1
    for _ in range(depth):
        layers += [nn.Conv2d(c, width, 3, padding=1), nn.BatchNorm2d(width), act()]
        c = width
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 4))


def weights(net):
    return [m.weight for m in net.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]


def snip(net):
    net.zero_grad()
    F.cross_entropy(net(X), Y).backward()
    return sum((w.grad * w).abs().sum() for w in weights(net)).item()


def grasp(net):
    ws = weights(net)
    g = torch.autograd.grad(F.cross_entropy(net(X), Y), ws)
    g = [t.detach() for t in g]
    gr = torch.autograd.grad(F.cross_entropy(net(X), Y), ws, create_graph=True)
    z = sum((a * b).sum() for a, b in zip(gr, g))
    hg = torch.autograd.grad(z, ws)
    return -sum((w.detach() * h).sum() for w, h in zip(ws, hg)).item()


@torch.no_grad()
def linearize(net):
    signs = {}
    for name, p in net.state_dict().items():
        signs[name] = torch.sign(p)
        p.abs_()
    return signs


def synflow(net):
    net = net.double()
    signs = linearize(net)
    net.zero_grad()
    net.eval()
    out = net(torch.ones(1, 1, 6, 6, dtype=torch.float64))
    torch.sum(out).backward()
    score = sum((p * p.grad).abs().sum() for p in net.parameters() if p.grad is not None)
    with torch.no_grad():
        for name, p in net.state_dict().items():
            p.mul_(signs[name])
    return score.item(), out.dtype


def naswot(net):
    codes = []

    def hook(m, i, o):
        codes.append((o.flatten(1) > 0).float())

    hs = [m.register_forward_hook(hook) for m in net.modules() if isinstance(m, nn.ReLU)]
    with torch.no_grad():
        net(X)
    for h in hs:
        h.remove()
    c = torch.cat(codes, 1)
    K = c @ c.T + (1 - c) @ (1 - c).T
    sign, logdet = torch.linalg.slogdet(K)
    return round(logdet.item(), 3), int(sign.item()), tuple(K.shape), int(K.diagonal().max().item())


def grad_norm_and_fisher(net):
    acts = []

    def keep(m, i, o):
        o.retain_grad()
        acts.append(o)

    hs = [m.register_forward_hook(keep) for m in net.modules() if isinstance(m, nn.ReLU)]
    net.zero_grad()
    F.cross_entropy(net(X), Y).backward()
    for h in hs:
        h.remove()
    gn = sum(w.grad.norm() for w in weights(net)).item()
    fisher = sum((a * a.grad).sum((2, 3)).pow(2).mean(0).sum() * 0.5 for a in acts).item()
    return gn, fisher


cands = {"w4d1": (4, 1), "w8d1": (8, 1), "w4d3": (4, 3), "w8d2": (8, 2)}
scores = {}
for name, (w, d) in cands.items():
    torch.manual_seed(1)
    net = candidate(w, d)
    net.train()
    s1, s2 = snip(net), grasp(net)
    s3, dt = synflow(candidate(w, d))
    s4 = naswot(net)
    s5 = grad_norm_and_fisher(net)
    scores[name] = (s1, s2, s3, s4[0], *s5)
    print(name, "params", sum(p.numel() for p in net.parameters()), "snip", round(s1, 4), "grasp", round(s2, 5),
          "synflow", f"{s3:.4e}", dt, "naswot", s4, "gradnorm", round(s5[0], 4), "fisher", f"{s5[1]:.4e}")
for i, proxy in enumerate(["snip", "grasp", "synflow", "naswot", "gradnorm", "fisher"]):
    vals = torch.tensor([v[i] for v in scores.values()], dtype=torch.float64)
    print(proxy, "ranking", [list(cands)[j] for j in torch.argsort(vals, descending=True).tolist()])
all_scores = torch.tensor([list(v) for v in scores.values()], dtype=torch.float64)
ranks = all_scores.argsort(0).argsort(0).double()
print("rank corr snip/synflow", round(torch.corrcoef(ranks[:, [0, 2]].T)[0, 1].item(), 4))
try:
    torch.linalg.slogdet(torch.ones(2, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad(F.cross_entropy(net(X), Y), weights(net), grad_outputs=torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
