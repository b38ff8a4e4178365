"""CPU time per move of an agent, over a few games against random (seats alternate).

Example::

    python scripts/lab/time_agent.py --game GAME --agent az:runs/az.npz:64 --games 6

Only the agent's own ``act`` calls are timed (``time.process_time``, one core). A first,
untimed move loads what the agent compiles or reads on its first move (the compiled
search from numba's cache: about half a second), so that the figure is the cost of a move;
every game re-seeds the agents, so the timed games are the same with or without it.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from tabletop_zoo.baselines import cli, make_agent
from tabletop_zoo.baselines.agents.checks import check_agent_fits
from tabletop_zoo.baselines.agents.ppo_file import TRUST_HELP
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.baselines.commands import _flags
from tabletop_zoo.baselines.evaluation.arena import live_state, make_env, play_game


class _Timed:
    """Wraps an agent (whose other attributes show through) and adds up the CPU time of
    its moves."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.seconds, self.moves = agent, 0.0, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)

    def act(self, observation: Any, action_mask: Any, state: Any) -> int:
        start = time.process_time()
        action = self.agent.act(observation, action_mask, state)
        self.seconds += time.process_time() - start
        self.moves += 1
        return action


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    p = argparse.ArgumentParser(description="CPU time per move of an agent.")
    _flags.add_game_flags(p)
    p.add_argument("--agent", required=True, help=f"agent spec: {cli.agent_help()}")
    p.add_argument("--games", type=cli.integer(1), default=6, help="games (default 6)")
    p.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    args = p.parse_args(argv)
    limit_threads()  # one BLAS / torch thread for the networks (TABLETOP_ZOO_THREADS)
    with cli.usage_errors(p):  # player count, spec and model file before the first game
        players = cli.players(args.game, args.num_players)
        spec = cli.check_agent(args.agent, args.game, players, flag="--agent")
        timed = _Timed(make_agent(spec, seed=0, trust=args.trust_model))
    env = make_env(args.game, players)
    try:
        _first_move(env, timed.agent)  # untimed: loading is not a move's cost
        for number in range(args.games):
            others = [make_agent("random", seed=number * players + i) for i in range(players - 1)]
            seat = number % players
            play_game(env, others[:seat] + [timed] + others[seat:], seed=number)
    except KeyboardInterrupt:
        raise cli.Interrupted(f"{_summary(spec, timed)} so far") from None
    print(_summary(spec, timed))
    return 0


def _first_move(env: Any, agent: Any) -> None:
    """One untimed decision of ``agent`` at the start of a game (seat 0)."""
    check_agent_fits(agent, env)
    env.reset(seed=0)
    observation = env.last()[0]
    agent.act(observation["observation"], observation["action_mask"], live_state(env))


def _summary(spec: str, timed: _Timed) -> str:
    per_move = timed.seconds / max(1, timed.moves) * 1000
    return f"{spec}: {timed.moves} moves, {per_move:.3g} ms CPU per move"


if __name__ == "__main__":
    cli.run_main(main)
