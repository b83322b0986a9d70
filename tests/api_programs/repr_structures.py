"""Reprs of the structured objects research code prints: torch.distributions (parameters shown as tensors,
batch/event shapes, constraints and transforms), PackedSequence from pack_sequence/pack_padded_sequence,
pad_sequence results, TensorDataset items and DataLoader batches, random_split indices, and RNG states."""

import torch
from torch import distributions as D
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
print(D.Normal(torch.zeros(2), torch.ones(2)), D.Normal(0.0, 1.0), D.Normal(torch.tensor(0.5), 2.0))
print(D.Categorical(logits=torch.randn(3)), D.Categorical(probs=torch.ones(2, 4) / 4))
print(D.Bernoulli(probs=0.3), D.MultivariateNormal(torch.zeros(2), torch.eye(2)), D.Uniform(0, 1))
print(D.Beta(2.0, 3.0), D.Dirichlet(torch.ones(3)), D.Gamma(torch.tensor([1.0, 2.0]), 1.0))
print(D.Poisson(torch.tensor(3.0)))
print(D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1))
print(D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()]))
print(D.MixtureSameFamily(D.Categorical(torch.ones(2)), D.Normal(torch.zeros(2), torch.ones(2))))
print(D.Binomial(10, torch.tensor(0.5)), D.OneHotCategorical(torch.ones(3)), D.LogNormal(0.0, 1.0))
print(D.Laplace(0.0, 1.0), D.StudentT(3.0), D.Exponential(torch.ones(2)), D.Geometric(torch.tensor([0.2, 0.5])))
print(D.RelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor(0.3)), D.Cauchy(0.0, 2.0), D.VonMises(0.0, 1.0))
print(D.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)))
print(D.transforms.ExpTransform(), D.transforms.AffineTransform(0.0, 2.0), D.transforms.StickBreakingTransform())
print(D.transforms.ComposeTransform([D.transforms.SigmoidTransform(), D.transforms.TanhTransform()]))
print(D.constraints.positive, D.constraints.real, D.constraints.interval(0, 1), D.constraints.simplex)
print(D.constraints.greater_than(2.0), D.constraints.integer_interval(0, 3), D.constraints.real_vector)
print(D.Normal(0.0, 1.0).arg_constraints, D.Normal(0.0, 1.0).support, D.Categorical(torch.ones(3)).support)
print(D.Normal(torch.zeros(2, 3), 1.0).batch_shape, D.MultivariateNormal(torch.zeros(2), torch.eye(2)).event_shape)
n = D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
s = n.rsample((3,))
print(s, n.log_prob(s), n.entropy(), n.mean, n.stddev, n.cdf(torch.zeros(2)))
print(D.kl_divergence(n, D.Normal(0.0, 1.0)), D.Categorical(logits=torch.randn(2, 3)).sample((2,)))
print(n.expand(torch.Size([4, 2])), n.expand((4, 2)).batch_shape)

seqs = [torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])]
print(pad_sequence(seqs, batch_first=True), pad_sequence(seqs, padding_value=-1))
p = pack_sequence(seqs)
print(p)
print(p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices, type(p).__name__, len(p))
padded = pad_sequence(seqs, batch_first=True)
print(pack_padded_sequence(padded, torch.tensor([3, 2, 1]), batch_first=True))
uns = pack_sequence([torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0, 5.0])], enforce_sorted=False)
print(uns)
print(pad_packed_sequence(uns, batch_first=True))
feats = pack_sequence([torch.randn(3, 2), torch.randn(2, 2)])
out, (h, c) = torch.nn.LSTM(2, 3)(feats)
print(type(out).__name__, out.data.shape, out.batch_sizes, h.shape)
print(pad_packed_sequence(out, total_length=4)[1])

ds = TensorDataset(torch.arange(6.0).reshape(3, 2), torch.tensor([0, 1, 0]))
print(ds[0], ds[1:], len(ds))
print(next(iter(DataLoader(ds, batch_size=2))))
print(list(DataLoader(ds, batch_size=2, shuffle=True, generator=torch.Generator().manual_seed(1))))
print(next(iter(DataLoader([{"x": torch.ones(2), "y": 1, "name": "a"}] * 2, batch_size=2))))
print(next(iter(DataLoader([(torch.zeros(1), (2.5, "b"))] * 3, batch_size=3))))
train, val = random_split(range(10), [0.7, 0.3], generator=torch.Generator().manual_seed(0))
print(train.indices, val.indices, len(train), type(train).__name__)
g = torch.Generator().manual_seed(3)
print(g.initial_seed(), torch.randint(0, 10, (4,), generator=g), g.get_state()[:8], g.get_state().shape)
print(torch.get_rng_state().dtype, torch.get_rng_state().shape, torch.initial_seed())
