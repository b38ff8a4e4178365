"""A kit to evaluate a policy trained with any library (``policy(observation, action_mask)
-> int``, :mod:`tabletop_zoo.baselines.agents.outside`)::

    with CpuShare() as cost:
        ...  # train
    print(win_rate(policy), chance_level(), cost.cpu_seconds, cost.env_share)
"""

from __future__ import annotations

import dataclasses
import json
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.agents.outside import PolicyAgent
from tabletop_zoo.baselines.evaluation.arena import cpu_seconds
from tabletop_zoo.baselines.evaluation.stats import wilson_interval
from tabletop_zoo.baselines.evaluation.tournament import evaluate_agent
from tabletop_zoo.envs._files import write_text_atomic
from tabletop_zoo.envs.registry import GAMES

FIRST_GAME = next(iter(GAMES))  # Mole Hill, the default game of the kit and the commands


@dataclasses.dataclass(frozen=True)
class WinRate:
    """``wins`` (sole first places) and ``draws`` (first place shared) in ``games``; the
    win ``rate`` with its Wilson 95% interval ``low`` .. ``high``."""

    wins: int
    draws: int
    games: int
    rate: float
    low: float
    high: float

    @classmethod
    def of(cls, wins: int, draws: int, games: int) -> WinRate:
        """The win rate of ``wins`` in ``games``, with its interval."""
        return cls(wins, draws, games, wins / max(games, 1), *wilson_interval(wins, games))

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict (for JSON)."""
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        return f"{self.rate:.2f} [{self.low:.2f}, {self.high:.2f}] ({self.wins}/{self.games})"


def win_rate(
    policy: Any,
    game: str = FIRST_GAME,
    num_players: int | None = None,
    opponent: str = "random",
    games: int = 200,
    seed: int | None = 0,
) -> WinRate:
    """How often ``policy`` (a callable ``policy(observation, action_mask) -> int``, one of
    our agents or an agent spec) wins ``games`` games against ``opponent`` (an agent spec
    in every other seat), its seat rotating evenly; every game is seeded from ``seed``."""
    if isinstance(policy, str):
        policy = make_agent(policy, seed=seed)
    agent = (
        policy
        if hasattr(policy, "act")
        else PolicyAgent(policy, getattr(policy, "__name__", "policy"))
    )
    name = getattr(agent, "name", "learner")
    options = {"opponents": (opponent,), "seed": seed, "name": name, "games": games}
    stats = evaluate_agent(agent, game, num_players, **options)[0]
    return WinRate.of(stats.wins, stats.draws, stats.games)


def chance_level(game: str = FIRST_GAME, **options: Any) -> WinRate:
    """:func:`win_rate` of a uniformly random player in the learner's place (``options``:
    ``num_players``, ``opponent``, ``games``, ``seed``, as there)."""
    return win_rate("random", game, **options)


_NEUTRAL = frozenset(sys.stdlib_module_names) | {"numpy"}  # helpers: their caller decides


def _in_package(frame: FrameType | None) -> bool:
    """Whether the innermost frame of ``frame``'s stack that is neither the standard
    library's, NumPy's nor this kit's is one of tabletop_zoo's modules."""
    while frame is not None:
        module = frame.f_globals.get("__name__") or ""
        top = module.partition(".")[0]
        if module != __name__ and top not in _NEUTRAL:
            return top == "tabletop_zoo"
        frame = frame.f_back
    return False


class CpuShare:
    """``with CpuShare() as cost:`` measures the block: :attr:`cpu_seconds`, the CPU time
    (user + system) of this process and of its finished child processes, and
    :attr:`env_share`, an *estimate* of the share of it spent in tabletop_zoo's code (envs,
    wrappers, baselines): a daemon thread looks at the block's thread every ``interval``
    seconds and counts the samples whose innermost frame (the standard library and NumPy
    passed over) is ours. Work in other threads or processes is not sampled."""

    def __init__(self, interval: float = 0.005) -> None:
        self.interval = interval
        self.cpu_seconds = self.env_share = 0.0
        self.samples = [0, 0]  # in our code, all

    def __enter__(self) -> CpuShare:
        self._watched, self._stop = threading.get_ident(), threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._start = cpu_seconds()
        self._sampler.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._sampler.join()
        self.cpu_seconds = cpu_seconds() - self._start
        self.env_share = self.samples[0] / self.samples[1] if self.samples[1] else 0.0

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            self.samples[0] += _in_package(sys._current_frames().get(self._watched))
            self.samples[1] += 1


def _plain(value: Any) -> Any:
    """A :class:`WinRate` or a NumPy number or array as JSON values."""
    if isinstance(value, WinRate) or hasattr(value, "tolist"):
        return value.as_dict() if isinstance(value, WinRate) else value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


def write_result(path: str | Path, data: dict[str, Any]) -> Path:
    """Write ``data`` (JSON values, :class:`WinRate`, NumPy numbers) as a JSON file at
    ``path``, atomically (folders made as needed)."""
    return write_text_atomic(path, json.dumps(data, indent=2, default=_plain) + "\n")
