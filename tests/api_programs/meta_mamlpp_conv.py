"""MAML++ (Antoniou et al.) on a functional conv net: weights in an OrderedDict consumed by F.conv2d/F.batch_norm/
F.linear, per-step batch-norm statistics (running buffers per inner step), learned per-layer per-step inner learning
rates, the multi-step loss with annealed importance weights, derivative-order annealing (first order, then second),
and F.batch_norm's argument errors."""

from collections import OrderedDict

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
STEPS, C, WAY = 3, 6, 3


def init_weights():
    w = OrderedDict()
    cin = 1
    for i in range(2):
        conv = torch.empty(C, cin, 3, 3)
        nn.init.xavier_uniform_(conv, gain=nn.init.calculate_gain("relu"))
        w[f"conv{i}.weight"] = conv.requires_grad_()
        w[f"bn{i}.weight"] = torch.ones(C, requires_grad=True)
        w[f"bn{i}.bias"] = torch.zeros(C, requires_grad=True)
        cin = C
    fc = torch.empty(WAY, C * 4)
    nn.init.kaiming_normal_(fc, mode="fan_in", nonlinearity="linear")
    w["fc.weight"] = fc.requires_grad_()
    w["fc.bias"] = torch.zeros(WAY, requires_grad=True)
    return w


weights = init_weights()
# per-step running statistics (buffers, no grad)
running = {(i, s): (torch.zeros(C), torch.ones(C)) for i in range(2) for s in range(STEPS + 1)}
# learned inner learning rates: one per parameter tensor per step (LSLR)
lslr = {k: torch.full((STEPS,), 0.1, requires_grad=True) for k in weights}


def forward(x, w, step, training=True):
    h = x
    for i in range(2):
        h = F.conv2d(h, w[f"conv{i}.weight"], None, padding=1)  # no bias: BN's shift cancels it
        rm, rv = running[(i, step)]
        h = F.batch_norm(h, rm, rv, w[f"bn{i}.weight"], w[f"bn{i}.bias"], training=training, momentum=0.1, eps=1e-5)
        h = F.max_pool2d(F.relu(h), kernel_size=2, stride=2)
    return F.linear(h.flatten(1), w["fc.weight"], w["fc.bias"])


def importance(epoch, n_epochs=4):
    decay = 1.0 / STEPS / n_epochs
    w = torch.full((STEPS,), 1.0 / STEPS)
    w[:-1] = (w[:-1] - epoch * decay).clamp_min(0.03 / STEPS)
    w[-1] = 1.0 - w[:-1].sum()
    return w


def task(gen):
    protos = torch.randn(WAY, 1, 8, 8, generator=gen)
    xs = protos.repeat(2, 1, 1, 1) + 0.3 * torch.randn(2 * WAY, 1, 8, 8, generator=gen)
    xq = protos.repeat(2, 1, 1, 1) + 0.3 * torch.randn(2 * WAY, 1, 8, 8, generator=gen)
    y = torch.arange(WAY).repeat(2)
    return xs, y, xq, y


gen = torch.Generator().manual_seed(1)
meta_opt = torch.optim.Adam([{"params": list(weights.values())}, {"params": list(lslr.values()), "lr": 1e-3}],
                            lr=1e-3, amsgrad=True)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(meta_opt, T_max=4, eta_min=1e-5)
for epoch in range(4):
    second_order = epoch >= 2
    imp = importance(epoch)
    meta_opt.zero_grad()
    xs, ys, xq, yq = task(gen)
    fast = OrderedDict(weights)
    total = 0.0
    for s in range(STEPS):
        loss = F.cross_entropy(forward(xs, fast, s), ys)
        grads = torch.autograd.grad(loss, list(fast.values()), create_graph=second_order)
        fast = OrderedDict((k, v - lslr[k][s] * g) for (k, v), g in zip(fast.items(), grads))
        total = total + imp[s] * F.cross_entropy(forward(xq, fast, s + 1), yq)
    total.backward()
    meta_opt.step()
    sched.step()
    print(f"epoch {epoch} order {2 if second_order else 1} importance {imp.round(decimals=4).tolist()} "
          f"meta-loss {total.item():.4f} lr {sched.get_last_lr()[0]:.6f}")
    print("  lslr fc.weight", lslr["fc.weight"].detach().round(decimals=4).tolist(),
          "grad", lslr["fc.weight"].grad.round(decimals=4).tolist())

print("running mean step0/step3", round(running[(0, 0)][0].abs().sum().item(), 4),
      round(running[(0, 3)][0].abs().sum().item(), 4))
with torch.no_grad():
    xs, ys, xq, yq = task(gen)
    acc = (forward(xq, weights, 0, training=False).argmax(1) == yq).float().mean()
    print("eval with running stats, acc", round(acc.item(), 4))

x = torch.randn(4, C, 2, 2)
for bad in [lambda: F.batch_norm(x, torch.zeros(3), torch.ones(3), training=False),
            lambda: F.batch_norm(x, None, None, training=False),
            lambda: F.batch_norm(torch.randn(1, C), None, None, training=True),
            lambda: F.batch_norm(x, torch.zeros(C), torch.ones(C), weight=torch.ones(4)),
            lambda: F.max_pool2d(x, kernel_size=2, stride=0)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
print("batch_norm training without buffers", F.batch_norm(x, None, None, training=True).mean().abs().item() < 1e-6)
