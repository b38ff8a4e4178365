"""The rules-engine protocol (:class:`EngineGame`, :class:`EngineState`; docs/DESIGN.md), and
:class:`StateBase`, what every State does the same way: ``returns()`` from ``scores()``,
``string_to_action`` = parse + legality check, equality through ``to_json()``, ``repr`` and
pickling of ``__slots__`` classes. Standard library and ``tabletop_zoo.envs`` only.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

from tabletop_zoo.envs.errors import IllegalActionError
from tabletop_zoo.envs.results import win_returns


@runtime_checkable
class EngineState(Protocol):
    """A position of a turn-based game with a fixed integer action space."""

    @property
    def current_player(self) -> int:
        """Seat that decides now (``0..n-1``); -1 once the game is over."""
        ...

    def legal_actions(self) -> list[int]:
        """Legal action indices of :attr:`current_player`, ascending (empty when terminal)."""
        ...

    def apply_action(self, action: int) -> None:
        """Play ``action``; ``IllegalActionError`` (and nothing changed) if not legal."""
        ...

    def clone(self) -> EngineState:
        """An independent copy."""
        ...

    def is_terminal(self) -> bool:
        """True once the game is over."""
        ...

    def returns(self) -> list[float]:
        """Per seat: +1 sole top scorer, 0 tied top, -1 others; zeros while not terminal."""
        ...

    def scores(self) -> list[int]:
        """Per seat: the score as the position stands."""
        ...

    def to_json(self) -> str:
        """An exact snapshot that :meth:`from_json` reads back."""
        ...

    @classmethod
    def from_json(cls, text: str) -> EngineState:
        """The state saved by :meth:`to_json`; ``InvalidStateError`` on bad input."""
        ...

    def action_to_string(self, action: int) -> str:
        """Notation of ``action`` in this position."""
        ...

    def string_to_action(self, text: str) -> int:
        """Action of a notation string; ``NotationError`` / ``IllegalActionError``."""
        ...

    def __str__(self) -> str:
        """Plain-text board (golden files, ``ansi`` rendering)."""
        ...


@runtime_checkable
class EngineGame(Protocol):
    """Options and tables of one game configuration; makes initial states."""

    num_players: int
    num_actions: int

    def new_initial_state(self, seed: int | None = None) -> EngineState:
        """The start position (``seed`` draws any chance of the setup)."""
        ...


class StateBase:
    """What every engine State does the same way (see the module docstring).

    Subclasses define ``__slots__``, the protocol methods of the hot path, and
    ``_parse_notation(text) -> int`` (``NotationError`` on bad text) plus
    ``_illegal_action_error(action) -> IllegalActionError`` (the reason in words).
    """

    __slots__ = ()
    #: Name written into saved states (``"game"`` in the JSON).
    game_name: ClassVar[str] = ""

    # the protocol methods every subclass implements (declared for type checkers)
    current_player: int

    def is_terminal(self) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    def scores(self) -> list[int]:  # pragma: no cover - overridden
        raise NotImplementedError

    def legal_actions(self) -> list[int]:  # pragma: no cover - overridden
        raise NotImplementedError

    def to_json(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def _parse_notation(self, text: str) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def _illegal_action_error(self, action: int) -> IllegalActionError:  # pragma: no cover
        raise NotImplementedError

    # ------------------------------------------------------------------ shared behaviour
    def returns(self) -> list[float]:
        """Zeros while the game goes on; then :func:`~tabletop_zoo.envs.results.win_returns`
        of the final scores."""
        if not self.is_terminal():
            return [0.0] * len(self.scores())
        return win_returns(self.scores())

    def string_to_action(self, text: str) -> int:
        """Parse notation for this position: ``NotationError`` if it is not a move at all,
        ``IllegalActionError`` (with the reason) if it is not legal now."""
        action = self._parse_notation(text)
        if action not in self.legal_actions():
            raise self._illegal_action_error(action)
        return action

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.to_json() == other.to_json()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_json({self.to_json()!r})"

    def _repr_svg_(self) -> str | None:
        """The position's SVG picture (Jupyter shows it inline); None for a game without
        one. The drawing is a view module, imported only here."""
        from tabletop_zoo.envs.drawing.svg import state_svg

        return state_svg(self)

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        """Slot values by name: lets ``__slots__`` states pickle under every protocol."""
        state: dict[str, Any] = {}
        for cls in type(self).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if hasattr(self, name):
                    state[name] = getattr(self, name)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
