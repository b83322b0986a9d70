"""The Adam family on one small regression, as a comparison table: Adam and AdamW with amsgrad and maximize, foreach
against the for-loop path, Adamax, NAdam (with decoupled_weight_decay and momentum_decay) and RAdam; each prints the
losses, the final parameters and the structure of its state_dict (state keys, dtypes, step counts)."""

import torch
from torch import nn, optim

torch.manual_seed(0)
torch.set_printoptions(precision=4)

X = torch.randn(40, 5)
w_true = torch.tensor([[1.5], [-2.0], [0.5], [0.0], [3.0]])
y = X @ w_true + 0.1 * torch.randn(40, 1)


def model_and_groups():
    torch.manual_seed(3)
    m = nn.Linear(5, 1)
    return m, [{"params": [m.weight]}, {"params": [m.bias], "weight_decay": 0.0}]


def run(make, steps=6):
    m, groups = model_and_groups()
    opt = make(groups)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(X), y)
        loss.backward()
        opt.step()
        losses.append(f"{loss.item():.4f}")
    return m, opt, losses


def describe(opt):
    sd = opt.state_dict()
    st = sd["state"][0]
    keys = [(k, str(v.dtype), tuple(v.shape)) if torch.is_tensor(v) else (k, v) for k, v in sorted(st.items())]
    steps = [float(s["step"]) for s in sd["state"].values()]
    return keys, steps


CASES = {
    "Adam": lambda g: optim.Adam(g, lr=0.05, weight_decay=0.01),
    "Adam amsgrad": lambda g: optim.Adam(g, lr=0.05, amsgrad=True, betas=(0.8, 0.99)),
    "Adam maximize": lambda g: optim.Adam(g, lr=0.05, maximize=True),
    "Adam foreach": lambda g: optim.Adam(g, lr=0.05, weight_decay=0.01, foreach=True),
    "AdamW": lambda g: optim.AdamW(g, lr=0.05, weight_decay=0.1),
    "AdamW amsgrad foreach": lambda g: optim.AdamW(g, lr=0.05, weight_decay=0.1, amsgrad=True, foreach=True),
    "Adamax": lambda g: optim.Adamax(g, lr=0.1, weight_decay=0.01),
    "Adamax foreach": lambda g: optim.Adamax(g, lr=0.1, weight_decay=0.01, foreach=True),
    "NAdam": lambda g: optim.NAdam(g, lr=0.05),
    "NAdam decoupled": lambda g: optim.NAdam(g, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True,
                                             momentum_decay=0.002),
    "NAdam foreach": lambda g: optim.NAdam(g, lr=0.05, weight_decay=0.1, foreach=True),
    "RAdam": lambda g: optim.RAdam(g, lr=0.05),
    "RAdam decoupled": lambda g: optim.RAdam(g, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
    "RAdam foreach": lambda g: optim.RAdam(g, lr=0.05, foreach=True),
}

for name, make in CASES.items():
    m, opt, losses = run(make, steps=8)
    keys, steps = describe(opt)
    print(f"== {name}")
    print("  losses:", " ".join(losses))
    print("  weight:", m.weight.detach().flatten(), "bias:", round(m.bias.item(), 4))
    print("  state[0]:", keys)
    print("  steps:", steps)

# AdamW's decay is decoupled: with zero gradients the weights still shrink by lr * wd
p = nn.Parameter(torch.ones(3))
opt = optim.AdamW([p], lr=0.1, weight_decay=0.5)
p.grad = torch.zeros(3)
opt.step()
print("AdamW decay only:", p.detach())
p = nn.Parameter(torch.ones(3))
opt = optim.Adam([p], lr=0.1, weight_decay=0.5)
p.grad = torch.zeros(3)
opt.step()
print("Adam L2 only:", p.detach())

# group defaults are filled in for every option
opt = optim.Adam([nn.Parameter(torch.zeros(2))], lr=1e-3)
print(sorted(opt.param_groups[0]))
print(opt.defaults["betas"], opt.defaults["eps"], opt.defaults["amsgrad"], opt.defaults["foreach"])
for bad in ({"lr": -0.1}, {"betas": (1.0, 0.9)}, {"eps": -1e-8}, {"weight_decay": -1.0}):
    try:
        optim.Adam([nn.Parameter(torch.zeros(2))], **bad)
    except ValueError as e:
        print("ValueError:", e)
