"""torch.compile on functions with graph breaks: .item(), print and Python control flow on tensor values,
data-dependent shapes (nonzero, masked_select, boolean indexing), fullgraph=True and the error a user's
`except` catches, torch.compiler.disable / torch._dynamo.disable, is_compiling(), dynamic=True/False with
changing batch sizes, backend strings and modes, torch._dynamo.config, reset()."""

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(11)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


# 1) Python control flow on a tensor's value: the branch must follow each call's data
@torch.compile
def clipped_step(x, max_norm: float = 1.0):
    norm = x.norm()
    if norm > max_norm:
        x = x * (max_norm / norm)
    return x, norm


for scale in (0.1, 5.0, 0.2, 3.0):
    v = torch.tensor([3.0, 4.0]) * scale
    out, n = clipped_step(v)
    print("clip", scale, r(out), round(n.item(), 4))


# 2) .item() inside, used in Python arithmetic, and a print inside the compiled function
@torch.compile(backend="eager")
def running_stats(x, verbose=False):
    mean = x.mean().item()
    std = x.std().item()
    if verbose:
        print("  inside: mean", round(mean, 4), "std", round(std, 4))
    return (x - mean) / (std + 1e-5), mean


for i in range(3):
    z, m = running_stats(T(5) + i, verbose=(i == 1))
    print("normed", i, r(z, 3), round(m, 4), type(m).__name__)


# 3) data-dependent shapes
@torch.compile(dynamic=True)
def positives(x):
    idx = torch.nonzero(x > 0).squeeze(1)
    vals = x[x > 0]
    return idx, vals, torch.masked_select(x, x < 0).sum()


for k in range(3):
    x = T(4 + 2 * k)
    idx, vals, neg = positives(x)
    print("positives", idx.tolist(), r(vals), round(neg.item(), 4), vals.shape)


@torch.compile
def topk_unique(x):
    u, counts = torch.unique(x.round(), return_counts=True)
    return u, counts, x.topk(2).values


u, c, tk = topk_unique(torch.tensor([0.9, 1.2, 2.6, 1.1, -0.4, 3.0]))
print("unique", u.tolist(), c.tolist(), r(tk))


# 4) fullgraph=True: what a graph break raises and what an `except` clause catches
@torch.compiler.disable
def debug_hook(t):
    return t


def breaks_with_disabled(x):
    return debug_hook(x) * 2


def breaks_with_print(x):
    print("tracing", x.shape)
    return x + 1


def breaks_explicitly(x):
    y = x.exp()
    torch._dynamo.graph_break()
    return y - 1


for fn in (breaks_with_disabled, breaks_with_print, breaks_explicitly):
    strict = torch.compile(fn, fullgraph=True)
    try:
        strict(torch.ones(3))
        print(fn.__name__, "fullgraph: no error")
    except RuntimeError as e:
        print(fn.__name__, "fullgraph raised", type(e).__name__, isinstance(e, torch._dynamo.exc.Unsupported),
              isinstance(e, torch._dynamo.exc.TorchDynamoException))
    lenient = torch.compile(fn)
    print(fn.__name__, "default", [r(lenient(torch.full((2,), float(i)))) for i in range(3)])
print("Unsupported is RuntimeError", issubclass(torch._dynamo.exc.Unsupported, RuntimeError))


@torch.compile(fullgraph=True)
def pure(x, y):
    return F.gelu(x @ y.t()) + torch.sigmoid(y).sum()


a, b = T(3, 4), T(2, 4)
print("fullgraph pure", r(pure(a, b)), r(pure(a, b)) == r(F.gelu(a @ b.t()) + torch.sigmoid(b).sum()))


# 5) disable: the decorated helper runs eagerly, is_compiling() tells where we are
@torch.compiler.disable
def log_eager(t):
    return torch.compiler.is_compiling()


@torch._dynamo.disable
def host_side(t):
    return float(t.abs().max())


@torch.compile
def uses_disabled(x):
    y = x.relu() * 2
    flag = log_eager(y)
    return y + host_side(y), flag


for _ in range(3):
    y, flag = uses_disabled(torch.tensor([-1.0, 0.5, 2.0]))
print("disabled", r(y), flag, torch.compiler.is_compiling())

# 6) dynamic=False / True with changing batch sizes; backend strings and modes
torch._dynamo.config.cache_size_limit = 8
print("cache_size_limit", torch._dynamo.config.cache_size_limit)
w = T(4, 3)
fns = {
    "static": torch.compile(lambda x: (x @ w).softmax(-1), dynamic=False),
    "dynamic": torch.compile(lambda x: (x @ w).softmax(-1), dynamic=True),
    "aot_eager": torch.compile(lambda x: (x @ w).softmax(-1), backend="aot_eager"),
    "max-autotune": torch.compile(lambda x: (x @ w).softmax(-1), mode="max-autotune"),
    "reduce-overhead": torch.compile(lambda x: (x @ w).softmax(-1), mode="reduce-overhead"),
}
xs = [T(bs, 4) for bs in (2, 5, 3, 5, 2)]
for name, fn in fns.items():
    outs = [fn(x) for x in xs]
    print(name, [tuple(o.shape) for o in outs], all(torch.allclose(o, (x @ w).softmax(-1), atol=1e-6)
                                                     for o, x in zip(outs, xs)), r(outs[1], 3))

# 7) invalid options: the errors a user sees
for kwargs in ({"backend": "tensorrt_does_not_exist"}, {"mode": "fastest"},
               {"mode": "default", "options": {"trace.enabled": True}}):
    try:
        torch.compile(lambda x: x + 1, **kwargs)(torch.ones(1))
        print("no error", kwargs)
    except Exception as e:
        print(type(e).__name__, isinstance(e, RuntimeError), str(e).split("\n")[0][:90])

# 8) suppress_errors and reset: compiled functions keep working after a reset
torch._dynamo.config.suppress_errors = True
print("suppress_errors", torch._dynamo.config.suppress_errors)
torch._dynamo.reset()
print("after reset", r(clipped_step(torch.tensor([6.0, 8.0]))[0]), r(pure(a, b), 3))
torch.compiler.reset()
print("after compiler.reset", r(uses_disabled(torch.tensor([1.0, -2.0, 3.0]))[0]))
torch._dynamo.config.suppress_errors = False

# 9) set_stance: force_eager runs compiled functions eagerly (is_compiling() is False there)
probe = torch.compile(lambda t: t * (2 if torch.compiler.is_compiling() else 3))
print("stance default", probe(torch.ones(1)).item())
with torch.compiler.set_stance("force_eager"):
    print("stance force_eager", probe(torch.ones(1)).item())
print("stance restored", probe(torch.ones(1)).item())
