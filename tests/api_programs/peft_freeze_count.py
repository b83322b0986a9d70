"""Freezing a backbone and counting trainable parameters as PEFT's print_trainable_parameters does."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class TinyEncoder(nn.Module):
    def __init__(self, vocab=50, d=16, layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d, padding_idx=0)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
            for _ in range(layers)
        )
        self.norm = nn.LayerNorm(d)
        self.classifier = nn.Linear(d, 3)

    def forward(self, ids):
        h = self.embed_tokens(ids)
        for layer in self.layers:
            h = layer(h)
        return self.classifier(self.norm(h).mean(1))


def print_trainable_parameters(model):
    trainable, total = 0, 0
    for _, p in model.named_parameters():
        n = p.numel()
        total += n
        if p.requires_grad:
            trainable += n
    print(f"trainable params: {trainable:,d} || all params: {total:,d} || trainable%: {100 * trainable / total:.4f}")
    return trainable


model = TinyEncoder()
print_trainable_parameters(model)
model.requires_grad_(False)
print_trainable_parameters(model)
for name, p in model.named_parameters():
    if name.startswith("classifier") or "norm" in name.split(".")[-2:][0]:
        p.requires_grad = True
print_trainable_parameters(model)
print(sorted(n for n, p in model.named_parameters() if p.requires_grad))

# unfreeze the last layer's bias terms only (BitFit)
for name, p in model.layers[-1].named_parameters(prefix="layers.1"):
    if name.endswith("bias"):
        p.requires_grad_(True)
print_trainable_parameters(model)
print("bias names", [n for n, p in model.named_parameters() if p.requires_grad and n.endswith("bias")])

# numbers by module type
by_type = {}
for mod in model.modules():
    own = sum(p.numel() for p in mod.parameters(recurse=False))
    if own:
        by_type[type(mod).__name__] = by_type.get(type(mod).__name__, 0) + own
print(by_type)
print("unique params", len(list(model.parameters())), "named", len(dict(model.named_parameters())))

ids = torch.tensor([[3, 7, 9, 0], [4, 4, 2, 1]])
y = torch.tensor([0, 2])
loss = F.cross_entropy(model(ids), y)
loss.backward()
print("loss", round(loss.item(), 4))
print("embed grad", model.embed_tokens.weight.grad)
print("cls grad norm", round(model.classifier.weight.grad.norm().item(), 4))
print("in_proj grad", model.layers[0].self_attn.in_proj_weight.grad)
print("bias grad sum", round(model.layers[1].linear2.bias.grad.sum().item(), 4))
print("frozen leaf", model.layers[0].linear1.weight.is_leaf, model.layers[0].linear1.weight.requires_grad)

# misuse: requires_grad on non-leaf / integer tensors
h = model.classifier.weight * 2
try:
    h.requires_grad_(False)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    h.requires_grad = False
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    ids.requires_grad_(True)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.zeros(2, dtype=torch.long).requires_grad = True
except RuntimeError as e:
    print(type(e).__name__, e)
frozen = torch.ones(3).requires_grad_(False)
try:
    (frozen * 2).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
with torch.no_grad():
    z = model.classifier(torch.ones(1, 16))
print("no_grad out", z.requires_grad, z.grad_fn)
print(model.classifier.weight.requires_grad, model.classifier)
print(repr(model.norm.weight)[:40])
