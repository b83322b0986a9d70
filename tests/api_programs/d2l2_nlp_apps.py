"""d2l.ai chapter 16 (NLP applications) as the book writes it: padding/truncating reviews, loading "pretrained"
vectors into a frozen embedding, the BiRNN and TextCNN sentiment classifiers, the decomposable-attention NLI
model (attend, compare, aggregate), a BERT-style classifier head on [CLS], prediction helpers, and the
typical mistakes (an LSTM's state fed to a GRU, out-of-range indices, an ambiguous empty reshape)."""

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

rng = np.random.default_rng(61)


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def init_(m, scale=0.2):
    with torch.no_grad():
        for p in m.parameters():
            if p.requires_grad:
                p.copy_(torch.from_numpy((scale * rng.standard_normal(tuple(p.shape))).astype(np.float32)))


def truncate_pad(line, num_steps, padding_token):
    if len(line) > num_steps:
        return line[:num_steps]
    return line + [padding_token] * (num_steps - len(line))


vocab_size, num_steps, embed_size = 20, 9, 6
reviews = [list(rng.integers(1, vocab_size, int(rng.integers(3, 14)))) for _ in range(12)]
labels = torch.tensor([int(rng.integers(0, 2)) for _ in range(12)])
features = torch.tensor([truncate_pad([int(t) for t in line], num_steps, 0) for line in reviews])
valid_len = (features != 0).type(torch.int32).sum(1)
print("features", features.shape, features.dtype, features[0].tolist(), valid_len.tolist())
glove = torch.from_numpy(rng.standard_normal((vocab_size, embed_size)).astype(np.float32))
glove[0] = 0


class BiRNN(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, **kwargs):
        super(BiRNN, self).__init__(**kwargs)  # noqa: UP008
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.encoder = nn.LSTM(embed_size, num_hiddens, num_layers=num_layers, bidirectional=True)
        self.decoder = nn.Linear(4 * num_hiddens, 2)

    def forward(self, inputs):
        embeddings = self.embedding(inputs.T)
        self.encoder.flatten_parameters()
        outputs, _ = self.encoder(embeddings)
        encoding = torch.cat((outputs[0], outputs[-1]), dim=1)
        outs = self.decoder(encoding)
        return outs


net = BiRNN(vocab_size, embed_size, 5, 2)


def init_weights(module):
    if type(module) == nn.Linear:  # noqa: E721
        nn.init.xavier_uniform_(module.weight)
    if type(module) == nn.LSTM:  # noqa: E721
        for param in module._flat_weights_names:
            if "weight" in param:
                nn.init.xavier_uniform_(module._parameters[param])


net.apply(init_weights)
print("flat_names", net.encoder._flat_weights_names[:4], len(net.encoder._flat_weights))
init_(net)
net.embedding.weight.data.copy_(glove)
net.embedding.weight.requires_grad = False
trainable = [p for p in net.parameters() if p.requires_grad]
print("trainable", len(trainable), sum(p.numel() for p in trainable), net.embedding.weight.requires_grad)
trainer = torch.optim.Adam(trainable, lr=0.01)
loss = nn.CrossEntropyLoss(reduction="none")
for epoch in range(3):
    trainer.zero_grad()
    l = loss(net(features), labels)
    l.sum().backward()
    trainer.step()
    acc = (net(features).argmax(1) == labels).float().mean()
    print(f"epoch {epoch + 1}, loss {l.mean().item():.4f}, acc {acc.item():.3f}")
print("frozen grad", net.embedding.weight.grad, net.decoder.weight.grad.shape)


def predict_sentiment(net, tokens):
    sequence = torch.tensor(tokens)
    label = torch.argmax(net(sequence.reshape(1, -1)), dim=1)
    return "positive" if label == 1 else "negative"


print(predict_sentiment(net, [3, 5, 7]), predict_sentiment(net, [11, 2, 19, 4]))


def corr1d(X, K):
    w = K.shape[0]
    Y = torch.zeros((X.shape[0] - w + 1))  # noqa: UP034
    for i in range(Y.shape[0]):
        Y[i] = (X[i: i + w] * K).sum()
    return Y


def corr1d_multi_in(X, K):
    return sum(corr1d(x, k) for x, k in zip(X, K))


X, K = torch.tensor([0, 1, 2, 3, 4, 5, 6]), torch.tensor([1, 2])
print(corr1d(X, K))
X = torch.tensor([[0, 1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6, 7], [2, 3, 4, 5, 6, 7, 8]])
K = torch.tensor([[1, 2], [3, 4], [-1, -3]])
print(corr1d_multi_in(X, K), F.conv1d(X[None].float(), K[None].float()))


class TextCNN(nn.Module):
    def __init__(self, vocab_size, embed_size, kernel_sizes, num_channels, **kwargs):
        super(TextCNN, self).__init__(**kwargs)  # noqa: UP008
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.constant_embedding = nn.Embedding(vocab_size, embed_size)
        self.dropout = nn.Dropout(0.5)
        self.decoder = nn.Linear(sum(num_channels), 2)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.relu = nn.ReLU()
        self.convs = nn.ModuleList()
        for c, k in zip(num_channels, kernel_sizes):
            self.convs.append(nn.Conv1d(2 * embed_size, c, k))

    def forward(self, inputs):
        embeddings = torch.cat((self.embedding(inputs), self.constant_embedding(inputs)), dim=2)
        embeddings = embeddings.permute(0, 2, 1)
        encoding = torch.cat([torch.squeeze(self.relu(self.pool(conv(embeddings))), dim=-1)
                              for conv in self.convs], dim=1)
        outputs = self.decoder(self.dropout(encoding))
        return outputs


cnn = TextCNN(vocab_size, embed_size, [3, 4, 5], [4, 4, 4])
init_(cnn)
cnn.constant_embedding.weight.data.copy_(glove)
cnn.constant_embedding.weight.requires_grad = False
cnn.eval()
out = cnn(features)
print("textcnn", out.shape, r(out[0], 2), cnn.convs[1], len(list(cnn.parameters())))
cnn.train()
l = F.cross_entropy(cnn.eval()(features), labels)
l.backward()
print("textcnn grads", round(l.item(), 4), r(cnn.convs[0].bias.grad, 4), cnn.constant_embedding.weight.grad)


def mlp(num_inputs, num_hiddens, flatten):
    net = []
    net.append(nn.Dropout(0.2))
    net.append(nn.Linear(num_inputs, num_hiddens))
    net.append(nn.ReLU())
    if flatten:
        net.append(nn.Flatten(start_dim=1))
    net.append(nn.Dropout(0.2))
    net.append(nn.Linear(num_hiddens, num_hiddens))
    net.append(nn.ReLU())
    if flatten:
        net.append(nn.Flatten(start_dim=1))
    return nn.Sequential(*net)


class Attend(nn.Module):
    def __init__(self, num_inputs, num_hiddens, **kwargs):
        super(Attend, self).__init__(**kwargs)  # noqa: UP008
        self.f = mlp(num_inputs, num_hiddens, flatten=False)

    def forward(self, A, B):
        f_A = self.f(A)
        f_B = self.f(B)
        e = torch.bmm(f_A, f_B.permute(0, 2, 1))
        beta = torch.bmm(F.softmax(e, dim=-1), B)
        alpha = torch.bmm(F.softmax(e.permute(0, 2, 1), dim=-1), A)
        return beta, alpha


class Compare(nn.Module):
    def __init__(self, num_inputs, num_hiddens, **kwargs):
        super(Compare, self).__init__(**kwargs)  # noqa: UP008
        self.g = mlp(num_inputs, num_hiddens, flatten=False)

    def forward(self, A, B, beta, alpha):
        V_A = self.g(torch.cat([A, beta], dim=2))
        V_B = self.g(torch.cat([B, alpha], dim=2))
        return V_A, V_B


class Aggregate(nn.Module):
    def __init__(self, num_inputs, num_hiddens, num_outputs, **kwargs):
        super(Aggregate, self).__init__(**kwargs)  # noqa: UP008
        self.h = mlp(num_inputs, num_hiddens, flatten=True)
        self.linear = nn.Linear(num_hiddens, num_outputs)

    def forward(self, V_A, V_B):
        V_A = V_A.sum(dim=1)
        V_B = V_B.sum(dim=1)
        Y_hat = self.linear(self.h(torch.cat([V_A, V_B], dim=1)))
        return Y_hat


class DecomposableAttention(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_inputs_attend=6, num_inputs_compare=12,
                 num_inputs_agg=16, **kwargs):
        super(DecomposableAttention, self).__init__(**kwargs)  # noqa: UP008
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.attend = Attend(num_inputs_attend, num_hiddens)
        self.compare = Compare(num_inputs_compare, num_hiddens)
        self.aggregate = Aggregate(num_inputs_agg, num_hiddens, num_outputs=3)

    def forward(self, X):
        premises, hypotheses = X
        A = self.embedding(premises)
        B = self.embedding(hypotheses)
        beta, alpha = self.attend(A, B)
        V_A, V_B = self.compare(A, B, beta, alpha)
        Y_hat = self.aggregate(V_A, V_B)
        return Y_hat


nli = DecomposableAttention(vocab_size, embed_size, 8)
init_(nli)
nli.eval()
premises, hypotheses = features[:6], features[6:]
y = nli((premises, hypotheses))
beta, alpha = nli.attend(nli.embedding(premises), nli.embedding(hypotheses))
print("nli", y.shape, r(y[0], 3), beta.shape, alpha.shape, r(beta[0, 0], 3))
nli_labels = torch.tensor([0, 1, 2, 0, 1, 2])
l = F.cross_entropy(y, nli_labels)
l.backward()
print("nli loss", round(l.item(), 4), round(nli.attend.f[1].weight.grad.norm().item(), 4),
      ["entailment", "contradiction", "neutral"][int(y.argmax(1)[2])])


class BERTClassifier(nn.Module):
    def __init__(self, hidden, vocab_size):
        super(BERTClassifier, self).__init__()  # noqa: UP008
        self.embedding = nn.Embedding(vocab_size, hidden)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(hidden, 2, 16, 0.0, batch_first=True), 1,
                                             enable_nested_tensor=False)
        self.hidden = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh())
        self.output = nn.Linear(hidden, 3)

    def forward(self, inputs):
        tokens_X, valid_lens_x = inputs
        pad = torch.arange(tokens_X.shape[1])[None, :] >= valid_lens_x[:, None]
        encoded_X = self.encoder(self.embedding(tokens_X), src_key_padding_mask=pad)
        return self.output(self.hidden(encoded_X[:, 0, :]))


clf = BERTClassifier(8, vocab_size)
init_(clf)
clf.eval()
logits = clf((features, valid_len))
print("bert_clf", logits.shape, r(logits[3], 3), clf.hidden)

# the mistakes readers make
gru = nn.GRU(embed_size, 5)
emb = nn.Embedding(vocab_size, embed_size)(features.T)
state = (torch.zeros(1, 12, 5), torch.zeros(1, 12, 5))
for fn in (lambda: gru(emb, state), lambda: nn.LSTM(embed_size, 5)(emb, torch.zeros(1, 12, 5)),
           lambda: features[0, 9], lambda: features[:, 0, 1], lambda: valid_len[None, 12],
           lambda: features[:0].reshape(-1, 0), lambda: features.T.view(-1),
           lambda: torch.zeros(num_steps / 3), lambda: features.reshape(12, num_steps / 3, 3),
           lambda: torch.ones(2, embed_size / 2), lambda: torch.randn((embed_size / 2, 2)),
           lambda: glove.repeat(1, 2.0), lambda: torch.eye(vocab_size / 2)):
    try:
        fn()
    except (AttributeError, IndexError, RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
