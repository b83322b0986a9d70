"""minLoRA-style low-rank deltas through torch.nn.utils.parametrize: register, cache, merge by removal, state dicts."""

import torch

nn = torch.nn
F = torch.nn.functional
P = torch.nn.utils.parametrize

torch.manual_seed(0)


class LoRAParametrization(nn.Module):
    def __init__(self, fan_in, fan_out, rank=2, alpha=4):
        super().__init__()
        self.lora_A = nn.Parameter(torch.randn(rank, fan_in) * 0.1)
        self.lora_B = nn.Parameter(torch.zeros(fan_out, rank))
        self.scaling = alpha / rank
        self.enabled = True

    def forward(self, W):
        if not self.enabled:
            return W
        return W + (self.lora_B @ self.lora_A).view(W.shape) * self.scaling


def add_lora(model, rank=2):
    for name, mod in model.named_modules():
        if isinstance(mod, nn.Linear):
            P.register_parametrization(mod, "weight", LoRAParametrization(mod.in_features, mod.out_features, rank))


model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
plain = {k: v.clone() for k, v in model.state_dict().items()}
add_lora(model)
print(model)
print(
    P.is_parametrized(model[0]),
    P.is_parametrized(model[0], "weight"),
    P.is_parametrized(model[0], "bias"),
    P.is_parametrized(model[1]),
)
print(type(model[0]).__name__, type(model[0]).__mro__[1].__name__)
print(list(model.state_dict().keys()))
print(type(model[0].parametrizations).__name__, type(model[0].parametrizations.weight).__name__)
print("original shape", tuple(model[0].parametrizations.weight.original.shape))

for n, p in model.named_parameters():
    p.requires_grad_("lora_" in n)
print([n for n, p in model.named_parameters() if p.requires_grad])

x = torch.randn(10, 6)
y = torch.randn(10, 2)
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=0.05)
for step in range(4):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
print("weight grad_fn", model[0].weight.grad_fn.name(), model[0].weight.requires_grad)

with P.cached():
    w1 = model[0].weight
    w2 = model[0].weight
    print("cached same object", w1 is w2)
print("uncached same object", model[0].weight is model[0].weight)

# disable adapters
with torch.no_grad():
    out_lora = model(x)
    for m in model.modules():
        if isinstance(m, LoRAParametrization):
            m.enabled = False
    out_base = model(x)
    for m in model.modules():
        if isinstance(m, LoRAParametrization):
            m.enabled = True
print(
    "disabled equals plain",
    torch.allclose(
        out_base,
        F.linear(torch.tanh(F.linear(x, plain["0.weight"], plain["0.bias"])), plain["2.weight"], plain["2.bias"]),
    ),
)
print("diff", round((out_lora - out_base).abs().sum().item(), 4))

# adapter-only state dict
lora_sd = {k: v for k, v in model.state_dict().items() if "lora_" in k}
print(sorted((k, tuple(v.shape)) for k, v in lora_sd.items()))

# merge: remove parametrizations keeping the current value
for m in model:
    if P.is_parametrized(m):
        P.remove_parametrizations(m, "weight", leave_parametrized=True)
print(model)
print(list(model.state_dict().keys()))
print(type(model[0]).__name__, isinstance(model[0].weight, nn.Parameter), model[0].weight.requires_grad)
with torch.no_grad():
    print("merged equal", torch.allclose(model(x), out_lora, atol=1e-6))

try:
    P.remove_parametrizations(model[0], "weight")
except ValueError as e:
    print(type(e).__name__, e)
try:
    P.register_parametrization(model[2], "weight", nn.Linear(3, 3))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])


class Drop(nn.Module):
    def forward(self, W):
        return W[:1]


try:
    P.register_parametrization(model[2], "weight", Drop())
except ValueError as e:
    print(type(e).__name__, str(e).splitlines()[0])
try:
    P.register_parametrization(model[2], "nope", Drop())
except Exception as e:
    print(type(e).__name__, e)

# remove without leaving parametrized restores the original
lin = nn.Linear(3, 3)
w0 = lin.weight.detach().clone()
P.register_parametrization(lin, "weight", LoRAParametrization(3, 3, 1))
with torch.no_grad():
    lin.parametrizations.weight[0].lora_B.fill_(1.0)
print("changed", not torch.equal(lin.weight, w0))
P.remove_parametrizations(lin, "weight", leave_parametrized=False)
print("restored", torch.equal(lin.weight, w0), type(lin).__name__)
