"""`ember-bench compile`: the table has its rows and numbers, the output check is computed, PyTorch
is optional, and bad rows are refused (no timing is asserted)."""

import os

import numpy as np
import pytest

from ember.bench import cli, frameworks
from ember.bench.compiled import COMPILE_ROWS, _captured, _rel_diff, make_step, markdown, run_compile_rows


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "unfused"])
def test_compile_prints_the_table_with_numbers(tmp_path, capsys, monkeypatch, fuse):
    import ember.jit as jit

    monkeypatch.setattr(jit.config, "fuse", fuse)
    monkeypatch.setattr(cli.frameworks, "available", lambda name: name == "ember")
    argv = ["compile", "--size", "small", "--repeats", "1", "--rows", "chain10-fwd", "chain10-bwd",
            "--loss-steps", "4", "--threads", "1", "--results", str(tmp_path)]
    assert cli.main(argv) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("|")]
    header = _cells(lines[0])
    assert header[:4] == ["workload", "ember eager µs", "ember.jit µs", "eager / jit"]
    assert header[-2:] == ["compiled vs eager (rel.)", "captured"]
    body = [_cells(ln) for ln in lines[2:]]
    assert [r[0] for r in body] == [COMPILE_ROWS["chain10-fwd"].name + " (small sizes)",
                                    COMPILE_ROWS["chain10-bwd"].name + " (small sizes)"]
    for r in body:
        assert float(r[1].replace(",", "")) > 0 and float(r[2].replace(",", "")) > 0
        assert r[4] == "—"  # no PyTorch column without PyTorch
        # fused (the default), the chain's sin/exp/tanh round within an ulp or two of numpy's: 1e-5 relative,
        # the JIT's promise; without fusion the replay is bitwise eager: the output agrees exactly
        assert float(r[-2]) < 1e-5 if fuse else float(r[-2]) == 0.0
        assert r[-1].startswith("1 plan(s)")
    assert (tmp_path / "compile.md").read_text().startswith("| workload |")


def test_training_row_output_matches_eager():
    rows = run_compile_rows(["mlp"], compare=False, repeats=1, small=True, loss_steps=4)
    (row,) = rows
    assert row["rel_diff"] < 1e-5
    assert row["first_cold_s"] > 0 and row["ember.jit"]["median"] > 0
    assert "torch" not in row and "ratio" not in row
    assert row["plans"] == 1 and row["breaks"] == []
    assert "| MLP 784-512-512-10" in markdown(rows)


def test_lstm_row_is_captured_whole_and_bitwise_eager(monkeypatch):
    """The LSTM encoder-decoder step (nn.LSTM's fused layer ops, attention, Adam) is one plan with no break;
    bitwise with Adam's exact division (ember.jit's faster one-pass Adam is an ulp off eager)."""
    import ember.jit as jit

    monkeypatch.setattr(jit.config, "optimizer_reciprocal", False)
    (row,) = run_compile_rows(["lstm"], compare=False, repeats=1, small=True, loss_steps=4)
    assert row["plans"] == 1 and row["breaks"] == [] and row["rel_diff"] == 0.0


def test_rel_diff_is_relative_to_eager():
    ember = frameworks.load("ember")
    a = ember.from_numpy(np.array([2.0, -4.0], dtype=np.float32))
    b = ember.from_numpy(np.array([2.0, -3.0], dtype=np.float32))
    assert _rel_diff(a, b) == pytest.approx(0.25)


def test_a_step_that_runs_eagerly_says_why():
    row = {"plans": 0, "nodes": 0, "breaks": ["reads a | value on the host"]}
    assert _captured(row) == "no, eager: reads a / value on the host"


@pytest.mark.parametrize("key", ["ncf", "gpt", "lenet", "lstm"])
def test_small_training_steps_return_a_finite_loss(key):
    step, args = make_step(frameworks.load("ember"), key, small=True)
    assert np.isfinite(step(*args).item())


def test_bad_row_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit):
        cli.main(["compile", "--rows", "nope"])
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_train_row_is_not_a_compile_row(capsys):
    with pytest.raises(SystemExit):
        cli.main(["compile", "--rows", "vgg"])
    assert "--rows vgg: not a row of `ember-bench compile`" in capsys.readouterr().err


def test_compare_torch_without_torch_runs_ember_alone(monkeypatch, capsys):
    monkeypatch.setattr(cli.frameworks, "available", lambda name: False)
    args = cli._parser().parse_args(["compile", "--compare", "torch"])
    assert cli._compare(args) is False
    assert "pip install torch==2.13.0" in capsys.readouterr().err


@pytest.mark.torch
def test_compare_torch_adds_torch_eager_and_ratio():
    pytest.importorskip("torch")
    (row,) = run_compile_rows(["chain10-fwd"], compare=True, repeats=1, small=True, loss_steps=3)
    assert row["torch"]["median"] > 0
    assert row["ratio"] == pytest.approx(row["torch"]["median"] / row["ember.jit"]["median"])


def test_empty_caches_times_the_first_step_in_a_child_on_new_caches(tmp_path, capsys, monkeypatch):
    import subprocess

    seen = []
    real_run = subprocess.run

    def run(argv, env, **kw):  # the child's caches: new folders, not the parent's
        seen.append((env["NUMBA_CACHE_DIR"], env["EMBER_JIT_CACHE_DIR"]))
        return real_run(argv, env=env, **kw)

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(cli.frameworks, "available", lambda name: name == "ember")
    argv = ["compile", "--size", "small", "--repeats", "1", "--rows", "chain10-fwd", "--loss-steps", "4",
            "--threads", "1", "--empty-caches", "--results", str(tmp_path)]
    assert cli.main(argv) == 0
    ((numba_dir, jit_dir),) = seen
    assert os.path.dirname(numba_dir) == os.path.dirname(jit_dir) and not os.path.exists(numba_dir)  # removed after
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("|")]
    i = next(k for k, ln in enumerate(lines) if "empty Numba and ember.jit caches" in ln)
    row = _cells(lines[i + 2])
    assert row[0] == COMPILE_ROWS["chain10-fwd"].name + " (small sizes)"
    wall, cpu = (float(v) for v in row[1].removesuffix(" s").split(" / "))
    assert wall > 0 and cpu > 0


def test_compare_torch_times_torch_compile_unless_told_not_to():
    # the table has torch.compile beside PyTorch eager wherever PyTorch runs
    assert cli._parser().parse_args(["compile", "--compare", "torch"]).torch_compile is True
    assert cli._parser().parse_args(["compile", "--compare", "torch", "--no-torch-compile"]).torch_compile is False
