"""einops re-implemented inline: a pattern parser for rearrange/repeat/reduce (composed and decomposed axes,
ellipsis, anonymous unit axes), written with permute/reshape/expand/amax/logsumexp, pack/unpack, an einsum with
named axes, Rearrange/Reduce as nn.Modules inside a patch-embedding ViT stem, gradients, and the errors of misuse."""

import functools
import math

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(7)


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


class EinopsError(RuntimeError):
    pass


def parse_side(side):
    groups, cur, ellipsis = [], None, False
    for tok in side.replace("(", " ( ").replace(")", " ) ").split():
        if tok == "(":
            if cur is not None:
                raise EinopsError("Axis composition is one-level (brackets inside brackets not allowed)")
            cur = []
        elif tok == ")":
            if cur is None:
                raise EinopsError("Brackets are not balanced")
            groups.append(cur)
            cur = None
        elif tok == "...":
            ellipsis = True
            if cur is not None:
                cur.append("…")
            else:
                groups.append("…")
        else:
            if not (tok.isidentifier() or tok.isdigit()):
                raise EinopsError(f"Invalid axis identifier: {tok}")
            (cur.append(tok) if cur is not None else groups.append([tok]))
    if cur is not None:
        raise EinopsError("Brackets are not balanced")
    return groups, ellipsis


@functools.lru_cache(maxsize=64)
def plan(pattern, ndim, known):
    left, right = pattern.split("->")
    lg, le = parse_side(left)
    rg, re_ = parse_side(right)
    if le != re_ and not (le and not re_):
        raise EinopsError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    n_named = len(lg) - (1 if le else 0)
    if (le and ndim < n_named) or (not le and ndim != len(lg)):
        raise EinopsError(f"Wrong shape: expected {len(lg)} dims. Received {ndim}-dim tensor.")
    ell = [f"…{i}" for i in range(ndim - n_named)]

    def expand(groups):
        out = []
        for g in groups:
            out.extend([[a] for a in ell] if g == "…" else [sum(([*ell] if a == "…" else [a] for a in g), [])])
        return out

    return expand(lg), expand(rg), dict(known)


def _resolve(x, lg, sizes):
    for g, dim in zip(lg, x.shape):
        unknown = [a for a in g if a not in sizes]
        known = math.prod(sizes[a] for a in g if a not in unknown)
        if len(unknown) > 1:
            raise EinopsError(f"Could not infer sizes for {sorted(unknown)}")
        if unknown:
            if dim % known:
                raise EinopsError(f"Shape mismatch, can't divide axis of length {dim} in chunks of {known}")
            sizes[unknown[0]] = dim // known
        elif known != dim:
            raise EinopsError(f"Shape mismatch, {dim} != {known}")
    return sizes


def _apply(x, pattern, reduction=None, **axes):
    lg, rg, sizes = plan(pattern, x.dim(), tuple(sorted(axes.items())))
    lg = [[f"#{i}.{j}" if a.isdigit() else a for j, a in enumerate(g)] for i, g in enumerate(lg)]
    sizes.update({f"#{i}.{j}": int(a[0]) for i, g in enumerate(plan(pattern, x.dim(), ())[0])
                  for j, a in enumerate(g) for a in [a] if a.isdigit()})
    sizes = _resolve(x, lg, sizes)
    flat_l = [a for g in lg for a in g]
    x = x.reshape([sizes[a] for a in flat_l])
    flat_r = [a for g in rg for a in g if not a.isdigit()]
    gone = [i for i, a in enumerate(flat_l) if a not in flat_r]
    if any(sizes[flat_l[i]] != 1 for i in gone):
        if reduction is None:
            one_side = flat_l[gone[0]]
            raise EinopsError(f"Identifiers only on one side of expression (should be on both): {{{one_side!r}}}")
        fn = {"sum": torch.sum, "mean": torch.mean, "max": torch.amax, "min": torch.amin,
              "logsumexp": torch.logsumexp}.get(reduction)
        if fn is None:
            keep = [i for i in range(x.dim()) if i not in gone]
            x = x.permute(*keep, *gone).flatten(len(keep)).prod(len(keep))
        else:
            x = fn(x, dim=gone)
    elif gone:
        x = x.reshape([sizes[a] for a in flat_l if a in flat_r])
    flat_l = [a for a in flat_l if a in flat_r]
    new = [a for a in flat_r if a not in flat_l]
    for a in new:
        if a not in sizes:
            raise EinopsError(f"Specify sizes for new axes in repeat: {{{a!r}}}")
    order = [flat_l.index(a) for a in flat_r if a in flat_l]
    x = x.permute(order) if order != list(range(len(order))) else x
    if new:
        view, idx = [], 0
        for a in flat_r:
            view.append(1 if a in new else x.shape[idx])
            idx += a not in new
        x = x.reshape(view).expand([sizes[a] if a in new else v for a, v in zip(flat_r, view)])
    out = [math.prod(int(a) if a.isdigit() else sizes[a] for a in g) for g in rg]
    return x.reshape(out)


def rearrange(x, pattern, **axes):
    return _apply(x, pattern, **axes)


def repeat(x, pattern, **axes):
    return _apply(x, pattern, **axes)


def reduce(x, pattern, reduction, **axes):
    return _apply(x, pattern, reduction=reduction, **axes)


def pack(tensors, pattern):
    pos = pattern.split().index("*")
    shapes = [t.shape[pos:t.dim() - (len(pattern.split()) - pos - 1)] for t in tensors]
    flat = [t.reshape(*t.shape[:pos], -1, *t.shape[t.dim() - (len(pattern.split()) - pos - 1):]) for t in tensors]
    return torch.cat(flat, dim=pos), shapes


def unpack(x, shapes, pattern):
    pos = pattern.split().index("*")
    sizes = [math.prod(s) for s in shapes]
    parts = torch.split(x, sizes, dim=pos)
    return [p.reshape(*p.shape[:pos], *s, *p.shape[pos + 1:]) for p, s in zip(parts, shapes)]


def named_einsum(pattern, *ts):
    left, right = pattern.split("->")
    names = sorted({a for a in (left + " " + right).replace(",", " ").split()})
    letters = {n: chr(ord("a") + i) for i, n in enumerate(names)}
    conv = lambda s: "".join(letters[a] for a in s.split())  # noqa: E731
    return torch.einsum(",".join(conv(s) for s in left.split(",")) + "->" + conv(right), *ts)


x = torch.from_numpy(rng.standard_normal((2, 3, 4, 6))).float()
y = rearrange(x, "b c h w -> b h w c")
print("permute", tuple(y.shape), torch.equal(y, x.permute(0, 2, 3, 1)), y.is_contiguous())
z = rearrange(x, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=3)
print("patches", tuple(z.shape), r(z[1, 3]))
back = rearrange(z, "b (h w) (p1 p2 c) -> b c (h p1) (w p2)", h=2, p1=2, p2=3)
print("roundtrip", torch.equal(back, x), plan.cache_info().misses)
print("ellipsis", tuple(rearrange(x, "b ... w -> (b w) ...").shape), tuple(rearrange(x, "... h w -> ... (h w)").shape))
print("unit axes", tuple(rearrange(x[:, :1], "b 1 h w -> b h w").shape),
      tuple(rearrange(x, "b c h w -> b c 1 h w 1").shape))
rp = repeat(x[0, 0], "h w -> h (w k) c", k=2, c=3)
print("repeat", tuple(rp.shape), rp.stride(), r(rp[1, :4, 0]))
rb = repeat(torch.arange(3.0), "c -> b c", b=2)
print("broadcast repeat", rb.tolist(), rb.stride(), rb.data_ptr() == rb.contiguous().data_ptr())
for red in ["sum", "mean", "max", "min", "prod", "logsumexp"]:
    out = reduce(x, "b c (h 2) (w 2) -> b c h w", red)
    print("reduce", red, tuple(out.shape), r(out[0, 1, 0]))
gp = reduce(x, "b c h w -> b c", "mean")
print("global pool", torch.allclose(gp, x.mean((2, 3))), reduce(x, "b c h w -> c", "max").dtype)

a, b = torch.ones(2, 5), torch.zeros(2, 3, 4)
packed, ps = pack([a, b], "b *")
print("pack", tuple(packed.shape), [tuple(s) for s in ps])
ua, ub = unpack(packed, ps, "b *")
print("unpack", tuple(ua.shape), tuple(ub.shape), torch.equal(ub, b))

q = torch.from_numpy(rng.standard_normal((2, 4, 3))).float()
k = torch.from_numpy(rng.standard_normal((2, 5, 3))).float()
att = named_einsum("batch q d, batch k d -> batch q k", q, k)
print("einsum", tuple(att.shape), torch.allclose(att, q @ k.transpose(1, 2), atol=1e-6), r(att[0, 0]))


class Rearrange(nn.Module):
    def __init__(self, pattern, **axes):
        super().__init__()
        self.pattern, self.axes = pattern, axes

    def extra_repr(self):
        return repr(self.pattern) + "".join(f", {k}={v}" for k, v in self.axes.items())

    def forward(self, t):
        return rearrange(t, self.pattern, **self.axes)


class Reduce(Rearrange):
    def __init__(self, pattern, reduction, **axes):
        super().__init__(pattern, **axes)
        self.reduction = reduction

    def extra_repr(self):
        return super().extra_repr() + f", reduction={self.reduction!r}"

    def forward(self, t):
        return reduce(t, self.pattern, self.reduction, **self.axes)


stem = nn.Sequential(Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=2), nn.Linear(12, 8),
                     nn.LayerNorm(8), Reduce("b n d -> b d", "mean"), nn.Linear(8, 2))
with torch.no_grad():
    for i, p in enumerate(stem.parameters()):
        p.copy_(torch.from_numpy(rng.standard_normal(p.shape) * 0.3).float())
print(stem)
img = torch.from_numpy(rng.standard_normal((2, 3, 4, 4))).float().requires_grad_()
out = stem(img)
out.square().sum().backward()
print("stem out", r(out), out.grad_fn.name())
print("img grad", r(img.grad[0, 0]), r(stem[1].weight.grad[0]))

errors = [lambda: rearrange(x, "b c h -> b c h"), lambda: rearrange(x, "b c h w -> b c h"),
          lambda: rearrange(x, "b c (h p) w -> b c h p w"), lambda: rearrange(x, "b c (h p) w -> b c h p w", p=3),
          lambda: repeat(x, "b c h w -> b c h w k"), lambda: rearrange(x, "b c ((h) w) -> b c h w"),
          lambda: rearrange(x, "b c h w) -> b c h w"), lambda: rearrange(x, "b c h w-1 -> b c h"),
          lambda: x.reshape(5, -1), lambda: x.permute(0, 1, 2), lambda: x.expand(3, 3, 4, 6),
          lambda: torch.einsum("bij,bjk->bik", q, k)]
for fn in errors:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, "|", str(e).split("\n")[0][:120])
