"""The d2l.ai 2nd edition's object-oriented scaffolding inlined: HyperParameters.save_hyperparameters via inspect,
add_to_class, Module(nn.Module) with training_step/configure_optimizers, DataModule.get_tensorloader over sliced
tensors, a Trainer with prepare_batch and clip_gradients, LinearRegression over nn.LazyLinear initialized through
.data before its first call, WeightDecay param groups, a Classifier's accuracy and loss, K-fold log-RMSE, and the
probability section's Multinomial counts; device helpers without touching a GPU."""

import inspect

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

rng = np.random.default_rng(13)


def add_to_class(Class):
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)

    return wrapper


class HyperParameters:
    def save_hyperparameters(self, ignore=[]):
        frame = inspect.currentframe().f_back
        _, _, _, local_vars = inspect.getargvalues(frame)
        ignore = set(ignore + ["self"])
        self.hparams = {k: v for k, v in local_vars.items() if k not in ignore and not k.startswith("_")}
        for k, v in self.hparams.items():
            setattr(self, k, v)


class Module(nn.Module, HyperParameters):
    def __init__(self, plot_train_per_epoch=2, plot_valid_per_epoch=1):
        super().__init__()
        self.save_hyperparameters()
        self.log = []

    def loss(self, y_hat, y):
        raise NotImplementedError

    def forward(self, X):
        assert hasattr(self, "net"), "Neural network is defined"
        return self.net(X)

    def training_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])
        self.log.append(("train_loss", round(l.item(), 4)))
        return l

    def validation_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])
        self.log.append(("val_loss", round(l.item(), 4)))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.lr)


class DataModule(HyperParameters):
    def __init__(self, num_workers=0):
        self.save_hyperparameters()

    def get_tensorloader(self, tensors, train, indices=slice(0, None)):
        tensors = tuple(a[indices] for a in tensors)
        dataset = torch.utils.data.TensorDataset(*tensors)
        return torch.utils.data.DataLoader(dataset, self.batch_size, shuffle=train)

    def train_dataloader(self):
        return self.get_dataloader(train=True)

    def val_dataloader(self):
        return self.get_dataloader(train=False)


class SyntheticRegressionData(DataModule):
    def __init__(self, w, b, noise=0.01, num_train=60, num_val=40, batch_size=16):
        super().__init__()
        self.save_hyperparameters()
        n = num_train + num_val
        self.X = torch.from_numpy(rng.standard_normal((n, len(w))).astype(np.float32))
        noise = torch.from_numpy(rng.standard_normal((n, 1)).astype(np.float32)) * noise
        self.y = torch.matmul(self.X, w.reshape((-1, 1))) + b + noise

    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader((self.X, self.y), False, i)


class Trainer(HyperParameters):
    def __init__(self, max_epochs, gradient_clip_val=0):
        self.save_hyperparameters()

    def prepare_batch(self, batch):
        return batch

    def fit(self, model, data):
        self.train_dataloader, self.val_dataloader = data.train_dataloader(), data.val_dataloader()
        self.num_train_batches, self.num_val_batches = len(self.train_dataloader), len(self.val_dataloader)
        model.trainer = self
        self.model, self.optim = model, model.configure_optimizers()
        for self.epoch in range(self.max_epochs):
            self.fit_epoch()

    def fit_epoch(self):
        self.model.train()
        for batch in self.train_dataloader:
            loss = self.model.training_step(self.prepare_batch(batch))
            self.optim.zero_grad()
            with torch.no_grad():
                loss.backward()
                if self.gradient_clip_val > 0:
                    self.clip_gradients(self.gradient_clip_val, self.model)
                self.optim.step()
        self.model.eval()
        for batch in self.val_dataloader:
            with torch.no_grad():
                self.model.validation_step(self.prepare_batch(batch))

    def clip_gradients(self, grad_clip_val, model):
        params = [p for p in model.parameters() if p.requires_grad]
        norm = torch.sqrt(sum(torch.sum(p.grad**2) for p in params))
        if norm > grad_clip_val:
            for param in params:
                param.grad[:] *= grad_clip_val / norm


class LinearRegression(Module):
    def __init__(self, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.LazyLinear(1)
        self.net.weight.data.normal_(0, 0.01)
        self.net.bias.data.fill_(0)


@add_to_class(LinearRegression)
def loss(self, y_hat, y):
    fn = nn.MSELoss()
    return fn(y_hat, y)


@add_to_class(LinearRegression)
def get_w_b(self):
    return (self.net.weight.data, self.net.bias.data)


model = LinearRegression(lr=0.03)
print(model.hparams, model.lr, model.plot_train_per_epoch, model)
print(type(model.net.weight).__name__, model.net.weight.data.shape, model.net.bias.data.shape)
print(type(model.net.weight.data).__name__, model.net.weight.data, model.net.weight.data.requires_grad)
data = SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2)
print(data.hparams["num_train"], data.batch_size, len(data.train_dataloader()), len(data.val_dataloader()))
X, y = next(iter(data.train_dataloader()))
print("X shape:", X.shape, "y shape:", y.shape)
model(X)
with torch.no_grad():
    model.net.weight.copy_(torch.tensor([[0.01, -0.02]]))
    model.net.bias.zero_()  # materializing re-ran reset_parameters: the .data.fill_(0) above touched nothing
trainer = Trainer(max_epochs=3, gradient_clip_val=5.0)
trainer.fit(model, data)
w, b = model.get_w_b()
print(trainer.num_train_batches, trainer.num_val_batches, trainer.epoch, model.log[-5:])
print(f"error in estimating w: {np.round((torch.tensor([2, -3.4]) - w.reshape(2)).numpy(), 3).tolist()}")
print(f"error in estimating b: {round((4.2 - b).item(), 3)}", model.training)


class WeightDecay(LinearRegression):
    def __init__(self, wd, lr):
        super().__init__(lr)
        self.save_hyperparameters()
        self.wd = wd

    def configure_optimizers(self):
        return torch.optim.SGD(
            [{"params": self.net.weight, "weight_decay": self.wd}, {"params": self.net.bias}], lr=self.lr
        )


wd_model = WeightDecay(wd=3, lr=0.01)
wd_model(X)
with torch.no_grad():
    wd_model.net.weight.copy_(torch.tensor([[0.5, 0.5]]))
    wd_model.net.bias.fill_(0.1)
Trainer(max_epochs=2).fit(wd_model, data)
print(wd_model.hparams, round(float(wd_model.get_w_b()[0].norm()), 4), len(wd_model.log))


class Classifier(Module):
    def validation_step(self, batch):
        Y_hat = self(*batch[:-1])
        self.log.append(("acc", round(float(self.accuracy(Y_hat, batch[-1])), 4)))

    def accuracy(self, Y_hat, Y, averaged=True):
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        preds = Y_hat.argmax(axis=1).type(Y.dtype)
        compare = (preds == Y.reshape(-1)).type(torch.float32)
        return compare.mean() if averaged else compare

    def loss(self, Y_hat, Y, averaged=True):
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        Y = Y.reshape((-1,))
        return F.cross_entropy(Y_hat, Y, reduction="mean" if averaged else "none")


class SoftmaxRegression(Classifier):
    def __init__(self, num_outputs, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Flatten(), nn.LazyLinear(num_outputs))


clf = SoftmaxRegression(num_outputs=3, lr=0.1)
logits = torch.tensor([[2.0, 0.5, 0.1], [0.2, 0.1, 3.0], [1.0, 1.2, 0.0], [0.0, 0.0, 0.0]])
labels = torch.tensor([0, 2, 0, 1])
print(clf.accuracy(logits, labels), clf.accuracy(logits, labels, averaged=False),
      round(clf.loss(logits, labels).item(), 4))
print(r := clf.loss(logits, labels, averaged=False), r.shape, clf.hparams)


def log_rmse(net, features, labels):
    clipped_preds = torch.clamp(net(features), 1, float("inf"))
    return torch.sqrt(nn.MSELoss()(torch.log(clipped_preds), torch.log(labels))).item()


feats = torch.from_numpy(rng.random((40, 3)).astype(np.float32))
prices = feats @ torch.tensor([[3.0], [1.0], [2.0]]) + 1.5
k, fold = 4, 10
scores = []
for j in range(k):
    idx = slice(j * fold, (j + 1) * fold)
    X_valid, y_valid = feats[idx], prices[idx]
    X_train = torch.cat([feats[: j * fold], feats[(j + 1) * fold :]], 0)
    y_train = torch.cat([prices[: j * fold], prices[(j + 1) * fold :]], 0)
    net = nn.Linear(3, 1)
    with torch.no_grad():
        net.weight.fill_(1.0)
        net.bias.fill_(0.5)
    opt = torch.optim.Adam(net.parameters(), lr=0.1, weight_decay=1e-3)
    for _ in range(30):
        opt.zero_grad()
        l = F.mse_loss(torch.log(torch.clamp(net(X_train), 1, float("inf"))), torch.log(y_train))
        l.backward()
        opt.step()
    scores.append((round(log_rmse(net, X_train, y_train), 4), round(log_rmse(net, X_valid, y_valid), 4)))
print("k-fold", X_train.shape, scores)
print(torch.clamp(torch.tensor([-2.0, 0.5, 7.0]), 1, float("inf")), torch.clamp(torch.tensor([3, 9]), max=5))

fair_probs = torch.ones([6]) / 6
multi = torch.distributions.multinomial.Multinomial(10, fair_probs)
counts = multi.sample((4,))
print(counts.shape, counts.sum(1), counts.dtype, multi.mean, multi.variance)
print(round(multi.log_prob(torch.tensor([2.0, 2, 2, 2, 1, 1])).item(), 4), multi)
one = torch.distributions.multinomial.Multinomial(1, fair_probs).sample((5,))
print(one.sum(1), one.max(1).values, (one.cumsum(dim=0)[-1] / 5).sum())
cum = torch.tensor([[1.0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]]).cumsum(dim=0)
print(cum / cum.sum(dim=1, keepdims=True))
print(torch.device("cpu"), torch.device("cuda:1"), torch.device("cuda", 0), torch.device("cpu") == torch.device("cpu"))
print(X.device, model.net.weight.device, torch.zeros(2).to(torch.device("cpu")).device.type)
