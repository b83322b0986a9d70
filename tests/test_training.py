"""Training to accuracy on CPU: an MLP and a small CNN on scikit-learn's digits (>= 95% test
accuracy), an LSTM on a memory task; state-dict save/load identity; train/eval switches."""

from __future__ import annotations

import numpy as np
import pytest

import ember.autograd as torch
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
from ember.optim.lr_scheduler import CosineAnnealingLR


@pytest.fixture(scope="module")
def digits():
    datasets = pytest.importorskip("sklearn.datasets")
    from sklearn.model_selection import train_test_split

    x, y = datasets.load_digits(return_X_y=True)
    x = (x / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.25, random_state=0, stratify=y)
    return torch.from_numpy(xtr), torch.from_numpy(ytr), torch.from_numpy(xte), torch.from_numpy(yte)


def fit(model, data, epochs, lr, batch_size=64):
    xtr, ytr, xte, yte = data
    opt = optim.Adam(model.parameters(), lr=lr)
    steps = len(xtr) // batch_size
    sched = CosineAnnealingLR(opt, T_max=epochs * steps)
    for _ in range(epochs):
        model.train()
        perm = torch.randperm(len(xtr))
        for i in range(steps):
            idx = perm[i * batch_size:(i + 1) * batch_size]
            opt.zero_grad()
            F.cross_entropy(model(xtr[idx]), ytr[idx]).backward()
            opt.step()
            sched.step()
    model.eval()
    with torch.no_grad():
        return (model(xte).argmax(1) == yte).float().mean().item()


def test_mlp_reaches_95_percent_on_digits(digits):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, 10))
    assert fit(model, digits, epochs=10, lr=1e-2) >= 0.95


@pytest.mark.slow
def test_small_cnn_reaches_95_percent_on_digits(digits):
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10))
    assert fit(model, digits, epochs=4, lr=1e-2) >= 0.95


class Recall(nn.Module):
    """Reads a token sequence and predicts its first token (needs memory across time steps)."""

    def __init__(self, vocab=4, hidden=24):
        super().__init__()
        self.emb = nn.Embedding(vocab, 8)
        self.lstm = nn.LSTM(8, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        out, (h, c) = self.lstm(self.emb(tokens))
        return self.head(h[-1])


def test_lstm_learns_to_recall_the_first_token():
    torch.manual_seed(0)
    model = Recall()
    opt = optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(150):
        tokens = torch.randint(0, 4, (32, 6))
        opt.zero_grad()
        loss = F.cross_entropy(model(tokens), tokens[:, 0])
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    tokens = torch.randint(0, 4, (256, 6))
    with torch.no_grad():
        acc = (model(tokens).argmax(1) == tokens[:, 0]).float().mean().item()
    assert acc >= 0.95


def make_net():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Dropout(0.5),
                         nn.Flatten(), nn.Linear(4 * 8 * 8, 3))


def test_state_dict_save_load_gives_identical_outputs(tmp_path):
    torch.manual_seed(0)
    net = make_net()
    opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(8, 1, 8, 8)
    for _ in range(3):
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
    net.eval()
    torch.save({"model": net.state_dict(), "optim": opt.state_dict()}, tmp_path / "ckpt.pt")
    ckpt = torch.load(tmp_path / "ckpt.pt")
    twin = make_net()
    twin.load_state_dict(ckpt["model"])
    twin.eval()
    np.testing.assert_array_equal(twin(x).detach().numpy(), net(x).detach().numpy())
    assert twin[1].num_batches_tracked.item() == 3
    opt2 = optim.SGD(twin.parameters(), lr=0.5)
    opt2.load_state_dict(ckpt["optim"])
    assert opt2.param_groups[0]["lr"] == 0.1 and opt2.param_groups[0]["momentum"] == 0.9


def test_train_and_eval_switch_batchnorm_and_dropout():
    torch.manual_seed(0)
    net = make_net()
    x = torch.randn(8, 1, 8, 8)
    net.train()
    a, b = net(x), net(x)
    assert not np.array_equal(a.detach().numpy(), b.detach().numpy())
    assert net[1].num_batches_tracked.item() == 2
    net.eval()
    c, d = net(x), net(x)
    np.testing.assert_array_equal(c.detach().numpy(), d.detach().numpy())
    assert net[1].num_batches_tracked.item() == 2
    bn = net[1]
    y = (net[0](x).detach().numpy() - bn.running_mean.numpy()[None, :, None, None]) / \
        np.sqrt(bn.running_var.numpy()[None, :, None, None] + bn.eps)
    np.testing.assert_allclose(bn(net[0](x)).detach().numpy(), y, rtol=1e-4, atol=1e-5)


class MnistExampleNet(nn.Module):
    """The network of PyTorch's MNIST example (on 14x14 inputs), imports changed only."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(16 * 5 * 5, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


def test_pytorch_mnist_example_trains_with_adadelta_and_steplr():
    from ember.optim.lr_scheduler import StepLR

    torch.manual_seed(0)
    model = MnistExampleNet()
    opt = optim.Adadelta(model.parameters(), lr=1.0)
    sched = StepLR(opt, step_size=1, gamma=0.7)
    x, y = torch.randn(16, 1, 14, 14), torch.randint(0, 10, (16,))
    losses = []
    for _ in range(6):
        model.train()
        opt.zero_grad()
        loss = F.nll_loss(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert sched.get_last_lr() == pytest.approx([0.7 ** 6])


def test_word_language_model_with_tied_weights():
    torch.manual_seed(0)

    class RNNModel(nn.Module):
        def __init__(self, ntoken, nhid):
            super().__init__()
            self.drop = nn.Dropout(0.2)
            self.encoder = nn.Embedding(ntoken, nhid)
            self.rnn = nn.LSTM(nhid, nhid, 2, dropout=0.2)
            self.decoder = nn.Linear(nhid, ntoken)
            self.decoder.weight = self.encoder.weight

        def forward(self, input, hidden):
            output, hidden = self.rnn(self.drop(self.encoder(input)), hidden)
            return F.log_softmax(self.decoder(self.drop(output)), dim=-1), hidden

    model = RNNModel(12, 16)
    assert model.decoder.weight is model.encoder.weight and len(list(model.parameters())) == 10
    data = torch.randint(0, 12, (9, 4))
    weight = next(model.parameters())
    hidden = (weight.new_zeros(2, 4, 16), weight.new_zeros(2, 4, 16))
    first = None
    for _ in range(30):
        model.zero_grad()
        hidden = tuple(h.detach() for h in hidden)
        out, hidden = model(data[:-1], hidden)
        loss = F.nll_loss(out.view(-1, 12), data[1:].reshape(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-5.0)
        first = loss.item() if first is None else first
    assert loss.item() < first
