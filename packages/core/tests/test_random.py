"""Generators, seeding and the sampling ops: reproducibility, ranges, moments, errors."""

import math
from fractions import Fraction

import numpy as np
import pytest

import ember.core as E
from ember.core import random as R


def test_manual_seed_reproduces_whatever_was_drawn_before():
    E.manual_seed(0)
    a = E.randn(3)
    E.manual_seed(0)
    E.rand(1000)
    E.randint(0, 5, (7,))
    E.manual_seed(0)
    b = E.randn(3)
    assert a.tolist() == b.tolist()
    assert E.initial_seed() == 0


def test_successive_draws_differ_and_generators_are_independent():
    E.manual_seed(1)
    a, b = E.rand(4), E.rand(4)
    assert a.tolist() != b.tolist()
    g1 = R.Generator().manual_seed(5)
    g2 = R.Generator().manual_seed(5)
    E.rand(10)                       # the default generator does not disturb g1/g2
    assert E.randn(4, generator=g1).tolist() == E.randn(4, generator=g2).tolist()
    assert R.Generator().manual_seed(6).initial_seed() == 6


def test_generator_state_round_trips():
    g = R.Generator().manual_seed(3)
    E.rand(5, generator=g)
    state = g.get_state()
    assert state.dtype is E.uint8 and state.numel() == 5056  # PyTorch's CPUGeneratorImplState
    x = E.rand(5, generator=g)
    g.set_state(state)
    assert E.rand(5, generator=g).tolist() == x.tolist()
    s = E.get_rng_state()
    y = E.randn(3)
    E.set_rng_state(s)
    assert E.randn(3).tolist() == y.tolist()
    with pytest.raises(TypeError, match="^RNG state must be a torch.ByteTensor$"):
        g.set_state(E.zeros(16))
    with pytest.raises(TypeError, match="^expected a torch.ByteTensor, but got list$"):
        E.set_rng_state([1, 2])


def test_seed_and_negative_seed():
    s = E.seed()
    assert E.initial_seed() == s
    E.manual_seed(-1)
    assert E.initial_seed() == 2 ** 64 - 1
    with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
        E.manual_seed(2 ** 64)


def test_philox_seed_offset_advances_in_blocks_of_four():
    g = R.Generator().manual_seed(9)
    assert R.philox_seed_offset(g, 5) == (9, 0)
    assert R.philox_seed_offset(g, 1) == (9, 8)
    assert R.philox_seed_offset(g, 0) == (9, 12)
    g.manual_seed(9)
    assert R.philox_seed_offset(g, 3) == (9, 0)


@pytest.mark.parametrize("dtype", [E.float32, E.float64, E.float16])
def test_rand_randn_dtypes_ranges_and_moments(dtype):
    E.manual_seed(2)
    u = E.rand(20000, dtype=dtype)
    assert u.dtype is dtype and u.shape == (20000,)
    a = u.numpy().astype(np.float64)
    assert a.min() >= 0 and a.max() < 1 and abs(a.mean() - 0.5) < 0.01
    z = E.randn((100, 200), dtype=dtype).numpy().astype(np.float64)
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02


def test_size_forms_like_and_requires_grad_flag_default():
    assert E.rand(2, 3).shape == E.rand((2, 3)).shape == E.rand([2, 3]).shape == E.randn(size=(2, 3)).shape
    x = E.zeros(2, 2, dtype=E.float64)
    assert R.rand_like(x).dtype is E.float64 and R.randn_like(x).shape == (2, 2)
    assert E.rand(3).dtype is E.get_default_dtype()
    out = E.empty(0)
    E.randn(4, out=out)
    assert out.shape == (4,)


def test_randint_forms_range_and_errors():
    E.manual_seed(4)
    r = E.randint(3, 10, (1000,))
    assert r.dtype is E.int64 and r.min().item() >= 3 and r.max().item() <= 9
    assert set(E.randint(2, (100,)).tolist()) == {0, 1}
    assert E.randint(0, 5, (3,), dtype=E.int32).dtype is E.int32
    assert R.randint_like(E.zeros(2, 2), 7).max().item() < 7
    with pytest.raises(RuntimeError, match="'from' to be less than 'to'"):
        E.randint(5, 5, (2,))


def test_randperm_is_a_permutation():
    E.manual_seed(0)
    p = E.randperm(50)
    assert p.dtype is E.int64 and sorted(p.tolist()) == list(range(50))
    assert E.randperm(0).shape == (0,)


@pytest.mark.parametrize(("n", "dtype", "message"), [
    (129, "int8", "value cannot be converted to type int8_t without overflow"),
    (257, "uint8", "value cannot be converted to type uint8_t without overflow"),
    (32769, "int16", "value cannot be converted to type int16_t without overflow"),
    (2**24 + 2, "float32", r"n cannot be greater than 2\^24\+1 for Float type\."),
    (2050, "float16", r"n cannot be greater than 2049 for Half type\."),
])
def test_randperm_refuses_an_n_its_dtype_cannot_hold(n, dtype, message):
    """PyTorch's words for a largest value n - 1 past the dtype's range (or its exact integers), for dtype= and
    out= alike; n - 1 at the limit itself is drawn."""
    dt = getattr(E, dtype)
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        E.randperm(n, dtype=dt)
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        E.randperm(n, out=E.empty(0, dtype=dt))
    if n < 2**20:
        assert E.randperm(n - 1, dtype=dt).sort().values.tolist() == list(range(n - 1))


def test_multinomial_refuses_more_than_2_pow_24_categories_after_its_sample_count_checks():
    wide = E.ones(1).expand(2**24 + 1)
    with pytest.raises(RuntimeError, match=r"^number of categories cannot exceed 2\^24$"):
        E.multinomial(wide, 1)
    with pytest.raises(RuntimeError, match=r"^cannot sample n_sample <= 0 samples$"):
        E.multinomial(wide, 0)
    assert E.multinomial(E.ones(1).expand(2**10), 1).shape == (1,)


def test_normal_forms():
    E.manual_seed(0)
    mean = E.arange(4, dtype=E.float64) * 100
    r = E.normal(mean, E.full((4,), 0.01, dtype=E.float64))
    assert r.dtype is E.float64
    np.testing.assert_allclose(r.numpy(), mean.numpy(), atol=0.1)
    assert E.normal(2.0, 3.0, (5,)).shape == (5,)
    assert E.normal(mean).shape == (4,)
    assert E.normal(0.0, E.ones(2, 3)).shape == (2, 3)
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        E.normal(0.0, -1.0, (2,))
    with pytest.raises(RuntimeError, match="all elements of std >= 0.0"):
        E.normal(E.zeros(2), E.tensor([1.0, -1.0]))
    assert E.normal(E.zeros(2, 1), E.ones(3)).shape == (2, 3)  # mean and std broadcast


def test_normal_errors_are_pytorchs():
    # PyTorch's argument parser lists normal's overloads when two numbers come without a size
    with pytest.raises(TypeError, match=r"^normal\(\) received an invalid combination of arguments - got \(int, "
                                        r"float\), but expected one of:\n \* \(Tensor mean, Tensor std, \*, "):
        E.normal(0, 1.5)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 0$"):
        E.normal(E.zeros(2), E.ones(3))


def test_inplace_samplers_ranges_and_versions():
    E.manual_seed(7)
    x = E.empty(5000)
    v = x._version
    x.uniform_(-2, 3)
    assert x._version > v and x.min().item() >= -2 and x.max().item() < 3
    x.normal_(5, 0.5)
    assert abs(x.numpy().mean() - 5) < 0.05
    x.exponential_(2.0)
    assert x.min().item() >= 0 and abs(x.numpy().mean() - 0.5) < 0.05
    x.bernoulli_(0.25)
    assert set(np.unique(x.numpy())) <= {0.0, 1.0} and abs(x.numpy().mean() - 0.25) < 0.03
    x.log_normal_(0.0, 0.25)
    assert x.min().item() > 0
    x.geometric_(0.5)
    assert x.min().item() >= 1
    x.cauchy_()
    assert np.isfinite(x.numpy()).all()
    i = E.empty(1000, dtype=E.int64).random_(3)
    assert set(i.tolist()) == {0, 1, 2}
    i.random_(10, 12)
    assert set(i.tolist()) == {10, 11}
    b = E.empty(100, dtype=E.bool).random_()
    assert set(b.tolist()) == {False, True}


def test_inplace_sampler_errors():
    with pytest.raises(RuntimeError, match="from=3 > to=1"):
        E.empty(2).uniform_(3, 1)
    with pytest.raises(RuntimeError, match="lambda > 0.0"):
        E.empty(2).exponential_(0)
    with pytest.raises(RuntimeError, match=r"p to be in \[0, 1\]"):
        E.empty(2).bernoulli_(1.5)
    with pytest.raises(TypeError, match="normal_"):
        E.empty(2, dtype=E.int64).normal_()


def test_bernoulli_tensor_probabilities():
    p = E.tensor([0.0, 1.0, 0.0, 1.0])
    assert E.bernoulli(p).tolist() == [0, 1, 0, 1]
    assert E.empty(4).bernoulli_(p).tolist() == [0, 1, 0, 1]
    assert E.bernoulli(E.zeros(3), 1.0).tolist() == [1, 1, 1]
    with pytest.raises(RuntimeError, match=r"^Expected p_in >= 0 && p_in <= 1 to be true, but got false\.  \(Could "
                                           r"this error message be improved\?  If so, please report an enhancement "
                                           r"request to PyTorch\.\)$"):
        E.bernoulli(E.tensor([1.5]))


def test_samplers_refuse_integer_tensors_in_pytorchs_words():
    with pytest.raises(NotImplementedError, match="^\"check_uniform_bounds\" not implemented for 'Long'$"):
        E.rand(2, dtype=E.int64)
    with pytest.raises(NotImplementedError, match="^\"normal_kernel_cpu\" not implemented for 'Byte'$"):
        E.randn(2, dtype=E.uint8)
    with pytest.raises(NotImplementedError, match="^\"log_normal_cpu\" not implemented for 'Int'$"):
        E.empty(2, dtype=E.int32).log_normal_()
    with pytest.raises(RuntimeError, match="^Exponential distribution is a continuous probability distribution. dtype "
                                           "must be a floating point but you specified Long$"):
        E.empty(2, dtype=E.int64).exponential_()
    with pytest.raises(RuntimeError, match="^Cauchy distribution is a continuous probability distribution. dtype must "
                                           "be a floating point but you specified long int$"):
        E.empty(2, dtype=E.int64).cauchy_()


def test_multinomial_with_and_without_replacement():
    E.manual_seed(0)
    w = E.tensor([0.0, 1.0, 3.0])
    s = E.multinomial(w, 4000, replacement=True)
    counts = np.bincount(s.numpy(), minlength=3)
    assert counts[0] == 0 and abs(counts[2] / 4000 - 0.75) < 0.03
    rows = E.multinomial(E.tensor([[1.0, 1, 1, 0], [0, 5, 1, 1]]), 3)
    assert rows.shape == (2, 3) and rows.dtype is E.int64
    for r in rows.tolist():
        assert len(set(r)) == 3
    assert 3 not in rows[0].tolist() and 0 not in rows[1].tolist()


def test_multinomial_errors_like_pytorch():
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        E.multinomial(E.ones(2), 3)
    # fewer positive categories than samples: PyTorch 2.13 draws the zero-probability ones last
    assert E.multinomial(E.tensor([1.0, 0.0]), 2).tolist() == [0, 1]
    assert E.multinomial(E.tensor([0.5, 0.0, 0.5]), 3).tolist()[-1] == 1
    with pytest.raises(RuntimeError, match="`inf`, `nan` or element < 0"):
        E.multinomial(E.tensor([1.0, -1.0]), 1)
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        E.multinomial(E.zeros(3), 1, True)
    with pytest.raises(RuntimeError, match="1 or 2 dim"):
        E.multinomial(E.ones(1, 1, 1), 1)


def test_multinomial_refuses_more_categories_than_float32_counts_exactly():
    """PyTorch caps the categories at 2**24; the sample-count checks come first, as in PyTorch."""
    with pytest.raises(RuntimeError, match=r"^number of categories cannot exceed 2\^24$"):
        E.multinomial(E.ones(1, 2**24 + 1), 1)
    with pytest.raises(RuntimeError, match="^cannot sample n_sample <= 0 samples$"):
        E.multinomial(E.ones(2**24 + 1), 0)
    assert 0 <= E.multinomial(E.ones(2**24), 1).item() < 2**24


@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_dropout_mask_scales_kept_elements(p):
    E.manual_seed(0)
    m = R.dropout_mask((10000,), p).numpy()
    kept = m[m != 0]
    if p < 1:
        np.testing.assert_allclose(kept, 1 / (1 - p), rtol=1e-6)
        assert math.isclose(1 - kept.size / m.size, p, abs_tol=0.02)
    else:
        assert kept.size == 0
    with pytest.raises(ValueError, match="between 0 and 1"):
        R.dropout_mask((2,), 1.5)


def test_random_primitives_are_not_differentiable():
    from ember.core import get_op

    for name in ("uniform_", "normal_", "bernoulli_", "random_", "exponential_", "multinomial"):
        assert get_op(name).differentiable is False


def test_poisson_mean_and_errors():
    E.manual_seed(0)
    r = E.poisson(E.full((20000,), 3.0, dtype=E.float64))
    assert r.dtype is E.float64 and abs(r.numpy().mean() - 3) < 0.05
    assert (r.numpy() == np.round(r.numpy())).all()
    with pytest.raises(RuntimeError, match="non-negative"):
        E.poisson(E.tensor([-1.0]))


def test_poisson_of_a_zero_dim_rate_is_a_zero_dim_tensor():
    r = E.poisson(E.tensor(3.0))
    assert r.shape == () and r.dtype is E.float32 and float(r) == round(float(r)) >= 0


def test_argument_errors():
    with pytest.raises(TypeError, match='^rand\\(\\) missing 1 required positional arguments: "size"$'):
        E.rand(shape=(2,))  # PyTorch 2.13's words: no size given (its `shape` is no keyword of rand)
    with pytest.raises(TypeError, match="unexpected keyword argument 'shape'"):
        E.rand(2, shape=(2,))
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but found 'cuda'"):
        R.philox_seed_offset(R.Generator("cuda"), 4, "cpu")
    assert R.Generator("cuda").device == E.device("cuda", 0)


def test_binomial_moments_broadcast_and_generator():
    g = E.Generator().manual_seed(3)
    n, p = E.full((40000,), 12.0, dtype=E.float64), E.tensor(0.25, dtype=E.float64)
    r = E.binomial(n, p, generator=g).numpy()
    assert r.dtype == np.float64 and r.shape == (40000,) and np.all(r == np.round(r))
    assert abs(r.mean() - 3.0) < 0.05 and abs(r.var() - 2.25) < 0.08 and 0 <= r.min() and r.max() <= 12
    g.manual_seed(3)
    assert E.binomial(n, p, generator=g).numpy().tolist() == r.tolist()
    edge = E.binomial(E.tensor([[0.0], [5.0]]), E.tensor([0.3, 0.0, 1.0]))
    assert edge.shape == (2, 3) and edge.tolist() == [[0.0, 0.0, 0.0], [edge[1, 0].item(), 0.0, 5.0]]


def test_binomial_errors():
    with pytest.raises(ValueError, match="binomial only supports floating-point dtypes for count"):
        E.binomial(E.tensor([1, 2]), E.tensor([0.5, 0.5]))
    with pytest.raises(RuntimeError, match="prob must have count's dtype"):
        E.binomial(E.tensor([1.0]), E.tensor([0.5], dtype=E.float64))
    with pytest.raises(RuntimeError, match=r"prob must be in \[0, 1\]"):
        E.binomial(E.tensor([1.0]), E.tensor([1.5]))
    with pytest.raises(RuntimeError, match="count must be finite and non-negative"):
        E.binomial(E.tensor([-1.0]), E.tensor([0.5]))


def test_fork_rng_restores_the_default_stream_after_the_block():
    E.manual_seed(5)
    before = E.randn(4).tolist()
    E.manual_seed(5)
    with R.fork_rng():
        inside = E.randn(4).tolist()
        E.rand(100)
    assert inside == before
    assert E.randn(4).tolist() == before


def test_fork_rng_disabled_or_raising_block():
    E.manual_seed(1)
    with R.fork_rng(enabled=False):
        E.rand(3)
    after_disabled = E.rand(2).tolist()
    E.manual_seed(1)
    E.rand(3)
    assert E.rand(2).tolist() == after_disabled
    E.manual_seed(2)
    want = E.rand(2).tolist()
    E.manual_seed(2)
    with pytest.raises(KeyError), R.fork_rng(devices=[]):
        E.rand(7)
        raise KeyError("x")
    assert E.rand(2).tolist() == want


def _mt_words(seed, n):
    """The first `n` words of PyTorch's MT19937 seeded with `seed` (init_genrand), from numpy's engine."""
    rs = np.random.RandomState(seed % 2**32)
    bits = np.random.MT19937()
    bits.state = {"bit_generator": "MT19937", "state": {"key": rs.get_state()[1], "pos": 624}}
    return bits.random_raw(n)


def test_draws_read_pytorchs_mersenne_twister():
    # NOTE [ PyTorch's CPU stream ]: float32 uniforms are 24 bits of a word, float64 ones 53 bits of two, randint a
    # word mod the range, randperm a forward Fisher-Yates shuffle, small normals Box-Muller on float64 uniforms
    w = _mt_words(2**64 - 5, 64)
    E.manual_seed(2**64 - 5)
    np.testing.assert_array_equal(E.rand(3).numpy(), (w[:3] & 0xFFFFFF).astype(np.float32) * np.float32(2**-24))
    d = ((w[3:7:2] << np.uint64(32)) | w[4:8:2]) & np.uint64(2**53 - 1)
    np.testing.assert_array_equal(E.rand(2, dtype=E.float64).numpy(), d.astype(np.float64) * 2.0**-53)
    assert E.randint(0, 10, (3,)).tolist() == [int(x) % 10 for x in w[7:10]]
    perm = list(range(5))
    for i, x in enumerate(w[10:14]):
        z = i + int(x) % (5 - i)
        perm[i], perm[z] = perm[z], perm[i]
    assert E.randperm(5).tolist() == perm
    u = ((w[14:22:2] << np.uint64(32)) | w[15:22:2]) & np.uint64(2**53 - 1)
    u = u.astype(np.float64) * 2.0**-53
    r = np.sqrt(-2 * np.log1p(-u[1::2]))
    want = np.array([r[0] * np.cos(2 * np.pi * u[0]), r[0] * np.sin(2 * np.pi * u[0]), r[1] * np.cos(2 * np.pi * u[2])])
    np.testing.assert_allclose(E.randn(3, dtype=E.float64).numpy(), want, rtol=1e-15)
    assert R.default_generator._mt.next_double == pytest.approx(r[1] * np.sin(2 * np.pi * u[2]), rel=1e-15)


def test_compiled_engine_draws_numpys_words_across_twists():
    # NOTE [ The engine in compiled code ]: the samplers twist and temper the engine themselves; their words must be
    # numpy's MT19937's (PyTorch's) however the draws fall across the 624-word blocks
    w = _mt_words(123, 3 * 624 + 3000 + 2500 + 40)
    E.manual_seed(123)
    got = np.concatenate([E.rand(k).numpy() for k in (700, 1, 623, 548)])
    np.testing.assert_array_equal(got, (w[:1872] & 0xFFFFFF).astype(np.float32) * np.float32(2**-24))
    d = ((w[1872:4872:2] << np.uint64(32)) | w[1873:4872:2]) & np.uint64(2**53 - 1)
    np.testing.assert_array_equal(E.rand(1500, dtype=E.float64).numpy(), d.astype(np.float64) * 2.0**-53)
    np.testing.assert_array_equal(E.randint(-5, 995, (2500,)).numpy(), (w[4872:7372] % 1000).astype(np.int64) - 5)
    u = ((w[7372:7404:2] << np.uint64(32)) | w[7373:7404:2]) & np.uint64(2**53 - 1)
    u = u.astype(np.float64) * 2.0**-53
    r, theta = np.sqrt(-2 * np.log(1 - u[:8])), 2 * np.pi * u[8:]
    want = np.concatenate([r * np.cos(theta), r * np.sin(theta)]) * 2.0 + 1.0
    np.testing.assert_allclose(E.empty(16, dtype=E.float64).normal_(1.0, 2.0).numpy(), want, rtol=1e-14)
    assert R.default_generator._mt.words == 7404


def test_few_words_before_the_kernels_load_are_numpys_engine(monkeypatch):
    # a few words drawn before any compiled sampler ran come from numpy's engine (`MT19937._numpy_words`), across a
    # twist too, and the compiled kernels go on from the same state
    from ember.core import mt19937

    w = _mt_words(77, 624 + 200)
    real = mt19937._kernels
    calls = []
    monkeypatch.setattr(mt19937.MT19937, "_numpy_words", lambda self, n, numpy_words=mt19937.MT19937._numpy_words:
                        calls.append(n) or numpy_words(self, n))
    monkeypatch.setattr(mt19937, "_kernels", _unloaded(real))
    g = mt19937.MT19937(77)
    g.u32(600), g.u64(5), g.u32(3)  # 600 words: too many, the kernels, loaded from then on
    assert calls == []
    monkeypatch.setattr(mt19937, "_kernels", _unloaded(real))
    g = mt19937.MT19937(77)
    got = [g.u32(60), g.u64(10), g.u32(64), g.u64(30), g.u32(20)]  # numpy's: 60 + 20 + 64 + 60 + 20 words
    assert calls == [60, 20, 64, 60, 20] and g.words == 224
    got.append(g.u32(400))  # 400 words: the kernels, from numpy's state (a twist at word 624)
    pairs = lambda a: (a[0::2] << np.uint64(32)) | a[1::2]  # noqa: E731
    want = [w[:60], pairs(w[60:80]), w[80:144], pairs(w[144:204]), w[204:224], w[224:624]]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert calls == [60, 20, 64, 60, 20]
    np.testing.assert_array_equal(g.u32(200), w[624:824])


def _unloaded(load):
    """A `_kernels` that says nothing is loaded until it is called, as a fresh process's."""
    loaded = []

    def kernels():
        loaded.append(True)
        return load()

    kernels.cache_info = lambda: type("Info", (), {"currsize": len(loaded)})()
    return kernels


def test_rejection_samplers_draw_from_the_engine_across_a_block_boundary():
    # poisson below rate 10 multiplies uniforms until the product falls to exp(-rate): each value takes (value + 1)
    # uniforms, the first here made of the last word of one engine block and the first of the next
    w = _mt_words(5, 624 + 2 * 400 + 1)
    E.manual_seed(5)
    E.rand(623)
    got = E.poisson(E.full((40,), 3.0)).tolist()
    u = ((w[623:-1:2] << np.uint64(32)) | w[624::2]) & np.uint64(2**53 - 1)
    u, want, k = u.astype(np.float64) * 2.0**-53, [], 0
    for _ in range(40):
        prod, x = 1.0, 0
        while True:
            prod *= u[k]
            k += 1
            if prod <= math.exp(-3.0):
                break
            x += 1
        want.append(float(x))
    assert got == want
    assert E.rand(1).item() == np.float32(w[623 + 2 * k] & 0xFFFFFF) * np.float32(2**-24)


def test_contiguous_draws_are_written_in_place(monkeypatch):
    # a kernel writes a contiguous tensor of its own dtype directly; only a strided or other-dtype one is copied
    copies = []
    fill = R._fill_in_order
    monkeypatch.setattr(R, "_fill_in_order", lambda x, v: copies.append(x.shape) or fill(x, v))
    E.manual_seed(0)
    a = E.rand(50, 40)
    E.randn(50, 40)
    E.randn(30, dtype=E.float64)
    E.randint(0, 9, (40,))
    E.empty(100).bernoulli_(0.3)
    assert copies == []
    E.manual_seed(0)
    b = E.empty(40, 50).t()
    b.uniform_()
    assert copies == [(50, 40)]
    np.testing.assert_array_equal(b.numpy().T, a.numpy().reshape(40, 50))  # memory order


def test_state_is_pytorchs_layout_and_restores_the_normal_cache():
    E.manual_seed(7)
    raw = E.get_rng_state().numpy()
    assert raw.size == 5056 and raw[:8].view("<u8")[0] == 7 and raw[24:32].view("<u8")[0] == 7
    assert raw[8:12].view("<i4")[0] == 1 and raw[16:24].view("<u8")[0] == 0  # left = 1, next = 0: freshly seeded
    E.randn(1, dtype=E.float64)  # leaves the pair's sine in the cache
    state = E.get_rng_state()
    assert state.numpy()[24 + 8 * 624 + 8 * 3] == 1  # normal_is_valid
    a = E.randn(5, dtype=E.float64)
    E.set_rng_state(state)
    assert E.randn(5, dtype=E.float64).tolist() == a.tolist()
    with pytest.raises(RuntimeError, match="^Expected a CPUGeneratorImplState of size 5056 but found the input RNG "
                                           "state size to be 16$"):
        E.set_rng_state(E.zeros(16, dtype=E.uint8))
    bad = state.clone()
    bad[12] = 0  # seeded = 0
    with pytest.raises(RuntimeError, match="^Invalid mt19937 state$"):
        E.set_rng_state(bad)


def test_philox_stream_is_a_fresh_philox_per_thread():
    # NOTE [ Re-keying numpy's Philox ] (the draws of a GPU generator made on the host): one re-keyed generator per
    # thread gives what a new Philox at (seed, offset) gives, bit for bit, with a 128-bit key
    import threading

    from ember.core.philox_stream import philox_stream

    def fresh(seed, offset):
        return np.random.Generator(np.random.Philox(key=seed, counter=[0, offset % 2**64, offset // 2**64, 0]))

    np.testing.assert_array_equal(philox_stream(3 + 2**70, 2**65 + 8).random(6), fresh(3 + 2**70, 2**65 + 8).random(6))
    got = {}
    thread = threading.Thread(target=lambda: got.setdefault("x", philox_stream(7, 4).random(3)))
    first = philox_stream(9, 0)
    thread.start()
    thread.join()
    np.testing.assert_array_equal(got["x"], fresh(7, 4).random(3))  # each thread keys its own generator
    np.testing.assert_array_equal(first.random(3), fresh(9, 0).random(3))


@pytest.mark.parametrize("weights, n, replacement, message", [
    ([-1.0, 2.0], 2, True, "invalid multinomial distribution (encountering probability entry < 0)"),
    ([float("nan"), 1.0], 3, True, "invalid multinomial distribution (encountering probability entry < 0)"),
    ([float("inf"), 1.0], 2, True,
     "invalid multinomial distribution (encountering probability entry = infinity or NaN)"),
    ([[0.0, 0.0], [-1.0, 1.0]], 2, True, "invalid multinomial distribution (sum of probabilities <= 0)"),
    ([-1.0, 2.0], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
    ([float("inf"), 1.0], 2, False, "probability tensor contains either `inf`, `nan` or element < 0"),
    ([0.0, 0.0], 1, False, "invalid multinomial distribution (sum of probabilities <= 0)"),
])
def test_multinomial_refusals_are_pytorchs_per_kernel(weights, n, replacement, message):
    """PyTorch's with-replacement kernel (num_samples > 1) checks entry by entry with its own messages."""
    with pytest.raises(RuntimeError) as e:
        E.multinomial(E.tensor(weights, dtype=E.float64), n, replacement)
    assert str(e.value) == message


def test_multinomial_with_huge_weights_draws_only_the_positive_ones():
    # PyTorch's kernel: the running sum overflows to inf, so the CDF is [0, nan, 1] and every draw lands on the
    # second category; never on the zero-weight one
    counts = np.bincount(E.multinomial(E.tensor([1e308, 1e308, 0.0], dtype=E.float64), 400, True).numpy(), minlength=3)
    assert counts.tolist() == [0, 400, 0]


def test_factories_return_version_zero_and_in_place_draws_bump_it():
    # PyTorch's factories draw into the tensor they make: it is at version 0; an in-place draw or out= counts one
    p = E.full((3,), 0.5)
    made = [E.rand(3), E.randn(2, dtype=E.complex64), E.randint(0, 5, (3,)), E.randn_like(p), E.randint_like(p, 4),
            E.normal(0.0, 1.0, (3,)), E.bernoulli(p), E.randperm(4)]
    assert [t._version for t in made] == [0] * len(made)
    out = E.empty(3)
    E.randn(3, out=out)
    assert out._version == 1 and E.empty(3).uniform_()._version == 1


def test_multinomial_of_a_transposed_input_races_exponentials_laid_out_as_the_input():
    """PyTorch's draw without replacement is `empty_like(self).exponential_()`: laid out as the input, so a
    transposed table's exponentials are the contiguous table's, transposed, and both pick the same columns."""
    probs = E.tensor([[0.1, 0.5, 0.2, 0.9], [0.3, 0.3, 0.8, 0.05], [0.6, 0.2, 0.1, 0.4]])
    E.manual_seed(3)
    from_transposed = E.multinomial(probs.t().contiguous().t(), 2).numpy()
    E.manual_seed(3)
    q = E.empty(4, 3).exponential_().t()
    keys = probs.numpy() / q.numpy()
    np.testing.assert_array_equal(from_transposed, np.argsort(-keys, axis=1, kind="stable")[:, :2])


def test_randn_like_of_a_channels_last_tensor_draws_as_normal_on_that_layout():
    """PyTorch's randn_like is `empty_like(input).normal_()`: a channels_last tensor is not contiguous, so it takes
    the serial normal kernel in memory order (not the vectorised draw of a contiguous tensor of the same size)."""
    feat = E.zeros(2, 3, 4, 4).to(memory_format=E.channels_last)
    E.manual_seed(0)
    r = E.randn_like(feat)
    E.manual_seed(0)
    want = E.zeros(2, 3, 4, 4).to(memory_format=E.channels_last).normal_()
    assert r.stride() == feat.stride()
    np.testing.assert_array_equal(r.numpy(), want.numpy())
    E.manual_seed(0)
    assert not np.array_equal(r.numpy(), E.randn(2, 4, 4, 3).permute(0, 3, 1, 2).numpy())


def test_serial_normals_are_box_muller_pairs_of_the_streams_uniforms():
    """Under 16 values, PyTorch's normal_distribution<double>: each pair of uniforms (u1, u2) gives r * cos(2πu1)
    then r * sin(2πu1), r = sqrt(-2 log(1 - u2)); an odd count leaves the sine cached for the next draw."""
    E.manual_seed(11)
    u = R.cs.uniform_float64(R.cpu_engine(None), 4).tolist()
    expected = []
    for u1, u2 in ((u[0], u[1]), (u[2], u[3])):
        r = math.sqrt(-2.0 * math.log1p(-u2))
        expected += [r * math.cos(2.0 * math.pi * u1), r * math.sin(2.0 * math.pi * u1)]
    E.manual_seed(11)
    first = E.randn(3, dtype=E.float64).tolist()
    assert first == expected[:3]
    assert E.randn(1, dtype=E.float64).tolist() == expected[3:]  # the cached sine, no new draw
    E.manual_seed(11)
    assert E.normal(2.0, 3.0, (3,), dtype=E.float64).tolist() == [float(Fraction(v) * 3 + 2) for v in expected[:3]]


@pytest.mark.parametrize("factory", ["rand", "randn"])
def test_factories_skip_their_fill_op_only_while_no_hook_watches(factory):
    """`rand`/`randn` fill a new tensor with the sampler's kernel directly while only hooks that ignore fresh
    tensors are installed; any other hook (a capture) sees the in-place sampler. The values are the same."""
    from ember.core import dispatch
    from ember.core.ops import complex_half, restricted_dtypes

    complex_half.uninstall()  # guards that earlier tests' dtypes leave installed: they watch every op
    restricted_dtypes.uninstall()
    seen = []

    def hook(op, args, kwargs, call_next):
        seen.append(op.name)
        return call_next(op, args, kwargs)

    shapes = [(3,), (5, 7), (40,)]
    dts = [E.float32, E.float64, E.float16]
    draw = getattr(E, factory)
    results = []
    for ignores in (True, False):
        hook.ignores_fresh = ignores
        dispatch.register_dispatch_hook(hook)
        try:
            E.manual_seed(4)
            results.append([draw(*s, dtype=dt).tolist() for s in shapes for dt in dts])
        finally:
            dispatch.remove_dispatch_hook(hook)
        sampler = {"rand": "uniform_", "randn": "normal_"}[factory]
        assert seen.count(sampler) == (0 if ignores else len(shapes) * len(dts))
        seen.clear()
    assert results[0] == results[1]


def _words(seed: int, n: int) -> list[int]:
    """The first `n` 32-bit words of PyTorch's engine seeded with `seed` (numpy's MT19937 seeds alike)."""
    return np.random.RandomState(seed).randint(0, 2**32, size=n, dtype=np.uint64).tolist()


@pytest.mark.parametrize("dtype", [E.int32, E.int64, E.float64])
def test_random_from_to_takes_a_64_bit_draw_from_a_range_of_2_to_the_28(dtype):
    """PyTorch 2.13 draws one word per value under a range of 2**28 and a 64-bit number (two words, the first the
    high half) from 2**28 on, whatever the dtype."""
    w = _words(3, 4)
    for span, value in ((2**28 - 1, w[0] % (2**28 - 1)), (2**28, ((w[0] << 32) | w[1]) % 2**28),
                        (2**31 - 1, ((w[0] << 32) | w[1]) % (2**31 - 1))):
        E.manual_seed(3)
        assert E.empty(1, dtype=dtype).random_(-5, span - 5).item() == value - 5
        E.manual_seed(3)
        assert E.randint(-5, span - 5, (1,), dtype=dtype).item() == value - 5


@pytest.mark.parametrize("dtype, low, high, message", [
    (E.uint8, 0, 257, "to - 1 is out of bounds for unsigned char"),
    (E.uint8, -1, 3, "from is out of bounds for unsigned char"),
    (E.int8, -200, 3, "from is out of bounds for signed char"),
    (E.int16, 0, 2**15 + 1, "to - 1 is out of bounds for short int"),
    (E.int32, 0, 2**31 + 1, "to - 1 is out of bounds for int"),
    (E.bool, 0, 3, "to - 1 is out of bounds for bool"),
    (E.float16, 0, 70000, "to - 1 is out of bounds for c10::Half"),
    (E.float16, -2**31 - 1, 2, "from is out of bounds for c10::Half"),
])
def test_random_from_to_refuses_bounds_the_dtype_cannot_hold(dtype, low, high, message):
    x = E.zeros(2, dtype=dtype)
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        x.random_(low, high)
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        E.randint(low, high, (2,), dtype=dtype)
    assert x.tolist() == [0, 0]  # nothing drawn or written
    with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
        E.randint(0, 2**63, (2,))


def test_random_from_to_on_floats_moves_bounds_the_dtype_rounds_and_warns_past_its_integers():
    """A float32 `to - 1` that rounds up to `to` or beyond moves down to the float below it (PyTorch's
    `update_to`): random_(0, 2**28 - 1) draws from [0, 2**28 - 16), one word a value; past 2**24 it warns."""
    w = _words(0, 2)
    E.manual_seed(0)
    with pytest.warns(UserWarning, match=r"^to - 1 is out of bounds \[-\(2\^24\), 2\^24\]\. Due to precision "
                                         r"limitations float can support discrete uniform distribution only"):
        got = E.empty(1).random_(0, 2**28 - 1).item()
    assert got == float(np.float32(w[0] % (2**28 - 16)))
    with pytest.raises(RuntimeError, match="^random_ expects 'from' to be less than 'to', but got from=3 >= to=3$"):
        E.empty(1).random_(3, 3)


@pytest.mark.parametrize("dtype, bounded, exc, message", [
    (E.complex64, True, RuntimeError, "check_random_bounds handles only integral, floating-point and boolean types"),
    (E.complex64, False, NotImplementedError, "\"random_kernel_cpu\" not implemented for 'ComplexFloat'"),
    (E.float8_e4m3fn, True, NotImplementedError, "\"random_update_from_to\" not implemented for 'Float8_e4m3fn'"),
    (E.float8_e4m3fn, False, NotImplementedError, "\"random_kernel_cpu\" not implemented for 'Float8_e4m3fn'"),
])
def test_random_refuses_dtypes_without_a_kernel(dtype, bounded, exc, message):
    x = E.empty(2, dtype=dtype)
    with pytest.raises(exc) as e:
        x.random_(0, 3) if bounded else x.random_()
    assert str(e.value) == message


def test_random_without_bounds_takes_64_bit_draws_for_int64_and_float64_only():
    """`random_()` is PyTorch's other kernel: a word mod the dtype's range (2**31 for int32, 2**24 + 1 for float32),
    a 64-bit draw for int64 and float64, whatever the range."""
    w = _words(3, 2)
    wide = (w[0] << 32) | w[1]
    for dtype, expected in ((E.int32, w[0] % 2**31), (E.float32, w[0] % (2**24 + 1)), (E.int64, wide % 2**63),
                            (E.float64, wide % (2**53 + 1)), (E.bool, w[0] % 2)):
        E.manual_seed(3)
        assert E.empty(1, dtype=dtype).random_().item() == expected


@pytest.mark.parametrize("dtype", [E.float32, E.float64])
def test_multinomial_of_one_sample_races_exponentials_in_the_dtype(dtype):
    """One sample without replacement is PyTorch's exponential race: the first largest `p / q`, q the stream's
    Exp(1) draws rounded to the dtype, laid out as `p`."""
    p = E.tensor(np.random.default_rng(0).random((4, 6)) ** 3, dtype=dtype)
    E.manual_seed(3)
    q = E.empty(4, 6, dtype=dtype).exponential_().numpy()
    E.manual_seed(3)
    got = E.multinomial(p, 1)
    assert got.dtype is E.int64 and got.shape == (4, 1)
    np.testing.assert_array_equal(got.numpy(), np.argmax(p.numpy() / q, axis=-1, keepdims=True))


def test_generator_manual_seed_takes_python_ints_and_the_module_takes_what_int_takes():
    assert E.manual_seed(np.uint32(7)).initial_seed() == 7
    assert E.manual_seed("3").initial_seed() == 3 and E.manual_seed(np.float64(2.0)).initial_seed() == 2
    with pytest.raises(TypeError, match="^an integer is required$"):
        E.Generator().manual_seed(np.int64(11))
    for seed, name in ((True, "bool"), (3.0, "float"), (np.float64(2.0), "numpy.float64"), ("3", "str")):
        with pytest.raises(RuntimeError, match=f"^manual_seed expected a long, but got {name}$"):
            E.Generator().manual_seed(seed)
    with pytest.raises(TypeError, match="^expected a torch.ByteTensor, but got numpy.ndarray$"):
        E.set_rng_state(np.zeros(5056, np.uint8))
    E.manual_seed(0)


def test_generator_refuses_device_types_without_a_generator():
    # PyTorch 2.13's words; a meta tensor still draws (nothing) through its device's default generator
    for device, msg in [("meta", "META device type not an accelerator."),
                        ("lazy", "LAZY device type not an accelerator."),
                        ("xpu", "Cannot get XPU generator without ATen_xpu library."),
                        ("mps", "Cannot execute getNewGenerator() without MPS backend.")]:
        with pytest.raises(RuntimeError) as info:
            R.Generator(device)
        assert str(info.value) == msg
    assert E.randn(3, device="meta").shape == (3,)
    assert str(R.Generator(E.device("cpu", 0)).device) == "cpu"


def test_clone_state_gives_an_independent_generator_at_the_same_point():
    g = R.Generator().manual_seed(7)
    E.randn(3, generator=g)  # leaves a cached normal in the state, which the clone carries
    h = g.clone_state()
    assert h is not g and h.device == g.device and h.initial_seed() == 7
    assert E.randn(5, generator=h).tolist() == E.randn(5, generator=g).tolist()
    E.rand(2, generator=h)
    assert not E.equal(h.get_state(), g.get_state())


def test_cpu_generator_refuses_offsets_and_graphsafe_state_with_pytorchs_words():
    g = E.Generator()
    with pytest.raises(RuntimeError, match="^CPU Generator does not use offset$"):
        g.get_offset()
    with pytest.raises(RuntimeError, match="^CPU Generator does not use offset$"):
        g.set_offset(5)
    with pytest.raises(RuntimeError, match="^manual_offset expected a long, but got str$"):
        g.set_offset("a")
    with pytest.raises(NotImplementedError, match="^graphsafe_get_state is not supported in this Generator$"):
        g.graphsafe_get_state()
    with pytest.raises(NotImplementedError, match="^graphsafe_set_state is not supported in this Generator$"):
        g.graphsafe_set_state(E.Generator())
    with pytest.raises(TypeError, match="^expected a Generator, but got int$"):
        g.graphsafe_set_state(1)


_OVERLOADS = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
              "bool pin_memory = False, bool requires_grad = False)\n")


@pytest.mark.parametrize(("call", "got", "lead"), [
    (lambda: E.rand(2, generator=0), "int, generator=int", "tuple of ints size"),
    (lambda: E.randn(2, 3, generator="a"), "int, int, generator=str", "tuple of ints size"),
    (lambda: E.rand(2, generator=1, dtype=3), "int, dtype=int, generator=int", "tuple of ints size"),
    (lambda: E.randperm(3, generator=1), "int, generator=int", "int n"),
])
def test_a_generator_that_is_not_a_generator_is_the_parsers_type_error(call, got, lead):
    name = "randperm" if lead == "int n" else "randn" if "str" in got else "rand"
    want = (f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            f" * ({lead}, *, torch.Generator generator, {_OVERLOADS} * ({lead}, *, {_OVERLOADS}")
    with pytest.raises(TypeError) as err:
        call()
    assert str(err.value) == want


@pytest.mark.parametrize(("call", "op", "kind"), [
    (lambda: E.empty(2).uniform_(0, 1, generator=1.5), "uniform_", "float"),
    (lambda: E.empty(2).normal_(generator=1), "normal_", "int"),
    (lambda: E.empty(2).exponential_(generator="g"), "exponential_", "str"),
    (lambda: E.multinomial(E.ones(2), 1, generator=2), "multinomial", "int"),
    (lambda: E.empty(2).cauchy_(generator=1), "cauchy_", "int"),
    (lambda: E.empty(2).log_normal_(generator=1), "log_normal_", "int"),
    (lambda: E.empty(2).geometric_(0.5, generator=1), "geometric_", "int"),
    (lambda: E.poisson(E.ones(2), generator=1), "poisson", "int"),
    (lambda: E.empty(2).random_(0, 5, generator=1), "random_", "int"),
])
def test_a_method_given_a_non_generator_names_the_argument(call, op, kind):
    with pytest.raises(TypeError) as err:
        call()
    assert str(err.value) == f"{op}(): argument 'generator' must be torch.Generator, not {kind}"


_BERNOULLI_INPLACE = (" * (Tensor p, *, torch.Generator generator = None)\n"
                      " * (float p = 0.5, *, torch.Generator generator = None)\n")
_NORMAL_SIGS = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n")
_LIKE_KW = ("torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, "
            "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")


@pytest.mark.parametrize(("call", "want"), [  # PyTorch 2.13's words
    (lambda: E.bernoulli(E.rand(3), generator=1),
     "bernoulli() received an invalid combination of arguments - got (Tensor, generator=int), but expected one of:\n"
     " * (Tensor input, *, torch.Generator generator = None, Tensor out = None)\n"
     " * (Tensor input, float p, *, torch.Generator generator = None)\n"),
    (lambda: E.rand(3).bernoulli(generator=1),
     "bernoulli() received an invalid combination of arguments - got (generator=int, ), but expected one of:\n"
     " * (*, torch.Generator generator = None)\n * (float p, *, torch.Generator generator = None)\n"),
    (lambda: E.rand(3).bernoulli(p=0.5, generator=1), "bernoulli(): argument 'generator' must be torch.Generator, "
                                                      "not int"),
    (lambda: E.rand(3).bernoulli_(generator=1),
     "bernoulli_() received an invalid combination of arguments - got (generator=int, ), but expected one of:\n"
     + _BERNOULLI_INPLACE),
    (lambda: E.rand(3).bernoulli_(0.5, generator=1),
     "bernoulli_() received an invalid combination of arguments - got (float, generator=int), but expected one of:\n"
     + _BERNOULLI_INPLACE),
    (lambda: E.normal(E.rand(3), 1.0, generator=1),
     "normal() received an invalid combination of arguments - got (Tensor, float, generator=int), but expected one "
     "of:\n" + _NORMAL_SIGS),
    (lambda: E.normal(E.rand(3), generator=1),
     "normal() received an invalid combination of arguments - got (Tensor, generator=int), but expected one of:\n"
     + _NORMAL_SIGS),
    (lambda: E.empty(3).random_(generator=1),
     "random_() received an invalid combination of arguments - got (generator=int, ), but expected one of:\n"
     " * (*, torch.Generator generator = None)\n * (int from, int to, *, torch.Generator generator = None)\n"
     " * (int to, *, torch.Generator generator = None)\n"),
    (lambda: E.empty(3).random_(5, generator=1),
     "random_() received an invalid combination of arguments - got (int, generator=int), but expected one of:\n"
     " * (*, torch.Generator generator = None)\n"
     "      didn't match because some of the keywords were incorrect: generator\n"
     " * (int from, int to, *, torch.Generator generator = None)\n * (int to, *, torch.Generator generator = None)\n"),
    (lambda: E.randn_like(E.rand(3), generator=1),
     "randn_like() received an invalid combination of arguments - got (Tensor, generator=int), but expected one of:\n"
     " * (Tensor input, *, torch.Generator generator, " + _LIKE_KW + " * (Tensor input, *, " + _LIKE_KW),
    (lambda: E.randint_like(E.rand(3), 5, generator=1),
     "randint_like() received an invalid combination of arguments - got (Tensor, int, generator=int), but expected "
     "one of:\n" + "".join(f" * (Tensor input, {sig}, *, {gen}{_LIKE_KW}"
                            for sig in ("int low, int high", "Tensor high", "int high")
                            for gen in ("torch.Generator generator, ", ""))),
])
def test_an_overloaded_sampler_given_a_non_generator_lists_its_overloads(call, want):
    with pytest.raises(TypeError) as err:
        call()
    assert str(err.value) == want


def test_generator_repr_is_pytorchs():
    g = E.Generator()
    assert repr(g) == str(g) == f"<torch._C.Generator object at {id(g):#x}>"
