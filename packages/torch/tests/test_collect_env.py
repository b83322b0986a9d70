"""`python -m torch.utils.collect_env` prints ember-core's environment report."""

import subprocess
import sys
from importlib.metadata import version

import ember.torch as et
from ember.core.env_info import collect_env


def test_torch_utils_collect_env_is_cores_report():
    assert et.utils.collect_env.collect_env is collect_env


def test_module_prints_versions_of_ember_torch_and_core():
    out = subprocess.run([sys.executable, "-m", "ember.torch.utils.collect_env"], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert "ember-core: " + version("ember-core") in out
    assert "ember-torch: " + version("ember-torch") in out
