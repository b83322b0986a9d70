"""DLRM: bottom MLP for dense features, EmbeddingBag tables, pairwise dot interactions via bmm + triu/tril indices."""

import io

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(81)
torch.set_printoptions(precision=4)

n_dense, d = 4, 6
table_sizes = [10, 7, 12]
B = 8


def make_batch(gen):
    dense = torch.log1p(torch.rand(B, n_dense, generator=gen) * 100)
    lS_i, lS_o = [], []
    for size in table_sizes:
        lengths = torch.randint(1, 4, (B,), generator=gen)
        lS_o.append(torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]]))
        lS_i.append(torch.randint(0, size, (int(lengths.sum()),), generator=gen))
    y = (dense[:, 0] + lS_i[0][lS_o[0]].float() / 5 > 3.5).float()
    return dense, lS_o, lS_i, y


class DLRM(nn.Module):
    def __init__(self, self_interaction=False):
        super().__init__()
        self.bot = nn.Sequential(nn.Linear(n_dense, 8), nn.ReLU(), nn.Linear(8, d), nn.ReLU())
        self.emb = nn.ModuleList(nn.EmbeddingBag(n, d, mode="sum") for n in table_sizes)
        for e in self.emb:
            bound = (1.0 / e.num_embeddings) ** 0.5
            nn.init.uniform_(e.weight, -bound, bound)
        n_f = len(table_sizes) + 1
        self.self_interaction = self_interaction
        offset = 0 if self_interaction else -1
        li, lj = torch.tril_indices(n_f, n_f, offset=offset)
        self.register_buffer("li", li, persistent=False)
        self.register_buffer("lj", lj, persistent=False)
        self.top = nn.Sequential(nn.Linear(d + li.numel(), 8), nn.ReLU(), nn.Linear(8, 1))

    def interact(self, x, ly):
        T = torch.cat([x] + ly, dim=1).view(x.shape[0], -1, d)
        Z = torch.bmm(T, torch.transpose(T, 1, 2))
        Zflat = Z[:, self.li, self.lj]
        return torch.cat([x, Zflat], dim=1), Z

    def forward(self, dense, lS_o, lS_i):
        x = self.bot(dense)
        ly = [e(i, o) for e, i, o in zip(self.emb, lS_i, lS_o)]
        z, _ = self.interact(x, ly)
        return self.top(z).squeeze(1)


gen = torch.Generator().manual_seed(5)
dense, lS_o, lS_i, y = make_batch(gen)
print("dense", dense.shape, dense[0])
print("offsets", [o.tolist() for o in lS_o])
print("indices lens", [i.numel() for i in lS_i], "labels", y.tolist())

model = DLRM()
print(model)
print("interaction pairs", model.li.tolist(), model.lj.tolist())
print("buffers in state_dict", [k for k in model.state_dict() if k in ("li", "lj")])
x = model.bot(dense)
ly = [e(i, o) for e, i, o in zip(model.emb, lS_i, lS_o)]
z, Z = model.interact(x, ly)
print("Z", Z.shape, "symmetric", torch.allclose(Z, Z.transpose(1, 2)), "z", z.shape)
T = torch.stack([x] + ly, dim=1)
print("einsum agrees", torch.allclose(Z, torch.einsum("bfd,bgd->bfg", T, T), atol=1e-6))
ri, rj = torch.triu_indices(4, 4, offset=1)
print("triu pairs", ri.tolist(), rj.tolist(), "same set as tril transposed",
      sorted(zip(ri.tolist(), rj.tolist())) == sorted(zip(model.lj.tolist(), model.li.tolist())))
print("same order as triu", torch.allclose(Z[:, ri, rj], Z[:, model.lj, model.li]))
print("self-interaction width", DLRM(self_interaction=True).top[0].in_features)

opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.5)
for step in range(60):
    dense, lS_o, lS_i, y = make_batch(gen)
    logit = model(dense, lS_o, lS_i)
    loss = F.binary_cross_entropy_with_logits(logit, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if step % 15 == 0 or step == 59:
        print(f"step {step:2d} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.4f}")

# save, reload into a fresh model, compare predictions
buf = io.BytesIO()
torch.save(model.state_dict(), buf)
print("saved keys", len(model.state_dict()), sorted(model.state_dict())[:4])
buf.seek(0)
clone = DLRM()
res = clone.load_state_dict(torch.load(buf, weights_only=True))
print("load result", res)
model.eval()
clone.eval()
test = make_batch(torch.Generator().manual_seed(99))
with torch.no_grad():
    p1 = torch.sigmoid(model(*test[:3]))
    p2 = torch.sigmoid(clone(*test[:3]))
print("preds", p1, "equal", torch.equal(p1, p2))
acc = ((p1 > 0.5).float() == test[3]).float().mean()
print("test acc", acc.item(), "logloss", round(F.binary_cross_entropy(p1, test[3]).item(), 4))
vec = nn.utils.parameters_to_vector(model.parameters())
print("param vector", vec.shape, round(vec.norm().item(), 4))
sizes = {n: p.numel() for n, p in model.named_parameters()}
print("embedding share", round(sum(v for k, v in sizes.items() if k.startswith("emb")) / vec.numel(), 4))
