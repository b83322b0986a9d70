"""d2l.ai chapter 21 (recommender systems) as the book writes it: a synthetic MovieLens-style interaction
table, matrix factorization with RMSE evaluation, item-based AutoRec with an observed-entries mask, NeuMF
(GMF + MLP) trained with the BPR and hinge ranking losses through negative sampling, hit rate and AUC,
and a factorization machine's O(kn) interaction term."""

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(101)


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def init_(m, scale=0.1):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy((scale * rng.standard_normal(tuple(p.shape))).astype(np.float32)))


num_users, num_items, n = 12, 15, 80
pairs = rng.choice(num_users * num_items, size=n, replace=False)
users, items = torch.from_numpy(pairs // num_items), torch.from_numpy(pairs % num_items)
scores = torch.from_numpy(rng.integers(1, 6, n).astype(np.float32))
sparsity = 1 - n / (num_users * num_items)
print(f"number of users: {num_users}, number of items: {num_items}")
print(f"matrix sparsity: {sparsity:f}")
print("table", users[:5], items.dtype, torch.bincount(scores.long(), minlength=6).tolist())
train_mask = torch.from_numpy(rng.random(n) < 0.8)
inter = torch.zeros((num_items, num_users))
inter[items[train_mask], users[train_mask]] = scores[train_mask]
print("interaction", inter.shape, int((inter > 0).sum()), inter.sum().item())


class MF(nn.Module):
    def __init__(self, num_factors, num_users, num_items, **kwargs):
        super(MF, self).__init__(**kwargs)  # noqa: UP008
        self.P = nn.Embedding(num_embeddings=num_users, embedding_dim=num_factors)
        self.Q = nn.Embedding(num_embeddings=num_items, embedding_dim=num_factors)
        self.user_bias = nn.Embedding(num_users, 1)
        self.item_bias = nn.Embedding(num_items, 1)

    def forward(self, user_id, item_id):
        P_u = self.P(user_id)
        Q_i = self.Q(item_id)
        b_u = self.user_bias(user_id)
        b_i = self.item_bias(item_id)
        outputs = (P_u * Q_i).sum(axis=1) + torch.squeeze(b_u) + torch.squeeze(b_i)
        return outputs.flatten()


def evaluator(net, test_users, test_items, test_scores):
    with torch.no_grad():
        pred = net(test_users, test_items)
        return torch.sqrt(F.mse_loss(pred, test_scores)).item()


net = MF(8, num_users, num_items)
init_(net, 0.3)
train_set = TensorDataset(users[train_mask], items[train_mask], scores[train_mask])
loader = DataLoader(train_set, batch_size=16, shuffle=False)
optimizer = torch.optim.Adam(net.parameters(), lr=0.05, weight_decay=1e-5)
loss = nn.MSELoss()
for epoch in range(6):
    total = 0.0
    for u, i, s in loader:
        optimizer.zero_grad()
        l = loss(net(u, i), s)
        l.backward()
        optimizer.step()
        total += l.item() * len(s)
    rmse = evaluator(net, users[~train_mask], items[~train_mask], scores[~train_mask])
    print(f"epoch {epoch + 1}, train loss {total / int(train_mask.sum()):.4f}, test RMSE {rmse:.4f}")
print(net(torch.tensor([1]), torch.tensor([2])).shape, net(torch.tensor([1, 3]), torch.tensor([2, 2])).shape)
print(len(loader), next(iter(loader))[0].dtype, net.P)


class AutoRec(nn.Module):
    def __init__(self, num_hidden, num_users, dropout=0.05):
        super(AutoRec, self).__init__()  # noqa: UP008
        self.encoder = nn.Sequential(nn.Linear(num_users, num_hidden), nn.Sigmoid())
        self.decoder = nn.Linear(num_hidden, num_users)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input):
        hidden = self.dropout(self.encoder(input))
        pred = self.decoder(hidden)
        if self.training:
            return pred * torch.sign(input)
        else:
            return pred


ar = AutoRec(10, num_users)
init_(ar, 0.3)
ar.dropout.p = 0.0
opt = torch.optim.SGD(ar.parameters(), lr=0.02, momentum=0.9)
for epoch in range(5):
    opt.zero_grad()
    pred = ar(inter)
    l = ((pred - inter) ** 2).sum() / 2 + 1e-3 / 2 * sum((p ** 2).sum() for n_, p in ar.named_parameters()
                                                           if n_.endswith("weight"))
    l.backward()
    opt.step()
    print(f"autorec epoch {epoch + 1}: {l.item():.4f}")
ar.eval()
full = ar(inter)
test_pred = full[items[~train_mask], users[~train_mask]]
print("autorec_rmse", round(torch.sqrt(((test_pred - scores[~train_mask]) ** 2).mean()).item(), 4),
      full.shape, torch.sign(torch.tensor([-2.0, 0.0, 3.0])).tolist())


class NeuMF(nn.Module):
    def __init__(self, num_factors, num_users, num_items, nums_hiddens, **kwargs):
        super(NeuMF, self).__init__(**kwargs)  # noqa: UP008
        self.P = nn.Embedding(num_users, num_factors)
        self.Q = nn.Embedding(num_items, num_factors)
        self.U = nn.Embedding(num_users, num_factors)
        self.V = nn.Embedding(num_items, num_factors)
        self.mlp = nn.Sequential()
        in_dim = 2 * num_factors
        for num_hiddens in nums_hiddens:
            self.mlp.append(nn.Linear(in_dim, num_hiddens, bias=True))
            self.mlp.append(nn.ReLU())
            in_dim = num_hiddens
        self.prediction_layer = nn.Linear(num_factors + in_dim, 1, bias=False)

    def forward(self, user_id, item_id):
        p_mf = self.P(user_id)
        q_mf = self.Q(item_id)
        gmf = p_mf * q_mf
        p_mlp = self.U(user_id)
        q_mlp = self.V(item_id)
        mlp = self.mlp(torch.cat([p_mlp, q_mlp], axis=1))
        con_res = torch.cat([gmf, mlp], axis=1)
        return torch.sigmoid(self.prediction_layer(con_res))


class BPRLoss(nn.Module):
    def __init__(self, **kwargs):
        super(BPRLoss, self).__init__(**kwargs)  # noqa: UP008

    def forward(self, positive, negative):
        distances = positive - negative
        loss = - torch.sum(torch.log(torch.sigmoid(distances)), 0, keepdim=True)
        return loss


class HingeLossbRec(nn.Module):
    def __init__(self, **kwargs):
        super(HingeLossbRec, self).__init__(**kwargs)  # noqa: UP008

    def forward(self, positive, negative, margin=1):
        distances = positive - negative
        loss = torch.sum(torch.maximum(- distances + margin, torch.tensor(0.0)))
        return loss


candidates = {int(u): set(items[(users == u) & train_mask].tolist()) for u in range(num_users)}
neg = []
for u, i in zip(users[train_mask].tolist(), items[train_mask].tolist()):
    while True:
        j = int(rng.integers(0, num_items))
        if j not in candidates[u]:
            break
    neg.append(j)
neg_items = torch.tensor(neg)
print("negatives", neg_items[:8].tolist(), neg_items.dtype)
for loss_name, loss_fn in (("bpr", BPRLoss()), ("hinge", HingeLossbRec())):
    model = NeuMF(6, num_users, num_items, [10, 10, 10])
    init_(model, 0.3)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    u, i = users[train_mask], items[train_mask]
    for epoch in range(4):
        opt.zero_grad()
        p_pos = model(u, i)
        p_neg = model(u, neg_items)
        l = loss_fn(p_pos, p_neg)
        l.backward()
        opt.step()
    print(loss_name, l.shape, r(l, 1), r(p_pos, 4), model.prediction_layer.weight.grad.shape)
    with torch.no_grad():
        all_scores = model(torch.arange(num_users).repeat_interleave(num_items),
                           torch.arange(num_items).repeat(num_users)).reshape(num_users, num_items)
    ranked = torch.argsort(all_scores, dim=1, descending=True)
    cand = all_scores.index_select(1, torch.tensor([0, 3, 7]))
    print(loss_name, "candidates", cand.shape, r(cand[2], 3))
    for dim, idx in ((1, [0, num_items]), (0, [num_users])):
        try:
            all_scores.index_select(dim, torch.tensor(idx))
        except (IndexError, RuntimeError) as e:
            print(type(e).__name__, e)
    test_u, test_i = users[~train_mask], items[~train_mask]
    hits = [(ranked[uu, :5] == ii).any().item() for uu, ii in zip(test_u.tolist(), test_i.tolist())]
    rank_of = (ranked[test_u] == test_i[:, None]).nonzero()[:, 1].float()
    auc = (1 - rank_of / (num_items - 1)).mean()
    print(loss_name, "hit@5", round(sum(hits) / len(hits), 4), "auc", round(auc.item(), 4))
print(model.mlp)
print(BPRLoss()(torch.tensor([[2.0], [0.5]]), torch.tensor([[1.0], [1.0]])))
print(HingeLossbRec()(torch.tensor([2.0, 0.5]), torch.tensor([1.0, 1.0]), margin=0.5))


class FM(nn.Module):
    def __init__(self, field_dims, num_factors):
        super(FM, self).__init__()  # noqa: UP008
        num_inputs = int(sum(field_dims))
        self.embedding = nn.Embedding(num_inputs, num_factors)
        self.fc = nn.Embedding(num_inputs, 1)
        self.linear_layer = nn.Linear(1, 1, bias=True)

    def forward(self, x):
        square_of_sum = torch.sum(self.embedding(x), axis=1) ** 2
        sum_of_square = torch.sum(self.embedding(x) ** 2, axis=1)
        x = self.linear_layer(self.fc(x).sum(1)) + 0.5 * (square_of_sum - sum_of_square).sum(1, keepdims=True)
        x = torch.sigmoid(x)
        return x


fm = FM([num_users, num_items, 4], 5)
init_(fm, 0.5)
offsets = torch.tensor([0, num_users, num_users + num_items])
feats = torch.stack([users[:6], items[:6], torch.from_numpy(rng.integers(0, 4, 6))], 1) + offsets
out = fm(feats)
emb = fm.embedding(feats)
brute = sum((emb[:, a] * emb[:, b]).sum(-1) for a in range(3) for b in range(a + 1, 3))
print("fm", out.shape, r(out, 4), torch.allclose(0.5 * (emb.sum(1) ** 2 - (emb ** 2).sum(1)).sum(1), brute, atol=1e-5))
lbl = (scores[:6] > 3).float().reshape(-1, 1)
bce = F.binary_cross_entropy(out, lbl)
bce.backward()
print("fm_loss", round(bce.item(), 4), fm.embedding.weight.grad.shape,
      int((fm.embedding.weight.grad.abs().sum(1) > 0).sum()))
try:
    fm(feats + 100)
except IndexError as e:
    print("IndexError", e)
