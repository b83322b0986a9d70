"""A learned optimizer in the manner of "Learning to learn by gradient descent by gradient descent": a coordinate-
wise LSTMCell reads each parameter's preprocessed gradient (log-magnitude and sign), proposes its update, and is
meta-trained by backpropagating an unrolled optimizee trajectory (truncated BPTT with detached states), then
compared with hand-designed SGD and Adam on held-out quadratics."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def preprocess(g, p=10.0):
    """The paper's gradient preprocessing: (log|g|/p, sign(g)) when |g| >= e^-p, else (-1, e^p g)."""
    big = g.abs() >= math.exp(-p)
    log_part = torch.where(big, g.abs().clamp_min(1e-20).log() / p, torch.full_like(g, -1.0))
    sign_part = torch.where(big, g.sign(), g * math.exp(p))
    return torch.stack([log_part, sign_part], dim=-1)


class LSTMOptimizer(nn.Module):
    def __init__(self, hidden=12, out_scale=0.1):
        super().__init__()
        self.cell1 = nn.LSTMCell(2, hidden)
        self.cell2 = nn.LSTMCell(hidden, hidden)
        self.head = nn.Linear(hidden, 1)
        self.out_scale = out_scale
        self.hidden = hidden

    def init_state(self, n):
        return [(torch.zeros(n, self.hidden), torch.zeros(n, self.hidden)) for _ in range(2)]

    def forward(self, grad, state):
        x = preprocess(grad.reshape(-1))
        h1, c1 = self.cell1(x, state[0])
        h2, c2 = self.cell2(h1, state[1])
        return self.head(h2).squeeze(-1).view_as(grad) * self.out_scale, [(h1, c1), (h2, c2)]


def sample_quadratic(gen, dim=6):
    W = torch.randn(dim, dim, generator=gen)
    y = torch.randn(dim, generator=gen)
    return lambda theta: (W @ theta - y).pow(2).sum()


def unroll(opt_net, f, theta, state, steps, train=True):
    total = 0.0
    for _ in range(steps):
        loss = f(theta)
        (g,) = torch.autograd.grad(loss, theta, create_graph=False)
        update, state = opt_net(g.detach(), state)
        theta = theta + update
        if not train:
            theta = theta.detach().requires_grad_()
        total = total + f(theta)
    return total, theta, state


gen = torch.Generator().manual_seed(3)
opt_net = LSTMOptimizer()
meta_opt = torch.optim.Adam(opt_net.parameters(), lr=3e-3)
print("lstm cell params", [(n, tuple(p.shape)) for n, p in opt_net.cell1.named_parameters()])
print("preprocess", preprocess(torch.tensor([1e-6, -0.5, 3.0, 0.0])).round(decimals=4).tolist())

for epoch in range(5):
    f = sample_quadratic(gen)
    theta = torch.randn(6, generator=gen).requires_grad_()
    state = opt_net.init_state(6)
    epoch_loss = 0.0
    for trunc in range(2):
        total, theta, state = unroll(opt_net, f, theta, state, steps=5)
        meta_opt.zero_grad()
        total.backward()
        nn.utils.clip_grad_value_(opt_net.parameters(), 1.0)
        meta_opt.step()
        epoch_loss += total.item()
        theta = theta.detach().requires_grad_()
        state = [(h.detach(), c.detach()) for h, c in state]
    print(f"epoch {epoch} unrolled loss {epoch_loss:.4f}")

print("cell1 weight_ih grad norm", round(opt_net.cell1.weight_ih.grad.norm().item(), 4))

# held-out comparison: learned optimizer vs SGD vs Adam, 20 steps each
eval_gen = torch.Generator().manual_seed(11)
f = sample_quadratic(eval_gen)
theta0 = torch.randn(6, generator=eval_gen)
_, theta_l, _ = unroll(opt_net, f, theta0.clone().requires_grad_(), opt_net.init_state(6), steps=20, train=False)
results = {"learned": f(theta_l).item()}
for name, cls, kw in [("sgd", torch.optim.SGD, {"lr": 0.01}), ("adam", torch.optim.Adam, {"lr": 0.1})]:
    theta = theta0.clone().requires_grad_()
    o = cls([theta], **kw)
    for _ in range(20):
        o.zero_grad()
        f(theta).backward()
        o.step()
    results[name] = f(theta).item()
print("after 20 steps", {k: round(v, 4) for k, v in results.items()})

# an LSTMCell on an unbatched input and the errors PyTorch raises
cell = nn.LSTMCell(2, 4)
h, c = cell(torch.ones(2))
print("unbatched", tuple(h.shape), tuple(c.shape), h.grad_fn.name())
for bad in [lambda: cell(torch.ones(3, 5)),
            lambda: cell(torch.ones(3, 2), (torch.zeros(3, 4),)),
            lambda: cell(torch.ones(3, 2), (torch.zeros(2, 4), torch.zeros(2, 4))),
            lambda: cell(torch.ones(1, 1, 2))]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
