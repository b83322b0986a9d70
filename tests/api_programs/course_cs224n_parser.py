"""CS224n assignments 1-3: count-based word vectors (co-occurrence matrix, truncated SVD, cosine neighbours),
word2vec's naive-softmax and negative-sampling losses with their gradients, and the transition-based dependency
parser: PartialParse transitions, minibatch parsing, and the feature MLP with nn.Embedding trained by Adam."""

import io

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(224)


def r(x, k=5):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


# Co-occurrence matrix with a window of 1, then the top-2 SVD directions (sign-normalised).
corpus = [["<s>", "all", "that", "glitters", "is", "not", "gold", "</s>"],
          ["<s>", "all", "is", "well", "that", "ends", "well", "</s>"]]
words = sorted({w for doc in corpus for w in doc})
w2i = {w: i for i, w in enumerate(words)}
M = torch.zeros(len(words), len(words))
for doc in corpus:
    ids = torch.tensor([w2i[w] for w in doc])
    for off in (-1, 1):
        a = ids[max(0, -off):len(ids) - max(0, off)]
        b = ids[max(0, off):len(ids) - max(0, -off)]
        M.index_put_((a, b), torch.ones(len(a)), accumulate=True)
print("words", len(words), words[:4], "M", tuple(M.shape), M.dtype, int(M.sum()), M[w2i["well"]].tolist())
print("symmetric", torch.equal(M, M.T), M.diagonal().sum().item(), torch.count_nonzero(M).item())
U, S, Vh = torch.linalg.svd(M.double())
print("singular values", r(S, 4), torch.allclose(U[:, :4] * S[:4] @ Vh[:4], U[:, :4] @ torch.diag(S[:4]) @ Vh[:4]))
k2 = U[:, :2] * S[:2]
k2 = k2 * torch.sign(k2[0:1])  # fix the SVD sign ambiguity
k2n = k2 / k2.norm(dim=1, keepdim=True)
sims = k2n @ k2n[w2i["gold"]]
print("nearest to gold", [words[i] for i in sims.argsort(descending=True)[:3].tolist()], r(sims.sort().values, 3))
print("cosine_similarity", round(F.cosine_similarity(k2[w2i["all"]], k2[w2i["is"]], dim=0).item(), 4))


# word2vec naive softmax and negative sampling, gradients by hand and by autograd.
def naive_softmax_loss_and_gradient(center, outside_idx, outside_vectors):
    y_hat = F.softmax(outside_vectors @ center, dim=0)
    loss = -torch.log(y_hat[outside_idx])
    y = torch.zeros_like(y_hat)
    y[outside_idx] = 1
    return loss, outside_vectors.t() @ (y_hat - y), torch.outer(y_hat - y, center)


def neg_sampling_loss(center, outside_idx, outside_vectors, neg_idx):
    u_o, u_k = outside_vectors[outside_idx], outside_vectors[neg_idx]
    return -F.logsigmoid(u_o @ center) - F.logsigmoid(-(u_k @ center)).sum()


V = torch.from_numpy(rng.standard_normal((5, 3)))
U_out = torch.from_numpy(rng.standard_normal((5, 3)))
c = V[2].clone().requires_grad_()
Uo = U_out.clone().requires_grad_()
loss, gc, gU = naive_softmax_loss_and_gradient(c, 4, Uo)
loss.backward()
print("naive softmax", round(loss.item(), 4), torch.allclose(gc, c.grad), torch.allclose(gU, Uo.grad), r(gc))
c.grad, Uo.grad = None, None
neg = torch.tensor([1, 3, 3, 0])
ns = neg_sampling_loss(c, 4, Uo, neg)
ns.backward()
print("neg sampling", round(ns.item(), 4), r(c.grad), r(Uo.grad[3], 3),
      r(Uo.grad[2], 3))


# Transition-based parsing.
class PartialParse:
    def __init__(self, sentence):
        self.sentence = sentence
        self.stack, self.buffer, self.dependencies = ["ROOT"], list(sentence), []

    def parse_step(self, transition):
        if transition == "S":
            self.stack.append(self.buffer.pop(0))
        elif transition == "LA":
            dep = self.stack.pop(-2)
            self.dependencies.append((self.stack[-1], dep))
        elif transition == "RA":
            dep = self.stack.pop()
            self.dependencies.append((self.stack[-1], dep))
        else:
            raise ValueError(f"unknown transition {transition!r}")

    def parse(self, transitions):
        for t in transitions:
            self.parse_step(t)
        return self.dependencies


pp = PartialParse(["parse", "this", "sentence", "correctly"])
deps = pp.parse(["S", "S", "S", "LA", "RA", "S", "RA", "RA"])
print("parse", deps, pp.stack, pp.buffer)


class ParserModel(nn.Module):
    def __init__(self, embeddings, n_features=6, hidden_size=10, n_classes=3, dropout_prob=0.5):
        super().__init__()
        self.n_features, self.embed_size = n_features, embeddings.shape[1]
        self.embeddings = nn.Parameter(torch.tensor(embeddings))
        self.embed_to_hidden_weight = nn.Parameter(torch.empty(self.n_features * self.embed_size, hidden_size))
        self.embed_to_hidden_bias = nn.Parameter(torch.empty(hidden_size))
        self.dropout = nn.Dropout(p=dropout_prob)
        self.hidden_to_logits = nn.Linear(hidden_size, n_classes)

    def embedding_lookup(self, w):
        return torch.index_select(self.embeddings, 0, w.reshape(-1)).view(w.shape[0], -1)

    def forward(self, w):
        h = F.relu(self.embedding_lookup(w) @ self.embed_to_hidden_weight + self.embed_to_hidden_bias)
        return self.hidden_to_logits(self.dropout(h))


emb = (0.3 * rng.standard_normal((20, 4))).astype(np.float32)
parser = ParserModel(emb)
with torch.no_grad():
    for p in parser.parameters():
        if p is not parser.embeddings:
            p.copy_(torch.from_numpy((0.3 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
print(parser)
print("params", [(n, tuple(p.shape)) for n, p in parser.named_parameters()])
w_batch = torch.from_numpy(rng.integers(0, 20, (7, 6)))
as_embedding = nn.Embedding.from_pretrained(parser.embeddings.detach(), freeze=True)
print("lookup", torch.equal(parser.embedding_lookup(w_batch), as_embedding(w_batch).flatten(1)),
      as_embedding.weight.requires_grad, as_embedding)
labels = torch.from_numpy(rng.integers(0, 3, 7))
optimizer = torch.optim.Adam(parser.parameters(), lr=0.01)
loss_func = nn.CrossEntropyLoss()
parser.eval()
for epoch in range(8):
    optimizer.zero_grad()
    loss = loss_func(parser(w_batch), labels)
    loss.backward()
    optimizer.step()
    if epoch % 3 == 0:
        print("epoch", epoch, round(loss.item(), 4), r(parser.embeddings.grad.abs().sum(1), 4))


def minibatch_parse(sentences, model, batch_size):
    """Parses every sentence, batch by batch, with the model's greedy transition for each partial parse."""
    partial = [PartialParse(s) for s in sentences]
    unfinished = partial[:]
    while unfinished:
        batch = unfinished[:batch_size]
        feats = torch.tensor([[len(p.stack), len(p.buffer), len(p.dependencies), 0, 1, 2] for p in batch])
        with torch.no_grad():
            logits = model(feats)
        legal = torch.tensor([[len(p.buffer) > 0, len(p.stack) > 2, len(p.stack) > 1] for p in batch])
        choice = logits.masked_fill(~legal, float("-inf")).argmax(1).tolist()
        for p, t in zip(batch, choice):
            p.parse_step(["S", "LA", "RA"][t])
        unfinished = [p for p in unfinished if p.buffer or len(p.stack) > 1]
    return [p.dependencies for p in partial]


sents = [["right", "arcs", "only"], ["left", "arcs", "only", "here"], ["a"]]
print("minibatch parse", minibatch_parse(sents, parser, 2))
try:
    PartialParse(["x"]).parse_step("SHIFT")
except ValueError as e:
    print("bad transition", e)

buf = io.BytesIO()
torch.save(parser.state_dict(), buf)
buf.seek(0)
state = torch.load(buf, weights_only=True)
print("checkpoint", list(state)[:3], type(state).__name__, state["embeddings"].dtype)
try:
    torch.save(parser.state_dict(), "results/20260101_000000/model.weights")  # the assignment's folder, not made yet
except RuntimeError as e:
    print("save", type(e).__name__, e)
fresh = ParserModel(emb)
print("load", fresh.load_state_dict(state), torch.equal(fresh.eval()(w_batch), parser(w_batch)), fresh.training)
try:
    fresh.embedding_lookup(torch.tensor([[25]]))
except IndexError as e:
    print("lookup out of range", type(e).__name__, e)
