"""The model zoo of Table 1, written once against the PyTorch API.

Every builder takes a framework (`frameworks.EMBER` or `frameworks.TORCH`) and a size, so ember and
PyTorch run the very same architecture with the same parameter shapes: ember's API is PyTorch's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["MODELS", "ModelSpec", "build"]


@dataclass(frozen=True)
class Size:
    """How big a model runs: input side, batch, and a width divisor for the channels."""

    image: int
    batch: int
    width: int  # channel counts are divided by this
    seq: int = 0
    vocab: int = 0
    hidden: int = 0
    users: int = 0
    items: int = 0  # NCF's item count when it differs from `users`


# issue 11's rows ("seq2seq", "ncf_mlp") run at the issue's sizes both at "small" and "paper"
_SEQ2SEQ = Size(0, 32, 1, seq=32, vocab=1000, hidden=256)
_NCF_MLP = Size(0, 1024, 1, users=10_000, items=5_000, hidden=64)
SIZES = {
    "tiny": {"image": Size(32, 2, 16), "gnmt": Size(0, 2, 1, seq=4, vocab=32, hidden=16),
             "ncf": Size(0, 16, 1, users=64, hidden=8), "seq2seq": Size(0, 2, 1, seq=4, vocab=32, hidden=16),
             "ncf_mlp": Size(0, 16, 1, users=64, items=32, hidden=8)},
    "small": {"image": Size(32, 8, 4), "gnmt": Size(0, 16, 1, seq=12, vocab=512, hidden=128),
              "ncf": Size(0, 1024, 1, users=2000, hidden=32), "seq2seq": _SEQ2SEQ, "ncf_mlp": _NCF_MLP},
    "paper": {"image": Size(224, 32, 1), "gnmt": Size(0, 128, 1, seq=50, vocab=32000, hidden=1024),
              "ncf": Size(0, 1 << 16, 1, users=138_493, hidden=64), "seq2seq": _SEQ2SEQ, "ncf_mlp": _NCF_MLP},
}


def _c(n: int, s: Size) -> int:
    return max(4, n // s.width)


def alexnet(fw, s: Size):
    nn = fw.nn
    small = s.image < 64
    feats = nn.Sequential(
        nn.Conv2d(3, _c(64, s), 3 if small else 11, stride=1 if small else 4, padding=1 if small else 2),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2 if small else 3, 2),
        nn.Conv2d(_c(64, s), _c(192, s), 3 if small else 5, padding=1 if small else 2),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2 if small else 3, 2),
        nn.Conv2d(_c(192, s), _c(384, s), 3, padding=1),
        nn.ReLU(inplace=True),
        nn.Conv2d(_c(384, s), _c(256, s), 3, padding=1),
        nn.ReLU(inplace=True),
        nn.Conv2d(_c(256, s), _c(256, s), 3, padding=1),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(2 if small else 3, 2),
    )
    pool = 2 if small else 6
    return nn.Sequential(
        feats,
        nn.AdaptiveAvgPool2d((pool, pool)),
        nn.Flatten(),
        nn.Dropout(0.5),
        nn.Linear(_c(256, s) * pool * pool, _c(4096, s)),
        nn.ReLU(inplace=True),
        nn.Dropout(0.5),
        nn.Linear(_c(4096, s), _c(4096, s)),
        nn.ReLU(inplace=True),
        nn.Linear(_c(4096, s), 10 if small else 1000),
    )


def vgg19(fw, s: Size):
    nn = fw.nn
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
           512, 512, 512, 512, "M"]
    layers: list[Any] = []
    cin = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(2, 2))
        else:
            layers += [nn.Conv2d(cin, _c(v, s), 3, padding=1), nn.ReLU(inplace=True)]
            cin = _c(v, s)
    small = s.image < 64
    pool = 1 if small else 7
    hidden = _c(4096, s)
    return nn.Sequential(
        nn.Sequential(*layers), nn.AdaptiveAvgPool2d((pool, pool)), nn.Flatten(),
        nn.Linear(cin * pool * pool, hidden), nn.ReLU(inplace=True), nn.Dropout(0.5),
        nn.Linear(hidden, hidden), nn.ReLU(inplace=True), nn.Dropout(0.5),
        nn.Linear(hidden, 10 if small else 1000),
    )


def _bottleneck(fw):
    nn = fw.nn

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, cin: int, width: int, stride: int) -> None:
            super().__init__()
            cout = width * 4
            self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(width)
            self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                                nn.BatchNorm2d(cout))

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            return self.relu(out + identity)

    return Bottleneck


def resnet50(fw, s: Size):
    nn = fw.nn
    block = _bottleneck(fw)
    small = s.image < 64
    base = _c(64, s)
    stem = [nn.Conv2d(3, base, 3, padding=1, bias=False)] if small else [
        nn.Conv2d(3, base, 7, stride=2, padding=3, bias=False)]
    stem += [nn.BatchNorm2d(base), nn.ReLU(inplace=True)]
    if not small:
        stem.append(nn.MaxPool2d(3, 2, 1))
    layers = []
    cin = base
    for i, n in enumerate((3, 4, 6, 3)):
        width = base * 2 ** i
        for j in range(n):
            layers.append(block(cin, width, 2 if j == 0 and i > 0 else 1))
            cin = width * 4
    return nn.Sequential(*stem, *layers, nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
                         nn.Linear(cin, 10 if small else 1000))


def _inverted_residual(fw):
    nn = fw.nn

    class InvertedResidual(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int, expand: int) -> None:
            super().__init__()
            hidden = cin * expand
            self.use_res = stride == 1 and cin == cout
            layers = []
            if expand != 1:
                layers += [nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(inplace=True)]
            layers += [nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden),
                       nn.ReLU6(inplace=True), nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
            self.conv = nn.Sequential(*layers)

        def forward(self, x):
            return x + self.conv(x) if self.use_res else self.conv(x)

    return InvertedResidual


def mobilenet_v2(fw, s: Size):
    nn = fw.nn
    block = _inverted_residual(fw)
    small = s.image < 64
    cfg = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
           (6, 320, 1, 1)]
    cin = _c(32, s)
    layers = [nn.Conv2d(3, cin, 3, 1 if small else 2, 1, bias=False), nn.BatchNorm2d(cin), nn.ReLU6(inplace=True)]
    for t, c, n, st in cfg:
        cout = _c(c, s)
        for i in range(n):
            layers.append(block(cin, cout, st if i == 0 and not (small and st == 2 and c <= 24) else 1, t))
            cin = cout
    last = _c(1280, s)
    layers += [nn.Conv2d(cin, last, 1, bias=False), nn.BatchNorm2d(last), nn.ReLU6(inplace=True)]
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Dropout(0.2),
                         nn.Linear(last, 10 if small else 1000))


def gnmt(fw, s: Size):
    """A GNMT-style encoder-decoder: embeddings, 2-layer LSTMs, dot-product attention, a vocab head."""
    nn = fw.nn
    fx = fw.functional
    h, v = s.hidden, s.vocab

    class GNMT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.src_embed = nn.Embedding(v, h)
            self.tgt_embed = nn.Embedding(v, h)
            self.encoder = nn.LSTM(h, h, num_layers=2, batch_first=True)
            self.decoder = nn.LSTM(h, h, num_layers=2, batch_first=True)
            self.attn_out = nn.Linear(2 * h, h)
            self.classifier = nn.Linear(h, v)

        def forward(self, src, tgt):
            enc, state = self.encoder(self.src_embed(src))
            dec, _ = self.decoder(self.tgt_embed(tgt), state)
            scores = fw.lib.bmm(dec, enc.transpose(1, 2))
            context = fw.lib.bmm(fx.softmax(scores, dim=-1), enc)
            hidden = fw.lib.tanh(self.attn_out(fw.lib.cat([dec, context], dim=-1)))
            return self.classifier(hidden)

    return GNMT()


def ncf(fw, s: Size):
    """Neural collaborative filtering (NeuMF): a GMF and an MLP branch over user/item embeddings."""
    nn = fw.nn
    users = items = s.users
    d = s.hidden

    class NCF(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gmf_user, self.gmf_item = nn.Embedding(users, d), nn.Embedding(items, d)
            self.mlp_user, self.mlp_item = nn.Embedding(users, 2 * d), nn.Embedding(items, 2 * d)
            self.mlp = nn.Sequential(nn.Linear(4 * d, 2 * d), nn.ReLU(), nn.Linear(2 * d, d), nn.ReLU())
            self.out = nn.Linear(2 * d, 1)

        def forward(self, user, item):
            gmf = self.gmf_user(user) * self.gmf_item(item)
            mlp = self.mlp(fw.lib.cat([self.mlp_user(user), self.mlp_item(item)], dim=-1))
            return self.out(fw.lib.cat([gmf, mlp], dim=-1)).squeeze(-1)

    return NCF()


def ncf_mlp(fw, s: Size):
    """NCF's MLP model (issue 11's row): user and item embeddings, concatenated, MLP 2d-d-1."""
    nn = fw.nn
    d = s.hidden

    class NCFMLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.user, self.item = nn.Embedding(s.users, d), nn.Embedding(s.items or s.users, d)
            self.mlp = nn.Sequential(nn.Linear(2 * d, d), nn.ReLU(), nn.Linear(d, 1))

        def forward(self, user, item):
            return self.mlp(fw.lib.cat([self.user(user), self.item(item)], dim=-1)).squeeze(-1)

    return NCFMLP()


@dataclass(frozen=True)
class ModelSpec:
    """A Table 1 row: how to build the model, make a batch, compute the loss, and what a step counts."""

    name: str
    family: str  # "image", "gnmt", "ncf", "seq2seq" or "ncf_mlp": which Size row applies
    builder: Any
    unit: str
    extra: dict = field(default_factory=dict)
    optimizer: str = "sgd"  # "sgd" (momentum 0.9) or "adam"


MODELS = {
    "alexnet": ModelSpec("AlexNet", "image", alexnet, "images/s"),
    "vgg19": ModelSpec("VGG-19", "image", vgg19, "images/s"),
    "resnet50": ModelSpec("ResNet-50", "image", resnet50, "images/s"),
    "mobilenet_v2": ModelSpec("MobileNetV2", "image", mobilenet_v2, "images/s"),
    "gnmt": ModelSpec("GNMTv2", "gnmt", gnmt, "tokens/s"),
    "ncf": ModelSpec("NCF", "ncf", ncf, "samples/s"),
    # issue 11's rows: an LSTM encoder-decoder with attention (GNMT's architecture) and NCF's MLP, with Adam
    "seq2seq": ModelSpec("LSTM enc-dec + attention, Adam", "seq2seq", gnmt, "tokens/s", optimizer="adam"),
    "ncf_mlp": ModelSpec("NCF MLP, Adam", "ncf_mlp", ncf_mlp, "samples/s", optimizer="adam"),
}


def size_of(key: str, size: str) -> Size:
    return SIZES[size][MODELS[key].family]


def build(key: str, fw, size: str = "small"):
    """The model `key` for framework `fw` at `size` ("tiny", "small" or "paper")."""
    return MODELS[key].builder(fw, size_of(key, size))
