"""Naive Bayes classifiers in torch: Gaussian NB with per-class var(correction=0) and var smoothing, multinomial NB
on bag-of-words counts built with bincount/index_add_ and Laplace smoothing, Bernoulli NB, log-space posteriors
with logsumexp and log_softmax, unique(return_inverse/return_counts) label encoding and the printed confusion
matrix with per-class metrics."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
dt = torch.float64

# ---------- Gaussian NB ----------
names = torch.tensor([10, 30, 20, 30, 10, 20] * 20)
classes, y, counts = torch.unique(names, return_inverse=True, return_counts=True)
print("classes", classes.tolist(), "counts", counts.tolist(), "encoded head", y[:6].tolist())
mus = torch.tensor([[0.0, 1.0, -1.0], [2.0, 0.0, 0.0], [0.0, -2.0, 1.5]], dtype=dt)
sds = torch.tensor([[1.0, 0.5, 1.0], [0.7, 1.0, 0.5], [1.2, 0.8, 0.6]], dtype=dt)
X = mus[y] + sds[y] * torch.randn(len(y), 3, dtype=dt)
perm = torch.randperm(len(y))
tr, te = perm[:90], perm[90:]


class GaussianNB:
    def fit(self, X, y, var_smoothing=1e-9):
        k = int(y.max()) + 1
        self.theta = torch.stack([X[y == c].mean(0) for c in range(k)])
        self.var = torch.stack([X[y == c].var(0, correction=0) for c in range(k)])
        self.var += var_smoothing * X.var(0, correction=0).max()
        self.log_prior = torch.log(torch.bincount(y, minlength=k).to(X.dtype) / len(y))
        return self

    def joint_log_likelihood(self, X):
        ll = -0.5 * (torch.log(2 * torch.pi * self.var).sum(1)
                     + ((X.unsqueeze(1) - self.theta) ** 2 / self.var).sum(2))
        return ll + self.log_prior

    def predict_log_proba(self, X):
        jll = self.joint_log_likelihood(X)
        return jll - torch.logsumexp(jll, dim=1, keepdim=True)


gnb = GaussianNB().fit(X[tr], y[tr])
print("theta\n", gnb.theta)
print("var\n", gnb.var)
print("log prior", gnb.log_prior)
lp = gnb.predict_log_proba(X[te])
print("log_softmax agrees", torch.allclose(lp, F.log_softmax(gnb.joint_log_likelihood(X[te]), 1)))
print("proba head\n", lp[:3].exp())
pred = lp.argmax(1)
print("decoded predictions", classes[pred][:8].tolist())
acc = (pred == y[te]).double().mean()
print("gaussian NB accuracy", round(acc.item(), 4))
normal = torch.distributions.Normal(gnb.theta, gnb.var.sqrt())
jll_dist = normal.log_prob(X[te].unsqueeze(1)).sum(-1) + gnb.log_prior
print("Normal.log_prob agrees", torch.allclose(jll_dist, gnb.joint_log_likelihood(X[te])))

# ---------- Multinomial NB on a toy corpus ----------
docs = ["good great fun", "great movie good", "bad awful boring", "boring bad plot", "fun plot great",
        "awful movie bad", "good fun fun", "bad boring awful plot"]
labels = torch.tensor([1, 1, 0, 0, 1, 0, 1, 0])
vocab = sorted({w for d in docs for w in d.split()})
w2i = {w: i for i, w in enumerate(vocab)}
V = len(vocab)
print("vocab", V, vocab)
counts_m = torch.stack([torch.bincount(torch.tensor([w2i[w] for w in d.split()]), minlength=V) for d in docs]).to(dt)
print("doc-term matrix\n", counts_m.long())
feat = torch.zeros(2, V, dtype=dt).index_add_(0, labels, counts_m)
alpha = 1.0
log_theta = torch.log((feat + alpha) / (feat.sum(1, keepdim=True) + alpha * V))
log_prior_m = torch.log(torch.bincount(labels).to(dt) / len(labels))
print("feature counts\n", feat.long())
print("log theta\n", log_theta)
test_docs = ["great fun plot", "boring awful movie", "plot"]
Xt = torch.stack([torch.bincount(torch.tensor([w2i[w] for w in d.split()]), minlength=V) for d in test_docs]).to(dt)
jll_m = Xt @ log_theta.T + log_prior_m
print("posteriors\n", jll_m.softmax(1))
print("predictions", jll_m.argmax(1).tolist())

# tf-idf as a side product
df = (counts_m > 0).sum(0).to(dt)
idf = torch.log((1 + len(docs)) / (1 + df)) + 1
tfidf = F.normalize(counts_m * idf, p=2, dim=1)
print("idf", idf)
print("tfidf row norms", tfidf.norm(dim=1))
sim = tfidf @ tfidf.T
print("most similar to doc0", sim[0].topk(3).indices.tolist())

# ---------- Bernoulli NB ----------
B = (counts_m > 0).to(dt)
Nc = torch.bincount(labels).to(dt)
p = (torch.zeros(2, V, dtype=dt).index_add_(0, labels, B) + 1) / (Nc.unsqueeze(1) + 2)
Bt = (Xt > 0).to(dt)
jll_b = Bt @ torch.log(p).T + (1 - Bt) @ torch.log1p(-p).T + log_prior_m
print("bernoulli p\n", p)
print("bernoulli posteriors\n", torch.softmax(jll_b, 1))

# ---------- confusion matrix and metrics on the Gaussian NB ----------
k = len(classes)
cm = torch.bincount(y[te] * k + pred, minlength=k * k).reshape(k, k)
print("confusion\n", cm)
tp = cm.diag().to(dt)
precision = tp / cm.sum(0).clamp(min=1)
recall = tp / cm.sum(1).clamp(min=1)
f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
print("precision", precision, "\nrecall", recall, "\nf1", f1)
print("macro f1", round(f1.mean().item(), 4), "weighted f1", round((f1 * cm.sum(1)).sum().item() / cm.sum().item(), 4))
