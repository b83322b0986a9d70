"""Gradual magnitude pruning (Zhu & Gupta's cubic schedule) of an LSTM language model and its embedding,
with per-step sparsity logs, rounding of fractional amounts, and the hooks/buffers pruning leaves."""

import torch
import torch.nn.utils.prune as prune

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class TinyLM(nn.Module):
    def __init__(self, vocab=20, dim=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.LSTM(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, tokens):
        h, _ = self.rnn(self.emb(tokens))
        return self.out(h)


def schedule(step, start=0, end=8, s_init=0.0, s_final=0.75):
    if step < start:
        return s_init
    frac = min(1.0, (step - start) / (end - start))
    return s_final + (s_init - s_final) * (1 - frac) ** 3


model = TinyLM()
tokens = torch.randint(0, 20, (4, 7))
targets = torch.roll(tokens, -1, dims=1)
targets_prunable = [
    (model.emb, "weight"),
    (model.rnn, "weight_ih_l0"),
    (model.rnn, "weight_hh_l0"),
    (model.out, "weight"),
]
print([round(schedule(s), 4) for s in range(0, 10, 2)])

opt = torch.optim.Adam(model.parameters(), lr=0.01)
current = 0.0
for step in range(10):
    opt.zero_grad()
    logits = model(tokens)
    loss = F.cross_entropy(logits.reshape(-1, 20), targets.reshape(-1))
    loss.backward()
    opt.step()
    if step % 2 == 0:
        target_sparsity = schedule(step)
        # each new call prunes a fraction of what is still unpruned
        amount = 0.0 if current >= 1 else (target_sparsity - current) / (1 - current)
        for module, name in targets_prunable:
            prune.l1_unstructured(module, name, amount=round(amount, 6))
        current = target_sparsity
        zero = sum(int(torch.sum(getattr(m, n + "_mask") == 0)) for m, n in targets_prunable)
        total = sum(getattr(m, n + "_mask").numel() for m, n in targets_prunable)
        print(
            step, "loss", round(loss.item(), 4), "target", round(target_sparsity, 4), "actual", round(zero / total, 4)
        )

print("rnn params", sorted(n for n, _ in model.rnn.named_parameters()))
print("rnn buffers", sorted(n for n, _ in model.rnn.named_buffers()))
print("hooks", {n: type(h).__name__ for n, h in ((h._tensor_name, h) for h in model.rnn._forward_pre_hooks.values())})
print("emb rows fully pruned", int((model.emb.weight_mask.sum(1) == 0).sum()))
out = model(tokens)
print(tuple(out.shape), out.grad_fn.name())

# amounts: a float is rounded to a count, an int is a count
lin = nn.Linear(3, 3)
prune.l1_unstructured(lin, "weight", amount=0.15)
print("0.15 of 9 ->", int(torch.sum(lin.weight_mask == 0)))
prune.l1_unstructured(lin, "weight", amount=0.5)
print("then 0.5 of the rest ->", int(torch.sum(lin.weight_mask == 0)))
prune.l1_unstructured(lin, "weight", amount=0)
print("then 0 ->", int(torch.sum(lin.weight_mask == 0)))
try:
    prune.l1_unstructured(lin, "weight", amount=7)
except Exception as e:
    print(type(e).__name__, e)
prune.random_unstructured(lin, "bias", amount=1.0)
print("bias", lin.bias.tolist(), lin.bias_mask.tolist())
try:
    prune.l1_unstructured(lin, "weight", amount=True)
except Exception as e:
    print(type(e).__name__, str(e)[:60])

for module, name in targets_prunable:
    prune.remove(module, name)
print(prune.is_pruned(model), len(model.rnn._forward_pre_hooks))
print(
    "final sparsity",
    [round(1 - int(torch.count_nonzero(getattr(m, n))) / getattr(m, n).numel(), 4) for m, n in targets_prunable],
)
logits = model(tokens)
print("final loss", round(F.cross_entropy(logits.reshape(-1, 20), targets.reshape(-1)).item(), 4))
