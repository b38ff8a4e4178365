"""Optional extras: every entry point that needs one says in one line how to install it."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from tabletop_zoo.envs import extras
from tabletop_zoo.envs.extras import (
    EXTRAS,
    MissingExtraError,
    install_command,
    missing_modules,
    require_extra,
)

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_every_extra_named_here_exists_in_pyproject() -> None:
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(declared)
    # one progress-bar library: tqdm (SB3's own bar would need rich as well)
    assert not any(req.startswith("rich") for req in declared["train"])
    assert any(req.startswith("tqdm") for req in declared["train"])


def test_missing_modules_sees_blocked_and_absent_modules(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # what `import numpy` would refuse
    assert missing_modules(["numpy", "json", "no_such_module_xyz"]) == [
        "numpy",
        "no_such_module_xyz",
    ]


def test_install_command_fits_how_the_package_was_installed(monkeypatch) -> None:
    monkeypatch.setattr(extras, "_installed_from_a_clone", lambda: True)
    assert install_command("train") == 'pip install -e ".[train]"'
    monkeypatch.setattr(extras, "_installed_from_a_clone", lambda: False)
    # nothing is published on an index: a wheel install is told to install from a clone
    assert install_command("train") == (
        'pip install ".[train]" in a clone of the tabletop-zoo repository'
    )


def test_this_checkout_counts_as_a_clone() -> None:
    assert install_command("render") == 'pip install -e ".[render]"'


def test_require_extra_is_one_line_naming_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    with pytest.raises(MissingExtraError) as info:
        require_extra("train", "something")
    message = str(info.value)
    assert "\n" not in message
    assert message == (
        "something needs the 'train' extra (missing: sb3_contrib); "
        'install it with: pip install -e ".[train]"'
    )
    assert isinstance(info.value, ImportError)
    require_extra("train", "something", ("tqdm",))  # only what is asked for is checked
    with pytest.raises(ValueError, match="unknown extra 'gpu'"):
        require_extra("gpu", "x")


def test_ppo_agent_without_the_extra(monkeypatch, tmp_path) -> None:
    from tabletop_zoo.baselines import make_agent

    model = tmp_path / "model.zip"
    model.write_bytes(b"not read: the extra is checked first")
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    with pytest.raises(MissingExtraError, match=r"ppo:PATH\) needs the 'train' extra"):
        make_agent(f"ppo:{model}")


def test_library_plots_and_training_without_the_extra(monkeypatch, tmp_path) -> None:
    from tabletop_zoo.baselines.evaluation.tournament import TournamentResult
    from tabletop_zoo.baselines.training import TrainConfig, plot_learning_curve, train

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtraError, match="tournament chart needs the 'train' extra"):
        TournamentResult("g", 2, ["a", "b"]).plot(tmp_path / "t.png")
    with pytest.raises(MissingExtraError, match="learning curve needs the 'train' extra"):
        plot_learning_curve(tmp_path / "eval.csv", tmp_path / "c.png")
    with pytest.raises(MissingExtraError, match="training .* needs the 'train' extra"):
        train(TrainConfig(runs_dir=str(tmp_path)))
    assert list(tmp_path.iterdir()) == []  # nothing written
