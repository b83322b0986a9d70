"""Seeded random draws across PyTorch's CPU API, printed exactly: the Mersenne Twister stream, each sampler's
transform, the normal cache, generator objects and saved states."""
import torch
import torch.nn.functional as F

torch.set_printoptions(precision=8)


def show(name, t):
    print(name, t.dtype, tuple(t.shape), [float(v) for v in t.flatten().double().tolist()])


torch.manual_seed(0)
show("randn", torch.randn(3))
show("rand", torch.rand(2, 3))
show("randint", torch.randint(0, 10, (5,)))
show("randint_wide", torch.randint(-2**40, 2**40, (3,)))
show("randperm", torch.randperm(9))
show("randn_block", torch.randn(37))
show("randn_f64", torch.randn(5, dtype=torch.float64))
show("randn_f64_block", torch.randn(18, dtype=torch.float64))
show("randn_half", torch.randn(20, dtype=torch.float16))
show("rand_bf16", torch.rand(4, dtype=torch.bfloat16))
show("randn_complex", torch.view_as_real(torch.randn(3, dtype=torch.complex64)))
show("normal_strided", torch.empty(4, 3).t().normal_(1.0, 2.0))
show("uniform_range", torch.empty(3, 5).uniform_(-2.5, 0.5))
show("normal_scaled", torch.empty(40).normal_(0.5, 0.02))
show("normal_tensors", torch.normal(torch.arange(4.0), torch.full((4,), 0.5)))
show("bernoulli_p", torch.empty(12).bernoulli_(0.3))
show("bernoulli_tensor", torch.bernoulli(torch.linspace(0, 1, 8)))
show("exponential", torch.empty(4).exponential_(2.0))
show("cauchy", torch.empty(3, dtype=torch.float64).cauchy_(1.0, 0.5))
show("log_normal", torch.empty(3).log_normal_(0.0, 0.25))
show("geometric", torch.empty(5).geometric_(0.4))
show("random_int64", torch.empty(3, dtype=torch.int64).random_())
show("random_to", torch.empty(4, dtype=torch.int32).random_(7))
show("poisson", torch.poisson(torch.tensor([0.5, 4.0, 15.0, 60.0])))
p = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25]])
show("multinomial_repl", torch.multinomial(p, 6, replacement=True))
show("multinomial_norepl", torch.multinomial(p, 3))
show("multinomial_one", torch.multinomial(p, 1))
show("rand_like", torch.rand_like(torch.zeros(2, 2, dtype=torch.float64)))
show("randint_like", torch.randint_like(torch.zeros(4), 3, 9))

g = torch.Generator().manual_seed(1234)
show("gen_randn", torch.randn(4, generator=g))
show("gen_randperm", torch.randperm(6, generator=g))
print("gen_seed", g.initial_seed(), torch.initial_seed())
state = torch.get_rng_state()
print("state", state.dtype, state.numel())
a = torch.randn(5, dtype=torch.float64)
torch.set_rng_state(state)
print("restored", torch.equal(torch.randn(5, dtype=torch.float64), a))
g2 = torch.Generator()
g2.set_state(g.get_state())
print("copied_generator", torch.equal(torch.rand(3, generator=g), torch.rand(3, generator=g2)))

torch.manual_seed(7)
show("dropout", F.dropout(torch.ones(2, 6), 0.3))
show("dropout2d", F.dropout2d(torch.ones(2, 3, 1, 1), 0.5))
show("alpha_dropout", F.alpha_dropout(torch.ones(6), 0.2, True))
show("rrelu", F.rrelu(torch.tensor([-1.0, 2.0, -3.0, 0.0]), training=True))
show("gumbel_softmax", F.gumbel_softmax(torch.zeros(2, 3), tau=0.5))
D = torch.distributions
show("Normal", D.Normal(torch.zeros(2), torch.ones(2)).sample((2,)))
show("Categorical", D.Categorical(logits=torch.tensor([0.0, 1.0, 2.0])).sample((6,)))
show("Gamma", D.Gamma(torch.tensor([0.4, 3.0]), 2.0).sample())
show("Beta", D.Beta(0.5, 0.5).sample((3,)))
show("Dirichlet", D.Dirichlet(torch.tensor([1.0, 2.0, 3.0])).sample())
show("StudentT", D.StudentT(3.0).sample((2,)))
show("MultivariateNormal", D.MultivariateNormal(torch.zeros(2), torch.eye(2)).sample())
show("binomial", torch.binomial(torch.tensor([5.0, 40.0, 400.0, 30.0]), torch.tensor([0.3, 0.5, 0.02, 0.9])))
show("Binomial", D.Binomial(20, torch.tensor([0.1, 0.6])).sample((2,)))
show("after", torch.rand(3))
show("VonMises", D.VonMises(torch.tensor([0.0, 1.0]), torch.tensor([0.5, 4.0])).sample((2,)))
show("_standard_gamma", torch._standard_gamma(torch.tensor([0.3, 1.0, 7.5])))
big = torch.randn(2000, 1000)  # a draw across many engine blocks, written in place
print("big", f"{big.sum().item():.4f}", f"{big.std().item():.6f}", big[1999, 990:].tolist())
made = [torch.randn(3), torch.rand(2), torch.randint(0, 5, (3,)), torch.rand_like(big[:2]),
        torch.normal(0.0, 1.0, (3,)), torch.bernoulli(torch.full((3,), 0.5)), torch.randperm(3)]
print("versions", [t._version for t in made], torch.empty(3).normal_()._version)
