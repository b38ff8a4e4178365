"""The batched vector env's class, :class:`BatchedVectorEnv` (the ``fast`` extra);
:func:`tabletop_zoo.wrappers.vector.make_vector_env` makes it; docs/fast.md documents it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from tabletop_zoo.envs._aec_base import (
    REWARD_MODES,
    choice_option,
    positive_int_option,
    seat_option,
)
from tabletop_zoo.envs.compiled.checks import active_rows
from tabletop_zoo.envs.errors import IllegalActionError, InvalidOptionError, UsageError

if TYPE_CHECKING:
    from tabletop_zoo.envs.compiled.protocol import FastEngine

#: ``policy(observations, action_masks) -> actions`` for the games in the batch where an
#: opponent is to move (observations from the mover's side).
BatchedPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]
OPPONENTS = ("random", "greedy")


@dataclass
class Outcome:
    """What a step returns besides observations: the learner's rewards, which games
    ended and how, the final observations and infos (filled as games end)."""

    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    finals: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def empty(cls, num_envs: int) -> Outcome:
        """Nothing ended yet in ``num_envs`` games."""
        return cls(
            np.zeros(num_envs, np.float32), np.zeros(num_envs, bool), np.zeros(num_envs, bool)
        )


class BatchedVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of one configuration on a compiled engine, one learner per game.

    Args:
        engine: a compiled engine following :class:`~tabletop_zoo.envs.compiled.protocol.FastEngine`
            (``tabletop_zoo.envs.registry.fast_engine(...)``).
        num_envs: number of games stepped together.
        opponent: ``"random"``, ``"greedy"`` (both compiled) or a batched policy.
        learner_seat: the learner's seat, or ``None`` for a random seat per episode.
        reward_mode: ``"win"`` or ``"score"``.
        seed: default seed of the first ``reset()``.
        autoreset_mode: ``AutoresetMode.SAME_STEP`` (default: finished games restart inside
            ``step``) or ``AutoresetMode.DISABLED`` (they wait, masked out, until
            ``reset(options={"reset_mask": ...})`` restarts them; TorchRL's choice).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}
    autoreset_mode = AutoresetMode.SAME_STEP
    AUTORESET_MODES = (AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)

    def __init__(
        self,
        engine: FastEngine,
        num_envs: int,
        opponent: str | BatchedPolicy = "random",
        learner_seat: int | None = 0,
        reward_mode: str = "win",
        seed: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
    ) -> None:
        num_envs = positive_int_option("num_envs", num_envs)
        modes = {m.value.lower(): m for m in self.AUTORESET_MODES}  # "samestep", "disabled"
        key = autoreset_mode.value if isinstance(autoreset_mode, AutoresetMode) else autoreset_mode
        key = key.lower().replace("_", "") if isinstance(key, str) else None
        if key not in modes:
            raise InvalidOptionError(
                f"autoreset_mode must be one of {[m.value for m in self.AUTORESET_MODES]}, "
                f"got {autoreset_mode!r}"
            )
        if not (opponent in OPPONENTS or callable(opponent)):
            raise InvalidOptionError(
                f"opponent must be one of {OPPONENTS} or a batched policy "
                f"(observations, masks) -> actions, got {opponent!r}"
            )
        learner_seat = seat_option(
            "learner_seat", learner_seat, engine.num_players, "a random seat per episode"
        )
        reward_mode = choice_option("reward_mode", reward_mode, REWARD_MODES)
        self.autoreset_mode = modes[key]
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.engine = engine
        self.num_envs = num_envs
        self.opponent = opponent
        self.learner_seat_option = learner_seat
        self.reward_mode = reward_mode
        self._default_seed = seed
        self.single_observation_space = gymnasium.spaces.Box(
            0.0, 1.0, engine.observation_shape, dtype=np.float32
        )
        self.single_action_space = gymnasium.spaces.Discrete(engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._states = engine.new_states(num_envs)
        self.learner_seat = np.zeros(num_envs, dtype=np.int64)
        self._ended = np.zeros(num_envs, dtype=bool)  # finished, waiting (DISABLED mode)
        self._rng = np.random.default_rng(seed)
        self._ready = False

    @property
    def states(self) -> np.ndarray:
        """The rows of the ``num_envs`` games (a read-only view: the env owns them)."""
        view = self._states.view()
        view.flags.writeable = False
        return view

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start ``num_envs`` new games (only those of ``options["reset_mask"]``, a bool
        array, when given) and play the opponents up to the learner's turn (all or
        nothing, like :meth:`step`)."""
        mask = (options or {}).get("reset_mask")
        if mask is not None:
            if not self._ready:
                raise UsageError("reset(options={'reset_mask': ...}) before a full reset()")
            mask = active_rows(mask, self.num_envs, "reset_mask")
        return self._undoable(self._reset, seed, mask)

    def _reset(
        self, seed: int | list[int] | None, mask: np.ndarray | None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if isinstance(seed, list):
            seed = seed[0] if seed else None
        if seed is None and not self._ready:
            seed = self._default_seed
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if mask is None:
            self.engine.seed(int(self._rng.integers(2**31)))
            self._states = self.engine.new_states(self.num_envs, int(self._rng.integers(2**31)))
            mask = np.ones(self.num_envs, dtype=bool)
        else:
            if seed is not None:
                self.engine.seed(int(self._rng.integers(2**31)))
            self.engine.reset_games_trusted(self._states, mask)
        self._ended[mask] = False
        self._draw_seats(mask)
        self._play_opponents(Outcome.empty(self.num_envs))
        self._ready = True
        return self._observe(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's action in every game, then the opponents' replies; autoreset.

        All or nothing: on any error (an illegal learner action, a bad opponent output)
        the games, seats and random generators are as before the call."""
        if not self._ready:
            raise UsageError("step() before reset(): call reset() first to start the games")
        if self._ended.any():
            raise UsageError(
                f"game rows {np.flatnonzero(self._ended).tolist()[:8]} have ended "
                "(autoreset_mode DISABLED): call reset(options={'reset_mask': ...}) first"
            )
        return self._undoable(self._step, actions)

    def _step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        # the engine checks every learner action before it changes a row
        result = self.engine.step_trusted(self._states, actions, autoreset=False)
        out = Outcome.empty(self.num_envs)
        self._finish(result, np.ones(self.num_envs, dtype=bool), out)
        self._play_opponents(out)
        return self._observe(), out.rewards, out.terminated, out.truncated, self._infos(out.finals)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, num_actions)`` bool: the learner's legal actions (sb3-contrib name;
        none in the games that have ended and wait for a reset)."""
        mask = self.engine.legal_mask_trusted(self._states)
        mask[self._ended] = False
        return mask

    def sample_legal_actions(self) -> np.ndarray:
        """A uniformly random legal action per game for the learner (compiled)."""
        return self.engine.random_actions_trusted(self._states)

    def get_state(self) -> tuple[Any, ...]:
        """Everything the games to come depend on (rows, seats, the generators): with
        :meth:`set_state` a training run goes on after a restart as if never stopped."""
        return self._snapshot()

    def set_state(self, state: tuple[Any, ...]) -> None:
        """Put back a :meth:`get_state` of an env made with the same settings."""
        self._restore(tuple(state))
        self._ready = True

    # ------------------------------------------------------------------ internals
    def _transactional(self) -> bool:
        """Whether a step must be undoable: an opponent policy may raise or return an
        illegal action after the learner's moves were made (compiled players cannot)."""
        return callable(self.opponent)

    def _undoable(self, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)``; on any error, the env as before the call (when
        :meth:`_transactional`)."""
        snapshot = (self._snapshot(), self._ready) if self._transactional() else None
        try:
            return call(*args)
        except BaseException:
            if snapshot is not None:
                self._restore(snapshot[0])
                self._ready = snapshot[1]
            raise

    def _snapshot(self) -> tuple[Any, ...]:
        """What a step may change: rows, seats, the seat generator, numba's generator."""
        from tabletop_zoo.envs.compiled.common import compiled_random_state  # numba: lazily

        return (
            self._states.copy(),
            self.learner_seat.copy(),
            self._ended.copy(),
            self._rng.bit_generator.state,
            compiled_random_state(),
        )

    def _restore(self, snapshot: tuple[Any, ...]) -> None:
        from tabletop_zoo.envs.compiled.common import set_compiled_random_state

        states, seats, ended, rng_state, compiled_state = snapshot
        self._states, self.learner_seat, self._ended = states, seats, ended
        self._rng.bit_generator.state = rng_state
        set_compiled_random_state(compiled_state)

    def _opponent_actions(self, chosen: Any, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The batched policy's output checked before anything is played: one integer
        action per game asked about (no float truncation, no broadcasting), each legal
        (IllegalActionError naming the game row)."""
        try:
            array = np.asarray(chosen)
        except (TypeError, ValueError) as exc:
            raise IllegalActionError(f"opponent policy returned no action array: {exc}") from None
        if array.dtype.kind not in "iu":
            raise IllegalActionError(
                f"opponent policy must return integer actions, got {array.dtype} "
                f"(game rows {rows.tolist()[:8]})"
            )
        if array.shape != (len(rows),):
            raise IllegalActionError(
                f"opponent policy must return shape ({len(rows)},) for the games asked "
                f"about (game rows {rows.tolist()[:8]}), got {array.shape}"
            )
        inside = (array >= 0) & (array < self.engine.num_actions)
        legal = inside.copy()
        legal[inside] = masks[np.flatnonzero(inside), array[inside].astype(np.int64)]
        if not legal.all():
            k = int(np.flatnonzero(~legal)[0])
            allowed = np.flatnonzero(masks[k]).tolist()
            raise IllegalActionError(
                f"opponent policy: game row {rows[k]}: action {array[k]} is not legal; "
                f"legal: {allowed[:20]}"
            )
        return array.astype(np.int64)

    def _draw_seats(self, which: np.ndarray) -> None:
        if self.learner_seat_option is None:
            seats = self._rng.integers(self.engine.num_players, size=self.num_envs)
            self.learner_seat[which] = seats[which]
        else:
            self.learner_seat[which] = self.learner_seat_option

    def _observe(self) -> np.ndarray:
        return self.engine.observe_trusted(self._states, self.learner_seat)

    def _infos(self, finals: dict[str, Any] | None = None) -> dict[str, Any]:
        mask, seats = self.action_masks(), self.learner_seat.copy()
        return {"action_mask": mask, "learner_seat": seats, **(finals or {})}

    def _finish(self, result: Any, active: np.ndarray, out: Outcome) -> None:
        """Learner rewards and final observations of the games that just ended (into
        ``out``); restart them."""
        rewards, finals = out.rewards, out.finals
        ended = active & (result.terminated | result.truncated)
        if not ended.any():
            return
        rows = np.flatnonzero(ended)
        seats = self.learner_seat[rows]
        scores = result.final_scores[rows]
        if self.reward_mode == "win":
            rewards[rows] = result.rewards[rows, seats]
        else:
            others = scores.copy()
            others[np.arange(len(rows)), seats] = np.iinfo(np.int64).min
            rewards[rows] = scores[np.arange(len(rows)), seats] - others.max(axis=1)
        out.terminated[rows] = result.terminated[rows]
        out.truncated[rows] = result.truncated[rows]
        if self.autoreset_mode == AutoresetMode.DISABLED:  # the game waits for a reset
            self._ended[rows] = True
            return
        if not finals:
            b, n = self.num_envs, self.engine.num_players
            info = {
                "learner_seat": np.zeros(b, np.int64),
                "final_scores": np.zeros((b, n), np.int64),
            }
            finals["final_obs"] = np.full(b, None, dtype=object)
            finals["final_scores"] = np.zeros((b, n), np.int64)
            finals["final_info"] = info
            for group in (finals, info):  # Gymnasium's "_key" masks: which games have "key"
                for key in list(group):
                    group[f"_{key}"] = np.zeros(b, dtype=bool)
        last = self.engine.observe_trusted(self._states[rows], seats)
        for k, row in enumerate(rows):
            finals["final_obs"][row] = last[k]
        info = finals["final_info"]
        finals["final_scores"][rows] = info["final_scores"][rows] = scores
        info["learner_seat"][rows] = seats
        for group in (finals, info):
            for key in group:
                if key.startswith("_"):
                    group[key][rows] = True
        self.engine.reset_games_trusted(self._states, ended)
        self._draw_seats(ended)

    def _play_opponents(self, out: Outcome) -> None:
        """Let the opponents decide, in batch, until the learner is to act in every game."""
        while True:
            mover = self._states[:, self.engine.player_column]
            active = (mover >= 0) & (mover != self.learner_seat) & ~self._ended
            if not active.any():
                return
            self._opponents_round(mover, active, out)

    def _opponents_round(self, mover: np.ndarray, active: np.ndarray, out: Outcome) -> None:
        """The opponents' decisions in the ``active`` games (``mover`` to act): compiled
        players up to the learner's turn at once, a policy one decision per game."""
        if self.opponent in OPPONENTS:
            result = self.engine.play_opponents_trusted(
                self._states, self.learner_seat, self.opponent, active
            )
        else:
            rows = np.flatnonzero(active)
            states = self._states[rows]
            masks = self.engine.legal_mask_trusted(states)
            chosen = self.opponent(self.engine.observe_trusted(states, mover[rows]), masks)
            actions = np.zeros(self.num_envs, dtype=np.int64)
            actions[rows] = self._opponent_actions(chosen, rows, masks)
            result = self.engine.step_trusted(self._states, actions, autoreset=False, active=active)
        self._finish(result, active, out)
