"""Test-wide settings: headless pygame and matplotlib; a clean exit after OpenSpiel; model
files (a small MaskablePPO model and crafted copies of it) for the trust tests."""

import os
import sys

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("MPLBACKEND", "Agg")

_EXIT_STATUS: list[int] = []


def pytest_collection_modifyitems(config, items) -> None:
    """The documented pages' commands first, the page with the most commands first (a
    stable sort: the other tests keep their order). With two processes (``-n 2 --dist
    worksteal``) the longest tests then start early, and no long page runs alone at the end
    while the other process idles."""

    def weight(item) -> int:
        callspec = getattr(item, "callspec", None)
        if callspec is None or getattr(item, "originalname", "") != "test_doc_commands_run":
            return 0
        return -sum(len(block.commands) for block in callspec.params["blocks"])

    items.sort(key=weight)


def pytest_sessionfinish(session, exitstatus) -> None:
    """Remember the exit status for :func:`pytest_unconfigure`."""
    _EXIT_STATUS.append(int(exitstatus))


def pytest_unconfigure(config) -> None:
    """After OpenSpiel was loaded, leave without interpreter finalization.

    OpenSpiel 2.0.2's C++ side keeps Python game objects in storage that is torn down after
    the interpreter has shut down; now and then (seen in long runs that load many Python
    games, never in a single test file) that aborts the process with "Fatal Python error:
    PyThreadState_Get ... finalizing" AFTER every test has passed and the summary is
    printed, which turns a green run into exit code 134. Every result is reported by now,
    so we exit with pytest's own status and skip the finalization. Nothing of ours needs it.
    """
    if "pyspiel" in sys.modules and _EXIT_STATUS:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT_STATUS[-1])


# ---------------------------------------------------------------- model files (trust)
class _OpenFile:
    """Pickles as ``open(path, "w")``: unpickling it creates ``path`` (a harmless stand-in
    for any code a crafted model file could run)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def craft_model_zip(source, target, marker, policy_module=None, weights_payload=False) -> None:
    """Copy the MaskablePPO zip ``source`` to ``target`` with every pickled (``:serialized:``)
    entry of ``data`` replaced by a payload that creates the file ``marker`` when unpickled.
    ``policy_module``: also rename the policy class's module in the JSON names;
    ``weights_payload``: ``policy.pth`` becomes the payload too (a pickle, not tensors)."""
    import base64
    import json
    import pickle
    import zipfile

    payload = base64.b64encode(pickle.dumps(_OpenFile(str(marker)))).decode()
    with zipfile.ZipFile(source) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(members["data"])
    for value in data.values():
        if isinstance(value, dict) and ":serialized:" in value:
            value[":serialized:"] = payload
    if policy_module is not None:
        data["policy_class"]["__module__"] = policy_module
    members["data"] = json.dumps(data).encode()
    if weights_payload:
        members["policy.pth"] = pickle.dumps(_OpenFile(str(marker)))
    with zipfile.ZipFile(target, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)


@pytest.fixture(scope="session")
def ppo_files(tmp_path_factory):
    """A small MaskablePPO model for Mole Hill saved by ``model.save`` (``good``) and crafted
    copies whose pickled content would create ``marker``: ``crafted`` (its JSON still names
    our policy class), ``foreign`` (another policy class), ``evil_weights`` (a pickle as
    ``policy.pth``). Needs the ``train`` extra."""
    from types import SimpleNamespace

    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from tabletop_zoo.wrappers.single_agent import make_env

    folder = tmp_path_factory.mktemp("ppo_files")
    env = make_env("mole_hill", 2, opponent="random", seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, policy_kwargs={"net_arch": [16]}, seed=0)
    model.save(folder / "good.zip")
    env.close()
    files = SimpleNamespace(good=folder / "good.zip", marker=folder / "code_ran.txt")
    files.crafted = folder / "crafted.zip"
    craft_model_zip(files.good, files.crafted, files.marker)
    files.foreign = folder / "foreign.zip"
    craft_model_zip(files.good, files.foreign, files.marker, policy_module="evil.policies")
    files.evil_weights = folder / "evil_weights.zip"
    craft_model_zip(files.good, files.evil_weights, files.marker, weights_payload=True)
    return files
