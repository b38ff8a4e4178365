"""Play against an agent in the terminal, or watch agents play.

    python scripts/play.py                                 # you (player_0) vs greedy, Mole Hill
    python scripts/play.py --opponent mcts:200 --seat 1    # you play second, vs MCTS
    python scripts/play.py --game arktia --num-players 3 --agents random,human,greedy
    python scripts/play.py --watch --agents greedy,random --delay 0.5
    python scripts/play.py --render human                  # also open the pygame window

On your turn type a move in the game's notation. Commands: ``?`` / ``moves`` (list the
legal moves), ``board`` (print the board again), ``help``, ``quit``. Input is read line
by line from stdin, so a session can be scripted: ``printf 'e4\\nquit\\n' | python ...``.
End of input counts as ``quit``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from typing import Any

from tabletop_zoo.baselines import make_agent
from tabletop_zoo.baselines.tournament import check_agent_fits, check_seed

HUMAN = "human"
QUIT_WORDS = ("quit", "exit", "q")
MOVES_WORDS = ("?", "moves")
HELP_TEXT = (
    "type a move in the game's notation; '?' or 'moves' lists the legal moves, "
    "'board' prints the board, 'quit' ends the game"
)


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(description="Play against an agent, or watch agents play.")
    p.add_argument("--game", choices=["mole_hill", "arktia"], default="mole_hill")
    p.add_argument(
        "--num-players", type=int, default=2, help="2 (Mole Hill), 2-4 (Arktia); default 2"
    )
    p.add_argument(
        "--opponent",
        default="greedy",
        help="agent spec for the other seats: random, greedy, mcts, mcts:N, ppo:PATH "
        "(default greedy)",
    )
    p.add_argument("--seat", type=int, default=0, help="your seat (0 moves first; default 0)")
    p.add_argument(
        "--agents",
        default=None,
        help="one spec per seat, comma separated; 'human' marks your seat(s) "
        "(overrides --opponent/--seat; with --watch default greedy,random,...)",
    )
    p.add_argument("--watch", action="store_true", help="agents only: watch them play")
    p.add_argument(
        "--seed", type=int, default=None, help="game and agent seed, 0..2**32-1 (default random)"
    )
    p.add_argument(
        "--render",
        choices=["ansi", "human"],
        default="ansi",
        help="ansi: board printed as text each turn; human: also a pygame window",
    )
    p.add_argument(
        "--delay", type=float, default=0.0, help="seconds to pause after agent moves (default 0)"
    )
    return p


def seat_specs(args: argparse.Namespace) -> list[str]:
    """The agent spec of every seat (``human`` for people)."""
    n = args.num_players
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
        print(env.unwrapped.game)


def ask_human(env: Any, name: str, read: Callable[[], str | None]) -> int | None:
    """Prompt until a legal move is entered; ``None`` means the player quit."""
    state = env.unwrapped.game
    while True:
        print(f"{name}, your move ('?' for legal moves): ", end="", flush=True)
        line = read()
        if line is None:  # end of input
            print()
            return None
        text = line.strip()
        if not text:
            continue
        word = text.lower()
        if word in QUIT_WORDS:
            return None
        if word in MOVES_WORDS:
            moves = [state.action_to_string(a) for a in state.legal_actions()]
            print(f"legal moves ({len(moves)}): {' '.join(moves)}")
            continue
        if word == "help":
            print(HELP_TEXT)
            continue
        if word == "board":
            show_board(env)
            continue
        try:
            action = state.string_to_action(text)
        except ValueError as exc:  # NotationError / IllegalActionError
            print(f"not a legal move: {exc} (type '?' to list the legal moves)")
            continue
        if action not in state.legal_actions():
            print(f"{text!r} is not legal now (type '?' to list the legal moves)")
            continue
        return action


def play(
    game: str,
    specs: list[str],
    seed: int | None = None,
    render: str = "ansi",
    delay: float = 0.0,
    read: Callable[[], str | None] | None = None,
) -> bool:
    """Run one game with the given seat specs; True when it finished, False when quit."""
    from tabletop_zoo.baselines.arena import agent_seeds, make_env

    read = read or _read_stdin
    env = make_env(game, num_players=len(specs), render_mode=render)
    seeds = agent_seeds(seed, len(specs))
    pairs = list(zip(specs, seeds, strict=True))
    agents = [None if s == HUMAN else make_agent(s, seed=x) for s, x in pairs]
    names = list(env.possible_agents)
    print(
        ", ".join(f"{n}: {'you' if s == HUMAN else s}" for n, s in zip(names, specs, strict=True))
    )
    env.reset(seed=seed)
    show_board(env)
    for name in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = names.index(name)
        state = env.unwrapped.game
        agent = agents[seat]
        if agent is None:
            action = ask_human(env, name, read)
            if action is None:
                print("quit: game abandoned")
                env.close()
                return False
        else:
            action = int(agent.act(obs["observation"], obs["action_mask"], state))
        move = state.action_to_string(action)  # before the move is applied
        env.step(action)
        print(f"{name} ({'you' if agent is None else specs[seat]}) plays {move}")
        show_board(env)
        if agent is not None and delay > 0:
            time.sleep(delay)
    state = env.unwrapped.game
    scores, returns = list(state.scores()), list(state.returns())
    print("game over; scores: " + ", ".join(f"{n} {s}" for n, s in zip(names, scores, strict=True)))
    winners = [n for n, r in zip(names, returns, strict=True) if r > 0]
    print(f"{winners[0]} wins" if winners else "draw")
    env.close()
    return True


def _read_stdin() -> str | None:
    """One line from stdin, or ``None`` at end of input."""
    line = sys.stdin.readline()
    return line if line else None


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (0, also when a player quits)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if not (args.delay >= 0 and math.isfinite(args.delay)):  # also rejects nan
            raise ValueError(f"--delay must be a number of seconds >= 0, got {args.delay}")
        check_seed(args.seed, "--seed")
        specs = seat_specs(args)
        from tabletop_zoo.baselines.arena import make_env

        env = make_env(args.game, num_players=args.num_players)  # bad player count
        for spec in specs:
            if spec != HUMAN:
                # bad spec: ValueError listing the allowed forms; a model for another game
                check_agent_fits(make_agent(spec), env, spec)
        env.close()
    except ValueError as exc:
        parser.error(str(exc))
    try:
        play(args.game, specs, seed=args.seed, render=args.render, delay=args.delay)
    except KeyboardInterrupt:
        print("\ninterrupted: game abandoned")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
