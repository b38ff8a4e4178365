"""Reference models shipped with the package (``ref:NAME``: :class:`~.numpy_net.DenseNet`
files that play with NumPy alone), and the rating ladders built from them.

``baselines/reference_models/manifest.json`` lists ``models`` (``<game>-<N>p-<kind>`` ->
game, players, kind ``ppo`` or ``alphazero``, file, SHA-256, size, training command and
commit, ladder rating) and ``ladders`` (``<game>-<N>p`` -> the members with their ratings
and the command that fitted them).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_zoo.baselines.agents.alphazero import AlphaZeroAgent, model_shape
from tabletop_zoo.baselines.agents.numpy_net import DenseNet, legal_action, softmax
from tabletop_zoo.baselines.agents.search import legal_from_mask
from tabletop_zoo.baselines.agents.threads import limit_threads
from tabletop_zoo.envs.errors import InvalidOptionError

REFERENCE_DIR = Path(__file__).resolve().parents[1] / "reference_models"
MANIFEST_PATH = REFERENCE_DIR / "manifest.json"


def load_manifest(path: str | Path | None = None) -> dict[str, Any]:
    """The manifest (``{"models": {...}, "ladders": {...}}``; default the shipped one);
    empty sections if missing."""
    path = Path(MANIFEST_PATH if path is None else path)
    data = json.loads(path.read_text()) if path.is_file() else {}
    data.setdefault("models", {})
    data.setdefault("ladders", {})
    return data


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file, hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def reference_entry(name: str, manifest: dict[str, Any] | None = None) -> dict[str, Any]:
    """The manifest entry of model ``name``; ``InvalidOptionError`` listing the names."""
    models = (manifest or load_manifest())["models"]
    if name not in models:
        known = ", ".join(sorted(models)) or "none shipped"
        raise InvalidOptionError(f"unknown reference model {name!r}; known: {known}")
    return models[name]


def reference_path(name: str, manifest: dict[str, Any] | None = None) -> Path:
    """The file of model ``name``, checked against the manifest's SHA-256."""
    entry = reference_entry(name, manifest)
    path = REFERENCE_DIR / entry["file"]
    if not path.is_file():
        raise InvalidOptionError(f"reference model {name!r}: file {path} is missing")
    if file_sha256(path) != entry["sha256"]:
        raise InvalidOptionError(
            f"reference model {name!r}: {path} does not match the manifest's SHA-256 "
            "(a damaged or replaced file; reinstall the package)"
        )
    return path


def ladder_entry(game: str, num_players: int, manifest: dict[str, Any] | None = None) -> dict:
    """The ladder of ``game`` with ``num_players``; ``InvalidOptionError`` listing them."""
    ladders = (manifest or load_manifest())["ladders"]
    key = f"{game}-{num_players}p"
    if key not in ladders:
        known = ", ".join(sorted(ladders)) or "none shipped"
        raise InvalidOptionError(f"no rating ladder for {key!r}; ladders: {known}")
    return ladders[key]


class PolicyNetAgent:
    """Plays a policy network (head ``policy``) from the acting seat's observation: the
    legal action with the largest logit, or with ``deterministic=False`` one drawn from the
    softmax over the legal actions (a stochastic MaskablePPO policy)."""

    def __init__(
        self,
        net: DenseNet,
        name: str = "policy",
        deterministic: bool = True,
        seed: int | None = None,
    ) -> None:
        if "policy" not in net.heads:
            raise InvalidOptionError(f"{name}: the network has no policy head")
        self.net = net
        self.model = model_shape(net.meta)
        self.name = name
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.keep_analysis = False  # True: act() keeps its policy in last_analysis
        self.last_analysis: dict[str, Any] | None = None
        limit_threads()  # a small network: one BLAS thread (TABLETOP_ZOO_THREADS)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the sampling generator."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        """The legal action with the largest logit, or one sampled from the policy."""
        legal = legal_from_mask(action_mask)
        logits = self.net.forward_rows(np.asarray(observation)[None], [legal])[0][0]
        if self.keep_analysis:
            probs = softmax(np.asarray(logits, np.float64))
            self.last_analysis = {"actions": legal.tolist(), "probs": probs.tolist()}
        return legal_action(logits, legal, None if self.deterministic else self.rng)


def reference_agent(name: str, seed: int | None = None, simulations: int | None = None) -> Any:
    """The agent of reference model ``name`` (``ref:NAME``), its file hash checked;
    ``simulations`` (``ref:NAME:N``) replaces an AlphaZero reference's own number."""
    manifest = load_manifest()
    entry = reference_entry(name, manifest)
    if simulations is not None and entry["kind"] != "alphazero":
        raise InvalidOptionError(
            f"'ref:{name}:{simulations}': only AlphaZero references take a number of "
            f"simulations; {name} is a {entry['kind']} policy (use 'ref:{name}')"
        )
    net = DenseNet.load(reference_path(name, manifest))
    if entry["kind"] == "alphazero":
        sims = int(entry.get("simulations", 64)) if simulations is None else simulations
        label = f"ref:{name}" if simulations is None else f"ref:{name}:{simulations}"
        return AlphaZeroAgent(net, num_simulations=sims, seed=seed, name=label)
    deterministic = entry.get("policy", "argmax") == "argmax"
    return PolicyNetAgent(net, name=f"ref:{name}", deterministic=deterministic, seed=seed)
