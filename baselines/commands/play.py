"""Play against agents in the terminal or a window, or watch agents play.

    tabletop-zoo play                                 # you (player_0) vs greedy
    tabletop-zoo play --game GAME --num-players 3 --agents random,human,greedy
    tabletop-zoo play --watch --agents greedy,random --delay 0.5
    tabletop-zoo play --gui                           # play with the mouse in a window

Your seats are a :class:`~tabletop_zoo.baselines.agents.human.HumanAgent` reading stdin
line by line (so a session can be scripted; end of input stops the game); ``--gui``:
:mod:`tabletop_zoo.baselines.agents.gui`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from tabletop_zoo.baselines import cli, reproducible
from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.agents.checks import check_agent_fits
from tabletop_zoo.baselines.agents.gui import PlayWindow, WindowAgent
from tabletop_zoo.baselines.agents.human import GameAbandoned, HumanAgent
from tabletop_zoo.baselines.agents.human import read_stdin as _read_stdin
from tabletop_zoo.baselines.agents.ppo_file import TRUST_HELP
from tabletop_zoo.baselines.evaluation.arena import agent_seeds, live_state, make_env, play_game
from tabletop_zoo.envs._display import round_name
from tabletop_zoo.envs.extras import require_extra
from tabletop_zoo.envs.registry import GAMES

HUMAN = "human"


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(description="Play against an agent, or watch agents play.")
    players = ", ".join(f"{n}: {'/'.join(map(str, s.players))}" for n, s in sorted(GAMES.items()))
    cli.add_game_flags(p, next(iter(GAMES)), players_help=f"; {players}")
    p.add_argument(
        "--opponent",
        default="greedy",
        help=f"agent spec for the other seats: {cli.agent_help()} (default greedy)",
    )
    p.add_argument(
        "--seat", type=cli.integer(0), default=0, help="your seat (0 moves first; default 0)"
    )
    p.add_argument(
        "--agents",
        help=f"one spec per seat, comma separated ({cli.agent_help(human=True)}); "
        "'human' marks your seat(s) "
        "(overrides --opponent/--seat; with --watch default greedy,random,...)",
    )
    p.add_argument("--watch", action="store_true", help="agents only: watch them play")
    p.add_argument("--seed", type=cli.SEED, help="game and agent seed, 0..2**32-1 (default random)")
    p.add_argument(
        "--render",
        choices=["ansi", "human"],
        default="ansi",
        help="ansi: board printed as text; human: also a pygame window (render extra)",
    )
    p.add_argument(
        "--delay",
        type=cli.number(0, 3600),
        help="seconds to pause after agent moves (default 0; 0.6 with --gui)",
    )
    p.add_argument(
        "--gui", action="store_true", help="play with the mouse in a pygame window (render extra)"
    )
    p.add_argument(
        "--quiet",
        action="store_true",
        help="print only the moves, and the board when it is your turn (and at the end)",
    )
    p.add_argument("--trust-model", action="store_true", help=TRUST_HELP)
    reproducible.add_flag(p)
    return p


def seat_specs(args: argparse.Namespace, num_players: int) -> list[str]:
    """The agent spec of every seat (``human`` for people)."""
    n = num_players
    if args.agents is not None:
        specs = [s.strip() for s in args.agents.split(",") if s.strip()]
        if len(specs) != n:
            raise ValueError(
                f"--agents needs {n} comma separated specs (one per seat), got {specs}"
            )
    elif args.watch:
        specs = (["greedy", "random"] + ["random"] * n)[:n]
    else:
        if args.seat not in range(n):
            raise ValueError(f"--seat must be in 0..{n - 1}, got {args.seat}")
        specs = [HUMAN if s == args.seat else args.opponent for s in range(n)]
    if args.watch and HUMAN in specs:
        raise ValueError("--watch is for agents only; remove 'human' from --agents")
    return specs


def show_board(env: Any) -> None:
    """Print the board as text (and refresh the pygame window in human mode)."""
    if env.render_mode == "ansi":
        print(env.render())
    else:
        env.render()
        print(live_state(env))


def _scores_text(names: list[str], state: Any) -> str:
    return ", ".join(f"{n} {s}" for n, s in zip(names, state.scores(), strict=True))


class Narrator:
    """Prints the game as it goes: moves in notation, boards, the end of each round
    (``quiet``: the board only when a person is to move, and at the end)."""

    def __init__(self, labels: list[str], humans: set[int], quiet: bool, delay: float) -> None:
        self.labels = labels
        self.humans = humans
        self.quiet = quiet
        self.delay = delay
        self.before: Any = None  # the position before the next move (for its notation)
        self.round: Any = None

    def start(self, env: Any) -> None:
        """After reset: the board, and the state the first move is written from."""
        state = live_state(env)
        self.before, self.round = state.clone(), getattr(state, "round", None)
        if not self.quiet or state.current_player in self.humans:
            show_board(env)

    def step(self, env: Any, seat: int, action: int) -> None:
        """After a move: the move, a round change, the board; the delay after agent moves."""
        state = live_state(env)
        names = list(env.possible_agents)
        print(f"{names[seat]} ({self.labels[seat]}) plays {self.before.action_to_string(action)}")
        new_round = getattr(state, "round", None)
        if new_round != self.round:
            ended = round_name(state, self.round)
            print(f"--- {ended} is over; scores: {_scores_text(names, state)} ---")
            self.round = new_round
        human_next = not state.is_terminal() and state.current_player in self.humans
        if not self.quiet or human_next or state.is_terminal():
            show_board(env)
        self.before = state.clone()
        if seat not in self.humans and self.delay > 0:
            time.sleep(self.delay)


def _seat_agents(specs: list[str], person: Any, seed: int | None, trust: bool) -> list[Any]:
    """The agent of every seat: ``person`` in the human seats."""
    seeds = agent_seeds(seed, len(specs))
    return [
        person if spec == HUMAN else make_agent(spec, seed=agent_seed, trust=trust)
        for spec, agent_seed in zip(specs, seeds, strict=True)
    ]


def _play_to_end(env: Any, agents: list[Any], seed: int | None, hooks: Any) -> bool:
    """Play one game (``hooks``: its ``start`` and ``step``); print the final scores and the
    winner (or a draw). False when a person stopped the game."""
    try:
        play_game(env, agents, seed=seed, on_start=hooks.start, on_step=hooks.step)
    except GameAbandoned:
        print("stopped: game abandoned")
        return False
    names, state = list(env.possible_agents), live_state(env)
    print(f"game over; scores: {_scores_text(names, state)}")
    winners = [n for n, r in zip(names, state.returns(), strict=True) if r > 0]
    print(f"{winners[0]} wins" if winners else "draw")
    return True


def play(
    game: str,
    specs: list[str],
    seed: int | None = None,
    render: str = "ansi",
    delay: float = 0.0,
    read: Callable[[], str | None] | None = None,
    quiet: bool = False,
    trust: bool = False,
) -> bool:
    """Run one game with the given seat specs; True when it finished, False when stopped."""
    env = make_env(game, num_players=len(specs), render_mode=render)
    reader = read or (lambda: _read_stdin())  # looked up at call time (tests replace it)
    person = HumanAgent(read=reader, show_board=lambda _state: show_board(env))
    agents = _seat_agents(specs, person, seed, trust)
    labels = ["you" if s == HUMAN else s for s in specs]
    print(", ".join(f"{n}: {label}" for n, label in zip(env.possible_agents, labels, strict=True)))
    humans = {i for i, s in enumerate(specs) if s == HUMAN}
    finished = _play_to_end(env, agents, seed, Narrator(labels, humans, quiet, delay))
    env.close()
    return finished


def play_gui(
    game: str,
    specs: list[str],
    seed: int | None = None,
    delay: float = 0.6,
    linger: bool = True,
    on_wait: Callable[[PlayWindow, list], None] | None = None,
    trust: bool = False,
) -> bool:
    """Run one game in a pygame window; True when it finished, False when the window was
    closed. ``linger``: keep the final position on screen until the window is closed."""
    env = make_env(game, num_players=len(specs))
    humans = {i for i, s in enumerate(specs) if s == HUMAN}
    window = PlayWindow(env, humans=humans, delay=delay, on_wait=on_wait)
    agents = _seat_agents(specs, WindowAgent(window), seed, trust)
    if not _play_to_end(env, agents, seed, window):
        window.close()
        return False
    if linger:
        print("the window shows the final position: close it or press Escape to leave", flush=True)
    window.finish(env, linger=linger)
    return True


@cli.command
def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (0, also when a player stops the game)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.render == "human":
        require_extra("render", cli.program("scripts/play.py") + " --render human")
    if args.gui:
        require_extra("render", cli.program("scripts/play.py") + " --gui")
    if args.delay is None:
        args.delay = 0.6 if args.gui else 0.0
    with cli.usage_errors(parser):
        env = make_env(args.game, num_players=args.num_players)  # bad player count
        specs = seat_specs(args, len(env.possible_agents))
        for spec in specs:  # a bad spec: the allowed forms; a model for another game
            if spec != HUMAN:
                check_agent_fits(make_agent(spec, trust=args.trust_model), env, spec)
        env.close()
    options = {"seed": args.seed, "delay": args.delay, "trust": args.trust_model}
    try:
        if args.gui:
            play_gui(args.game, specs, **options)
        else:
            play(args.game, specs, render=args.render, quiet=args.quiet, **options)
    except KeyboardInterrupt:
        raise cli.Interrupted("game abandoned") from None
    return 0
