"""Iterative magnitude pruning with fine-tuning, as lottery-ticket and compression scripts write it: a pruning
schedule over rounds, per-layer and global masks, seeded random baselines, structured channel pruning, the
weight_orig/weight_mask state dict reloaded into a pruned model, rewinding, making it permanent, and errors."""

import copy
import io

import torch
from torch import nn
from torch.nn.utils import prune

torch.manual_seed(7)
torch.set_printoptions(precision=4)


def make():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(),
                         nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 3))


def sparsity(model):
    z = t = 0
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            z += int((m.weight == 0).sum())
            t += m.weight.numel()
    return round(z / t, 4)


X = torch.randn(24, 1, 6, 6)
Y = torch.randint(0, 3, (24,))
model = make()
init_state = copy.deepcopy(model.state_dict())


def train(model, steps, lr=0.1):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X), Y)
        loss.backward()
        opt.step()
    return loss.item()


print("dense loss", round(train(model, 10), 4))
layers = [(model[0], "weight"), (model[4], "weight"), (model[6], "weight")]

# three rounds of global magnitude pruning, 30% of what is left each round, with fine-tuning between
for rnd in range(3):
    prune.global_unstructured(layers, pruning_method=prune.L1Unstructured, amount=0.3)
    per = [round(float((m.weight == 0).float().mean()), 4) for m, _ in layers]
    print("round", rnd, "sparsity", sparsity(model), per)
    loss = train(model, 5)
    print("  finetune loss", round(loss, 4), "masked stay zero", all(bool((m.weight[m.weight_mask == 0] == 0).all())
                                                                  for m, _ in layers))
hook = model[4]._forward_pre_hooks[next(iter(model[4]._forward_pre_hooks))]
print(type(hook).__name__, len(hook._pruning_methods), [type(h).__name__ for h in hook])
print(sorted(model[4].state_dict().keys()))
print("bias untouched", "bias_mask" not in dict(model[4].named_buffers()))

# lottery ticket: rewind the surviving weights to their init values
masks = {i: model[i].weight_mask.clone() for i in (0, 4, 6)}
ticket = make()
ticket.load_state_dict(init_state)
for i, m in masks.items():
    prune.custom_from_mask(ticket[i], "weight", m)
print("ticket sparsity", sparsity(ticket), "equal masks", all(torch.equal(ticket[i].weight_mask, m)
                                                              for i, m in masks.items()))
print("ticket rewound", torch.equal(ticket[4].weight_orig, init_state["4.weight"]))
print("ticket loss", round(train(ticket, 8), 4))

# a random baseline with the same per-layer amounts (seeded)
torch.manual_seed(9)
rnd_model = make()
for i in (0, 4, 6):
    amount = int((masks[i] == 0).sum())
    prune.random_unstructured(rnd_model[i], "weight", amount=amount)
print("random mask row0", rnd_model[4].weight_mask[0])
print("random sparsity", sparsity(rnd_model), "random loss", round(train(rnd_model, 8), 4))

# structured: drop whole conv filters by L1 and L-inf norm, and input columns of a Linear
torch.manual_seed(10)
c = nn.Conv2d(3, 6, 3)
prune.ln_structured(c, "weight", amount=0.5, n=1, dim=0)
print("filters kept", c.weight_mask.flatten(1).amax(1).tolist())
l1 = c.weight_orig.abs().sum((1, 2, 3))
print("dropped the smallest", sorted(l1.argsort()[:3].tolist()) == [i for i in range(6) if c.weight_mask[i].sum() == 0])
lin = nn.Linear(6, 4)
prune.ln_structured(lin, "weight", amount=2, n=float("inf"), dim=1)
print("cols kept", lin.weight_mask[0])
m = prune.LnStructured(amount=1, n=2, dim=0).compute_mask(torch.tensor([[3.0, 4.0], [1.0, 1.0], [0.0, 6.0]]),
                                                           default_mask=torch.ones(3, 2))
print("compute_mask", m)

# save a pruned model, load into a freshly pruned skeleton
buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf, weights_only=True)
print(sorted(k for k in sd if k.startswith("4.")))
fresh = make()
for i in (0, 4, 6):
    prune.identity(fresh[i], "weight")
print(fresh.load_state_dict(sd))
print("same output", torch.allclose(fresh(X[:2]), model(X[:2])), sparsity(fresh))
try:
    make().load_state_dict(sd)
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[0])

# permanent
for i in (0, 4, 6):
    prune.remove(model[i], "weight")
print(sorted(model[4].state_dict().keys()), sparsity(model), prune.is_pruned(model))
print("plain load", make().load_state_dict(model.state_dict()))

# errors
for bad in (1.5, -0.1, 100):
    try:
        prune.l1_unstructured(nn.Linear(3, 3), "weight", amount=bad)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
try:
    prune.remove(nn.Linear(2, 2), "weight")
except ValueError as e:
    print("ValueError", e)
try:
    prune.l1_unstructured(nn.Linear(2, 2), "scale", amount=1)
except AttributeError as e:
    print("AttributeError", e)
