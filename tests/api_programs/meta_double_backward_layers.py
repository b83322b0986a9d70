"""Second-order gradients of nn.Module losses as meta-learning code needs them: the gradient of a gradient norm
taken through conv, batch norm (training and eval), group/layer/instance norm, pooling, softmax and cross entropy,
Hessian-vector products checked by float64 finite differences, and the errors when a graph cannot be
differentiated twice."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def grad_norm_penalty(model, x, y, loss_fn):
    loss = loss_fn(model(x), y)
    grads = torch.autograd.grad(loss, list(model.parameters()), create_graph=True)
    pen = sum(g.pow(2).sum() for g in grads)
    meta = torch.autograd.grad(pen, list(model.parameters()), allow_unused=True, materialize_grads=True)
    return loss, pen, meta


x = torch.randn(6, 3, 8, 8, dtype=torch.float64)
y = torch.randint(0, 4, (6,))
heads = {
    "conv+bn(train)": nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Tanh(), nn.AdaptiveAvgPool2d(1),
                                    nn.Flatten(), nn.Linear(4, 4)),
    "conv+groupnorm": nn.Sequential(nn.Conv2d(3, 4, 3, stride=2), nn.GroupNorm(2, 4), nn.SiLU(), nn.MaxPool2d(2),
                                    nn.Flatten(), nn.Linear(4, 4)),
    "conv+instnorm": nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, dilation=2), nn.InstanceNorm2d(4, affine=True),
                                   nn.ELU(), nn.AvgPool2d(3, stride=2), nn.Flatten(), nn.LazyLinear(4)),
    "layernorm+gelu": nn.Sequential(nn.Flatten(), nn.Linear(192, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 4)),
    "depthwise+softplus": nn.Sequential(nn.Conv2d(3, 6, 3, groups=3), nn.Softplus(beta=2.0), nn.AdaptiveMaxPool2d(2),
                                        nn.Flatten(), nn.Linear(24, 4)),
}
losses = {
    "ce": lambda o, t: F.cross_entropy(o, t),
    "ce-smooth": lambda o, t: F.cross_entropy(o, t, label_smoothing=0.1),
    "nll(log_softmax)": lambda o, t: F.nll_loss(F.log_softmax(o, dim=1), t),
    "kl(softmax)": lambda o, t: F.kl_div(F.log_softmax(o, 1), F.one_hot(t, 4).double() * 0.9 + 0.025,
                                         reduction="batchmean"),
}
for name, model in heads.items():
    model.double()
    model(x)
    for lname, lfn in losses.items():
        loss, pen, meta = grad_norm_penalty(model, x, y, lfn)
        total = sum(m.abs().sum() for m in meta).item()
        print(f"{name:18s} {lname:16s} loss {loss.item():.4f} pen {pen.item():.4f} meta {total:.4f}")

# batch norm in eval mode uses running stats: second order through a fixed affine map
bn_model = heads["conv+bn(train)"].eval()
loss, pen, meta = grad_norm_penalty(bn_model, x, y, losses["ce"])
print("bn eval pen", round(pen.item(), 4), "bn weight meta-grad", meta[2].round(decimals=4).tolist())

# Hessian-vector product by double backward vs finite differences of the gradient
model = heads["layernorm+gelu"]
params = list(model.parameters())
v = [torch.randn_like(p) for p in params]


def flat_grad(ps, create_graph=False):
    loss = F.cross_entropy(torch.func.functional_call(model, dict(zip([n for n, _ in model.named_parameters()], ps)),
                                                      (x,)), y)
    return torch.autograd.grad(loss, ps, create_graph=create_graph)


g = flat_grad(params, create_graph=True)
hv = torch.autograd.grad(g, params, grad_outputs=v)
eps = 1e-6
gp = flat_grad([p + eps * vi for p, vi in zip(params, v)])
gm = flat_grad([p - eps * vi for p, vi in zip(params, v)])
fd = [(a - b) / (2 * eps) for a, b in zip(gp, gm)]
print("hvp vs finite differences", max((h - f).abs().max().item() for h, f in zip(hv, fd)) < 1e-6)
print("hvp norm", round(torch.cat([h.flatten() for h in hv]).norm().item(), 4))
print("first-grad grad_fn", [t.grad_fn.name() for t in g[:2]])

# the gradient of an input-gradient (double backward w.r.t. the data: a gradient penalty on inputs)
xi = x[:2].clone().requires_grad_()
out = heads["conv+groupnorm"](xi).logsumexp(1).sum()
(gx,) = torch.autograd.grad(out, xi, create_graph=True)
(gxx,) = torch.autograd.grad(gx.pow(2).sum(), xi)
print("input grad", tuple(gx.shape), round(gx.norm().item(), 4), "second", round(gxx.norm().item(), 4))

# the nodes a create_graph gradient is recorded under
xp = torch.randn(1, 2, 4, 4, requires_grad=True)
emb_w = torch.randn(5, 3, requires_grad=True)
node_cases = [("max_pool2d", lambda: F.max_pool2d(xp, 2), xp),
              ("adaptive_max", lambda: F.adaptive_max_pool2d(xp, 2), xp),
              ("avg_pool2d", lambda: F.avg_pool2d(xp, 2), xp),
              ("adaptive_avg", lambda: F.adaptive_avg_pool2d(xp, 3), xp),
              ("embedding", lambda: F.embedding(torch.tensor([0, 3, 3]), emb_w), emb_w),
              ("linear weight", lambda: F.linear(xp.flatten(1)[:, :3], emb_w), emb_w)]
for name, f, t in node_cases:
    (gg,) = torch.autograd.grad(f().pow(2).sum(), t, create_graph=True)
    print(f"{name:14s} grad node {gg.grad_fn.name()}")

# misuse: a second backward through a freed graph, grad of a non-scalar, and an unused input
loss = F.cross_entropy(model(x), y)
gs = torch.autograd.grad(loss, params)
for bad in [lambda: torch.autograd.grad(gs[0].sum(), params),
            lambda: torch.autograd.grad(model(x), params),
            lambda: torch.autograd.grad(F.cross_entropy(model(x), y), params + [torch.ones(2, requires_grad=True)])]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
