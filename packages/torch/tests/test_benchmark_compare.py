"""torch.utils.benchmark.Compare: the same measurements lay out as PyTorch's table (plain, trimmed to their
significant figures, coloured by column or row, several envs and thread counts, merged replicates)."""

import numpy as np
import pytest

import ember.torch.utils.benchmark as eb


def _measurements(mod, spec_cls):
    rng = np.random.default_rng(0)

    def m(times, label="Batched dot", sub="[100, 64]", desc="mul/sum", threads=1, env=None, n=10):
        spec = spec_cls("f(x)", "pass", label=label, sub_label=sub, description=desc, num_threads=threads, env=env)
        return mod.Measurement(n, [t * n for t in times], spec)

    return [m([1.2e-5, 1.25e-5, 1.22e-5, 1.3e-5]), m([3.1e-5, 3.0e-5, 3.3e-5], desc="bmm"),
            m([2.2e-4, 2.4e-4], sub="[1000, 64]"), m([4.0e-4, 4.4e-4], sub="[1000, 64]", desc="bmm"),
            m([1.0e-5, 1.1e-5], threads=4), m([9e-6, 9.5e-6], threads=4, desc="bmm"),
            m([1e-3, 1.2e-3], label="envs", env="a"), m([2e-3], label="envs", env="b"),
            m([3e-3], label="envs", env="b", sub="[x]"),
            m([5e-3, 5.1e-3], label="Other", desc="g"), m([1.21e-5, 1.24e-5]),
            m(list(1e-3 + rng.standard_normal(40) * 1e-8), label="tight"),
            m(list(123.4 + rng.standard_normal(8)), label="tight", sub="slow", desc="b")]


def _tables(compare_cls, ms):
    c = compare_cls(ms)
    out = [str(c)]
    c.trim_significant_figures()
    out.append(str(c))
    c.colorize()
    out.append(str(c))
    c.colorize(rowwise=True)
    out.append(str(c))
    return out


def test_compare_prints_pytorchs_tables():
    torch = pytest.importorskip("torch")
    from torch.utils.benchmark import Compare
    from torch.utils.benchmark.utils import common

    expected = _tables(Compare, _measurements(common, common.TaskSpec))
    got = _tables(eb.Compare, _measurements(eb, eb.TaskSpec))
    assert torch is not None and got == expected


def test_compare_refuses_non_measurements_and_merges_replicates():
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`, got <class 'int'> instead."):
        eb.Compare([1])
    spec = eb.TaskSpec("f(x)", "pass", label="L", sub_label="s", description="d")
    merged = eb.Measurement.merge([eb.Measurement(10, [1.0, 2.0], spec), eb.Measurement(5, [1.0], spec)])
    assert len(merged) == 1 and merged[0].number_per_run == 1 and merged[0].times == [0.1, 0.2, 0.2]
