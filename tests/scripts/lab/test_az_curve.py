"""scripts/lab/az_curve.py on a tiny AlphaZero run."""

from __future__ import annotations

import pytest


def test_curve_evaluates_every_checkpoint_and_plots(script, tmp_path, capsys) -> None:
    pytest.importorskip("torch")
    from tabletop_zoo.baselines.training.alphazero import AlphaZeroConfig, train_alphazero

    out = tmp_path / "az.npz"
    config = AlphaZeroConfig(
        game="mole_hill",
        out=str(out),
        iterations=2,
        games_per_iteration=1,
        num_simulations=2,
        updates_per_iteration=1,
        train_batch=8,
        hidden=(8,),
        checkpoint_seconds=1e-9,
    )
    train_alphazero(config, log=lambda _: None)
    curve = script("az_curve")
    points = curve.checkpoints(out)
    assert points[-1][1] == out  # the final network is last, not its twin checkpoint
    assert len({seconds for seconds, _ in points}) == len(points)
    argv = [str(out), "--game", "mole_hill", "--against", "random", "--simulations", "2"]
    argv += ["--games-per-seat", "1", "--plot", str(tmp_path / "curve.png")]
    assert curve.main(argv) == 0
    lines = [r for r in capsys.readouterr().out.splitlines() if r.startswith("az ")]
    assert len(lines) == len(points) and all(r.split()[-1] == "2" for r in lines)  # 2 seats
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(SystemExit):
        curve.main([str(tmp_path / "missing.npz"), "--game", "mole_hill"])
    assert "no network file" in capsys.readouterr().err
