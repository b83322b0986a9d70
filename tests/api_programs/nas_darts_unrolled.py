"""Second-order DARTS: the architecture gradient through one virtual SGD step of the weights, with the
Hessian-vector product approximated by finite differences of torch.autograd.grad, checked against the exact
double-backward product."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


class Search(nn.Module):
    def __init__(self, d=5, k=3, n_cls=3):
        super().__init__()
        self.ops = nn.ModuleList([nn.Linear(d, d), nn.Sequential(nn.Linear(d, d), nn.Tanh()), nn.Identity()])
        self.head = nn.Linear(d, n_cls)
        self.alpha = nn.Parameter(torch.zeros(k))

    def forward(self, x):
        w = F.softmax(self.alpha, dim=0)
        return self.head(sum(wi * op(x) for wi, op in zip(w, self.ops)))


model = Search()
with torch.no_grad():
    model.alpha.copy_(torch.tensor([0.1, -0.2, 0.05]))
weights = [p for n, p in model.named_parameters() if n != "alpha"]
xt, yt = torch.randn(10, 5), torch.randint(0, 3, (10,))
xv, yv = torch.randn(10, 5), torch.randint(0, 3, (10,))
xi = 0.1


def loss(x, y):
    return F.cross_entropy(model(x), y)


def unrolled_arch_grad(eps_scale=0.01):
    backup = [w.detach().clone() for w in weights]
    g_train = torch.autograd.grad(loss(xt, yt), weights)
    with torch.no_grad():
        for w, g in zip(weights, g_train):
            w.sub_(xi * g)
    lv = loss(xv, yv)
    grads = torch.autograd.grad(lv, [model.alpha] + weights)
    d_alpha, dw = grads[0], grads[1:]
    with torch.no_grad():
        for w, b in zip(weights, backup):
            w.copy_(b)
    r = eps_scale / torch.cat([v.flatten() for v in dw]).norm()
    with torch.no_grad():
        for w, v in zip(weights, dw):
            w.add_(v, alpha=r)
    gp = torch.autograd.grad(loss(xt, yt), model.alpha)[0]
    with torch.no_grad():
        for w, v in zip(weights, dw):
            w.sub_(v, alpha=2 * r)
    gn = torch.autograd.grad(loss(xt, yt), model.alpha)[0]
    with torch.no_grad():
        for w, v in zip(weights, dw):
            w.add_(v, alpha=r)
    hvp = (gp - gn) / (2 * r)
    return d_alpha - xi * hvp, d_alpha, dw, lv.item()


g_arch, d_alpha, dw, lv = unrolled_arch_grad()
print("val loss after virtual step", round(lv, 4))
print("first-order term", d_alpha.round(decimals=4).tolist())
print("second-order grad", g_arch.round(decimals=4).tolist())

# exact mixed second derivative d/dalpha (grad_w L_train . v) with create_graph
lt = loss(xt, yt)
gw = torch.autograd.grad(lt, weights, create_graph=True)
dot = sum((g * v).sum() for g, v in zip(gw, dw))
exact = torch.autograd.grad(dot, model.alpha)[0]
fd = (d_alpha - g_arch) / xi
print("exact hvp", exact.round(decimals=4).tolist())
print("fd matches exact", torch.allclose(fd, exact, atol=1e-5), round((fd - exact).abs().max().item(), 8) < 1e-5)
print("grad_fn of dot", type(dot.grad_fn).__name__)

# weights restored exactly after the perturbations
print("weights finite", all(torch.isfinite(w).all().item() for w in weights))

# arch step with the unrolled gradient; allow_unused for a parameter outside the graph
a_opt = torch.optim.Adam([model.alpha], lr=0.03, betas=(0.5, 0.999))
for step in range(3):
    g, _, _, lv = unrolled_arch_grad()
    model.alpha.grad = g
    a_opt.step()
    print(step, round(lv, 4), F.softmax(model.alpha, 0).round(decimals=4).tolist())
extra = nn.Parameter(torch.ones(2))
gs = torch.autograd.grad(loss(xt, yt), [model.alpha, extra], allow_unused=True)
print("allow_unused", gs[1] is None, gs[0].dtype)
gz = torch.autograd.grad(loss(xt, yt), [extra], allow_unused=True, materialize_grads=True)
print("materialize", gz[0].tolist())
try:
    torch.autograd.grad(loss(xt, yt), [model.alpha, extra])
except Exception as e:
    print(type(e).__name__, e)
lt = loss(xt, yt)
torch.autograd.grad(lt, weights)
try:
    torch.autograd.grad(lt, weights)
except Exception as e:
    print(type(e).__name__, str(e)[:80])
