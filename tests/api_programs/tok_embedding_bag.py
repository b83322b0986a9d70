"""nn.EmbeddingBag and F.embedding_bag as text classifiers use them: flat ids with offsets in the three modes,
per_sample_weights (sum only), include_last_offset, padding_idx skipped in each bag, empty bags, 2-D input
without offsets, gradients to the weight (dense and sparse), max_norm, and the errors of bad offsets."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

docs = [[3, 5, 5, 7], [1, 2], [], [9, 0, 4]]
flat = torch.tensor([t for d in docs for t in d])
lens = torch.tensor([len(d) for d in docs])
offsets = torch.cat([torch.zeros(1, dtype=torch.long), lens.cumsum(0)[:-1]])
print("flat", flat.tolist())
print("offsets", offsets.tolist())

bag = nn.EmbeddingBag(10, 4, mode="mean")
print(bag)
for mode in ("sum", "mean", "max"):
    out = F.embedding_bag(flat, bag.weight, offsets, mode=mode)
    print(mode, tuple(out.shape))
    print(out)

manual = torch.stack([bag.weight[d].mean(0) if d else torch.zeros(4) for d in docs])
print("mean matches manual", torch.allclose(bag(flat, offsets), manual, atol=1e-6))

# include_last_offset: offsets carries the end of the last bag as well
ends = torch.cat([offsets, torch.tensor([len(flat)])])
b2 = nn.EmbeddingBag(10, 4, mode="sum", include_last_offset=True)
b2.weight.data.copy_(bag.weight.data)
print("include_last_offset", torch.allclose(b2(flat, ends), F.embedding_bag(flat, bag.weight, offsets, mode="sum")))

# per_sample_weights: TF-IDF-like weights in sum mode
tf = torch.tensor([0.5, 1.0, 1.0, 2.0, 0.25, 0.75, 1.0, 3.0, 0.1])
w_sum = F.embedding_bag(flat, bag.weight, offsets, mode="sum", per_sample_weights=tf)
print("weighted sum")
print(w_sum)
try:
    F.embedding_bag(flat, bag.weight, offsets, mode="mean", per_sample_weights=tf)
except Exception as err:
    print(type(err).__name__, str(err)[:100])

# padding_idx is excluded from each bag (the mean divides by the non-pad count)
padded = torch.tensor([[3, 5, 0, 0], [1, 2, 4, 0], [0, 0, 0, 0]])
pb = nn.EmbeddingBag(10, 4, mode="mean", padding_idx=0)
print(pb)
print("pad row", pb.weight[0].tolist())
res = pb(padded)
print(res)
print("bag 0 is mean of 3,5", torch.allclose(res[0], pb.weight[[3, 5]].mean(0)))
print("max mode with padding")
print(F.embedding_bag(padded, pb.weight, mode="max", padding_idx=0))

# gradients: mean spreads 1/len, max routes to the argmax
w = bag.weight.detach().clone().requires_grad_()
F.embedding_bag(flat, w, offsets, mode="mean").sum().backward()
print("mean grad col0", w.grad[:, 0].tolist())
w.grad = None
F.embedding_bag(flat, w, offsets, mode="max").sum().backward()
print("max grad")
print(w.grad)
w.grad = None
psw = tf.clone().requires_grad_()
F.embedding_bag(flat, w, offsets, mode="sum", per_sample_weights=psw).pow(2).sum().backward()
print("psw grad", [round(v, 4) for v in psw.grad.tolist()])

# sparse gradients trained with SparseAdam, the dense head with Adam
torch.manual_seed(3)
sb = nn.EmbeddingBag(10, 4, mode="mean", sparse=True)
head = nn.Linear(4, 2)
opt_s = torch.optim.SparseAdam(list(sb.parameters()), lr=0.1)
opt_d = torch.optim.Adam(head.parameters(), lr=0.1)
labels = torch.tensor([0, 1, 0, 1])
for step in range(5):
    opt_s.zero_grad()
    opt_d.zero_grad()
    loss = F.cross_entropy(head(sb(flat, offsets)), labels)
    loss.backward()
    if step == 0:
        g = sb.weight.grad
        print("sparse grad", g.layout, g.is_sparse, tuple(g._indices().shape), tuple(g._values().shape))
        print("coalesced rows", g.coalesce().indices().tolist())
    opt_s.step()
    opt_d.step()
    print(step, round(loss.item(), 4))
print("untouched rows unchanged", sb.weight[[6, 8]].abs().sum().item() > 0)

# SGD also takes sparse gradients
sg = nn.EmbeddingBag(10, 3, mode="sum", sparse=True)
before = sg.weight.detach().clone()
opt = torch.optim.SGD(sg.parameters(), lr=0.5)
sg(flat, offsets).sum().backward()
opt.step()
delta = (sg.weight.detach() - before)[:, 0]
print("sgd delta", [round(v, 4) for v in delta.tolist()])

# max_norm on a bag
mb = nn.EmbeddingBag(10, 4, max_norm=1.0, mode="sum")
mb(torch.tensor([1, 2, 3]), torch.tensor([0]))
print("renormed", [round(v, 4) for v in mb.weight.detach().norm(dim=1).tolist()])

for args in (
    dict(input=flat, offsets=torch.tensor([1, 3])),
    dict(input=padded, offsets=torch.tensor([0, 2])),
    dict(input=flat.float(), offsets=offsets),
):
    try:
        bag(**args)
    except Exception as err:
        print(type(err).__name__, str(err).splitlines()[0][:100])
