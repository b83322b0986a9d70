"""The einops idioms research code uses, through torch.func.rearrange, each checked against the torch op it
replaces: pixel (un)shuffle, channel shuffle, window partition, head split, stacking a list, ellipsis and unit axes,
plus the pattern errors (functorch's ValueError/TypeError and dimension-binding errors)."""
import torch
from torch.func import rearrange

F = torch.nn.functional
torch.manual_seed(0)

x = torch.randn(2, 8, 6, 6)
ps = rearrange(x, "b (c r1 r2) h w -> b c (h r1) (w r2)", r1=2, r2=2)
print("pixel_shuffle", tuple(ps.shape), torch.equal(ps, F.pixel_shuffle(x, 2)))
pu = rearrange(x, "b c (h r1) (w r2) -> b (c r1 r2) h w", r1=3, r2=3)
print("pixel_unshuffle", tuple(pu.shape), torch.equal(pu, F.pixel_unshuffle(x, 3)))
cs = rearrange(x, "b (g c) h w -> b (c g) h w", g=4)
ref = x.view(2, 4, 2, 6, 6).transpose(1, 2).reshape(2, 8, 6, 6)
print("channel shuffle", torch.equal(cs, ref), torch.equal(cs, F.channel_shuffle(x, 4)))

win = rearrange(x, "b c (nh wh) (nw ww) -> (b nh nw) (wh ww) c", wh=3, ww=3)
print("windows", tuple(win.shape), round(win[5].sum().item(), 4))
merged = rearrange(win, "(b nh nw) (wh ww) c -> b c (nh wh) (nw ww)", b=2, nh=2, wh=3)
print("windows merged back", torch.equal(merged, x))

tokens = torch.randn(2, 5, 12)
heads = rearrange(tokens, "b n (h d) -> b h n d", h=3)
print("heads", tuple(heads.shape), torch.equal(heads, tokens.view(2, 5, 3, 4).permute(0, 2, 1, 3)))
print("merge heads", torch.equal(rearrange(heads, "b h n d -> b n (h d)"), tokens))

frames = [torch.full((2, 3), float(i)) for i in range(4)]
stacked = rearrange(frames, "t h w -> h (t w)")
print("list stacked", tuple(stacked.shape), stacked[0].tolist())
print("tuple stacked", tuple(rearrange(tuple(frames), "t h w -> t w h").shape))

y = torch.arange(24.0).reshape(2, 3, 4)
print("ellipsis front", tuple(rearrange(y, "... c -> c ...").shape))
print("ellipsis back", tuple(rearrange(y, "b ... -> ... b").shape))
print("ellipsis grouped", tuple(rearrange(y, "b ... -> b (...)").shape))
print("ellipsis empty", tuple(rearrange(y, "a b c ... -> c b a ...").shape))
print("unit axes", tuple(rearrange(y, "a b c -> 1 a 1 b c 1").shape))
print("unit axis in", tuple(rearrange(y[:, :1], "a 1 c -> a c").shape))
print("unit axis summed", rearrange(y, "a b 1 -> a b").tolist())
print("flatten", rearrange(y, "a b c -> (a b c)")[:6].tolist())
print("reverse group", rearrange(y, "a b c -> (c b a)")[:6].tolist())
print("scalar", rearrange(torch.tensor(3.5), " -> ").item())
print("identity view", rearrange(y, "a b c -> a b c").data_ptr() == y.data_ptr())

w = torch.randn(4, 6, requires_grad=True)
out = rearrange(w, "(a b) (c d) -> (b d) (a c)", a=2, c=3)
(out * torch.arange(24.0).reshape(4, 6)).sum().backward()
print("grad", w.grad.tolist()[0])

errors = [("a b c", {}), ("a b -> a b", {}), ("a b c -> a b c d", {}), ("a a c -> a c", {}),
          ("a (b (c)) -> a b c", {}), ("a b c -> a b c)", {}), ("a (b c -> a b c", {}), ("a b. c -> a b c", {}),
          ("a b c -> a b 2 c", {}), ("a b c -> ... a b c", {}), ("(a ...) -> a", {}), ("a b _c -> a b _c", {}),
          ("a b c% -> a b c", {}), ("a b c -> a b c", {"d": 2}), ("a b c -> a b c", {"a": 2.0}),
          ("a b (c d) -> a b c d", {}), ("a b (c d) -> a b c d", {"d": 3}), ("a b c -> a b c", {"a": 5}),
          ("a b (c d) -> a b c d", {"c": 2, "d": 3}), ("a b c d ... -> a b c d ...", {}),
          ("... a b c d -> ... a b c d", {})]
for pattern, kw in errors:
    try:
        rearrange(y, pattern, **kw)
        print(repr(pattern), "ok")
    except Exception as e:
        print(repr(pattern), kw, type(e).__name__, e)
