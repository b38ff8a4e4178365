"""The shipped reference models: manifest, hashes, size limits, loading, a few games.

Nothing here trains: the models are the files shipped in baselines/reference_models."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from tabletop_zoo.baselines import make_agent
from tabletop_zoo.baselines.agents import reference
from tabletop_zoo.baselines.agents.numpy_net import DenseNet
from tabletop_zoo.baselines.evaluation.arena import make_env, play_game
from tabletop_zoo.envs.errors import InvalidOptionError
from tabletop_zoo.envs.registry import GAMES

MANIFEST = reference.load_manifest()
MODELS = sorted(MANIFEST["models"])
FIELDS = ("game", "num_players", "kind", "file", "sha256", "bytes", "training_command", "commit")


def test_the_package_ships_models_and_ladders_within_the_size_limits() -> None:
    assert MODELS, "no reference model in the manifest"
    assert MANIFEST["ladders"], "no ladder in the manifest"
    sizes = [
        (reference.REFERENCE_DIR / MANIFEST["models"][m]["file"]).stat().st_size for m in MODELS
    ]
    assert max(sizes) <= 5 * 1024 * 1024
    assert sum(sizes) <= 25 * 1024 * 1024


@pytest.mark.parametrize("name", MODELS)
def test_manifest_entry_matches_its_file(name: str) -> None:
    entry = MANIFEST["models"][name]
    assert all(entry.get(key) not in (None, "") for key in FIELDS)
    assert entry["game"] in GAMES and entry["num_players"] in GAMES[entry["game"]].players
    assert name == f"{entry['game']}-{entry['num_players']}p-{entry['kind']}"
    path = reference.REFERENCE_DIR / entry["file"]
    assert reference.file_sha256(path) == entry["sha256"]
    assert path.stat().st_size == entry["bytes"]
    net = DenseNet.load(path)
    assert (net.meta["game"], net.meta["num_players"]) == (entry["game"], entry["num_players"])
    assert entry["rating"] is not None, "every shipped model is rated on its ladder"


@pytest.mark.parametrize(
    "name",
    [pytest.param(m, marks=pytest.mark.slow) if "alphazero" in m else m for m in MODELS],
)
def test_reference_loads_and_plays_against_random(name: str) -> None:
    entry = MANIFEST["models"][name]
    players = entry["num_players"]
    env = make_env(entry["game"], players)
    # two games (either seat first) of each PPO model; one of each AlphaZero model, with 16
    # simulations a move (its own number searches for seconds a move on Mole Hill)
    spec = f"ref:{name}:16" if "alphazero" in name else f"ref:{name}"
    for game_seed in range(1 if "alphazero" in name else 2):
        agents = [make_agent(spec, seed=game_seed)] + [
            make_agent("random", seed=10 + i) for i in range(players - 1)
        ]
        agents = agents[game_seed % players :] + agents[: game_seed % players]
        result = play_game(env, agents, seed=game_seed)
        assert result.num_steps > 0


def test_every_ladder_member_is_an_agent_spec_that_loads() -> None:
    for key, ladder in MANIFEST["ladders"].items():
        assert key == f"{ladder['game']}-{ladder['num_players']}p"
        for spec, values in ladder["members"].items():
            make_agent(spec, seed=0)
            assert values["sigma"] > 0 and np.isfinite(values["mu"])


def test_an_alphazero_reference_takes_a_number_of_simulations() -> None:
    alphazero = next(m for m in MODELS if MANIFEST["models"][m]["kind"] == "alphazero")
    policy = next(m for m in MODELS if MANIFEST["models"][m]["kind"] != "alphazero")
    own = make_agent(f"ref:{alphazero}")
    assert own.num_simulations == MANIFEST["models"][alphazero]["simulations"]
    agent = make_agent(f"ref:{alphazero}:12")
    assert (agent.num_simulations, agent.name) == (12, f"ref:{alphazero}:12")
    with pytest.raises(InvalidOptionError, match="only AlphaZero references"):
        make_agent(f"ref:{policy}:12")
    for bad in (f"ref:{alphazero}:0", f"ref:{alphazero}:x", "ref::5"):
        with pytest.raises(InvalidOptionError, match="positive integer"):
            make_agent(bad)


def test_unknown_reference_lists_the_known_ones() -> None:
    with pytest.raises(InvalidOptionError, match="known: "):
        make_agent("ref:no-such-model")
    with pytest.raises(InvalidOptionError, match="ladders: "):
        reference.ladder_entry("no-such-game", 3)


def test_a_damaged_model_file_is_refused(tmp_path, monkeypatch) -> None:
    name = MODELS[0]
    entry = MANIFEST["models"][name]
    shutil.copy(reference.MANIFEST_PATH, tmp_path / "manifest.json")
    damaged = bytearray((reference.REFERENCE_DIR / entry["file"]).read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF  # one flipped byte
    (tmp_path / entry["file"]).write_bytes(bytes(damaged))
    monkeypatch.setattr(reference, "REFERENCE_DIR", tmp_path)
    monkeypatch.setattr(reference, "MANIFEST_PATH", tmp_path / "manifest.json")
    with pytest.raises(InvalidOptionError, match="SHA-256"):
        make_agent(f"ref:{name}")


def test_exported_ppo_actor_plays_like_the_ppo_agent() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from tabletop_zoo.baselines.agents.ppo import PPOAgent
    from tabletop_zoo.baselines.training.export import export_ppo_actor
    from tabletop_zoo.envs.registry import make_raw_env
    from tabletop_zoo.wrappers.single_agent import SingleAgentEnv

    env = SingleAgentEnv(make_raw_env("arktia", 3), opponent="random", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0)
    exported = reference.PolicyNetAgent(
        export_ppo_actor(model, {"game": "arktia", "num_players": 3})
    )
    ppo = PPOAgent(model)
    observation, _ = env.reset(seed=1)
    agree = 0
    for _ in range(40):
        mask = env.action_masks()
        action = ppo.act(observation, mask)
        agree += exported.act(observation, mask) == action
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            observation, _ = env.reset()
    assert agree >= 38  # float16 weights: a near-tie may flip


@pytest.mark.slow
def test_sampling_policy_agent_has_the_ppo_policys_distribution() -> None:
    """Self-play snapshots play the exported actor by sampling: the same distribution as a
    stochastic MaskablePPO policy over the legal actions, and samples that follow it."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from tabletop_zoo.baselines.training.export import export_ppo_actor
    from tabletop_zoo.envs.registry import make_raw_env
    from tabletop_zoo.wrappers.single_agent import SingleAgentEnv
    from tests.baselines.az_networks import masked_softmax

    env = SingleAgentEnv(make_raw_env("mole_hill"), opponent="random", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0)
    net = export_ppo_actor(model, {"game": "mole_hill", "num_players": 2})
    agent = reference.PolicyNetAgent(net, deterministic=False, seed=3)
    observation, _ = env.reset(seed=2)
    mask = env.action_masks()
    with torch.no_grad():
        obs_tensor, _ = model.policy.obs_to_tensor(observation)
        distribution = model.policy.get_distribution(obs_tensor, action_masks=mask[None])
        expected = distribution.distribution.probs[0].numpy()
    ours = masked_softmax(net.forward(observation[None])["policy"][0].astype(np.float64), mask)
    np.testing.assert_allclose(ours, expected, atol=1e-5)
    draws = np.bincount([agent.act(observation, mask) for _ in range(4000)], minlength=len(mask))
    assert set(np.flatnonzero(draws)) <= set(np.flatnonzero(mask))  # legal actions only
    # every action within 5 standard deviations of its expected count
    sd = np.sqrt(4000 * expected * (1 - expected)) + 1e-9
    assert np.all(np.abs(draws - 4000 * expected) <= 5 * sd + 1)
    agent.reset(seed=3)
    first = [agent.act(observation, mask) for _ in range(20)]
    agent.reset(seed=3)
    assert [agent.act(observation, mask) for _ in range(20)] == first  # seeded
