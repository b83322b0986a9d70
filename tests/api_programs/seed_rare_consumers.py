"""The less obvious consumers of PyTorch's CPU random stream, as real code trips over them: random pruning,
fractional max pooling, RReLU in train mode, scrambled Sobol sequences, complex and reduced-precision draws,
integer random_ on many dtypes, heavy-tailed in-place samplers, and generator-driven Poisson and normal draws;
each draw moves the stream, so the numbers after it are PyTorch's only if every consumer matches."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune

torch.set_printoptions(precision=4, sci_mode=False)


def r(x):
    return [round(v, 4) for v in x.flatten().tolist()]


torch.manual_seed(21)
lin = nn.Linear(6, 4)
prune.random_unstructured(lin, name="weight", amount=0.5)
print("random_unstructured zeros", int((lin.weight == 0).sum()), lin.weight_mask.flatten().tolist())
conv = nn.Conv2d(2, 6, 3)
prune.random_structured(conv, name="weight", amount=0.33, dim=0)
print("random_structured kept channels", conv.weight_mask.sum((1, 2, 3)).gt(0).int().tolist())
print("stream after pruning", r(torch.rand(3)))

img = torch.randn(1, 2, 9, 9)
fmp = F.fractional_max_pool2d(img, kernel_size=2, output_size=(5, 5))
print("fractional_max_pool2d", tuple(fmp.shape), r(fmp[0, 0, 0]))
fm = nn.FractionalMaxPool2d(3, output_ratio=0.5, return_indices=True)
out, idx = fm(img)
print("FractionalMaxPool2d", tuple(out.shape), idx[0, 1, 0].tolist())
samples = torch.rand(1, 2, 2)
print("explicit samples", r(F.fractional_max_pool2d(img, 2, output_size=4, _random_samples=samples)[0, 0, 0]))

rrelu = nn.RReLU(0.1, 0.3)
neg = -torch.arange(1.0, 7.0)
print("rrelu train", r(rrelu(neg)))
rrelu.eval()
print("rrelu eval", r(rrelu(neg)))
print("F.rrelu", r(F.rrelu(neg.reshape(2, 3), training=True)))
z = neg.clone()
F.rrelu_(z, 0.2, 0.4, training=True)
print("rrelu_", r(z))

sob = torch.quasirandom.SobolEngine(dimension=3, scramble=True, seed=5)
print("sobol scrambled", r(sob.draw(4)))
sob2 = torch.quasirandom.SobolEngine(dimension=2, scramble=True)
print("sobol global-seeded", r(sob2.draw(3)))
print("stream after sobol", r(torch.rand(2)))

print("randn complex64", r(torch.view_as_real(torch.randn(3, dtype=torch.complex64))))
print("randn complex128", r(torch.view_as_real(torch.randn(2, dtype=torch.complex128))))
print("rand complex", r(torch.view_as_real(torch.rand(2, dtype=torch.complex64))))
print("randn half", r(torch.randn(5, dtype=torch.float16).float()))
print("rand bfloat16", r(torch.rand(5, dtype=torch.bfloat16).float()))
print("randint float", torch.randint(0, 10, (5,), dtype=torch.float32).tolist())
for dt in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.bool):
    print("random_", dt, torch.empty(6, dtype=dt).random_().tolist())
print("random_ to", torch.empty(5, dtype=torch.float64).random_(3, 8).tolist())
print("geometric_", torch.empty(6).geometric_(0.25).tolist())
print("log_normal_", r(torch.empty(4).log_normal_(0.0, 0.5)))
print("cauchy_", r(torch.empty(4).cauchy_(0.0, 1.0)))
print("exponential_ f64", r(torch.empty(4, dtype=torch.float64).exponential_(3.0)))
print("randperm 3000 head", torch.randperm(3000)[:8].tolist())

g = torch.Generator().manual_seed(8)
print("poisson gen", torch.poisson(torch.tensor([1.0, 5.0, 50.0, 500.0]), generator=g).tolist())
print("normal gen size", r(torch.normal(2.0, 3.0, (4,), generator=g)))
print("binomial", torch.binomial(torch.tensor([10.0, 100.0, 1000.0]), torch.tensor([0.5, 0.1, 0.02])).tolist())
print("standard gamma", r(torch._standard_gamma(torch.tensor([0.5, 1.0, 4.0]))))
print("dirichlet", r(torch._sample_dirichlet(torch.tensor([1.0, 2.0, 0.5]))))
print("init half", r(nn.init.kaiming_uniform_(torch.empty(2, 3, dtype=torch.float16)).float()))
print("final stream check", r(torch.randn(3)))
