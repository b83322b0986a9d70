"""Optimizers on awkward parameter sets, as recommender and mixed-precision code hits them: SGD (with and without
momentum) and Adagrad on sparse embedding gradients, SparseAdam beside a dense optimizer over an EmbeddingBag, a
group mixing float32 and float64 parameters under foreach, a parameter whose grad is None for some steps, and the
errors for sparse gradients where they are not supported."""

import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)

idx = torch.tensor([[0, 2, 2], [5, 1, 0]])
target = torch.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, -0.5]])


def emb_run(make_opt, steps=3, sparse=True):
    torch.manual_seed(1)
    emb = nn.Embedding(6, 3, sparse=sparse)
    opt = make_opt(emb.parameters())
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((emb(idx).sum(1) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    return emb, opt, losses


for name, make in [
    ("SGD", lambda p: torch.optim.SGD(p, lr=0.1)),
    ("SGD momentum", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9)),
    ("SGD nesterov wd0", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.5, nesterov=True)),
    ("Adagrad", lambda p: torch.optim.Adagrad(p, lr=0.2)),
    ("Adagrad lr_decay", lambda p: torch.optim.Adagrad(p, lr=0.2, lr_decay=0.1, initial_accumulator_value=0.5)),
    ("SparseAdam", lambda p: torch.optim.SparseAdam(list(p), lr=0.05)),
]:
    emb, opt, losses = emb_run(make)
    dense_emb, _, dense_losses = emb_run(make if name != "SparseAdam" else
                                         (lambda p: torch.optim.Adam(p, lr=0.05)), sparse=False)
    print(f"{name:17s} {losses} dense {dense_losses} rows3,4 untouched:",
          torch.equal(emb.weight[3:5], dense_emb.weight[3:5]))
    print("   row0:", emb.weight[0].detach(), "max diff vs dense:",
          round((emb.weight - dense_emb.weight).abs().max().item(), 4))
    st = opt.state[emb.weight]
    print("   state:", {k: ("sparse" if v.is_sparse else tuple(v.shape)) if torch.is_tensor(v) else v
                        for k, v in sorted(st.items())})

for name, make in [("Adam", lambda p: torch.optim.Adam(p, lr=0.1)),
                   ("AdamW", lambda p: torch.optim.AdamW(p, lr=0.1)),
                   ("RMSprop", lambda p: torch.optim.RMSprop(p, lr=0.1)),
                   ("SGD wd", lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=0.1))]:
    try:
        emb_run(make, steps=1)
        print(name, "accepted sparse grads")
    except RuntimeError as e:
        print(f"{name} RuntimeError:", e)

# EmbeddingBag(sparse=True) with SparseAdam, a dense head with Adam
torch.manual_seed(3)
bag = nn.EmbeddingBag(10, 4, mode="mean", sparse=True)
head = nn.Linear(4, 2)
opts = [torch.optim.SparseAdam(list(bag.parameters()), lr=0.05), torch.optim.Adam(head.parameters(), lr=0.05)]
text = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
offsets = torch.tensor([0, 4])
labels = torch.tensor([1, 0])
for step in range(4):
    for o in opts:
        o.zero_grad()
    loss = nn.functional.cross_entropy(head(bag(text, offsets)), labels)
    loss.backward()
    for o in opts:
        o.step()
    print(f"bag step {step} loss {loss.item():.4f} grad nnz rows {bag.weight.grad.coalesce().indices().numel()}")

# mixed dtypes in one group, foreach on and off
for foreach in (False, True):
    a = nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    b = nn.Parameter(torch.tensor([0.5, 0.25], dtype=torch.float64))
    c = nn.Parameter(torch.tensor([[1.0, 2.0]], dtype=torch.float64))
    opt = torch.optim.Adam([a, b, c], lr=0.1, weight_decay=0.01, foreach=foreach)
    for i in range(3):
        opt.zero_grad()
        loss = (a**2).sum() + (b**3).sum().float() + (c.sum() if i != 1 else 0)
        loss.backward()
        opt.step()
    print(f"foreach={foreach}: a={a.detach()} b={b.detach()} c={c.detach()}",
          "c steps:", opt.state[c]["step"].item(), "b dtype:", opt.state[b]["exp_avg"].dtype)
