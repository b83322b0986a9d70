"""collect_env reports the facts a bug report needs, and never fails on a machine without a GPU."""

import subprocess
import sys
from importlib.metadata import version

import numpy as np
from threadpoolctl import threadpool_info

import ember.core as ec
from ember.core.env_info import collect_env, get_pretty_env_info


def test_collect_env_names_the_installed_versions():
    env = collect_env()
    assert env["ember"]["ember-core"] == version("ember-core")
    assert env["versions"]["numpy"] == np.__version__
    assert env["python"] == sys.version.split()[0]


def test_collect_env_reports_the_blas_and_its_threads():
    env = collect_env()
    blas = {p["filepath"] for p in threadpool_info() if p["user_api"] == "blas"}
    assert blas and blas == {p["filepath"] for p in env["threads"]["pools"] if p["user_api"] == "blas"}
    assert env["threads"]["numba_threads"] >= 1


def test_collect_env_reports_cpu_features_as_names():
    cpu = collect_env()["cpu"]
    assert cpu["logical_cores"] >= 1
    assert isinstance(cpu["features"], list) and all(isinstance(f, str) for f in cpu["features"])


def test_cuda_section_says_why_it_is_unavailable():
    cuda = collect_env()["cuda"]
    assert isinstance(cuda["available"], bool)
    if not cuda["available"]:
        assert cuda["reason"] and not cuda["reason"].endswith(":")


def test_module_prints_the_report():
    out = subprocess.run([sys.executable, "-m", "ember.core.env_info"], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert "ember-core: " + version("ember-core") in out
    assert "numpy: " + np.__version__ in out
    assert get_pretty_env_info().splitlines()[0] in out


def test_collect_env_is_exported_by_core():
    assert ec.collect_env is collect_env
