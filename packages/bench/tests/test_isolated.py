"""`ember-bench compile --isolate`: each framework's steps run in a child process of its own, at the thread count
asked, interleaved block by block; a child that fails is named (no timing is asserted)."""

import os

import pytest

from ember.bench import cli
from ember.bench.isolated import time_isolated


def test_each_framework_is_timed_in_its_own_child_at_the_threads_asked():
    secs, info = time_isolated("chain10-fwd", True, ["ember", "ember.jit"], calls=2, repeats=3, threads=1)
    assert list(secs) == ["ember", "ember.jit"]
    assert all(len(s) == 3 and min(s) > 0 for s in secs.values())
    pids = {i["pid"] for i in info.values()}
    assert len(pids) == 2 and os.getpid() not in pids
    assert [i["threads"] for i in info.values()] == [1, 1]
    assert info["ember.jit"]["first_s"] > 0


@pytest.mark.torch
def test_torch_children_run_torch_eager_and_torch_compile():
    pytest.importorskip("torch")
    secs, info = time_isolated("chain10-fwd", True, ["torch", "torch.compile"], calls=2, repeats=1, threads=1)
    assert [len(s) for s in secs.values()] == [1, 1]
    assert info["torch.compile"]["threads"] == 1 and info["torch.compile"]["first_s"] > info["torch"]["first_s"]


def test_a_child_that_fails_is_named():
    with pytest.raises(RuntimeError, match="the ember child exited with status 1 before replying"):
        time_isolated("no-such-row", True, ["ember"], calls=1, repeats=1, threads=1)


@pytest.mark.parametrize(("argv", "isolate"), [(["--threads", "2"], True), ([], True), (["--threads", "1"], False),
                                               (["--threads", "1", "--isolate"], True),
                                               (["--threads", "2", "--no-isolate"], False)])
def test_isolation_is_the_default_unless_one_thread(monkeypatch, tmp_path, argv, isolate):
    seen = {}

    def rows(*a, **kw):
        seen.update(kw)
        return []

    monkeypatch.setattr("ember.bench.compiled.run_compile_rows", rows)
    monkeypatch.setattr("ember.bench.compiled.markdown", lambda rows: "")
    monkeypatch.setattr(cli.frameworks, "available", lambda name: False)  # leaves this process's threads alone
    assert cli.main(["compile", "--rows", "chain10-fwd", "--compare", "none", "--results", str(tmp_path), *argv]) == 0
    assert seen["isolate"] is isolate


def test_a_childs_own_prints_are_passed_on_and_its_reply_read(capsys):
    import io
    import types

    from ember.bench.isolated import _Child

    child = _Child.__new__(_Child)
    child.name, child.proc = "ember", types.SimpleNamespace(stdout=io.StringIO(
        'loss 0.5\n{"s": 9}\nember-bench-reply {"s": 1.5}\n'))
    assert child._reply() == {"s": 1.5}
    assert capsys.readouterr().err == 'loss 0.5\n{"s": 9}\n'
