"""Classes print under PyTorch's module paths while `import torch` is ember's (NOTE [ Classes named by
PyTorch's paths ]): `type(x)` reads `<class 'torch.Tensor'>`, pickles by those paths load back to the same
classes, ember's checkpoints still name ember's modules, and `uninstall()` gives the names back. Each case
runs in a fresh interpreter, as the finder changes process-wide state."""

import importlib
import os
import subprocess
import sys
import textwrap

import pytest

from ember.torch._class_paths import PATHS


def run(code: str, tmp_path) -> subprocess.CompletedProcess:
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, "-m", "ember.torch", str(script)], capture_output=True, text=True,
                          timeout=300, env=os.environ.copy())


def test_types_print_as_pytorchs(tmp_path):
    r = run("""
        import torch
        x = torch.ones(2)
        print(type(x), type(torch.nn.Parameter(x)), type(torch.nn.Linear(2, 2)), torch.nn.LSTM)
        print(type(torch.optim.SGD([torch.nn.Parameter(x)], lr=0.1)), torch.optim.AdamW, type(x.shape))
        print(torch.utils.data.DataLoader, torch.autograd.Function, torch.dtype, torch.device)
        print(torch.optim.lr_scheduler.StepLR, torch.distributions.Normal, torch.amp.GradScaler)
        print(torch.typename(torch.nn.ReLU()))
        from torch.optim import lr_scheduler
        sched = lr_scheduler.StepLR(torch.optim.SGD([torch.nn.Parameter(x)], lr=0.1), 2)
        print(sched.__module__ == lr_scheduler.__name__ == "torch.optim.lr_scheduler")  # d2l's test of a scheduler
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "<class 'torch.Tensor'> <class 'torch.nn.parameter.Parameter'> <class 'torch.nn.modules.linear.Linear'> "
        "<class 'torch.nn.modules.rnn.LSTM'>",
        "<class 'torch.optim.sgd.SGD'> <class 'torch.optim.adamw.AdamW'> <class 'torch.Size'>",
        "<class 'torch.utils.data.dataloader.DataLoader'> <class 'torch.autograd.function.Function'> "
        "<class 'torch.dtype'> <class 'torch.device'>",
        "<class 'torch.optim.lr_scheduler.StepLR'> <class 'torch.distributions.normal.Normal'> "
        "<class 'torch.amp.grad_scaler.GradScaler'>",
        "torch.nn.modules.activation.ReLU",
        "True",
    ]


def test_return_types_is_a_module_whose_classes_print_and_pickle_as_pytorchs(tmp_path):
    r = run("""
        import pickle
        import torch
        from torch.return_types import topk
        r = torch.max(torch.tensor([[1.0, 3.0]]), 1)
        print(type(r), topk, type(torch.linalg.qr(torch.eye(2))), type(torch.frexp(torch.ones(1))))
        pk = pickle.dumps(r)
        print(pickle.loads(pk).indices.tolist(), b"torch.return_types" in pk and b"return_types.max" not in pk)
        print(type(r).__module__, type(r).__qualname__, torch.return_types.max.__module__)
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "<class 'torch.return_types.max'> <class 'torch.return_types.topk'> <class 'torch.return_types.linalg_qr'> "
        "<class 'torch.return_types.frexp'>",
        "[1] True",
        "torch.return_types max torch.return_types",  # PyTorch's module and name, pickled under them as PyTorch's
    ]


def test_constraint_classes_print_as_pytorchs(tmp_path):
    """The constraints module's public objects are instances of private classes; those classes print as PyTorch's."""
    r = run("""
        import torch
        from torch.distributions import constraints
        print(type(constraints.real), constraints.dependent_property, type(constraints.interval(0.0, 1.0)))
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["<class", "'torch.distributions.constraints._Real'>", "<class",
                                "'torch.distributions.constraints._DependentProperty'>", "<class",
                                "'torch.distributions.constraints._Interval'>"]


def test_pickles_by_pytorchs_paths_load_back_the_same_classes(tmp_path):
    r = run("""
        import io, pickle
        import torch
        m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
        blob = pickle.dumps(m)
        assert b"torch.nn.modules.linear" in blob and b"ember.nn.modules" not in blob
        m2 = pickle.loads(blob)
        assert type(m2[0]) is torch.nn.Linear and torch.equal(m2[0].weight, m[0].weight)
        buf = io.BytesIO()
        torch.save(m, buf)
        buf.seek(0)
        m3 = torch.load(buf, weights_only=False)
        assert type(m3[0]) is torch.nn.Linear and torch.equal(m3[0].bias, m[0].bias)
        print("OK")
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "OK\n"


def test_ember_checkpoints_name_embers_modules_and_uninstall_restores(tmp_path):
    path = tmp_path / "p.ckpt"
    r = run(f"""
        import torch, ember.autograd, ember.torch
        from ember.core import class_paths
        p = torch.nn.Parameter(torch.arange(3.0))
        ember.autograd.save({{"p": p}}, {str(path)!r})
        ember.torch.uninstall()
        import ember.optim.lr_scheduler
        assert ember.optim.lr_scheduler.__name__ == "ember.optim.lr_scheduler"
        print(torch.Tensor, type(p), class_paths.home_module(torch.Tensor))
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["<class", "'ember.core.tensor.Tensor'>", "<class", "'ember.nn.parameter.Parameter'>",
                                "ember.core.tensor"]
    import ember.autograd
    import ember.nn

    loaded = ember.autograd.load(str(path))["p"]  # in this process, which has no finder
    assert type(loaded) is ember.nn.Parameter and loaded.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("home", sorted(PATHS))
def test_each_path_holds_its_class(home):
    """Pickling by a path needs that path, imported under ember.torch, to hold the very class (a layer that is not
    installed, as ember-distributed in the torch session, has no classes to name)."""
    module = pytest.importorskip(home)
    for qualname, path in PATHS[home].items():
        cls = module
        for part in qualname.split("."):
            cls = getattr(cls, part)
        mirror = importlib.import_module("ember.torch" + path[len("torch"):])
        for part in qualname.split("."):
            mirror = getattr(mirror, part)
        assert mirror is cls, (home, qualname, path)
