"""Process-wide torch settings as library utilities read and restore them: torch.Size arithmetic and
methods, finfo/iinfo fields, get/set_default_dtype and what factories then build, set_printoptions
variants restored afterwards, manual_seed / initial_seed / get_rng_state / set_rng_state round trips and
Generator state cloning (equality only, never the numbers), fork_rng, use_deterministic_algorithms flags, and
torch.__version__ parsed without packaging."""

import re

import torch


def show_error(label, fn):
    try:
        out = fn()
        print(label, "no error", out)
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:110])


s = torch.Size([2, 3, 4])
print("size", s, s + (5,), (1,) + s, s * 2, s[1:], type(s[1:]).__name__, s[-1])
print("size_methods", s.numel(), s.count(3), s.index(4), len(s), s == (2, 3, 4), s == [2, 3, 4],
      hash(s) == hash((2, 3, 4)))
print("size_empty", torch.Size([]).numel(), torch.Size(), torch.Size((0, 5)).numel(), list(reversed(s)))
print("size_ops", torch.zeros(s).shape == s, torch.ones(*s[:2]).shape, torch.Size([2, 3]) + torch.Size([1]))
show_error("size_bad", lambda: torch.Size([2.5]))

for dt in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
    fi = torch.finfo(dt)
    print("finfo", dt, fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.smallest_normal, fi.resolution, fi.dtype)
for dt in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
    ii = torch.iinfo(dt)
    print("iinfo", dt, ii.bits, ii.min, ii.max, ii.dtype)
print("finfo_default", torch.finfo().dtype, torch.finfo(torch.complex64).dtype, torch.finfo(torch.complex128).bits)
print("finfo_repr", repr(torch.finfo(torch.float16)))
print("iinfo_repr", repr(torch.iinfo(torch.int8)))
show_error("finfo_int", lambda: torch.finfo(torch.int32))
show_error("iinfo_float", lambda: torch.iinfo(torch.float32))
print("iinfo_bool", torch.iinfo(torch.uint8).min, torch.finfo(torch.float32).eps == 2 ** -23)

print("default", torch.get_default_dtype(), torch.tensor([1.0]).dtype, torch.tensor([1]).dtype)
torch.set_default_dtype(torch.float64)
print("default64", torch.get_default_dtype(), torch.zeros(1).dtype, torch.tensor([1.5]).dtype, torch.arange(3.0).dtype,
      torch.tensor([1 + 2j]).dtype, torch.linspace(0, 1, 3).dtype, torch.nn.Linear(2, 2).weight.dtype,
      torch.tensor(2).dtype, torch.empty(2).dtype, torch.full((1,), 2.0).dtype, torch.full((1,), 2).dtype)
torch.set_default_dtype(torch.float32)
print("restored", torch.get_default_dtype(), torch.tensor([1 + 2j]).dtype)
show_error("default_int", lambda: torch.set_default_dtype(torch.int64))

x = torch.tensor([1.0 / 3, 12345.6789, 1e-5, -2.0])
print(x)
torch.set_printoptions(precision=2)
print(x)
torch.set_printoptions(sci_mode=True)
print(x)
torch.set_printoptions(sci_mode=False, precision=6)
print(x)
torch.set_printoptions(profile="default")
print(torch.arange(2000.0))
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10))
torch.set_printoptions(profile="short")
print(torch.tensor([1.23456789, 2.0]))
torch.set_printoptions(linewidth=30, profile="default")
print(torch.arange(12.0) / 7)
torch.set_printoptions(profile="default")
print(torch.arange(12.0) / 7)
opts = torch._tensor_str.PRINT_OPTS
saved = dict(opts.__dict__)
torch.set_printoptions(precision=1, threshold=3)
print("print_opts", opts.precision, opts.threshold, saved["precision"], saved["threshold"], opts.sci_mode)
torch.set_printoptions(**saved)
print("print_opts_restored", opts.precision, torch.tensor([2.0 / 3]))

torch.manual_seed(1234)
print("initial_seed", torch.initial_seed())
state = torch.get_rng_state()
print("state", state.dtype, state.dim(), state.numel() > 0)
a = torch.rand(4)
torch.set_rng_state(state)
b = torch.rand(4)
print("replay", torch.equal(a, b), torch.equal(torch.rand(4), a))
g = torch.Generator().manual_seed(7)
print("gen_seed", g.initial_seed(), g.device, type(g.get_state()).__name__)
gs = g.get_state()
r1 = torch.randn(3, generator=g)
g.set_state(gs)
r2 = torch.randn(3, generator=g)
g2 = torch.Generator()
g2.set_state(gs)
print("gen_replay", torch.equal(r1, r2), torch.equal(torch.randn(3, generator=g2), r1))
print("gen_seed_method", type(torch.Generator().seed()).__name__, torch.Generator().manual_seed(3).initial_seed())
with torch.random.fork_rng():
    torch.manual_seed(0)
    inside = torch.rand(2)
after1 = torch.rand(2)
torch.set_rng_state(state)
torch.rand(4), torch.rand(4)
print("fork_rng", torch.equal(torch.rand(2), after1), inside.shape)
show_error("bad_state", lambda: torch.set_rng_state(torch.zeros(3)))
show_error("bad_state_type", lambda: torch.set_rng_state([1, 2]))
show_error("neg_seed_ok", lambda: torch.manual_seed(-1).initial_seed())

print("determinism", torch.are_deterministic_algorithms_enabled(),
      torch.is_deterministic_algorithms_warn_only_enabled())
torch.use_deterministic_algorithms(True, warn_only=True)
print("determinism_on", torch.are_deterministic_algorithms_enabled(),
      torch.is_deterministic_algorithms_warn_only_enabled(),
      torch.get_deterministic_debug_mode())
torch.use_deterministic_algorithms(False)
print("determinism_off", torch.are_deterministic_algorithms_enabled(), torch.get_deterministic_debug_mode())
torch.set_deterministic_debug_mode("warn")
print("debug_mode", torch.get_deterministic_debug_mode(), torch.are_deterministic_algorithms_enabled())
torch.set_deterministic_debug_mode(0)
show_error("debug_mode_bad", lambda: torch.set_deterministic_debug_mode("loud"))
show_error("debug_mode_range", lambda: torch.set_deterministic_debug_mode(5))
show_error("deterministic_type", lambda: torch.use_deterministic_algorithms("yes"))
show_error("threads_zero", lambda: torch.set_num_threads(0))
print("cudnn", torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)


def parse_version(v):
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", str(v))
    return tuple(int(p or 0) for p in m.groups())


ver = parse_version(torch.__version__)
print("version", len(ver), ver >= (2, 0, 0), ver >= (1, 13), isinstance(torch.__version__, str))
print("version_cmp", torch.__version__ >= "2.0", torch.__version__ > (1, 9), torch.__version__ < "99")
print("version_fields", type(torch.version.__version__).__name__,
      torch.version.cuda is None or isinstance(torch.version.cuda, str),
      hasattr(torch.version, "git_version"))
