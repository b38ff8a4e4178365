"""Atomic file writes: a save either completes or leaves the previous file as it was.

Every file the package writes for a user goes through :func:`atomic_write` (we hold the
file object) or :func:`atomic_path` (a library writes by file name: SB3's ``model.save``,
matplotlib's ``savefig``, imageio): a temporary file in the target's folder, flushed and
``fsync``-ed, then renamed over the target (``os.replace``). A failed write deletes its
temporary file and raises an ``OSError`` naming the target (:func:`writing`: appends use
it too); one killed mid-write leaves a temporary named with its process id, which
the next save of the same target deletes once that process is gone. Standard library only::

    with atomic_path("runs/a/final_model.zip") as temporary:
        model.save(temporary)  # the temporary name keeps the suffix (.zip)
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

_MARK = ".tmp-"


def temporary_name(path: str | Path) -> Path:
    """A fresh temporary file name beside ``path``: hidden, with this process's id, the
    same suffix (writers choose the format by it), e.g. ``.model.tmp-123-9f2c.zip``."""
    path = Path(path)
    token = secrets.token_hex(4)
    return path.with_name(f".{path.stem}{_MARK}{os.getpid()}-{token}{path.suffix}")


def _process_alive(pid: int) -> bool:
    """True if a process with id ``pid`` runs (or cannot be signalled by us)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _remove_stale_temporaries(path: Path) -> None:
    """Delete temporaries of ``path`` left by writers that were killed mid-write."""
    prefix = f".{path.stem}{_MARK}"
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(path.suffix)):
            continue
        pid_text = name[len(prefix) :].split("-", 1)[0]
        if pid_text.isdigit() and not _process_alive(int(pid_text)):
            with contextlib.suppress(OSError):
                os.unlink(path.parent / name)


def _fsync(path: Path) -> None:
    """Flush ``path`` to the disk: a file's content, or a folder's renames."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _replace(temporary: Path, path: Path) -> None:
    """Rename ``temporary`` over ``path`` keeping ``path``'s permission bits if it exists."""
    with contextlib.suppress(OSError):
        os.chmod(temporary, os.stat(path).st_mode & 0o7777)
    os.replace(temporary, path)
    with contextlib.suppress(OSError):  # best effort: not every system syncs a folder
        _fsync(path.parent)


@contextlib.contextmanager
def atomic_path(path: str | Path, make_folder: bool = True) -> Iterator[Path]:
    """Yield a temporary file name beside ``path``; when the block ends without an error,
    ``fsync`` that file and rename it over ``path``. On an error (or if the block wrote
    nothing) the temporary file is deleted, ``path`` is left as it was, and the error is
    re-raised. ``make_folder``: create ``path``'s folder first."""
    path = Path(path)
    if make_folder:
        path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(path)
    temporary = temporary_name(path)
    try:
        with writing(path, temporary):
            yield temporary
            if not temporary.is_file():
                raise FileNotFoundError(f"nothing was written to {temporary} for {path}")
            _fsync(temporary)
            _replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def writing(path: str | Path, temporary: str | Path | None = None) -> Iterator[None]:
    """An ``OSError`` of the block (a full disk, a file-size limit, no permission) that
    names no file or ``temporary`` goes on naming ``path``, the file the user asked for:
    the one place that makes a failed write one line, ``'<path>': <reason>``."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None or str(exc.filename) == str(temporary):
            exc.filename = str(path)
        raise


@contextlib.contextmanager
def atomic_write(
    path: str | Path, mode: str = "w", make_folder: bool = True, **open_kwargs: Any
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` (``mode`` ``"w"`` or ``"wb"``, keywords of
    :func:`open`); when the block ends without an error, flush, ``fsync`` and rename it
    over ``path``. On an error the temporary file is deleted and ``path`` keeps its
    previous content."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write writes whole files: mode 'w' or 'wb', got {mode!r}")
    with atomic_path(path, make_folder) as temporary:
        with open(temporary, mode, **open_kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (:func:`atomic_write`); return the path."""
    with atomic_write(path, "wb") as handle:
        handle.write(data)
    return Path(path)


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write`); return the path."""
    with atomic_write(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return Path(path)
