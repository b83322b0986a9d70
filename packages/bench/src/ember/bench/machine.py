"""What the numbers were measured on: ember-core's environment report, plus the comparison
frameworks' versions and a one-line BLAS summary for the tables."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ember.core.env_info import collect_env

__all__ = ["describe_machine"]


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def describe_machine() -> dict:
    env = collect_env()
    blas = [f"{p['internal_api']} {p['version']} ({p['num_threads']} threads)"
            for p in env["threads"]["pools"] if p["user_api"] == "blas"]
    return {
        "cpu": env["cpu"]["model"],
        "cores": env["cpu"]["logical_cores"],
        "platform": env["platform"],
        "python": env["python"],
        "blas": ", ".join(blas) or "unknown",
        "versions": {**env["ember"], **env["versions"], "torch": _version("torch")},
        "environment": env,
    }
