"""Network files that are not ours (empty, truncated, malformed, hostile) are refused with
one ModelFileError naming the file, by the loader, by make_agent and by the spec check."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tabletop_zoo.baselines.agents import make_agent, numpy_net
from tabletop_zoo.baselines.agents.checks import check_agent_spec
from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.envs.errors import InvalidOptionError, ModelFileError
from tests.baselines.az_networks import small_network

GAME, PLAYERS = "mole_hill", 2


def good_network(game: str = GAME, players: int = PLAYERS, hidden: int = 8) -> DenseNet:
    """A small AlphaZero network of ``game`` that plays."""
    return small_network(game, players, trunk=hidden)


def _arrays(net: DenseNet) -> dict[str, np.ndarray]:
    """The arrays :meth:`DenseNet.save` writes (header as a dict, not yet encoded)."""
    arrays = {}
    for i, (w, b) in enumerate(net.trunk):
        arrays[f"trunk.{i}.weight"], arrays[f"trunk.{i}.bias"] = w, b
    for name, (w, b) in net.heads.items():
        arrays[f"head.{name}.weight"], arrays[f"head.{name}.bias"] = w, b
    return {k: v.astype(np.float16) for k, v in arrays.items()}


def _header(net: DenseNet, **changes) -> dict:
    header = {"activation": net.activation, "heads": list(net.heads), "meta": dict(net.meta)}
    header.update(changes)
    return header


def _write(path: Path, arrays: dict, header) -> Path:
    arrays = dict(arrays)
    if header is not None:
        text = header if isinstance(header, str) else json.dumps(header)
        arrays["header"] = np.frombuffer(text.encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    path.write_bytes(buffer.getvalue())
    return path


def crafted_files(folder: Path) -> dict[str, Path]:
    """Name -> a file that is not a usable AlphaZero network of GAME with PLAYERS."""
    net = good_network()
    good = net.save(folder / "good.npz").read_bytes()
    arrays = _arrays(net)
    meta = dict(net.meta)
    files: dict[str, Path] = {}

    def raw(name: str, data: bytes) -> None:
        files[name] = folder / f"{name}.npz"
        files[name].write_bytes(data)

    def npz(name: str, array_changes: dict | None = None, header="keep", drop=()) -> None:
        changed = {k: v for k, v in {**arrays, **(array_changes or {})}.items() if k not in drop}
        files[name] = _write(
            folder / f"{name}.npz", changed, _header(net) if header == "keep" else header
        )

    raw("empty", b"")
    raw("text", b"not a network at all")
    raw("one_byte", good[:1])
    for share in (0.1, 0.5, 0.9, 0.99):
        raw(f"truncated_{int(share * 100)}", good[: int(len(good) * share)])
    damaged = bytearray(good)
    damaged[len(good) // 2 : len(good) // 2 + 64] = b"\0" * 64
    raw("damaged_middle", bytes(damaged))
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(3))
    raw("npy_not_npz", buffer.getvalue())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("readme.txt", "hello")
    raw("zip_of_text", buffer.getvalue())
    buffer = io.BytesIO()
    np.savez(buffer, header=np.array([{"a": 1}], dtype=object))  # pickled objects
    raw("pickled_header", buffer.getvalue())
    npz("no_header", header=None)
    npz("header_not_json", header="{not json")
    npz("header_a_list", header=[1, 2])
    npz("header_nested_deep", header="[" * 100_000 + "]" * 100_000)
    npz("no_activation", header=_header(net, activation="sigmoid"))
    npz("heads_not_a_list", header=_header(net, heads="policy"))
    npz("heads_empty", header=_header(net, heads=[]))
    npz("meta_a_string", header=_header(net, meta="alphazero"))
    npz("missing_head_array", drop=("head.value.bias",))
    npz("missing_trunk_array", drop=("trunk.0.weight",))
    npz("weight_1d", {"trunk.0.weight": arrays["trunk.0.weight"][:, 0]})
    npz("weight_int", {"trunk.0.weight": arrays["trunk.0.weight"].astype(np.int32)})
    npz("bias_wrong_length", {"trunk.0.bias": arrays["trunk.0.bias"][:3]})
    npz("head_wrong_inputs", {"head.policy.weight": arrays["head.policy.weight"][:4]})
    nan = arrays["head.value.weight"].copy()
    nan[0, 0] = np.nan
    npz("nan_weight", {"head.value.weight": nan})
    npz("header_uint16", header=None, array_changes={"header": np.zeros(4, np.uint16)})
    for key, value in (
        ("kind", "ppo"),
        ("game", "chess"),
        ("game", None),
        ("num_players", 9),
        ("num_players", "2"),
        ("observation_shape", "big"),
        ("observation_shape", [0]),
        ("num_actions", -1),
        ("config", [1]),
        ("config", {"score_weight": "high"}),
        ("config", {"score_weight": 2.0}),
    ):
        npz(f"meta_{key}_{value}", header=_header(net, meta={**meta, key: value}))
    no_game = {k: v for k, v in meta.items() if k != "game"}
    npz("meta_without_game", header=_header(net, meta=no_game))
    npz("meta_wrong_actions", header=_header(net, meta={**meta, "num_actions": 3}))
    return files


@pytest.fixture(scope="module")
def crafted(tmp_path_factory) -> dict[str, Path]:
    return crafted_files(tmp_path_factory.mktemp("crafted"))


def test_the_good_network_loads_and_plays(tmp_path) -> None:
    path = good_network().save(tmp_path / "good.npz")
    assert check_agent_spec(f"az:{path}", GAME, PLAYERS) == f"az:{path}"
    assert make_agent(f"az:{path}:4").num_simulations == 4


def test_every_crafted_file_is_one_model_file_error_naming_it(crafted) -> None:
    assert len(crafted) >= 40
    for name, path in crafted.items():
        for load in (
            lambda p: DenseNet.load(p) and make_agent(f"az:{p}"),
            lambda p: check_agent_spec(f"az:{p}", GAME, PLAYERS),
        ):
            with pytest.raises(ModelFileError) as caught:
                load(path)
            message = str(caught.value)
            assert str(path) in message, name
            assert "\n" not in message and len(message) < 400, name


def test_a_model_file_error_is_an_invalid_option_error(crafted) -> None:
    with pytest.raises(InvalidOptionError):
        DenseNet.load(crafted["empty"])


def test_a_file_declaring_huge_arrays_is_refused_before_reading_them(tmp_path, monkeypatch) -> None:
    path = good_network().save(tmp_path / "good.npz")
    declared = sum(info.file_size for info in zipfile.ZipFile(path).infolist())
    monkeypatch.setattr(numpy_net, "MAX_NETWORK_BYTES", declared - 1)  # a zip bomb in small
    with pytest.raises(ModelFileError, match=f"declare {declared} bytes"):
        DenseNet.load(path)


def test_a_network_of_another_game_or_count_is_refused_by_the_spec_check(tmp_path) -> None:
    path = good_network(GAME, PLAYERS).save(tmp_path / "two.npz")
    other = next(name for name in ("arktia",) if name != GAME)
    with pytest.raises(ModelFileError, match="not of"):
        check_agent_spec(f"az:{path}", other, PLAYERS)
    with pytest.raises(ModelFileError, match="players"):
        check_agent_spec(f"az:{path}", GAME, PLAYERS + 1)
