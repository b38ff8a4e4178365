"""A person at the terminal as an agent: moves typed in the game's notation, line by line
(stdin by default, so a session can be scripted). At the prompt: a move, ``?``/``moves``,
``board``, ``help``, ``rules``, or ``stop`` (``quit``, ``exit``, ``q``: asks, then abandons
with :class:`GameAbandoned`; end of input abandons without asking). The texts come from the
game's ``help`` module (``NOTATION_HELP``, ``RULES_SUMMARY``), else generic ones.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

import numpy as np

from tabletop_zoo.envs._display import game_spec

STOP_WORDS = ("stop", "quit", "exit", "q")
MOVES_WORDS = ("?", "moves")
YES_WORDS = ("y", "yes")
COMMANDS_HELP = (
    "commands: '?' or 'moves' lists the legal moves, 'board' prints the board,\n"
    "          'help' explains the notation, 'rules' summarises the rules, 'stop' ends the game"
)
GENERIC_NOTATION = "type a move as the game writes it; '?' lists the legal moves in that notation"
GENERIC_RULES = "no rules summary for this game; 'tabletop-zoo rules' lists the rules pages"


class GameAbandoned(Exception):
    """The person stopped the game (confirmed ``stop``, or end of input)."""


def read_stdin() -> str | None:
    """One line from stdin, or ``None`` at end of input."""
    return sys.stdin.readline() or None


def help_module(state: Any) -> Any:
    """The help module the spec of ``state``'s game names (``GameSpec.help``), or ``None``
    (a game without one, or a state of no registered game)."""
    spec = game_spec(state)
    return None if spec is None else spec.help_module()


def game_texts(state: Any) -> tuple[str, str]:
    """``(NOTATION_HELP, RULES_SUMMARY)`` of the game of ``state`` (generic texts if the game
    has no ``help`` module)."""
    texts = help_module(state)
    if texts is None:
        return GENERIC_NOTATION, GENERIC_RULES
    return texts.NOTATION_HELP, texts.RULES_SUMMARY


class HumanAgent:
    """Asks a person for each move until a legal one is typed: ``read()`` gives the next
    input line (``None`` at end of input; default stdin), prompts go to ``output`` (default
    ``sys.stdout`` at the time of writing), ``show_board`` answers ``board`` (default: the
    state's text board)."""

    def __init__(
        self,
        read: Callable[[], str | None] | None = None,
        output: TextIO | None = None,
        show_board: Callable[[Any], None] | None = None,
        name: str = "human",
    ) -> None:
        self.name = name
        self._read = read or read_stdin
        self._output = output
        self._show_board = show_board

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any) -> int:
        """Prompt until a legal move is typed; :class:`GameAbandoned` if the person stops."""
        seat = f"player_{state.current_player}"
        while True:
            line = self._prompt(f"{seat}, your move ('?' for legal moves, 'help'): ")
            if line is None:  # end of input: nobody left to ask
                raise GameAbandoned("end of input")
            text = line.strip()
            if not text:
                continue
            word = text.lower()
            if word in STOP_WORDS:
                answer = self._prompt("stop this game? (y/n): ")
                if answer is None or answer.strip().lower() in YES_WORDS:
                    raise GameAbandoned(word)
                continue
            if self._command(word, state):
                continue
            try:
                action = state.string_to_action(text)
            except ValueError as exc:  # NotationError / IllegalActionError
                self._write(f"not a legal move: {exc} (type '?' to list the legal moves)")
                continue
            if action not in state.legal_actions():
                self._write(f"{text!r} is not legal now (type '?' to list the legal moves)")
                continue
            return action

    def _write(self, text: str, end: str = "\n") -> None:
        out = self._output if self._output is not None else sys.stdout
        out.write(text + end)
        out.flush()

    def _prompt(self, text: str) -> str | None:
        """Show ``text`` without a newline and read the answer (``None``: end of input)."""
        self._write(text, end="")
        line = self._read()
        if line is None:
            self._write("")
        return line

    def _command(self, word: str, state: Any) -> bool:
        """Answer ``?``, ``board``, ``help`` or ``rules``; False for anything else."""
        if word in MOVES_WORDS:
            moves = [state.action_to_string(a) for a in state.legal_actions()]
            self._write(f"legal moves ({len(moves)}): {' '.join(moves)}")
        elif word == "board":
            if self._show_board is not None:
                self._show_board(state)
            else:
                self._write(str(state))
        elif word in ("help", "rules"):
            notation, rules = game_texts(state)
            self._write(f"{notation}\n{COMMANDS_HELP}" if word == "help" else rules)
        else:
            return False
        return True
