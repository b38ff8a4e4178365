"""The record of a run's games: every finished game appended to ``<out>/games.jsonl``.

``evaluate``, ``rate`` and ``make-reference ladder`` hand a :class:`GameLog` to
:func:`~.matches.play_seatings`, which writes each game as it finishes (one JSON line,
flushed), so a run killed by any signal loses only the games in flight; with ``resume``
the games recorded are kept and only the others are played. The first line holds the
run's configuration (command, game, agents, options, model file digests, package version)
and its fingerprint: a record of another run is refused in one line. A game line names
its match (a command may play several), its slot in the schedule and the
:class:`~.matches.MatchRecord` (its moves too: :func:`replay` plays them again and checks
the result); the tables are computed from the records in schedule
order, and :meth:`GameLog.finish` rewrites the file in that order, so a resumed run ends
with the same files as an uninterrupted one, byte for byte. A torn last line (a process
killed mid-write) is dropped. Appending is the one write that is not atomic: a line is
whole or, torn, dropped.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import hashlib
import json
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tabletop_zoo.baselines.agents import parse_agent_spec
from tabletop_zoo.baselines.evaluation.matches import MatchRecord
from tabletop_zoo.envs._files import write_text_atomic, writing
from tabletop_zoo.envs.errors import InvalidOptionError

FILE_NAME = "games.jsonl"
FORMAT = "tabletop-zoo games 1"
RESUME_HELP = (
    f"play only the games not yet recorded in --out's {FILE_NAME} (a run stopped by Ctrl-C, "
    "a kill or a dead worker): the same tables as an uninterrupted run"
)


def add_flags(parser: argparse.ArgumentParser, default: str, tables: bool = False) -> None:
    """``--out FOLDER`` (``default``; the record of the games, and the tables if ``tables``),
    ``--resume`` and ``--no-progress``, as every command that records its games has them."""
    from tabletop_zoo.baselines import cli

    holds = f"the record of the games ({FILE_NAME})" + (" and the tables" if tables else "")
    parser.add_argument("--out", type=cli.output_folder(), default=default,
                        help=f"output folder: {holds} (default {default})")  # fmt: skip
    parser.add_argument("--resume", action="store_true", help=RESUME_HELP)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def progress(args: argparse.Namespace, script: str) -> bool:
    """Whether the games show a progress bar (tqdm, on stderr): unless ``--no-progress``;
    then a missing ``train`` extra is said before anything is played."""
    from tabletop_zoo.baselines import cli
    from tabletop_zoo.envs.extras import require_extra

    if not args.no_progress:
        require_extra("train", f"the progress bar of {cli.program(script)}", ("tqdm",))
    return not args.no_progress


def model_digests(specs: Sequence[str]) -> dict[str, str]:
    """SHA-256 of the model file of every ``ppo:``/``az:`` spec and of the Python file of
    every ``py:`` one (a retrained model at the same path makes another run)."""
    out = {}
    for spec in specs:
        kind, path, _number = parse_agent_spec(spec)
        path = path.rpartition(":")[0] if kind == "py" else path
        if kind in ("ppo", "az", "py") and Path(path).is_file():
            out[spec] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return out


class GameLog:
    """The games of one run (``config``: JSON values) in ``folder/games.jsonl``, replaced
    when a new log adds its first game, loaded with ``resume=True`` (``InvalidOptionError``
    if missing, of another run or corrupt); :meth:`part` is the view of one match that
    :func:`~.matches.play_seatings` reads (:meth:`played`) and writes (:meth:`add`)."""

    def __init__(self, folder: str | Path, config: Mapping[str, Any], resume: bool = False):
        from tabletop_zoo import __version__

        self.path = Path(folder) / FILE_NAME
        self.config = json.loads(json.dumps({**config, "version": __version__}))
        text = json.dumps(self.config, sort_keys=True)
        fingerprint = hashlib.sha256(text.encode()).hexdigest()[:16]
        self.header = json.dumps({"format": FORMAT, "fingerprint": fingerprint, "config": text})
        self.lines: dict[tuple[int, int], str] = {}
        self.games: dict[tuple[int, int], MatchRecord] = {}
        self.match, self._resume = 0, resume
        if resume:
            self._load()

    def _load(self) -> None:
        where = f"--resume: {str(self.path)!r}"
        if not self.path.is_file():
            folder = str(self.path.parent)
            raise InvalidOptionError(f"--resume: no record of a run in {folder!r} (no {FILE_NAME})")
        data = self.path.read_bytes()
        whole = data[: data.rfind(b"\n") + 1]
        if len(whole) < len(data):  # a torn last line: the game is played again
            with self.path.open("r+b") as handle:
                handle.truncate(len(whole))
        header, self.lines, self.games = _parse(whole, where)
        if header != json.loads(self.header):
            theirs = _json_object(header.get("config"))
            keys = sorted(set(theirs) | set(self.config))
            changed = [k for k in keys if theirs.get(k) != self.config.get(k)] or ["config"]
            raise InvalidOptionError(
                f"{where} is the record of another run (its {', '.join(changed)} differ): "
                "resume with the same command and flags, or start anew without --resume"
            )

    def part(self, match: int) -> GameLog:
        """The view of match number ``match`` of the run (the same file)."""
        view = copy.copy(self)
        view.match = match
        return view

    def played(self) -> dict[int, MatchRecord]:
        """The recorded games of this match by their slot in its schedule."""
        return {slot: g for (match, slot), g in self.games.items() if match == self.match}

    def add(self, slot: int, record: MatchRecord) -> None:
        """Append the game of ``slot`` (one line, handed to the system at once); a failed
        write is an ``OSError`` naming the file (the torn line is dropped on resume)."""
        line = json.dumps({"match": self.match, "slot": slot, **dataclasses.asdict(record)})
        if not self._resume and not self.lines:  # (shared by the views of matches)
            write_text_atomic(self.path, self.header + "\n")
        self.games[self.match, slot] = record
        self.lines[self.match, slot] = line
        with writing(self.path), self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    def records(self) -> list[tuple[int, MatchRecord]]:
        """``(match, record)`` of every game, in match and schedule order."""
        return [(key[0], self.games[key]) for key in sorted(self.games)]

    def finish(self) -> None:
        """Rewrite the file whole (atomically) in match and schedule order."""
        lines = [self.header, *(self.lines[key] for key in sorted(self.lines))]
        write_text_atomic(self.path, "\n".join(lines) + "\n")

    def stopped(self, program: str, argv: Sequence[str]) -> str:
        """What a stopped run says: the games recorded and the command that resumes it
        (``program argv --resume``)."""
        resume = shlex.join(
            [*program.split(), *argv, *([] if "--resume" in argv else ["--resume"])]
        )
        return f"{len(self.games)} games recorded in {self.path}; to play the rest: {resume}"


def _parse(data: bytes, where: str) -> tuple[dict, dict, dict[tuple[int, int], MatchRecord]]:
    """The header, the lines and the games (by match and slot) of a record's whole lines;
    ``InvalidOptionError`` naming ``where`` if it is not a record of ours."""
    lines = data.decode("utf-8", "replace").splitlines()
    header = _json_object(lines[0] if lines else None)
    if header.get("format") != FORMAT:
        raise InvalidOptionError(f"{where}: not a games record of tabletop-zoo")
    texts, games = {}, {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            entry = json.loads(line)
            key = (int(entry.pop("match")), int(entry.pop("slot")))
            if not all(type(entry[f]) is int for f in ("num_players", "steps", "seed")):
                raise ValueError("not an integer")
            entry |= {
                f: tuple(entry[f]) for f in ("agents", "seats", "returns", "moves") if f in entry
            }
            games[key] = MatchRecord(**entry | {"scores": tuple(int(s) for s in entry["scores"])})
        except (ValueError, TypeError, KeyError, AttributeError):
            raise InvalidOptionError(f"{where}: line {number} is not a game") from None
        texts[key] = line
    return header, texts, games


def read_games(path: str | Path, flag: str = "--from") -> tuple[dict, dict, str]:
    """The run's configuration, its games by match and slot, and ``where`` (``flag`` and the
    file) of a record (a ``games.jsonl`` or the folder holding it; a torn last line
    dropped); ``InvalidOptionError`` in one line if it is no record of ours."""
    path = Path(path) / FILE_NAME if Path(path).is_dir() else Path(path)
    where = f"{flag}: {str(path)!r}"
    if not path.is_file():
        raise InvalidOptionError(f"{where}: no such file (a run's {FILE_NAME} or its folder)")
    data = path.read_bytes()
    header, _lines, games = _parse(data[: data.rfind(b"\n") + 1], where)
    return _json_object(header.get("config")), games, where


def replay(path: str | Path, flag: str = "--from") -> int:
    """Play the moves of every game of a record (:func:`read_games`) again on a new env
    reset with the game's seed, and check that each is legal and that the game ends with
    the recorded steps, returns and scores; no agent runs. The number of games, or
    ``InvalidOptionError`` in one line naming the first game that differs."""
    from tabletop_zoo.envs.errors import TabletopZooError
    from tabletop_zoo.envs.registry import make_raw_env
    from tabletop_zoo.envs.results import final_result

    _config, games, where = read_games(path, flag)
    for (match, slot), game in sorted(games.items()):
        name = f"{where}: game {slot} of match {match}"
        if not game.moves:
            raise InvalidOptionError(f"{name} has no moves (recorded before moves were kept)")
        try:
            env = make_raw_env(game.game, game.num_players)
            env.reset(seed=game.seed)
            for move in game.moves:  # the raw env refuses an illegal move, or one after the end
                env.step(move)
        except TabletopZooError as exc:
            raise InvalidOptionError(f"{name}: {exc}") from None
        state = env.unwrapped.game_state
        played = final_result(state) if state.is_terminal() else "an unfinished game"
        recorded = (list(game.returns), list(game.scores))
        if played != recorded or game.steps != len(game.moves):
            raise InvalidOptionError(
                f"{name}: its {len(game.moves)} moves give {played} (returns, scores), "
                f"recorded: {recorded} after {game.steps} steps"
            )
    return len(games)


def read_game(path: str | Path, match: int, slot: int) -> tuple[dict[str, Any], MatchRecord]:
    """The run's configuration and the game at ``match`` and ``slot`` of a record (a
    ``games.jsonl`` or the folder holding it); ``InvalidOptionError`` in one line if there
    is no such record or game."""
    config, games, where = read_games(path)
    if (match, slot) not in games:
        slots = sorted(s for m, s in games if m == match)
        held = f"slots {slots[0]}..{slots[-1]}" if slots else "no game"
        raise InvalidOptionError(f"{where} has no game at slot {slot} of match {match} ({held})")
    return config, games[match, slot]


def _json_object(text: Any) -> dict:
    """``text`` parsed as a JSON object, ``{}`` if it is not one."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
