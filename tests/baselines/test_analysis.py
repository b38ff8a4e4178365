"""The agents' analysis of their moves (``keep_analysis``): what the HTML replays show.
Keeping it changes no move; the compiled and Python MCTS keep the same numbers; a PPO
agent keeps its policy's probabilities."""

from __future__ import annotations

import pytest

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.agents.search import MCTSAgent
from tabletop_zoo.baselines.evaluation.arena import play_game
from tabletop_zoo.envs.registry import fast_path_available, make_env
from tabletop_zoo.wrappers.recording import RecordEpisode

pytestmark = pytest.mark.slow


def played(game: str, specs: list[str], analysis: bool) -> tuple[list[int], list]:
    """The actions of one seeded game, and the replay's frames when analysed."""
    agents = [make_agent(spec, seed=i) for i, spec in enumerate(specs)]
    env = make_env(game, len(specs))
    if analysis:
        env = RecordEpisode(env, format="html", agents=agents)
    actions: list[int] = []
    play_game(env, agents, seed=5, on_step=lambda e, seat, a: actions.append(a))
    return actions, getattr(env, "replay", [])


@pytest.mark.parametrize(
    ("game", "specs"),
    [
        ("mole_hill", ["mcts:3", "ref:mole_hill-2p-ppo"]),
        ("arktia", ["ref:arktia-2p-alphazero:3", "mcts:3"]),
    ],
)
def test_keeping_the_analysis_changes_no_move(game, specs, monkeypatch) -> None:
    monkeypatch.setenv("TABLETOP_ZOO_FAST", "0")  # tiny searches: the Python engines
    plain, _ = played(game, specs, analysis=False)
    analysed, frames = played(game, specs, analysis=True)
    assert analysed == plain
    entries = [f["analysis"] for f in frames[1:] if f["analysis"]]
    assert {e["agent"] for e in entries} == {make_agent(s).name for s in specs}
    for entry in entries:
        assert sum(entry["share"]) == pytest.approx(1.0)
        if entry["unit"] == "":  # a search: visits, at most its simulations
            assert 0 < sum(entry["numbers"]) <= 3
        assert (entry["priors"] is not None) == entry["agent"].startswith("ref:arktia")


@pytest.mark.skipif(not fast_path_available(), reason="the compiled search needs numba")
def test_the_compiled_and_python_mcts_keep_the_same_analysis() -> None:
    env = make_env("arktia", 3)
    env.reset(seed=2)
    state = env.unwrapped.game_state
    for _ in range(12):
        state.apply_action(state.legal_actions()[len(state.legal_actions()) // 2])
    mask = env.unwrapped.action_mask(env.agent_selection)
    kept = []
    for fast in (True, False):
        agent = MCTSAgent(n_simulations=60, seed=9, fast=fast)
        agent.keep_analysis = True
        kept.append((agent.act(None, mask, state), agent.last_analysis))
    (move, fast_analysis), (python_move, python_analysis) = kept
    assert move == python_move and sum(fast_analysis["visits"]) == 60
    value = python_analysis.pop("value")
    assert fast_analysis.pop("value") == pytest.approx(value) and fast_analysis == python_analysis


def test_a_ppo_agent_keeps_its_policys_probabilities() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from tabletop_zoo.baselines.agents.ppo import PPOAgent
    from tabletop_zoo.baselines.agents.reference import PolicyNetAgent
    from tabletop_zoo.baselines.training.export import export_ppo_actor
    from tabletop_zoo.envs.registry import make_raw_env
    from tabletop_zoo.wrappers.single_agent import SingleAgentEnv

    env = SingleAgentEnv(make_raw_env("mole_hill"), opponent="random", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0)
    ppo, exported = PPOAgent(model), PolicyNetAgent(export_ppo_actor(model, {"game": "mole_hill"}))
    ppo.keep_analysis = exported.keep_analysis = True
    observation, _ = env.reset(seed=1)
    mask = env.action_masks()
    action = ppo.act(observation, mask)
    exported.act(observation, mask)
    kept = ppo.last_analysis
    assert kept["actions"] == exported.last_analysis["actions"]
    assert kept["probs"] == pytest.approx(exported.last_analysis["probs"], abs=1e-2)
    assert kept["actions"][max(range(len(kept["probs"])), key=kept["probs"].__getitem__)] == action
