"""Reproducible latents as diffusers' pipelines draw them: randn_tensor with one generator per sample, per-prompt
seeds, latents scaled by init_noise_sigma, resuming a sampler from a saved generator state, torch.random.fork_rng
around a preview, initial_seed/seed bookkeeping, and the errors of mismatched generator lists."""

import torch

torch.manual_seed(0)


def r(t, n=4):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


def randn_tensor(shape, generator=None, dtype=None, layout=None):
    layout = layout or torch.strided
    if isinstance(generator, list) and len(generator) == 1:
        generator = generator[0]
    if isinstance(generator, list):
        if len(generator) != shape[0]:
            raise ValueError(
                f"You have passed a list of generators of length {len(generator)}, but requested an "
                f"effective batch size of {shape[0]}. Make sure the batch size matches the length of "
                "the generators."
            )
        shape = (1,) + tuple(shape[1:])
        latents = [
            torch.randn(shape, generator=generator[i], dtype=dtype, layout=layout) for i in range(len(generator))
        ]
        return torch.cat(latents, dim=0)
    return torch.randn(shape, generator=generator, dtype=dtype, layout=layout)


seeds = [7, 8, 9]
gens = [torch.Generator("cpu").manual_seed(s) for s in seeds]
batch = randn_tensor((3, 4, 2, 2), generator=gens)
single = torch.cat([torch.randn(1, 4, 2, 2, generator=torch.Generator().manual_seed(s)) for s in seeds])
print("per-sample generators:", tuple(batch.shape), torch.equal(batch, single), r(batch[1]))
print(
    "sample 2 alone:", torch.equal(randn_tensor((1, 4, 2, 2), generator=[torch.Generator().manual_seed(9)]), batch[2:])
)
one = randn_tensor((3, 4, 2, 2), generator=torch.Generator().manual_seed(7))
print("one generator:", torch.equal(one[0], batch[0]), torch.equal(one[1], batch[1]))
half = randn_tensor((2, 4, 2, 2), generator=torch.Generator().manual_seed(7), dtype=torch.float16)
print("fp16 latents:", half.dtype, r(half, 3))
f64 = randn_tensor((2, 3), generator=torch.Generator().manual_seed(7), dtype=torch.float64)
print("fp64 latents:", f64.dtype, r(f64, 3))
try:
    randn_tensor((2, 4, 2, 2), generator=gens)
except ValueError as e:
    print("ValueError", e)
try:
    torch.randn(2, generator=torch.Generator().manual_seed(0), dtype=torch.int64)
except Exception as e:
    print(type(e).__name__, e)

init_noise_sigma = (14.6146**2 + 1) ** 0.5
latents = batch * init_noise_sigma
print("scaled:", round(init_noise_sigma, 4), r(latents.std(dim=(1, 2, 3))))

# resume a stochastic sampler: save the generator state mid-run and replay the rest
g = torch.Generator().manual_seed(123)
x = torch.zeros(2, 3)
trace = []
for step in range(6):
    if step == 3:
        saved = g.get_state()
        x_saved = x.clone()
    x = 0.9 * x + 0.1 * torch.randn(x.shape, generator=g)
    trace.append(round(x.sum().item(), 4))
g2 = torch.Generator()
g2.set_state(saved)
x = x_saved
replay = []
for step in range(3, 6):
    x = 0.9 * x + 0.1 * torch.randn(x.shape, generator=g2)
    replay.append(round(x.sum().item(), 4))
print("trace:", trace, "replay:", replay, replay == trace[3:])
print("state:", saved.dtype, tuple(saved.shape), g2.initial_seed())
c = g.clone_state()
print("clone_state:", torch.equal(torch.rand(3, generator=c), torch.rand(3, generator=g)))

# fork_rng: a preview draw does not disturb the global stream
torch.manual_seed(5)
a = torch.randn(2)
torch.manual_seed(5)
with torch.random.fork_rng():
    torch.randn(100)
b = torch.randn(2)
print("fork_rng:", torch.equal(a, b))
torch.manual_seed(5)
state = torch.get_rng_state()
u = torch.rand(3)
torch.set_rng_state(state)
print("global state:", torch.equal(u, torch.rand(3)), torch.initial_seed(), state.shape)
print("manual_seed returns:", type(torch.manual_seed(3)).__name__, torch.default_generator.initial_seed())
print(
    "randn_like keeps dtype:",
    torch.randn_like(half).dtype,
    torch.rand_like(f64).dtype,
    torch.randint_like(half, 0, 10).dtype,
)
print("randint with generator:", torch.randint(0, 1000, (4,), generator=torch.Generator().manual_seed(42)).tolist())
print("randperm:", torch.randperm(6, generator=torch.Generator().manual_seed(1)).tolist())
try:
    torch.Generator().set_state(torch.zeros(10, dtype=torch.uint8))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.Generator().set_state(saved.float())
except Exception as e:
    print(type(e).__name__, e)
for call in (lambda: g.get_offset(), lambda: g.set_offset(4), lambda: g.graphsafe_get_state()):
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
try:
    torch.Generator("meta")
except Exception as e:
    print(type(e).__name__, e)
