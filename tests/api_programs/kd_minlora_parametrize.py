"""LoRA as a parametrization (minLoRA style): Linear, Embedding and Conv2d weights, merge by removing it."""

import math
import torch

nn = torch.nn
F = torch.nn.functional
P = torch.nn.utils.parametrize

torch.manual_seed(0)


class LoRAParametrization(nn.Module):
    def __init__(self, fan_in, fan_out, rank=2, alpha=4, fan_in_fan_out=False):
        super().__init__()
        self.swap = (lambda x: (x[1], x[0])) if fan_in_fan_out else (lambda x: x)
        self.lora_A = nn.Parameter(torch.zeros(self.swap((rank, fan_in))))
        self.lora_B = nn.Parameter(torch.zeros(self.swap((fan_out, rank))))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scale = alpha / rank
        self.enabled = True

    def forward(self, W):
        if not self.enabled:
            return W
        delta = torch.matmul(*self.swap((self.lora_B, self.lora_A))).view(W.shape)
        return W + delta * self.scale


def add_lora(module):
    if isinstance(module, nn.Linear):
        P.register_parametrization(module, "weight", LoRAParametrization(module.in_features, module.out_features))
    elif isinstance(module, nn.Embedding):
        P.register_parametrization(
            module, "weight", LoRAParametrization(module.num_embeddings, module.embedding_dim, fan_in_fan_out=True)
        )
    elif isinstance(module, nn.Conv2d):
        fan_in = module.in_channels * module.kernel_size[0] * module.kernel_size[1]
        P.register_parametrization(module, "weight", LoRAParametrization(fan_in, module.out_channels))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.fc = nn.Linear(4 * 2 * 4, 3)

    def forward(self, ids):
        h = self.emb(ids).unsqueeze(1)
        return self.fc(F.relu(self.conv(h)).flatten(1))


net = Net()
ids = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
before = net(ids).detach()
net.apply(add_lora)
print([type(m).__name__ for m in net.children()])
print("same at init", torch.allclose(before, net(ids), atol=1e-6))
lora = [n for n, _ in net.named_parameters() if "lora_" in n]
print(lora)
for n, p in net.named_parameters():
    p.requires_grad_("lora_" in n)
print(
    "trainable",
    sum(p.numel() for p in net.parameters() if p.requires_grad),
    "of",
    sum(p.numel() for p in net.parameters()),
)
opt = torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.1)
target = torch.tensor([0, 2])
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(net(ids), target)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), round(net.fc.parametrizations.weight[0].lora_B.grad.abs().sum().item(), 4))
print("base grad", net.fc.parametrizations.weight.original.grad)
print(net.conv.parametrizations.weight[0].lora_B.shape, net.emb.parametrizations.weight[0].lora_A.shape)

# toggle the adapters off, then back on, inside a cached block
with torch.no_grad(), P.cached():
    tuned = net(ids)
    for m in net.modules():
        if isinstance(m, LoRAParametrization):
            m.enabled = False
    print("cached ignores toggle", torch.allclose(net(ids), tuned))
with torch.no_grad():
    print("disabled equals base", torch.allclose(net(ids), before, atol=1e-6))
    for m in net.modules():
        if isinstance(m, LoRAParametrization):
            m.enabled = True
    print("enabled equals tuned", torch.allclose(net(ids), tuned))

try:
    torch.func.functional_call(net.fc, {"weight": torch.zeros(3, 32)}, (torch.ones(1, 32),))
except Exception as e:
    print(type(e).__name__, e)
print(
    "fc original",
    torch.func.functional_call(
        net.fc, {"parametrizations.weight.original": torch.zeros(3, 32)}, (torch.ones(1, 32),)
    ).shape,
)

adapter_sd = {k: v for k, v in net.state_dict().items() if "lora_" in k}
print(sorted(adapter_sd))

# merge: remove the parametrizations, keeping the adapted weights
for m in [net.emb, net.conv, net.fc]:
    P.remove_parametrizations(m, "weight", leave_parametrized=True)
print([type(m).__name__ for m in net.children()], sorted(net.state_dict()))
with torch.no_grad():
    print("merged equals tuned", torch.allclose(net(ids), tuned, atol=1e-6))
print("requires_grad after merge", net.fc.weight.requires_grad)

# reload the adapter into a fresh parametrized copy
fresh = Net()
fresh.load_state_dict({k: v for k, v in net.state_dict().items()})
fresh.apply(add_lora)
res = fresh.load_state_dict(adapter_sd, strict=False)
print(len(res.missing_keys), res.unexpected_keys)
try:
    fresh.load_state_dict(adapter_sd)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[1][:70])
try:
    P.register_parametrization(nn.Linear(2, 2), "weight", LoRAParametrization(3, 2))
except Exception as e:
    print(type(e).__name__, e)
