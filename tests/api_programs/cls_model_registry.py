"""A torchvision-style model registry over classic architectures: register_model decorators, list_models with
fnmatch patterns, get_model with _ovewrite_named_param, a weights enum whose meta (num_params, categories) is
checked against the built model, module-type census with Counter, Sequential repetition, per-layer dtype/bytes
budgets, and eval()/train() flags through the whole tree."""

import fnmatch
import io
from collections import Counter
from enum import Enum
from functools import partial

import numpy as np
import torch
import torch.nn as nn

BUILTIN_MODELS = {}


def register_model(name=None):
    def wrapper(fn):
        key = name if name is not None else fn.__name__
        if key in BUILTIN_MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        BUILTIN_MODELS[key] = fn
        return fn
    return wrapper


def list_models(include=None, exclude=None):
    models = set(BUILTIN_MODELS)
    if include:
        models = {m for pat in ([include] if isinstance(include, str) else include) for m in models
                  if fnmatch.fnmatch(m, pat)}
    if exclude:
        for pat in [exclude] if isinstance(exclude, str) else exclude:
            models = {m for m in models if not fnmatch.fnmatch(m, pat)}
    return sorted(models)


def get_model(name, **config):
    name = name.lower()
    try:
        fn = BUILTIN_MODELS[name]
    except KeyError:
        raise ValueError(f"Unknown model {name}")
    return fn(**config)


def _ovewrite_named_param(kwargs, param, new_value):
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(f"The parameter '{param}' expected value {new_value} but got {kwargs[param]} instead.")
    else:
        kwargs[param] = new_value


class Weights(Enum):
    LENET_DIGITS = {"num_params": 44426, "categories": [str(i) for i in range(10)], "acc@1": 99.1}
    TINYVGG_V1 = {"num_params": 0, "categories": ["cat", "dog", "bird"], "acc@1": 71.3}


class LeNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                                      nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                                        nn.Linear(84, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class TinyVGG(nn.Module):
    def __init__(self, depth=2, width=8, num_classes=3, batch_norm=False, dropout=0.5):
        super().__init__()
        norm = partial(nn.BatchNorm2d) if batch_norm else (lambda c: nn.Identity())
        stage = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), norm(width), nn.ReLU(inplace=True))
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), norm(width), nn.ReLU(inplace=True))
        self.body = stage * depth
        self.pool = nn.AdaptiveMaxPool2d(1)
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(dropout), nn.Linear(width, num_classes))

    def forward(self, x):
        return self.head(self.pool(self.body(self.stem(x))))


@register_model()
def lenet(*, weights=None, progress=True, **kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.value["categories"]))
    return LeNet(**kwargs)


@register_model()
def tinyvgg(*, weights=None, **kwargs):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.value["categories"]))
    return TinyVGG(**kwargs)


@register_model("tinyvgg_bn")
def _tinyvgg_bn(**kwargs):
    return TinyVGG(batch_norm=True, **kwargs)


@register_model()
def tinyvgg_deep(**kwargs):
    return TinyVGG(depth=4, **kwargs)


try:
    register_model("lenet")(lambda: None)
except ValueError as e:
    print("ValueError:", e)
print("all", list_models())
print("vgg*", list_models(include="tinyvgg*"), "exclude", list_models(include="tinyvgg*", exclude="*_bn"))
print("multi", list_models(include=["le*", "*deep"]))
try:
    get_model("resnet1000")
except ValueError as e:
    print("ValueError:", e)

m = get_model("LeNet", weights=Weights.LENET_DIGITS)
n_params = sum(p.numel() for p in m.parameters())
print("lenet params", n_params, "meta ok", n_params == Weights.LENET_DIGITS.value["num_params"])
try:
    get_model("lenet", weights=Weights.LENET_DIGITS, num_classes=5)
except ValueError as e:
    print("ValueError:", e)
print("enum", Weights.TINYVGG_V1, Weights["LENET_DIGITS"].name, Weights.TINYVGG_V1.value["acc@1"])

rng = np.random.default_rng(8)
for name in list_models(include="tinyvgg*"):
    model = get_model(name)
    census = Counter(type(mod).__name__ for mod in model.modules())
    print(name, dict(sorted(census.items())), "params", sum(p.numel() for p in model.parameters()),
          "unique body convs", len({id(mod) for mod in model.body.modules() if isinstance(mod, nn.Conv2d)}))
vgg = get_model("tinyvgg_bn", depth=3)
print(vgg.body)
print("body keys", list(vgg.body.state_dict().keys()))
print("shared", vgg.body[0] is vgg.body[3], len(vgg.body), len(list(vgg.body.parameters())))
with torch.no_grad():
    for p in vgg.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
x = torch.from_numpy(rng.standard_normal((2, 3, 8, 8)).astype(np.float32))
vgg.eval()
with torch.no_grad():
    out = vgg(x)
print("out", tuple(out.shape), np.round(out.numpy().astype(np.float64), 4).tolist())
print("flags after eval", {n: mod.training for n, mod in vgg.named_modules() if n in ("", "body", "body.1", "head.1")})
vgg.train()
print("flags after train", all(mod.training for mod in vgg.modules()))
vgg.head.eval()
print("mixed", [(n, mod.training) for n, mod in vgg.named_children()])
vgg.train(False)
print("train(False)", vgg.training, vgg.stem[1].training)

budget = {}
for name, t in vgg.state_dict().items():
    budget.setdefault(str(t.dtype), [0, 0])
    budget[str(t.dtype)][0] += t.numel()
    budget[str(t.dtype)][1] += t.numel() * t.element_size()
print("state budget", budget)
buf = io.BytesIO()
torch.save(vgg.state_dict(), buf)
print("serialized > raw", buf.tell() > sum(v[1] for v in budget.values()))
half = {k: v.half() if v.is_floating_point() else v for k, v in vgg.state_dict().items()}
print("half bytes", sum(v.numel() * v.element_size() for v in half.values()),
      sorted({str(v.dtype) for v in half.values()}))
try:
    vgg.body * 0
except ValueError as e:
    print("ValueError:", e)
try:
    vgg.body * 1.5
except TypeError as e:
    print("TypeError:", e)
body = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
alias = body
body *= 2
body += nn.Sequential(nn.Linear(4, 2))
print("in place", alias is body, [type(mod).__name__ for mod in body], list(body._modules.keys()))
print("concat", len(body + nn.Sequential(nn.Tanh())), "rmul", len(2 * nn.Sequential(nn.ReLU())))
