"""GEM and A-GEM gradient projection as their reference code writes it: gradients flattened with
parameters_to_vector and written back with vector_to_parameters, torch.dot tests against stored reference
gradients, the A-GEM closed-form projection, a small dual QP for GEM solved by projected gradient, and the
vector utilities' errors."""

import torch
from torch.nn.utils import parameters_to_vector, vector_to_parameters

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3))
params = list(model.parameters())
n_params = sum(p.numel() for p in params)
print("n params:", n_params, parameters_to_vector(params).shape, parameters_to_vector(params).grad_fn.name())


def flat_grad(loss):
    model.zero_grad()
    loss.backward()
    return parameters_to_vector([p.grad for p in params]).clone()


def write_grad(vec):
    grads = [torch.empty_like(p) for p in params]
    vector_to_parameters(vec, grads)
    for p, g in zip(params, grads):
        p.grad.copy_(g)


def agem_project(g, g_ref):
    dot = torch.dot(g, g_ref)
    if dot < 0:
        return g - dot / torch.dot(g_ref, g_ref) * g_ref, True
    return g, False


def gem_project(g, G, iters=200, lr=0.05, margin=0.5):
    # dual: min_v 0.5 v^T G G^T v + g^T G^T v, v >= 0, then g~ = G^T v + g
    GG = G @ G.t()
    Gg = G @ g
    v = torch.zeros(G.shape[0])
    for _ in range(iters):
        v = (v - lr * (GG @ v + Gg + margin)).clamp(min=0)
    return G.t() @ v + g, v


tasks = []
for t in range(3):
    x = torch.randn(24, 4)
    w = torch.randn(4, 3)
    tasks.append((x, (x @ w).argmax(1)))

memories = []
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for t, (x, y) in enumerate(tasks):
    n_proj = 0
    for step in range(20):
        g = flat_grad(F.cross_entropy(model(x), y))
        if memories:
            mx = torch.cat([m[0] for m in memories])
            my = torch.cat([m[1] for m in memories])
            g_ref = flat_grad(F.cross_entropy(model(mx), my))
            if t == 1:
                g_new, did = agem_project(g, g_ref)
            else:
                G = torch.stack([flat_grad(F.cross_entropy(model(mx_), my_)) for mx_, my_ in memories])
                viol = (G @ g < 0).any()
                g_new, v = gem_project(g, G) if viol else (g, torch.zeros(len(memories)))
                did = bool(viol)
            n_proj += int(did)
            if did:
                assert (torch.dot(g_new, g_ref) >= -1e-4) or t == 2
            model.zero_grad()
            for p in params:
                p.grad = torch.zeros_like(p)
            write_grad(g_new)
        opt.step()
    memories.append((x[:8], y[:8]))
    with torch.no_grad():
        accs = [round((model(xx).argmax(1) == yy).float().mean().item(), 4) for xx, yy in tasks[: t + 1]]
    print(f"task {t}: projections={n_proj} accs={accs}")

G = torch.stack([flat_grad(F.cross_entropy(model(m[0]), m[1])) for m in memories])
g = flat_grad(F.cross_entropy(model(tasks[2][0]), tasks[2][1]))
print("G shape:", tuple(G.shape), "dots:", (G @ g).round(decimals=4).tolist())
proj, v = gem_project(g, G)
print("dual v:", v.round(decimals=4).tolist(), "post dots:", (G @ proj).round(decimals=4).tolist())
a = torch.tensor([1.0, -2.0, 0.5])
b = torch.tensor([0.5, 1.0, 1.0])
pa, did = agem_project(a, b)
print("agem:", pa.round(decimals=4).tolist(), did, round(torch.dot(pa, b).item(), 4))
print("vdot/inner:", torch.vdot(a, b).item(), torch.inner(a, b).item(), (a @ b).item())
print("cos:", round(F.cosine_similarity(a, b, dim=0).item(), 4))

vec = parameters_to_vector(params).detach()
vector_to_parameters(vec * 0 + 1, params)
print("after write:", [p.sum().item() for p in params], params[0].is_leaf)

for bad in [lambda: vector_to_parameters(vec.tolist(), params),
            lambda: vector_to_parameters(vec[:5], params),
            lambda: torch.dot(a, b.double()),
            lambda: torch.dot(a, b[:2]),
            lambda: torch.dot(a.view(3, 1), b),
            lambda: parameters_to_vector([torch.zeros(2), torch.zeros(2, dtype=torch.float64)]).dtype]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
