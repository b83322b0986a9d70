"""Partial adaptation as ANIL and CAVIA write it: ANIL adapts only the head (the body's features computed once,
detached or frozen via requires_grad_), CAVIA adapts a context vector concatenated to the input while the network is
shared, both with second-order meta-gradients; the frozen parts' grads, optimizer param groups that skip frozen
tensors, and the autograd errors when an adapted tensor does not require grad."""

import warnings

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def sine_task(gen, n=10):
    amp = torch.rand((), generator=gen) * 4 + 0.5
    phase = torch.rand((), generator=gen) * 3.1416
    x = torch.rand(2 * n, 1, generator=gen) * 10 - 5
    y = amp * torch.sin(x + phase)
    return x[:n], y[:n], x[n:], y[n:]


# ---- ANIL: body meta-learned by the outer loop, head adapted in the inner loop
body = nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 40), nn.ReLU())
head = nn.Linear(40, 1)
meta_opt = torch.optim.Adam([{"params": body.parameters(), "lr": 1e-3}, {"params": head.parameters(), "lr": 3e-3}])
gen = torch.Generator().manual_seed(0)
for it in range(4):
    meta_opt.zero_grad()
    q_total = 0.0
    for _ in range(2):
        xs, ys, xq, yq = sine_task(gen)
        fs, fq = body(xs), body(xq)
        w, b = head.weight, head.bias
        for _ in range(3):
            loss = F.mse_loss(F.linear(fs, w, b), ys)
            gw, gb = torch.autograd.grad(loss, (w, b), create_graph=True)
            w, b = w - 0.05 * gw, b - 0.05 * gb
        q = F.mse_loss(F.linear(fq, w, b), yq)
        (q / 2).backward()
        q_total += q.item() / 2
    meta_opt.step()
    print(f"anil it {it} query {q_total:.4f} body grad {body[0].weight.grad.norm().item():.4f}")

# ANIL at test time: freeze the body, adapt a fresh head copy with torch.optim
for p in body.parameters():
    p.requires_grad_(False)
print("body frozen", [p.requires_grad for p in body.parameters()], "head trainable",
      [n for n, p in head.named_parameters() if p.requires_grad])
xs, ys, xq, yq = sine_task(gen)
feats = body(xs)
print("features grad_fn", feats.grad_fn, "requires_grad", feats.requires_grad)
test_head = nn.Linear(40, 1)
test_head.load_state_dict(head.state_dict())
opt = torch.optim.SGD(test_head.parameters(), lr=0.05)
for s in range(5):
    opt.zero_grad()
    l = F.mse_loss(test_head(feats), ys)
    l.backward()
    opt.step()
print("test-time adapted query", round(F.mse_loss(test_head(body(xq)), yq).item(), 4))
try:
    torch.autograd.grad(F.mse_loss(test_head(feats), ys), list(body.parameters()))
except RuntimeError as e:
    print("RuntimeError", e)
for p in body.parameters():
    p.requires_grad_(True)


# ---- CAVIA: context parameters concatenated to the input, reset per task
class CaviaNet(nn.Module):
    def __init__(self, n_ctx=4):
        super().__init__()
        self.n_ctx = n_ctx
        self.net = nn.Sequential(nn.Linear(1 + n_ctx, 40), nn.ReLU(), nn.Linear(40, 1))

    def forward(self, x, ctx):
        return self.net(torch.cat([x, ctx.expand(x.shape[0], -1)], dim=1))


cavia = CaviaNet()
opt = torch.optim.Adam(cavia.parameters(), lr=1e-3)
for it in range(4):
    opt.zero_grad()
    xs, ys, xq, yq = sine_task(gen)
    ctx = torch.zeros(1, cavia.n_ctx, requires_grad=True)
    for _ in range(2):
        (g,) = torch.autograd.grad(F.mse_loss(cavia(xs, ctx), ys), ctx, create_graph=True)
        ctx = ctx - 1.0 * g
    q = F.mse_loss(cavia(xq, ctx), yq)
    q.backward()
    opt.step()
    print(f"cavia it {it} query {q.item():.4f} ctx {ctx.detach().round(decimals=4).tolist()}")
print("ctx is not a leaf", ctx.is_leaf, ctx.grad_fn.name())

# the misuse: adapting a tensor that does not require grad, and reading .grad of a non-leaf
ctx0 = torch.zeros(1, 4)
for bad in [lambda: torch.autograd.grad(F.mse_loss(cavia(xs, ctx0), ys), ctx0),
            lambda: torch.autograd.grad(F.mse_loss(cavia(xs, ctx0), ys), [ctx0], allow_unused=True)]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print("non-leaf .grad", ctx.grad)
    print("warned", len(w) == 1, w[0].category.__name__ if w else None)
