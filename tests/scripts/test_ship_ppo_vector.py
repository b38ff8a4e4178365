"""Exporting ``ppo_vector --save`` weights to a NumPy reference network, and shipping one
with ``make_reference.py add --ppo-vector --policy sample``."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="exporting needs the 'train' extra")
pytest.importorskip("numba", reason="ppo_vector's network comes with the 'fast' extra")

from tabletop_zoo.baselines.agents.reference import PolicyNetAgent  # noqa: E402
from tabletop_zoo.baselines.evaluation.arena import make_env  # noqa: E402
from tabletop_zoo.baselines.training.export import export_ppo_vector  # noqa: E402
from tabletop_zoo.envs.errors import ModelFileError  # noqa: E402


def _mole_hill():
    env = make_env("mole_hill")
    agent = env.possible_agents[0]
    return env, env.observation_space(agent)["observation"].shape, int(env.action_space(agent).n)


def _saved(tmp_path, inputs: int, actions: int, hidden: int = 16):
    from tabletop_zoo.baselines.training.ppo_vector import ActorCritic

    torch.manual_seed(0)
    layers = ActorCritic(inputs, actions, hidden)
    path = tmp_path / "policy.pt"
    torch.save(layers.state_dict(), path)
    return layers, path


def test_the_exported_actor_gives_the_torch_logits(tmp_path) -> None:
    env, shape, actions = _mole_hill()
    layers, path = _saved(tmp_path, int(np.prod(shape)), actions)
    net = export_ppo_vector(path, {"game": "mole_hill", "num_players": 2}, shape, actions)
    assert (net.activation, net.meta["kind"], net.meta["num_actions"]) == ("relu", "ppo", actions)
    observations = np.random.default_rng(0).random((5, *shape)).astype(np.float32)
    with torch.no_grad():
        expected = layers.actor(layers.trunk(torch.as_tensor(observations))).numpy()
    np.testing.assert_allclose(net.forward(observations)["policy"], expected, atol=1e-5)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    player = PolicyNetAgent(net)
    legal = np.flatnonzero(observation["action_mask"])
    with torch.no_grad():
        logits = layers.actor(layers.trunk(torch.as_tensor(observation["observation"][None])))
    expected_logits = logits.numpy()[0]
    assert player.act(observation["observation"], observation["action_mask"]) == int(
        legal[np.argmax(expected_logits[legal])]
    )


class _RunsCode:
    def __reduce__(self):
        return (open, ("ran-code-from-the-file", "w"))


@pytest.mark.parametrize("content", ["garbage", "pickle", "another game", "missing layer"])
def test_a_file_that_is_not_ppo_vector_weights_is_refused(tmp_path, monkeypatch, content) -> None:
    _, shape, actions = _mole_hill()
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "policy.pt"
    if content == "garbage":
        path.write_bytes(b"no weights here")
    elif content == "pickle":
        path.write_bytes(pickle.dumps(_RunsCode()))
    elif content == "another game":
        _saved(tmp_path, int(np.prod(shape)) + 1, actions)
    else:
        layers, _ = _saved(tmp_path, int(np.prod(shape)), actions)
        weights = layers.state_dict()
        del weights["critic.bias"]
        torch.save(weights, path)
    with pytest.raises(ModelFileError, match="ppo_vector weights|do not take"):
        export_ppo_vector(path, {"game": "mole_hill", "num_players": 2}, shape, actions)
    assert not (tmp_path / "ran-code-from-the-file").exists()


def test_make_reference_ships_a_sampling_ppo_vector_model(script, tmp_path, monkeypatch) -> None:
    """``add --ppo-vector --policy sample``: the manifest says so, and ``ref:`` plays by
    drawing from the policy with its own seed (the same draws for the same seed)."""
    from tabletop_zoo.baselines.agents import reference

    make_reference = script("make_reference")
    folder = tmp_path / "reference"
    folder.mkdir()
    for module in (make_reference, reference):
        monkeypatch.setattr(module, "MANIFEST_PATH", folder / "manifest.json")
        monkeypatch.setattr(module, "REFERENCE_DIR", folder)
    env, shape, actions = _mole_hill()
    _, path = _saved(tmp_path, int(np.prod(shape)), actions)
    argv = ["add", "--name", "mole_hill-2p-ppo", "--game", "mole_hill", "--num-players", "2",
            "--ppo-vector", str(path), "--policy", "sample", "--command", "test",
            "--commit", "abc"]  # fmt: skip
    assert make_reference.main(argv) == 0
    entry = json.loads((folder / "manifest.json").read_text())["models"]["mole_hill-2p-ppo"]
    assert (entry["kind"], entry["policy"]) == ("ppo", "sample")
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)

    def draws(seed: int) -> list[int]:
        agent = reference.reference_agent("mole_hill-2p-ppo", seed=seed)
        assert not agent.deterministic
        return [
            agent.act(observation["observation"], observation["action_mask"]) for _ in range(50)
        ]

    assert draws(1) == draws(1)
    assert len(set(draws(1))) > 1  # an untrained policy is spread over the legal actions
    assert all(observation["action_mask"][a] for a in draws(2))


def test_sample_is_refused_for_alphazero_models(script, capsys) -> None:
    make_reference = script("make_reference")
    argv = ["add", "--name", "mole_hill-2p-alphazero", "--game", "mole_hill", "--num-players",
            "2", "--az", "nowhere.npz", "--policy", "sample", "--command", "test"]  # fmt: skip
    with pytest.raises(SystemExit) as exc:
        make_reference.main(argv)
    assert exc.value.code == 2
    assert "--policy sample is for PPO models" in capsys.readouterr().err
