"""Loading a model file runs no code from it unless the caller opted in (``trust``).

The crafted files of the ``ppo_files`` fixture (``tests/conftest.py``) hold pickles that
create a marker file when unpickled. Every library path that loads a ``ppo:`` file reads it
without unpickling: the crafted copy that still names our policy class loads and plays
(its pickled entries are never read), the others are refused naming the opt-in; the
marker never appears. With ``trust=True`` the same file does run its payload (so the
marker check can fail).
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_zoo.baselines import make_agent
from tabletop_zoo.envs.errors import InvalidOptionError, UntrustedModelError

pytest.importorskip("sb3_contrib")

OPT_IN = ("trust=True", "--trust-model")


def _refused(exc: pytest.ExceptionInfo) -> None:
    assert all(word in str(exc.value) for word in OPT_IN), str(exc.value)


def test_the_crafted_file_runs_its_payload_when_trusted(ppo_files, tmp_path) -> None:
    from tabletop_zoo.baselines.agents.ppo_file import load_ppo_model

    assert not ppo_files.marker.exists()
    try:
        load_ppo_model(ppo_files.crafted, trust=True)
    except Exception:
        pass
    assert ppo_files.marker.exists()  # unpickling ran the payload: the test can fail
    ppo_files.marker.unlink()


def test_our_models_load_without_unpickling_and_play_as_before(ppo_files) -> None:
    import torch

    from tabletop_zoo.baselines.agents.ppo_file import SafePPOModel, load_ppo_model

    safe = load_ppo_model(ppo_files.good)
    trusted = load_ppo_model(ppo_files.good, trust=True)
    assert isinstance(safe, SafePPOModel)
    assert safe.observation_space.shape == trusted.observation_space.shape
    assert safe.action_space.n == trusted.action_space.n
    mine, theirs = safe.policy.state_dict(), trusted.policy.state_dict()
    assert mine.keys() == theirs.keys()
    assert all(torch.equal(mine[k], theirs[k]) for k in mine)
    rng = np.random.default_rng(0)
    for _ in range(20):
        obs = rng.random(safe.observation_space.shape, dtype=np.float32)
        mask = rng.random(safe.action_space.n) < 0.2
        mask[0] = True
        got = safe.predict(obs, deterministic=True, action_masks=mask)[0]
        assert got == trusted.predict(obs, deterministic=True, action_masks=mask)[0]


def test_loading_leaves_torch_random_stream_alone(ppo_files) -> None:
    import torch

    from tabletop_zoo.baselines.agents.ppo_file import load_ppo_model

    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    load_ppo_model(ppo_files.good)
    assert torch.equal(torch.rand(3), expected)


def test_make_agent_and_ppo_agent_read_the_crafted_file_without_running_it(ppo_files) -> None:
    from tabletop_zoo.baselines.agents.ppo import PPOAgent

    agent = make_agent(f"ppo:{ppo_files.crafted}")
    PPOAgent(ppo_files.crafted, deterministic=False)
    mask = np.zeros(agent.model.action_space.n, dtype=np.int8)
    mask[3] = 1
    obs = np.zeros(agent.model.observation_space.shape, np.float32)
    assert agent.act(obs, mask) == 3
    assert not ppo_files.marker.exists()


@pytest.mark.parametrize("name", ["foreign", "evil_weights"])
def test_files_that_need_unpickling_are_refused_naming_the_opt_in(ppo_files, name) -> None:
    from tabletop_zoo.baselines.agents.ppo import PPOAgent
    from tabletop_zoo.baselines.training.export import export_ppo_actor

    path = getattr(ppo_files, name)
    for load in (
        lambda: make_agent(f"ppo:{path}"),
        lambda: PPOAgent(path),
        lambda: export_ppo_actor(path, {}),
    ):
        with pytest.raises(UntrustedModelError) as exc:
            load()
        _refused(exc)
    assert not ppo_files.marker.exists()


def _with_policy_kwargs(source, target, kwargs) -> None:
    import json
    import zipfile

    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w") as out:
        for name in archive.namelist():
            content = archive.read(name)
            if name == "data":
                data = json.loads(content)
                data["policy_kwargs"] = kwargs
                content = json.dumps(data).encode()
            out.writestr(name, content)


def test_pickled_policy_kwargs_are_refused(ppo_files, tmp_path) -> None:
    from tabletop_zoo.baselines.agents.ppo_file import load_ppo_model

    target = tmp_path / "activation.zip"
    _with_policy_kwargs(ppo_files.good, target, {":type:": "<class 'dict'>", ":serialized:": "A"})
    with pytest.raises(UntrustedModelError, match="policy_kwargs are stored pickled") as exc:
        load_ppo_model(target)
    _refused(exc)
    _with_policy_kwargs(ppo_files.good, target, {"net_arch": [16], "features_extractor_kwargs": {}})
    with pytest.raises(UntrustedModelError, match="features_extractor_kwargs"):
        load_ppo_model(target)
    # a plain optimizer_kwargs is ignored (playing needs no optimizer)
    _with_policy_kwargs(ppo_files.good, target, {"net_arch": [16], "optimizer_kwargs": {"eps": 0}})
    assert load_ppo_model(target).action_space.n == 173
    _with_policy_kwargs(ppo_files.good, target, {"net_arch": [16, -1]})
    with pytest.raises(InvalidOptionError, match="net_arch must be"):
        load_ppo_model(target)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "BadZipFile"),
        (b"PK\x03\x04 truncated", "BadZipFile"),
    ],
)
def test_files_that_are_not_models_are_invalid_options(tmp_path, content, message) -> None:
    path = tmp_path / "broken.zip"
    path.write_bytes(content)
    with pytest.raises(InvalidOptionError, match=message):
        make_agent(f"ppo:{path}")


def test_weights_that_do_not_fit_are_refused(ppo_files, tmp_path) -> None:
    import io
    import zipfile

    import torch

    target = tmp_path / "short.zip"
    with zipfile.ZipFile(ppo_files.good) as source, zipfile.ZipFile(target, "w") as out:
        for name in source.namelist():
            content = source.read(name)
            if name == "policy.pth":
                weights = torch.load(io.BytesIO(content), weights_only=True)
                weights.pop("action_net.bias")
                buffer = io.BytesIO()
                torch.save(weights, buffer)
                content = buffer.getvalue()
            out.writestr(name, content)
    with pytest.raises(InvalidOptionError, match="do not fit the policy"):
        make_agent(f"ppo:{target}")


def test_training_paths_read_without_unpickling(ppo_files, tmp_path) -> None:
    """The opponent pool's snapshots, ``--pool ppo:PATH`` and the actor export."""
    import shutil

    from tabletop_zoo.baselines.training import TrainConfig
    from tabletop_zoo.baselines.training.export import export_ppo_actor
    from tabletop_zoo.baselines.training.opponents import OpponentPool

    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    shutil.copy(ppo_files.crafted, snapshots / "step_64.zip")
    pool = OpponentPool(1, snapshot_dir=snapshots, self_play_prob=1.0, seed=0)
    assert pool(np.random.default_rng(0))[0].name == "snapshot_64"
    net = export_ppo_actor(ppo_files.crafted, {"game": "mole_hill"})
    assert net.meta["num_actions"] == 173
    pool = OpponentPool(1, baselines=(f"ppo:{ppo_files.crafted}",), seed=0)
    config = TrainConfig(game="mole_hill", baselines=(f"ppo:{ppo_files.crafted}",))
    config.runs_dir = str(tmp_path)
    config.resolved()
    with pytest.raises(UntrustedModelError):
        TrainConfig(game="mole_hill", baselines=(f"ppo:{ppo_files.foreign}",)).resolved()
    with pytest.raises(UntrustedModelError):
        OpponentPool(1, baselines=(f"ppo:{ppo_files.foreign}",), seed=0)
    assert not ppo_files.marker.exists()


def test_matches_read_without_unpickling(ppo_files) -> None:
    """``round_robin`` (evaluate.py), ``play_lineups`` (rate.py, ladders), the arena."""
    from tabletop_zoo.baselines.evaluation import round_robin
    from tabletop_zoo.baselines.evaluation.arena import play_task, seeded_agent
    from tabletop_zoo.baselines.evaluation.seating import play_lineups

    spec = f"ppo:{ppo_files.crafted}"
    assert len(round_robin("mole_hill", [spec, "random"], games=2).games) == 2
    assert len(play_lineups("mole_hill", [spec, "random"], [(0, 1)]).games) == 2
    play_task(("mole_hill", 2, {}, [spec, "random"], 0, 0, False))
    foreign = f"ppo:{ppo_files.foreign}"
    for call in (
        lambda: round_robin("mole_hill", [foreign, "random"], games=2),
        lambda: play_lineups("mole_hill", [foreign, "random"], [(0, 1)]),
        lambda: seeded_agent(foreign, 0),
    ):
        with pytest.raises(UntrustedModelError) as exc:
            call()
        _refused(exc)
    assert not ppo_files.marker.exists()


def test_rllib_needs_the_opt_in(tmp_path) -> None:
    from tabletop_zoo.envs.extras import MissingExtraError, missing_modules

    module = tmp_path / "module_main"
    module.mkdir()
    (module / "module_state.pkl").write_bytes(b"not read")
    with pytest.raises(UntrustedModelError) as exc:
        make_agent(f"rllib:{module}")
    _refused(exc)
    if missing_modules(("ray",)):  # with the opt-in it goes on to load (here: needs ray)
        with pytest.raises(MissingExtraError):
            make_agent(f"rllib:{module}", trust=True)
