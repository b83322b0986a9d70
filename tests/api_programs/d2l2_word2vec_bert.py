"""d2l.ai chapter 15 (NLP pretraining) as the book writes it: subsampling and center/context extraction,
negative sampling with a RandomGenerator, batchify with masks, the skip-gram model with SigmoidBCELoss,
the GloVe weighted loss, token similarity, and BERT's input representation with tiny MaskLM and
NextSentencePred heads and the pretraining loss."""

import collections
import math
import random
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(41)
random.seed(0)


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


words = "the a cat dog sat on mat log ran fast slow red blue big small".split()
probs = np.array([30, 20, 8, 8, 6, 10, 4, 4, 5, 3, 3, 2, 2, 2, 2], dtype=np.float64)
sentences = [list(map(str, rng.choice(words, size=int(rng.integers(4, 9)), p=probs / probs.sum()))) for _ in range(40)]


class Vocab:
    def __init__(self, tokens, min_freq=0, reserved_tokens=["<unk>"]):
        counter = collections.Counter([t for line in tokens for t in line])
        self.token_freqs = sorted(counter.items(), key=lambda x: (-x[1], x[0]))
        self.idx_to_token = list(reserved_tokens)
        for token, freq in self.token_freqs:
            if freq >= min_freq and token not in self.idx_to_token:
                self.idx_to_token.append(token)
        self.token_to_idx = {t: i for i, t in enumerate(self.idx_to_token)}

    def __len__(self):
        return len(self.idx_to_token)

    def __getitem__(self, tokens):
        if not isinstance(tokens, (list, tuple)):
            return self.token_to_idx.get(tokens, 0)
        return [self.__getitem__(token) for token in tokens]


vocab = Vocab(sentences)
print("vocab", len(vocab), vocab.idx_to_token[:5], vocab[["cat", "zebra"]])


def subsample(sentences, vocab):
    sentences = [[token for token in line if vocab[token] != 0] for line in sentences]
    counter = collections.Counter([token for line in sentences for token in line])
    num_tokens = sum(counter.values())

    def keep(token):
        return (random.uniform(0, 1) < math.sqrt(1e-1 / counter[token] * num_tokens))
    return ([[token for token in line if keep(token)] for line in sentences], counter)


subsampled, counter = subsample(sentences, vocab)
print("subsample", sum(len(s) for s in sentences), sum(len(s) for s in subsampled), counter["the"])
corpus = [vocab[line] for line in subsampled]


def get_centers_and_contexts(corpus, max_window_size):
    centers, contexts = [], []
    for line in corpus:
        if len(line) < 2:
            continue
        centers += line
        for i in range(len(line)):
            window_size = random.randint(1, max_window_size)
            indices = list(range(max(0, i - window_size), min(len(line), i + 1 + window_size)))
            indices.remove(i)
            contexts.append([line[idx] for idx in indices])
    return centers, contexts


tiny_dataset = [list(range(7)), list(range(7, 10))]
for center, context in zip(*get_centers_and_contexts(tiny_dataset, 2)):
    print("center", center, "has contexts", context)
all_centers, all_contexts = get_centers_and_contexts(corpus, 2)


class RandomGenerator:
    def __init__(self, sampling_weights):
        self.population = list(range(1, len(sampling_weights) + 1))
        self.sampling_weights = sampling_weights
        self.candidates = []
        self.i = 0

    def draw(self):
        if self.i == len(self.candidates):
            self.candidates = random.choices(self.population, self.sampling_weights, k=10000)
            self.i = 0
        self.i += 1
        return self.candidates[self.i - 1]


def get_negatives(all_contexts, vocab, counter, K):
    sampling_weights = [counter[vocab.idx_to_token[i]] ** 0.75 for i in range(1, len(vocab))]
    all_negatives, generator = [], RandomGenerator(sampling_weights)
    for contexts in all_contexts:
        negatives = []
        while len(negatives) < len(contexts) * K:
            neg = generator.draw()
            if neg not in contexts:
                negatives.append(neg)
        all_negatives.append(negatives)
    return all_negatives


all_negatives = get_negatives(all_contexts, vocab, counter, 3)


def batchify(data):
    max_len = max(len(c) + len(n) for _, c, n in data)
    centers, contexts_negatives, masks, labels = [], [], [], []
    for center, context, negative in data:
        cur_len = len(context) + len(negative)
        centers += [center]
        contexts_negatives += [context + negative + [0] * (max_len - cur_len)]
        masks += [[1] * cur_len + [0] * (max_len - cur_len)]
        labels += [[1] * len(context) + [0] * (max_len - len(context))]
    return (torch.tensor(centers).reshape((-1, 1)), torch.tensor(contexts_negatives),
            torch.tensor(masks), torch.tensor(labels))


x_1 = (1, [2, 2], [3, 3, 3, 3])
x_2 = (1, [2, 2, 2], [3, 3])
batch = batchify((x_1, x_2))
names = ["centers", "contexts_negatives", "masks", "labels"]
for name, data in zip(names, batch):
    print(name, "=", data)
data = [(all_centers[i], all_contexts[i], all_negatives[i]) for i in range(len(all_centers))]
batches = [batchify(data[i:i + 16]) for i in range(0, min(len(data), 64), 16)]
print("batches", len(batches), [tuple(b.shape) for b in batches[0]])

embed = nn.Embedding(num_embeddings=20, embedding_dim=4)
print(f"Parameter embedding_weight ({embed.weight.shape}, dtype={embed.weight.dtype})")
x = torch.tensor([[1, 2, 3], [4, 5, 6]])
print(embed(x).shape)


def skip_gram(center, contexts_and_negatives, embed_v, embed_u):
    v = embed_v(center)
    u = embed_u(contexts_and_negatives)
    pred = torch.bmm(v, u.permute(0, 2, 1))
    return pred


print(skip_gram(torch.ones((2, 1), dtype=torch.long), torch.ones((2, 4), dtype=torch.long), embed, embed).shape)


class SigmoidBCELoss(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, inputs, target, mask=None):
        out = nn.functional.binary_cross_entropy_with_logits(inputs, target, weight=mask, reduction="none")
        return out.mean(dim=1)


loss = SigmoidBCELoss()
pred = torch.tensor([[1.1, -2.2, 3.3, -4.4]] * 2)
label = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])
print(loss(pred, label, mask) * mask.shape[1] / mask.sum(axis=1))


def sigmd(x):
    return -math.log(1 / (1 + math.exp(-x)))


print(f"{(sigmd(1.1) + sigmd(2.2) + sigmd(-3.3) + sigmd(4.4)) / 4:.4f}")
print(f"{(sigmd(-1.1) + sigmd(-2.2)) / 2:.4f}")

embed_size = 8
net = nn.Sequential(nn.Embedding(num_embeddings=len(vocab), embedding_dim=embed_size),
                    nn.Embedding(num_embeddings=len(vocab), embedding_dim=embed_size))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.from_numpy((0.5 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
for epoch in range(3):
    total, n = 0.0, 0
    for center, context_negative, mask, label in batches:
        optimizer.zero_grad()
        pred = skip_gram(center, context_negative, net[0], net[1])
        l = (loss(pred.reshape(label.shape).float(), label.float(), mask) / mask.sum(axis=1) * mask.shape[1])
        l.sum().backward()
        optimizer.step()
        total += l.sum().item()
        n += l.numel()
    print(f"epoch {epoch + 1}, loss {total / n:.4f}")


def get_similar_tokens(query_token, k, embed):
    W = embed.weight.data
    x = W[vocab[query_token]]
    cos = torch.mv(W, x) / torch.sqrt(torch.sum(W * W, dim=1) * torch.sum(x * x) + 1e-9)
    topk = torch.topk(cos, k=k + 1)[1].cpu().numpy().astype("int32")
    for i in topk[1:]:
        print(f"cosine sim={float(cos[i]):.3f}: {vocab.idx_to_token[i]}")


get_similar_tokens("cat", 3, net[0])

# GloVe loss on a co-occurrence matrix
V = len(vocab)
X = torch.zeros(V, V)
for line in corpus:
    for i, c in enumerate(line):
        for j in range(max(0, i - 2), min(len(line), i + 3)):
            if j != i:
                X[c, line[j]] += 1.0 / abs(i - j)
w_i, w_j = net[0].weight.detach().clone().requires_grad_(), net[1].weight.detach().clone().requires_grad_()
b_i, b_j = torch.zeros(V, requires_grad=True), torch.zeros(V, requires_grad=True)
nz = X.nonzero(as_tuple=True)
x_ij = X[nz]
h = torch.where(x_ij < 5, (x_ij / 5) ** 0.75, torch.ones_like(x_ij))
glove = (h * ((w_i[nz[0]] * w_j[nz[1]]).sum(-1) + b_i[nz[0]] + b_j[nz[1]] - torch.log(x_ij)) ** 2).sum()
glove.backward()
print("glove", len(nz[0]), round(glove.item(), 3), round(b_i.grad.abs().sum().item(), 3), r(w_j.grad[1], 3))


# BERT input representation and heads
def get_tokens_and_segments(tokens_a, tokens_b=None):
    tokens = ["<cls>"] + tokens_a + ["<sep>"]
    segments = [0] * (len(tokens_a) + 2)
    if tokens_b is not None:
        tokens += tokens_b + ["<sep>"]
        segments += [1] * (len(tokens_b) + 1)
    return tokens, segments


print(get_tokens_and_segments(["a", "cat"], ["sat", "down"]))


class BERTEncoder(nn.Module):
    def __init__(self, vocab_size, num_hiddens, ffn_num_hiddens, num_heads, num_blks, dropout, max_len=1000):
        super(BERTEncoder, self).__init__()  # noqa: UP008
        self.token_embedding = nn.Embedding(vocab_size, num_hiddens)
        self.segment_embedding = nn.Embedding(2, num_hiddens)
        self.blks = nn.Sequential()
        for i in range(num_blks):
            self.blks.add_module(f"{i}", nn.TransformerEncoderLayer(
                num_hiddens, num_heads, ffn_num_hiddens, dropout, batch_first=True))
        self.pos_embedding = nn.Parameter(torch.zeros(1, max_len, num_hiddens))

    def forward(self, tokens, segments, valid_lens):
        X = self.token_embedding(tokens) + self.segment_embedding(segments)
        X = X + self.pos_embedding[:, :X.shape[1], :]
        pad = torch.arange(X.shape[1])[None, :] >= valid_lens[:, None]
        for blk in self.blks:
            X = blk(X, src_key_padding_mask=pad)
        return X


class MaskLM(nn.Module):
    def __init__(self, vocab_size, num_hiddens, **kwargs):
        super(MaskLM, self).__init__(**kwargs)  # noqa: UP008
        self.mlp = nn.Sequential(nn.LazyLinear(num_hiddens), nn.ReLU(), nn.LayerNorm(num_hiddens),
                                 nn.LazyLinear(vocab_size))

    def forward(self, X, pred_positions):
        num_pred_positions = pred_positions.shape[1]
        pred_positions = pred_positions.reshape(-1)
        batch_size = X.shape[0]
        batch_idx = torch.arange(0, batch_size)
        batch_idx = torch.repeat_interleave(batch_idx, num_pred_positions)
        masked_X = X[batch_idx, pred_positions]
        masked_X = masked_X.reshape((batch_size, num_pred_positions, -1))
        return self.mlp(masked_X)


class NextSentencePred(nn.Module):
    def __init__(self, **kwargs):
        super(NextSentencePred, self).__init__(**kwargs)  # noqa: UP008
        self.output = nn.LazyLinear(2)

    def forward(self, X):
        return self.output(X)


vocab_size, num_hiddens, ffn_num_hiddens, num_heads = 30, 16, 32, 4
encoder = BERTEncoder(vocab_size, num_hiddens, ffn_num_hiddens, num_heads, 2, 0.2, max_len=32)
tokens = torch.from_numpy(rng.integers(0, vocab_size, (2, 8)))
segments = torch.tensor([[0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 1, 1, 1, 1, 1]])
mlm, nsp = MaskLM(vocab_size, num_hiddens), NextSentencePred()
encoder.eval()
enc = encoder(tokens, segments, torch.tensor([8, 6]))
mlm_positions = torch.tensor([[1, 5, 2], [6, 1, 5]])
mlm_Y_hat = mlm(enc, mlm_positions)
nsp_Y_hat = nsp(enc[:, 0, :])
with torch.no_grad():
    for m in (encoder, mlm, nsp):
        for p in m.parameters():
            p.copy_(torch.from_numpy((0.2 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
enc = encoder(tokens, segments, torch.tensor([8, 6]))
mlm_Y_hat, nsp_Y_hat = mlm(enc, mlm_positions), nsp(enc[:, 0, :])
print("bert", enc.shape, mlm_Y_hat.shape, nsp_Y_hat.shape, r(enc[1, 0], 4))
loss = nn.CrossEntropyLoss(reduction="none")
mlm_Y = torch.tensor([[7, 8, 9], [10, 20, 29]])
mlm_weights = torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
mlm_l = loss(mlm_Y_hat.reshape((-1, vocab_size)), mlm_Y.reshape(-1)) * mlm_weights.reshape(-1, 1)
mlm_l = mlm_l.sum() / (mlm_weights.sum() + 1e-8)
nsp_l = loss(nsp_Y_hat, torch.tensor([0, 1])).mean()
(mlm_l + nsp_l).backward()
print("pretrain", round(mlm_l.item(), 4), round(nsp_l.item(), 4), mlm_l.grad_fn.name(),
      round(encoder.token_embedding.weight.grad.abs().sum().item(), 4),
      round(encoder.pos_embedding.grad[0, 7].abs().sum().item(), 4))
print(mlm.mlp, sum(p.numel() for p in encoder.parameters()))
try:
    mlm(enc, torch.tensor([[1, 9, 2], [6, 1, 5]]))
except IndexError as e:
    print("IndexError", e)
