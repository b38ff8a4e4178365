"""A Gymnasium ``VectorEnv`` over a compiled batched engine (the ``fast`` extra).

For custom training loops (CleanRL style) that step thousands of games at once: one seat
learns in every game, the other seats are played inside, in batch, by compiled random or
greedy opponents, by a user-supplied batched policy, or by a list of these drawn per seat
and episode (:mod:`tabletop_zoo.wrappers.vector_pool`)::

    from tabletop_zoo.wrappers.vector import make_vector_env
    envs = make_vector_env(GAME, num_envs=1024, opponent="greedy", seed=0)
    obs, infos = envs.reset()
    actions = envs.sample_legal_actions()        # or your policy, masked by
    obs, rewards, terminated, truncated, infos = envs.step(actions)  # infos["action_mask"]

* Observations are the AEC env's planes seen by the learner, ``(num_envs, rows, cols,
  planes)`` float32; ``infos["action_mask"]`` (and :meth:`action_masks`) the learner's
  legal actions, ``(num_envs, num_actions)`` bool.
* A reward reaches the learner when its game ends: +1 / 0 / -1 (``reward_mode="win"``)
  or its score minus the best other score (``"score"``); the opponents' replies happen
  inside the same ``step``.
* Autoreset is Gymnasium's ``SAME_STEP`` mode (``autoreset_mode`` and
  ``metadata["autoreset_mode"]``): a game that ends is restarted at once (the returned
  observation is the new game's); ``infos["final_obs"]`` holds the learner's last
  observation of the finished game (``None`` for the others), ``infos["final_info"]`` the
  infos of that last step (``learner_seat`` and ``final_scores``, each with its ``_key``
  mask), ``infos["_final_obs"]`` / ``infos["_final_info"]`` mark those games
  and ``infos["final_scores"]`` holds their scores.
* ``learner_seat`` is a seat, or ``None`` for a random seat per game and episode
  (``infos["learner_seat"]``).
* An illegal learner action raises :class:`~tabletop_zoo.envs.errors.IllegalActionError`
  and changes nothing. So does a batched opponent policy's output that is not one legal
  integer action per game it was asked about (the message names the game row): a step is
  a transaction, undone on any error (the policy's own exceptions included).
* ``states`` is a read-only view of the rows; the env owns them and steps them without
  re-checking (:meth:`FastEngineBase.check_states` is for rows from outside).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gymnasium.vector import AutoresetMode

from tabletop_zoo.envs.registry import fast_engine, get_spec
from tabletop_zoo.wrappers.vector_batched import BatchedPolicy, BatchedVectorEnv
from tabletop_zoo.wrappers.vector_pool import OpponentMix, PoolVectorEnv

__all__ = ["BatchedVectorEnv", "make_vector_env"]


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
    spec = get_spec(game)
    engine = fast_engine(spec.name, num_players, max_turns=max_turns, **options)
    if isinstance(opponent, (list, tuple)):
        return PoolVectorEnv(engine, num_envs, OpponentMix(opponent), learner_seat=learner_seat,
                             reward_mode=reward_mode, seed=seed,
                             autoreset_mode=autoreset_mode)  # fmt: skip
    return BatchedVectorEnv(
        engine, num_envs, opponent, learner_seat, reward_mode, seed, autoreset_mode
    )
