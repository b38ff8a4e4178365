"""Mutated model files (``az:`` networks and ``ppo:`` zips): every load either works or is
refused with our error (an ``InvalidOptionError``: ``ModelFileError``,
``UntrustedModelError``) naming the file; nothing else is raised and nothing of the file
runs. A few network mutations in the default run; PPO files (whose model takes seconds to
build) and many of both with the long tests."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.agents.checks import check_agent_spec
from tabletop_zoo.envs.errors import InvalidOptionError
from tests.baselines.test_model_files import GAME, PLAYERS, good_network

ODD_VALUES = [None, True, -1, 0, 2**63, 1e308, float("nan"), "", "x" * 300, [], [0], [10**9],
              {}, {"a": []}, [[[]]]]  # fmt: skip


def mutate_bytes(data: bytes, rng: np.random.Generator) -> bytes:
    """One byte-level mutation: truncated, bytes flipped, a span zeroed or duplicated."""
    out = bytearray(data)
    kind = int(rng.integers(4))
    if kind == 0:
        return bytes(out[: int(rng.integers(len(out)))])
    if kind == 1:
        for _ in range(int(rng.integers(1, 8))):
            out[int(rng.integers(len(out)))] ^= 1 << int(rng.integers(8))
        return bytes(out)
    start = int(rng.integers(len(out)))
    length = int(rng.integers(1, 256))
    if kind == 2:
        out[start : start + length] = b"\0" * len(out[start : start + length])
        return bytes(out)
    return bytes(out[:start] + out[start : start + length] + out[start:])


def mutate_json(data: dict, rng: np.random.Generator) -> dict:
    """The SB3 ``data`` record with one value (top level or one level down) replaced."""
    data = json.loads(json.dumps(data))
    key = list(data)[int(rng.integers(len(data)))]
    value = ODD_VALUES[int(rng.integers(len(ODD_VALUES)))]
    if isinstance(data[key], dict) and data[key] and rng.random() < 0.5:
        inner = list(data[key])[int(rng.integers(len(data[key])))]
        data[key][inner] = value
    elif rng.random() < 0.2:
        del data[key]
    else:
        data[key] = value
    return data


def with_data(source: Path, data: dict) -> bytes:
    """The zip ``source`` with its ``data`` record replaced."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(buffer, "w") as out:
        for name in archive.namelist():
            content = json.dumps(data).encode() if name == "data" else archive.read(name)
            out.writestr(name, content)
    return buffer.getvalue()


def loads_or_is_refused(spec: str, path: Path, check=None) -> str:
    """``"loaded"`` or ``"refused"``; any other error fails the test, naming the file."""
    try:
        if check is not None:
            check()
        make_agent(spec)
    except InvalidOptionError as exc:
        message = str(exc)
        assert str(path) in message and "\n" not in message, message
        return "refused"
    return "loaded"


def fuzz_networks(count: int, seed: int, folder: Path) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    good = good_network().save(folder / "good.npz").read_bytes()
    outcomes = {"loaded": 0, "refused": 0}
    for number in range(count):
        path = folder / f"net_{number}.npz"
        path.write_bytes(mutate_bytes(good, rng))
        spec = f"az:{path}"
        check = lambda s=spec: check_agent_spec(s, GAME, PLAYERS)  # noqa: E731
        outcomes[loads_or_is_refused(spec, path, check)] += 1
    return outcomes


def fuzz_ppo_files(count: int, seed: int, source: Path, folder: Path) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    good = source.read_bytes()
    with zipfile.ZipFile(source) as archive:
        data = json.loads(archive.read("data"))
    outcomes = {"loaded": 0, "refused": 0}
    for number in range(count):
        path = folder / f"ppo_{number}.zip"
        if number % 2:
            path.write_bytes(mutate_bytes(good, rng))
        else:
            path.write_bytes(with_data(source, mutate_json(data, rng)))
        outcomes[loads_or_is_refused(f"ppo:{path}", path)] += 1
    return outcomes


def test_mutated_networks_load_or_are_refused(tmp_path) -> None:
    outcomes = fuzz_networks(40, 0, tmp_path)
    assert outcomes["refused"] > 20  # the mutations do break files


@pytest.mark.slow  # building the SB3 model costs more than the fuzz (5-6 s)
def test_mutated_ppo_files_load_or_are_refused(ppo_files, tmp_path) -> None:
    pytest.importorskip("sb3_contrib")
    outcomes = fuzz_ppo_files(40, 0, ppo_files.good, tmp_path)
    assert outcomes["refused"] > 10
    assert not ppo_files.marker.exists()


@pytest.mark.slow
def test_many_mutated_model_files_load_or_are_refused(ppo_files, tmp_path) -> None:
    pytest.importorskip("sb3_contrib")
    networks = fuzz_networks(400, 1, tmp_path)
    ppo = fuzz_ppo_files(400, 1, ppo_files.good, tmp_path)
    assert networks["refused"] > 200 and ppo["refused"] > 100
    assert not ppo_files.marker.exists()
