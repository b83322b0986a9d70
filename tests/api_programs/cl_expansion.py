"""Dynamically expandable networks for class- and task-incremental learning: Linear layers widened in place by
copying old weights into larger Parameters, heads grown for new classes with nn.init, the optimizer rebuilt and
its state carried over by slicing, old units frozen through gradient masks, and the module reprs after growth."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def widen_linear(layer, extra_out=0, extra_in=0):
    new = nn.Linear(layer.in_features + extra_in, layer.out_features + extra_out, bias=layer.bias is not None)
    with torch.no_grad():
        nn.init.kaiming_uniform_(new.weight, a=0.0, mode="fan_in", nonlinearity="relu")
        nn.init.zeros_(new.weight[: layer.out_features, layer.in_features :])
        new.weight[: layer.out_features, : layer.in_features] = layer.weight
        if layer.bias is not None:
            new.bias.zero_()
            new.bias[: layer.out_features].copy_(layer.bias)
    return new


class Growing(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 6)
        self.head = nn.Linear(6, 2)

    def forward(self, x):
        return self.head(F.relu(self.hidden(x)))

    def grow(self, extra_hidden, extra_classes):
        self.hidden = widen_linear(self.hidden, extra_out=extra_hidden)
        self.head = widen_linear(self.head, extra_out=extra_classes, extra_in=extra_hidden)


net = Growing()
print(net)
x0 = torch.randn(5, 4)
before = net(x0).detach()
old_sizes = []
opt = torch.optim.Adam(net.parameters(), lr=0.01)
n_cls = 2
for t in range(3):
    if t > 0:
        old_params = {n: p for n, p in net.named_parameters()}
        old_state = {n: opt.state[p] for n, p in old_params.items()}
        old_sizes.append((net.hidden.out_features, net.head.out_features))
        net.grow(3, 2)
        n_cls += 2
        after = net(x0).detach()
        if t == 1:
            print("old logits preserved:", torch.allclose(after[:, :2], before, atol=1e-6))
        opt = torch.optim.Adam(net.parameters(), lr=0.01)
        for n, p in net.named_parameters():
            st = old_state[n]
            sl = tuple(slice(0, s) for s in old_params[n].shape)
            exp_avg, exp_avg_sq = torch.zeros_like(p), torch.zeros_like(p)
            exp_avg[sl] = st["exp_avg"]
            exp_avg_sq[sl] = st["exp_avg_sq"]
            opt.state[p] = {"step": st["step"].clone(), "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq}
    x = torch.randn(30, 4) + t
    y = torch.randint(n_cls - 2, n_cls, (30,))
    masks = {}
    if old_sizes:
        h_old, c_old = old_sizes[-1]
        masks["hidden.weight"] = torch.ones_like(net.hidden.weight)
        masks["hidden.weight"][:h_old] = 0
        masks["head.weight"] = torch.ones_like(net.head.weight)
        masks["head.weight"][:c_old, :h_old] = 0
    handles = [p.register_hook(lambda g, m=masks[n]: g * m) for n, p in net.named_parameters() if n in masks]
    for _ in range(15):
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
    for h in handles:
        h.remove()
    print(
        f"task {t}: classes={n_cls} loss={loss.item():.4f} hidden={tuple(net.hidden.weight.shape)} head={tuple(net.head.weight.shape)}"  # noqa: E501
    )
    print("  steps:", [int(opt.state[p]["step"]) for p in net.parameters()])

print(net)
print("params:", sum(p.numel() for p in net.parameters()), [tuple(p.shape) for p in net.parameters()])
print("zero block:", net.head.weight[:2, 6:].abs().sum().item() > 0)
w = torch.empty(3, 5)
for name, fn in [
    ("xavier_uniform", lambda: nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("tanh"))),
    ("kaiming_normal", lambda: nn.init.kaiming_normal_(w, mode="fan_out")),
    ("trunc_normal", lambda: nn.init.trunc_normal_(w, std=0.02, a=-0.04, b=0.04)),
    ("orthogonal", lambda: nn.init.orthogonal_(w)),
]:
    fn()
    print(name, tuple(w.shape), round(w.abs().max().item(), 4) < 5)
print("orthogonal rows:", ((w @ w.t()).round(decimals=4) + 0.0).tolist())
print(
    "gains:",
    [
        round(nn.init.calculate_gain(n, p), 4)
        for n, p in [("relu", None), ("leaky_relu", 0.2), ("selu", None), ("conv2d", None)]
    ],
)
for bad in [
    lambda: nn.init.calculate_gain("swish"),
    lambda: nn.init.kaiming_uniform_(torch.empty(3)),
    lambda: nn.init.xavier_normal_(torch.empty(2, 3), mode="fan_in"),
    lambda: nn.init.kaiming_normal_(torch.empty(2, 3), mode="fan"),
    lambda: nn.init.orthogonal_(torch.empty(3)),
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
