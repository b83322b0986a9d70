"""A scikit-learn-style estimator around a torch model, as applied-ML code wraps one: fit(X, y) on float64
ndarrays (cast to float32 with from_numpy(...).float()), standardisation statistics kept as numpy, numpy
index shuffles for minibatches, predict_proba/predict returning ndarrays via .detach().numpy(), score with
numpy metrics, get_params/set_params, a k-fold loop over np.array_split, and a state_dict stored as numpy
arrays then loaded back with torch.from_numpy."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4)


class TorchClassifier:
    def __init__(self, hidden=8, lr=0.05, epochs=30, batch_size=16, seed=0):
        self.hidden, self.lr, self.epochs, self.batch_size, self.seed = hidden, lr, epochs, batch_size, seed

    def get_params(self):
        return {k: getattr(self, k) for k in ("hidden", "lr", "epochs", "batch_size", "seed")}

    def set_params(self, **params):
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def _tensor(self, X):
        return torch.from_numpy(((X - self.mean_) / self.scale_).astype(np.float32))

    def fit(self, X, y):
        torch.manual_seed(self.seed)
        rng = np.random.default_rng(self.seed)
        self.classes_ = np.unique(y)
        self.mean_, self.scale_ = X.mean(axis=0), X.std(axis=0)
        self.scale_[self.scale_ == 0] = 1.0
        Xt = self._tensor(X)
        yt = torch.from_numpy(np.searchsorted(self.classes_, y))
        self.model_ = nn.Sequential(nn.Linear(X.shape[1], self.hidden), nn.ReLU(),
                                    nn.Linear(self.hidden, len(self.classes_)))
        opt = torch.optim.Adam(self.model_.parameters(), lr=self.lr)
        self.loss_curve_ = []
        for _ in range(self.epochs):
            order = rng.permutation(len(Xt))
            total = 0.0
            for start in range(0, len(order), self.batch_size):
                idx = order[start:start + self.batch_size]
                opt.zero_grad()
                loss = F.cross_entropy(self.model_(Xt[idx]), yt[idx])
                loss.backward()
                opt.step()
                total += loss.item() * len(idx)
            self.loss_curve_.append(total / len(Xt))
        return self

    def predict_proba(self, X):
        with torch.no_grad():
            return F.softmax(self.model_(self._tensor(X)), dim=1).numpy()

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]

    def score(self, X, y):
        return float((self.predict(X) == y).mean())


rng = np.random.default_rng(5)
n = 90
centers = np.array([[0.0, 0.0], [3.0, 3.0], [0.0, 4.0]])
y = np.repeat(np.array([10, 20, 30]), n // 3)
X = centers[(y // 10) - 1] + rng.normal(scale=0.9, size=(n, 2))
print("data", X.dtype, X.shape, y.dtype, np.bincount(y // 10).tolist())

clf = TorchClassifier(epochs=15)
print("params", clf.get_params())
clf.fit(X, y)
print("classes", clf.classes_.tolist(), type(clf.classes_).__name__)
print("mean", np.round(clf.mean_, 4).tolist(), "scale", np.round(clf.scale_, 4).tolist())
print("loss curve", [round(v, 4) for v in clf.loss_curve_[::4]])
proba = clf.predict_proba(X[:4])
print("proba", proba.dtype, type(proba).__name__, np.round(proba, 4).tolist())
print("rows sum to one", np.allclose(proba.sum(axis=1), 1.0, atol=1e-6))
pred = clf.predict(X[:8])
print("predict", pred.dtype, pred.tolist(), "truth", y[:8].tolist())
print("train accuracy", round(clf.score(X, y), 4))
w = clf.model_[0].weight
print("first layer", type(w).__name__, w.requires_grad, w.detach().numpy().dtype, tuple(w.shape))

print("-- k-fold with numpy index arithmetic")
perm = np.random.default_rng(1).permutation(n)
scores = []
for k, test_idx in enumerate(np.array_split(perm, 3)):
    train_idx = np.setdiff1d(perm, test_idx)
    model = TorchClassifier(epochs=8, seed=k).fit(X[train_idx], y[train_idx])
    scores.append(model.score(X[test_idx], y[test_idx]))
    print(f"fold {k} train {len(train_idx)} test {len(test_idx)} acc {scores[-1]:.4f} "
          f"final loss {model.loss_curve_[-1]:.4f}")
print("cv mean", round(float(np.mean(scores)), 4), "std", round(float(np.std(scores)), 4))

print("-- grid over set_params")
for hidden in (2, 16):
    s = clf.set_params(hidden=hidden, epochs=6).fit(X, y).score(X, y)
    n_params = sum(p.numel() for p in clf.model_.parameters())
    print(f"hidden {hidden} params {n_params} acc {s:.4f}")

print("-- weights as numpy and back")
arrays = {k: v.detach().numpy().copy() for k, v in clf.model_.state_dict().items()}
print({k: (v.dtype.name, v.shape) for k, v in arrays.items()})
fresh = TorchClassifier(hidden=16).set_params(epochs=0).fit(X, y)
before = fresh.score(X, y)
fresh.model_.load_state_dict({k: torch.from_numpy(v) for k, v in arrays.items()})
print("before load", round(before, 4), "after load", round(fresh.score(X, y), 4),
      "same proba", np.allclose(fresh.predict_proba(X[:5]), clf.predict_proba(X[:5])))
try:
    fresh.model_.load_state_dict({k: v for k, v in arrays.items()})
except Exception as e:
    print("numpy state_dict", type(e).__name__, str(e).splitlines()[0][:90])
bad = dict(arrays)
bad["0.weight"] = bad["0.weight"].astype(np.float64)
fresh.model_.load_state_dict({k: torch.from_numpy(v) for k, v in bad.items()})
print("float64 copied into float32", fresh.model_[0].weight.dtype)
