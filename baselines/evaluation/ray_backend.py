"""Tournament games as Ray tasks, on this machine or on a Ray cluster (extra ``rllib``).

:func:`play_tasks` runs the same task function on the same task tuples as serial play, one
Ray task per game, and yields the outcomes in task order, so a tournament played here gives
exactly the tables of serial play for the same seed (every game and agent is seeded from
the tournament seed and the game's index, not from where it runs)::

    round_robin(game, ["mcts:200", "greedy"], games=100, backend="ray")             # local
    round_robin(game, ["mcts:200", "greedy"], games=100, backend="ray", ray_address="auto")

On a cluster every node needs this package installed (the same version) in the Python
environment Ray runs; see docs/ecosystem.md for the recipe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tabletop_zoo.baselines.evaluation.arena import one_torch_thread
from tabletop_zoo.envs.extras import require_extra

__all__ = ["play_tasks"]


def _run(play: Callable[[Any], Any], task: Any) -> Any:
    """One game inside a Ray worker (one torch thread, like the process pool)."""
    one_torch_thread()
    return play(task)


def play_tasks(
    play: Callable[[Any], Any], tasks: Sequence[Any], address: str | None = None
) -> Iterator[Any]:
    """Yield ``play(task)`` for every task, in order, computed by Ray tasks.

    Starts a local Ray instance (``address=None``) or joins a cluster (``"auto"`` or
    ``"ray://host:10001"``) unless Ray is already initialised, and shuts down only what it
    started. Every task is submitted at once; Ray spreads them over the free CPUs.
    """
    require_extra("rllib", "the Ray tournament backend", ("ray",))
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1)(_run)
        play_ref = ray.put(play)
        refs = [remote.remote(play_ref, task) for task in tasks]
        for ref in refs:
            yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()
