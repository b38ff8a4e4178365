"""A Gymnasium ``VectorEnv`` over a compiled batched engine (the ``fast`` extra; docs/fast.md),
for custom training loops that step thousands of games at once::

    envs = make_vector_env(GAME, num_envs=1024, opponent="greedy", seed=0)
    obs, infos = envs.reset()
    obs, rewards, terminated, truncated, infos = envs.step(envs.sample_legal_actions())

One seat learns in every game (``learner_seat=None``: drawn per game and episode); the
other seats are played inside, in batch (:mod:`.vector_batched`, :mod:`.vector_pool`).
Observations are the learner's AEC planes, ``infos["action_mask"]`` its legal actions; the
reward comes when its game ends. Autoreset is Gymnasium's ``SAME_STEP`` mode. A step is a
transaction: an illegal action raises and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gymnasium.vector import AutoresetMode

from tabletop_zoo.envs.registry import fast_engine
from tabletop_zoo.wrappers.vector_batched import BatchedPolicy, BatchedVectorEnv
from tabletop_zoo.wrappers.vector_pool import OpponentMix, PoolVectorEnv


def make_vector_env(
    game: str,
    num_envs: int,
    num_players: int | None = None,
    opponent: str | BatchedPolicy | Sequence[str | BatchedPolicy] = "random",
    learner_seat: int | None = 0,
    reward_mode: str = "win",
    max_turns: int | None = None,
    seed: int | None = None,
    autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
    **options: Any,
) -> BatchedVectorEnv:
    """A :class:`BatchedVectorEnv` of ``game`` (registry name) with the game's options.

    ``opponent`` as a list (``["random", "greedy"]``, policies allowed) draws each other
    seat's player per episode (:class:`~tabletop_zoo.wrappers.vector_pool.PoolVectorEnv`).
    ``max_turns`` is the truncation limit of games that have one (default: the env's).
    """
    engine = fast_engine(game, num_players, max_turns=max_turns, **options)
    if isinstance(opponent, (list, tuple)):
        return PoolVectorEnv(
            engine,
            num_envs,
            OpponentMix(opponent),
            learner_seat=learner_seat,
            reward_mode=reward_mode,
            seed=seed,
            autoreset_mode=autoreset_mode,
        )
    return BatchedVectorEnv(
        engine, num_envs, opponent, learner_seat, reward_mode, seed, autoreset_mode
    )
