"""scripts/release_check.py fails on an unbumped change, a missing changelog entry, a stale
__version__ and a lower-layer range that excludes the tree's version; passes once bumped."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("release_check", ROOT / "scripts" / "release_check.py")
release_check = sys.modules["release_check"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(release_check)


def _write_package(root: Path, layer: str, version: str, deps: list[str]) -> None:
    pkg = root / "packages" / layer
    (pkg / "src" / "ember" / layer).mkdir(parents=True, exist_ok=True)
    deps_toml = ", ".join(f'"{d}"' for d in deps)
    (pkg / "pyproject.toml").write_text(
        f'[project]\nname = "ember-{layer}"\nversion = "{version}"\ndependencies = [{deps_toml}]\n')
    (pkg / "CHANGELOG.md").write_text(f"# Changelog: ember-{layer}\n\n## {version}\n- what changed\n")
    (pkg / "src" / "ember" / layer / "__init__.py").write_text(f'__version__ = "{version}"\n')


def _commit(root: Path, message: str) -> None:
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message],
                   check=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _write_package(tmp_path, "core", "0.1.0", [])
    _write_package(tmp_path, "nn", "0.1.0", ["ember-core>=0.1,<0.2"])
    _commit(tmp_path, "first release")
    return tmp_path


def test_a_tree_at_its_versions_passes(repo):
    assert release_check.problems(repo) == []
    assert release_check.main(["release_check", str(repo)]) == 0


def test_a_source_change_without_a_bump_fails(repo):
    (repo / "packages/core/src/ember/core/ops.py").write_text("x = 1\n")
    _commit(repo, "a change")
    (found,) = release_check.problems(repo)
    assert found.startswith("ember-core 0.1.0: 1 shipped file(s) changed since")
    assert "packages/core/src/ember/core/ops.py" in found
    assert release_check.main(["release_check", str(repo)]) == 1


def test_an_uncommitted_change_counts_too(repo):
    (repo / "packages/nn/src/ember/nn/__init__.py").write_text('__version__ = "0.1.0"\nx = 2\n')
    (found,) = release_check.problems(repo)
    assert found.startswith("ember-nn 0.1.0: 1 shipped file(s) changed")


def test_a_bump_with_its_changelog_entry_passes_and_ranges_follow(repo):
    (repo / "packages/core/src/ember/core/ops.py").write_text("x = 1\n")
    _write_package(repo, "core", "0.2.0", [])
    _commit(repo, "core 0.2.0")
    (found,) = release_check.problems(repo)
    assert found == "ember-nn 0.1.0: requires ember-core<0.2,>=0.1, but this tree holds ember-core 0.2.0"
    _write_package(repo, "nn", "0.2.0", ["ember-core>=0.2,<0.3"])
    _commit(repo, "nn 0.2.0 on core 0.2")
    assert release_check.problems(repo) == []


def test_a_bump_without_a_changelog_entry_or_with_a_stale_version_string_fails(repo):
    pyproject = repo / "packages/core/pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "0.1.0"', 'version = "0.1.1"'))
    _commit(repo, "bump only")
    found = release_check.problems(repo)
    assert "ember-core 0.1.1: CHANGELOG.md has no '## 0.1.1' entry" in found
    assert "ember-core 0.1.1: packages/core/src/ember/core/__init__.py says __version__ = '0.1.0'" in found


def test_changes_accumulate_under_an_unreleased_entry_until_it_is_released(repo):
    _write_package(repo, "core", "0.2.0", [])
    log = repo / "packages/core/CHANGELOG.md"
    log.write_text("# Changelog: ember-core\n\n## 0.2.0 (unreleased)\n- work in progress\n")
    _write_package(repo, "nn", "0.2.0", ["ember-core>=0.2,<0.3"])
    _commit(repo, "open 0.2.0")
    (repo / "packages/core/src/ember/core/ops.py").write_text("x = 1\n")
    _commit(repo, "more work")
    assert release_check.problems(repo) == []
    log.write_text("# Changelog: ember-core\n\n## 0.2.0\n- released\n")
    _commit(repo, "release core 0.2.0")
    assert release_check.problems(repo) == []
    (repo / "packages/core/src/ember/core/ops.py").write_text("x = 2\n")
    _commit(repo, "a change after the release")
    (found,) = release_check.problems(repo)
    assert found.startswith("ember-core 0.2.0: 1 shipped file(s) changed since")
