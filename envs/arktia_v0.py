"""Arktia as a PettingZoo AEC environment (``tabletop_zoo/arktia-v0``).

``env(**options)`` gives the raw env wrapped like PettingZoo's classic games
(TerminateIllegalWrapper: an illegal action ends the game with -1 for the offender and 0
for everyone else; AssertOutOfBoundsWrapper; OrderEnforcingWrapper); ``raw_env`` raises
:class:`~tabletop_zoo.envs.errors.IllegalActionError` on an illegal action and changes
nothing; ``parallel_env``: the Parallel API (:mod:`tabletop_zoo.envs._parallel`).

Options (keyword arguments of ``env`` / ``raw_env``, in this order; the code is in
:mod:`tabletop_zoo.envs.arktia.env`):

* ``num_players``: 2, 3 or 4 (default 2); agents ``player_0`` .. ``player_{n-1}``, seat
  ``i`` = ``player_i``, seat 0 moves first.
* ``render_mode``: None, ``"human"``, ``"ansi"``, ``"rgb_array"`` or ``"svg"``.
* ``reward_mode``: ``"win"`` (default; +1 sole top scorer, 0 for players tied for top,
  -1 for everyone else) or ``"score"`` (own score minus the best other score).
* ``max_turns``: positive int (default :data:`DEFAULT_MAX_TURNS`): after that many
  completed turns (``game.turn``) every agent is truncated and rewarded from the scores
  as the position stands (ruling R23).
* ``layout``: None (the default board of R2 for ``num_players``) or an ASCII layout (R2, R3).
* ``neutral_pieces``: None (default: True for 2 players, False for 3 and 4), True or False
  (R5; not allowed with 4 players).
* ``observation_layout``: ``"hwc"`` (default; planes ``(rows, cols, planes)``) or ``"chw"``
  (``(planes, rows, cols)``, for libraries whose networks want channels first).

The turn cycle, rewards, errors and copies are those of every game
(:mod:`tabletop_zoo.envs._aec_base`). A turn with several decisions (move or placement,
then group choices, then a melt) is several consecutive steps of the same agent; players
whose game has ended are skipped. ``env.unwrapped.game_state`` is the live
:class:`~tabletop_zoo.envs.arktia.ArktiaState`, ``env.unwrapped.engine`` the
:class:`~tabletop_zoo.envs.arktia.ArktiaGame`; ``info`` of every agent is
``{"scores": [...]}``. The observation planes are documented in
:mod:`tabletop_zoo.envs.arktia.observation`.
"""

from tabletop_zoo.envs._parallel import parallel_face
from tabletop_zoo.envs.arktia.env import ALLOWED_OPTIONS, DEFAULT_MAX_TURNS, env, raw_env

parallel_env = parallel_face(raw_env)
__all__ = ["ALLOWED_OPTIONS", "DEFAULT_MAX_TURNS", "env", "parallel_env", "raw_env"]
