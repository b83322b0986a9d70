"""Module bookkeeping in fine-tuning code: tied weights, parameter counts, get_parameter, registration rules."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class TinyLM(nn.Module):
    def __init__(self, vocab=11, d=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.block = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, ids):
        h = self.embed(ids)
        return self.head(self.norm(h + self.block(h)))


lm = TinyLM()
print([n for n, _ in lm.named_parameters()])
print([n for n, _ in lm.named_parameters(remove_duplicate=False)][-1])
unique = sum(p.numel() for p in lm.parameters())
dup = sum(p.numel() for _, p in lm.named_parameters(remove_duplicate=False))
print(f"params {unique:,} (with ties {dup:,})", lm.head.weight is lm.embed.weight)
print(sorted(lm.state_dict())[:3], "head.weight" in lm.state_dict())
by_type = {}
for name, mod in lm.named_modules():
    by_type[type(mod).__name__] = by_type.get(type(mod).__name__, 0) + sum(
        p.numel() for p in mod.parameters(recurse=False)
    )
print(by_type)
print([n for n, _ in lm.named_children()], [n for n, _ in lm.named_modules(prefix="lm")][:3])
shared = nn.ReLU()
s = nn.Sequential(shared, nn.Linear(2, 2), shared)
print([n for n, _ in s.named_modules()], [n for n, _ in s.named_modules(remove_duplicate=False)])

ids = torch.tensor([[1, 2, 3], [4, 5, 6]])
loss = F.cross_entropy(lm(ids).flatten(0, 1), ids.flatten())
loss.backward()
print(round(loss.item(), 4), round(lm.embed.weight.grad.abs().sum().item(), 4))

print(lm.get_parameter("head.weight") is lm.embed.weight, lm.get_submodule("block.0"))
for fn, arg in [
    (lm.get_parameter, "head.bias"),
    (lm.get_parameter, "block.5.weight"),
    (lm.get_buffer, "norm.weight"),
    (lm.get_submodule, "block.0.weight"),
]:
    try:
        fn(arg)
    except Exception as e:
        print(type(e).__name__, e)
try:
    lm.encoder
except Exception as e:
    print(type(e).__name__, e)

lin = nn.Linear(2, 2)
for action in [
    lambda: lin.register_parameter("a.b", nn.Parameter(torch.ones(1))),
    lambda: lin.register_parameter("w2", torch.ones(1)),
    lambda: lin.register_buffer("weight", torch.ones(1)),
    lambda: lin.add_module("weight", nn.ReLU()),
    lambda: lin.register_parameter("", nn.Parameter(torch.ones(1))),
    lambda: setattr(lin, "weight", torch.ones(2, 2)),
    lambda: lin.register_buffer("buf", [1, 2]),
]:
    try:
        action()
    except Exception as e:
        print(type(e).__name__, e)
lin.register_buffer("mask", torch.ones(2), persistent=False)
lin.register_parameter("extra", None)
print(sorted(lin.state_dict()), [n for n, _ in lin.named_buffers()], lin.extra, [n for n, _ in lin.named_parameters()])
del lin.weight
print(hasattr(lin, "weight"), [n for n, _ in lin.named_parameters()])

net = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
v = nn.utils.parameters_to_vector(net.parameters())
print(tuple(v.shape), type(v.grad_fn).__name__)
nn.utils.vector_to_parameters(torch.arange(11.0), net.parameters())
print(net[1].bias.tolist(), net[0].weight.requires_grad, net[0].weight[1].tolist())
try:
    nn.utils.vector_to_parameters(torch.arange(11.0).tolist(), net.parameters())
except Exception as e:
    print(type(e).__name__, e)

print(lm.requires_grad_(False) is lm, any(p.requires_grad for p in lm.parameters()))
lm.norm.requires_grad_()
print([n for n, p in lm.named_parameters() if p.requires_grad])
lm.zero_grad()
print(lm.embed.weight.grad, lm.train(False).training, lm.block[0].training)
