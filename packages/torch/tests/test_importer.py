"""The runner and the finder: an unmodified script's `import torch` resolves to ember.torch (the same
module objects), as `__main__` with its argv, also in spawned children; what needs PyTorch's C++ fails
at import naming it. Each case runs in a fresh interpreter (the test process may hold real torch)."""

import os
import subprocess
import sys
import textwrap

import pytest

from ember.torch import _importer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def run(code: str, tmp_path, *args, runner=True) -> subprocess.CompletedProcess:
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(code))
    cmd = [sys.executable, "-m", "ember.torch", str(script), *args] if runner else [sys.executable, str(script)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=os.environ.copy())


def test_runner_maps_torch_to_ember_as_main_with_argv(tmp_path):
    r = run("""
        import sys
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.utils.data import DataLoader
        import torch.backends.cudnn as cudnn
        import ember.torch, ember.nn, ember.data
        assert __name__ == "__main__"
        assert torch is ember.torch and nn is ember.torch.nn and F is ember.nn.functional
        assert DataLoader is ember.data.DataLoader and cudnn is ember.torch.backends.cudnn
        assert torch.nn.modules.activation.MultiheadAttention is ember.nn.MultiheadAttention
        assert torch.__spec__.name == "ember.torch"
        print("ARGV", sys.argv[1:])
    """, tmp_path, "a", "--b", "3")
    assert r.returncode == 0, r.stderr
    assert "ARGV ['a', '--b', '3']" in r.stdout


@pytest.mark.parametrize("stmt, named", [("import torchvision", "torchvision needs PyTorch's C++ library"),
                                         ("import torch._C", "torch._C: PyTorch's C++ extension module"),
                                         ("from torch.ops import aten", "torch.ops: PyTorch's C++ operator"),
                                         ("import torch.no_such_module", "ember.torch does not provide "
                                                                         "torch.no_such_module")])
def test_what_needs_pytorchs_cpp_fails_at_import_naming_it(tmp_path, stmt, named):
    r = run(f"""
        try:
            {stmt}
        except ImportError as e:
            print("IMPORTERROR", e)
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "IMPORTERROR" in r.stdout and named in r.stdout


def test_install_in_a_session_and_uninstall(tmp_path):
    r = run("""
        import sys
        import ember.torch
        ember.torch.install()
        import torch, torch.optim
        assert torch is ember.torch and torch.optim.SGD is ember.optim.SGD
        # the program speaks `torch`: its dtypes and shapes print as PyTorch's
        assert repr(torch.ones(2, dtype=torch.float64)) == "tensor([1., 1.], dtype=torch.float64)"
        assert (repr(torch.zeros(2, 3).shape), str(torch.bfloat16), repr(torch.strided),
                repr(torch.channels_last)) == ("torch.Size([2, 3])", "torch.bfloat16", "torch.strided",
                                               "torch.channels_last")
        ember.torch.uninstall()
        assert "torch" not in sys.modules
        assert repr(ember.torch.float32) == "ember.float32" and repr(ember.torch.Size([1])) == "ember.Size([1])"
        print("DONE")
    """, tmp_path, runner=False)
    assert r.returncode == 0, r.stderr
    assert "DONE" in r.stdout


def test_spawned_children_also_get_ember(tmp_path):
    r = run("""
        import multiprocessing as mp
        import torch

        def child(q):
            import torch.nn
            q.put((torch.__name__, torch.nn.__name__))

        if __name__ == "__main__":
            ctx = mp.get_context("spawn")
            q = ctx.Queue()
            p = ctx.Process(target=child, args=(q,))
            p.start()
            print("CHILD", q.get())
            p.join()
    """, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "CHILD ('ember.torch', 'ember.torch.nn')" in r.stdout


def test_a_failing_script_exits_nonzero_with_its_traceback(tmp_path):
    r = run("import torch\nraise ValueError('boom')\n", tmp_path)
    assert r.returncode == 1 and "ValueError: boom" in r.stderr


def test_console_entry_usage_and_missing_file(capsys, tmp_path):
    assert _importer.main([]) == 2
    assert "usage: python -m ember.torch script.py" in capsys.readouterr().err
    assert _importer.main([str(tmp_path / "missing.py")]) == 2
    assert "can't open file" in capsys.readouterr().err


def test_install_refuses_when_pytorch_is_already_imported(tmp_path):
    r = run("""
        import sys, types
        fake = types.ModuleType("torch")
        sys.modules["torch"] = fake
        import ember.torch
        try:
            ember.torch.install()
        except RuntimeError as e:
            print("REFUSED", e)
    """, tmp_path, runner=False)
    assert "REFUSED ember.torch.install(): PyTorch is already imported" in r.stdout, r.stderr
