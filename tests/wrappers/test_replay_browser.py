"""HTML replays in a real browser (headless Chromium through Selenium, one session for all):
stepping through every move of a recorded game, the drawn position equals the engine's at
that move, the analysis overlay's numbers equal the recorded ones, and the page logs no
error. Skipped, with how to install them, without Chromium, its driver or Selenium."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tabletop_zoo.baselines.agents import make_agent
from tabletop_zoo.baselines.evaluation.arena import play_game
from tabletop_zoo.envs.registry import make_env
from tabletop_zoo.wrappers.recording import RecordEpisode
from tests.envs.svg_positions import check_picture

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
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync"]  # fmt: skip
#: (game, agents): every player count, each kind of analysis (visits, priors, a policy)
GAMES_TO_WATCH = [
    ("mole_hill", ["mcts:3", "ref:mole_hill-2p-ppo"]),
    ("arktia", ["ref:arktia-2p-alphazero:4", "random"]),
    ("arktia", ["random", "mcts:4", "random"]),
    ("arktia", ["random"] * 4),
]
#: one script call per position: press the right arrow, then read what the page shows
STEP = """
if (arguments[0]) document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight"}));
const svg = document.querySelector("#board svg");
const marks = [...svg.querySelectorAll(".overlay circle")];
return {now: window.replay.now, svg: new XMLSerializer().serializeToString(svg),
        overlay: marks.map((m) => [m.dataset.cell, +m.dataset.share, +m.dataset.number]),
        top: [...document.querySelectorAll("#top-moves tr")].map((r) => r.dataset.move)};
"""


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


def recorded_game(game: str, specs: list[str], path: Path) -> tuple[RecordEpisode, list]:
    """Play and record one game with analysis; the engine's state at every position."""
    agents = [make_agent(spec, seed=i) for i, spec in enumerate(specs)]
    env = RecordEpisode(make_env(game, len(specs)), path=path, agents=agents)
    states = []
    play_game(env, agents, seed=len(specs), on_start=lambda e: states.append(e.game_state.clone()),
              on_step=lambda e, seat, a: states.append(e.game_state.clone()))  # fmt: skip
    return env, states


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
def test_every_position_of_a_replay_shows_the_engines_state(
    browser, game, specs, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("TABLETOP_ZOO_FAST", "0")  # tiny searches: not worth compiling
    env, states = recorded_game(game, specs, tmp_path / "game.html")
    frames = env.replay
    assert len(frames) == len(states) > 10
    browser.get((tmp_path / "game.html").as_uri())
    assert browser.find_element(By.ID, "result").text == frames[-1]["lines"][1]
    analysed = 0
    for i, state in enumerate(states):
        shown = browser.execute_script(STEP, i > 0)
        assert shown["now"] == i
        check_picture(game, shown["svg"], state)
        expected = by_cell(frames[i + 1]["analysis"] if i + 1 < len(frames) else None)
        overlay = {cell: (share, number) for cell, share, number in shown["overlay"]}
        assert overlay.keys() == expected.keys()
        for cell, (share, number) in expected.items():
            assert overlay[cell] == pytest.approx((share, number), abs=1e-3)
        analysed += bool(expected)
        if expected:
            a = frames[i + 1]["analysis"]
            best = max(range(len(a["share"])), key=a["share"].__getitem__)
            assert shown["top"][0] == a["moves"][best]
    assert (analysed > 0) == (specs != ["random"] * len(specs))
    browser.find_element(By.ID, "prev").click()
    moves = browser.find_elements(By.CSS_SELECTOR, "#moves li")
    moves[3].click()
    assert browser.execute_script("return window.replay.now") == 3
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
