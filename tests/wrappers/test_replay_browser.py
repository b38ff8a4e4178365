"""HTML replays in a real browser (headless Chromium through Selenium, one session for all):
stepping through every frame of a recorded game, the drawn position and the status lines
equal what the engine's states give at that move (round and phase ends included: Mole
Hill's finished round 1 before round 2's cleared garden, Arktia's setup and opening rounds
named on the board they leave), the analysis overlay's numbers equal the recorded ones,
the move list keeps the current move in view, and the page logs no error. Skipped, with
how to install them, without Chromium, its driver or Selenium."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.evaluation.arena import play_game
from tabletop_zoo.envs.registry import GAMES, make_env
from tabletop_zoo.wrappers.recording import RecordEpisode
from tests.envs.svg_positions import READ, drawn

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
try:
    from selenium import webdriver
    from selenium.webdriver.common.by import By
except ImportError:
    webdriver = None
if webdriver is None or CHROMIUM is None or DRIVER is None:
    pytest.skip(
        "browser tests need Chromium and Selenium: apt-get install -y chromium chromium-driver "
        "and pip install -e '.[browser]'",
        allow_module_level=True,
    )

pytestmark = pytest.mark.slow
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,1000"]  # fmt: skip  # taller than the board: no band above it
#: (game, agents): every player count, each kind of analysis (visits, priors, a policy)
GAMES_TO_WATCH = [
    ("mole_hill", ["mcts:3", "ref:mole_hill-2p-ppo"]),
    ("arktia", ["ref:arktia-2p-alphazero:4", "random"]),
    ("arktia", ["random", "mcts:4", "random"]),
    ("arktia", ["random"] * 4),
]
#: one script call per frame: press the right arrow, then read what the page shows
STEP = """
if (arguments[0]) document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight"}));
const svg = document.querySelector("#board svg");
const box = svg.getBoundingClientRect(), view = svg.viewBox.baseVal;
const list = document.getElementById("moves").getBoundingClientRect();
const now = document.querySelector("#moves li.now").getBoundingClientRect();
return {now: window.replay.now, svg: new XMLSerializer().serializeToString(svg),
        status: [...document.querySelectorAll("#status div")].map((d) => d.textContent),
        overlay: [...svg.querySelectorAll(".overlay circle")].map((m) => [m.dataset.cell,
          +m.dataset.share, +m.dataset.number, +m.dataset.labelled, +m.getAttribute("cy")]),
        labels: [...svg.querySelectorAll(".overlay text")].map((t) => +t.getAttribute("y")),
        top: [...document.querySelectorAll("#top-moves tr")].map((r) => r.dataset.move),
        of: [...document.querySelectorAll("#top-moves tr")].map((r) => r.children[2].textContent),
        band: box.height - box.width * view.height / view.width,
        followed: now.top >= list.top && now.bottom <= list.bottom};
"""
#: the most target cells the overlay writes its number on
LABELLED = 12


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="tabletop-zoo-chromium-")
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(DRIVER))
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def recorded_game(game: str, specs: list[str], path: Path) -> tuple[RecordEpisode, list, list]:
    """Play and record one game with analysis; the engine's state at every position and
    every action played."""
    agents = [make_agent(spec, seed=i) for i, spec in enumerate(specs)]
    env = RecordEpisode(make_env(game, len(specs)), path=path, agents=agents)
    states, actions = [], []

    def step(e, seat, action) -> None:
        states.append(e.game_state.clone())
        actions.append(action)

    start = lambda e: states.append(e.game_state.clone())  # noqa: E731
    play_game(env, agents, seed=len(specs), on_step=step, on_start=start)
    return env, states, actions


def played_on(position: dict, notation: str) -> dict:
    """A Mole Hill position (as the pictures give it) with one more move: a rod or a step."""
    if "-" in notation:
        return {**position, "rods": sorted([*position["rods"], notation])}
    return {**position, "trail": [*position["trail"], (len(position["trail"]) + 1, notation)]}


def expected_frames(game: str, states: list, actions: list) -> list[tuple[dict, list, list]]:
    """What each frame shows, from the engine's states and the rules: the position as the
    picture's data attributes give it, the scores, and the status lines (the second, if
    given, as its start). A move that ends a round or phase names it; Mole Hill clears the
    garden for round 2 (M10), so round 1's finished garden comes first, under that move."""
    spec, position = GAMES[game], READ[game][1]
    gui, rounds = spec.gui_module(), spec.help_module().ROUND_NAMES
    frames = [(position(states[0]), states[0].scores(), ["start of the game"])]
    for k, (before, after, action) in enumerate(
        zip(states[:-1], states[1:], actions, strict=True), 1
    ):
        notation = before.action_to_string(action)
        line = f"move {k}: {gui.seat_label(before, before.current_player)} played {notation}"
        if after.round == before.round:
            frames.append((position(after), after.scores(), [line]))
        elif game == "mole_hill":
            finished = played_on(position(before), notation)
            frames.append((finished, [*after.round_scores, 0], [line, "round 1 is over"]))
            frames.append((position(after), after.scores(), ["round 2 begins"]))
        else:
            frames.append(
                (position(after), after.scores(), [line, f"{rounds[before.round]} is over, "])
            )
    return frames


def by_cell(analysis: dict | None) -> dict[str, tuple[float, float]]:
    """The shares and numbers summed per target cell (what the overlay shows)."""
    cells: dict[str, list[float]] = {}
    if analysis is None:
        return {}
    columns = (analysis[k] for k in ("cells", "share", "numbers"))
    for cell, share, number in zip(*columns, strict=True):
        if cell is not None and share > 0:
            total = cells.setdefault(cell, [0.0, 0.0])
            total[0] += share
            total[1] += number
    return {cell: (share, number) for cell, (share, number) in cells.items()}


@pytest.mark.parametrize(("game", "specs"), GAMES_TO_WATCH, ids=lambda x: str(x))
def test_every_frame_of_a_replay_shows_the_engines_state(
    browser, game, specs, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("TABLETOP_ZOO_FAST", "0")  # tiny searches: not worth compiling
    env, states, actions = recorded_game(game, specs, tmp_path / "game.html")
    frames, expected = env.replay, expected_frames(game, states, actions)
    assert len(frames) == len(expected) > 10
    assert any(len(lines) > 1 for *_, lines in expected)  # every game has round ends
    browser.get((tmp_path / "game.html").as_uri())
    assert browser.find_element(By.ID, "result").text == frames[-1]["lines"][1]
    analysed = 0
    for i, (position, scores, lines) in enumerate(expected):
        shown = browser.execute_script(STEP, i > 0)
        assert shown["now"] == i and shown["followed"] and shown["band"] <= 1
        root, items = drawn(shown["svg"])
        assert READ[game][0](items) == position
        assert root.get("data-scores") == ",".join(map(str, scores))
        assert shown["status"][: len(lines) - 1] == lines[:-1]
        assert shown["status"][len(lines) - 1].startswith(lines[-1])
        assert (" is over" in shown["status"][1]) == (len(lines) > 1)
        analysis = frames[i + 1]["analysis"] if i + 1 < len(frames) else None
        check_overlay(shown, analysis)
        analysed += analysis is not None
    assert (analysed > 0) == (specs != ["random"] * len(specs))
    browser.find_element(By.ID, "prev").click()
    moves = browser.find_elements(By.CSS_SELECTOR, "#moves li")
    moves[3].click()
    assert browser.execute_script("return window.replay.now") == 3
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def check_overlay(shown: dict, analysis: dict | None) -> None:
    """The overlay shades every target cell with its recorded share and number, writes the
    number above the cell's centre on at most ``LABELLED`` of them (the largest shares), and
    the table lists the top moves, as shares "of the search" or "of the policy"."""
    expected = by_cell(analysis)
    overlay = {cell: (share, number) for cell, share, number, *_ in shown["overlay"]}
    assert overlay.keys() == expected.keys()
    for cell, (share, number) in expected.items():
        assert overlay[cell] == pytest.approx((share, number), abs=1e-3)
    labelled = [mark for mark in shown["overlay"] if mark[3]]
    assert len(labelled) == len(shown["labels"]) <= LABELLED
    assert all(y < mark[4] for y, mark in zip(shown["labels"], labelled, strict=True))
    faint = [mark[1] for mark in shown["overlay"] if not mark[3] and round(mark[2]) > 0]
    assert not faint or len(labelled) == LABELLED and min(m[1] for m in labelled) >= max(faint)
    if expected:
        best = max(range(len(analysis["share"])), key=analysis["share"].__getitem__)
        assert shown["top"][0] == analysis["moves"][best]
        of = "policy" if analysis["what"] == "policy" else "search"
        assert all(text.endswith(f"% of the {of}") for text in shown["of"])
