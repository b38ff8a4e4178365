"""The atomic writer: a save completes or leaves the previous file, and no temporary file."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tabletop_zoo.envs import _files
from tabletop_zoo.envs._files import atomic_path, atomic_write, write_text_atomic


def _folder_names(folder) -> list[str]:
    return sorted(os.listdir(folder))


def test_a_save_replaces_the_file_and_leaves_nothing_else(tmp_path) -> None:
    target = tmp_path / "results.csv"
    target.write_text("old\n")
    with atomic_write(target, "w") as handle:
        handle.write("new\n")
    assert target.read_text() == "new\n"
    assert _folder_names(tmp_path) == ["results.csv"]


def test_an_error_mid_write_keeps_the_previous_file(tmp_path) -> None:
    target = tmp_path / "results.csv"
    target.write_text("old\n")
    with pytest.raises(RuntimeError, match="writer failed"):
        with atomic_write(target, "w") as handle:
            handle.write("half of the new con")
            raise RuntimeError("writer failed")
    assert target.read_text() == "old\n"
    assert _folder_names(tmp_path) == ["results.csv"]


def test_a_full_disk_at_the_end_keeps_the_previous_file(tmp_path, monkeypatch) -> None:
    target = tmp_path / "model.zip"
    target.write_bytes(b"good model")

    def disk_full(_fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_files.os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        with atomic_path(target) as temporary:
            temporary.write_bytes(b"new model")
    assert target.read_bytes() == b"good model"
    assert _folder_names(tmp_path) == ["model.zip"]


def test_a_failed_rename_keeps_the_previous_file(tmp_path, monkeypatch) -> None:
    target = tmp_path / "net.npz"
    target.write_bytes(b"good")

    def no_rename(*_args):
        raise PermissionError("rename refused")

    monkeypatch.setattr(_files.os, "replace", no_rename)
    with pytest.raises(PermissionError):
        write_text_atomic(target, "new")
    assert target.read_bytes() == b"good"
    assert _folder_names(tmp_path) == ["net.npz"]


def test_the_temporary_name_keeps_the_suffix_and_is_hidden(tmp_path) -> None:
    with atomic_path(tmp_path / "final_model.zip") as temporary:
        assert temporary.parent == tmp_path
        assert temporary.name.startswith(".final_model.tmp-") and temporary.suffix == ".zip"
        temporary.write_bytes(b"x")


def test_a_block_that_writes_nothing_is_an_error(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        with atomic_path(tmp_path / "a.png"):
            pass
    assert _folder_names(tmp_path) == []


def test_temporaries_of_killed_writers_are_removed_by_the_next_save(tmp_path) -> None:
    """A writer killed mid-write cannot clean up; the next save of the target does,
    sparing temporaries of writers still running."""
    target = tmp_path / "model.zip"
    code = (
        "import os, sys\n"
        "from tabletop_zoo.envs._files import atomic_path\n"
        "with atomic_path(sys.argv[1]) as t:\n"
        "    t.write_bytes(b'half')\n"
        "    os._exit(9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(target)], timeout=60)
    assert proc.returncode == 9
    stale = [n for n in _folder_names(tmp_path) if n.startswith(".model.tmp-")]
    assert len(stale) == 1 and not target.exists()  # killed: no torn target
    alive = tmp_path / f".model.tmp-{os.getppid()}-abcd.zip"  # a running writer's
    alive.write_bytes(b"in progress")
    write_text_atomic(target, "good")
    assert _folder_names(tmp_path) == sorted([alive.name, "model.zip"])


def test_only_whole_file_modes(tmp_path) -> None:
    with pytest.raises(ValueError, match="whole files"):
        with atomic_write(tmp_path / "a.csv", "a"):
            pass
