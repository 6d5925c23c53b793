"""A clone that ships Python modules named like Luxe's own dependencies
(`attrs.py`, `trio.py`, `httpx.py`) or the standard library's (`json.py`),
and a person whose PYTHONPATH holds a relative entry: an empty one (a
stray colon: `PYTHONPATH=$PYTHONPATH:/x` with it unset), `.`, or a
relative folder. Before, starting `luxe` in the clone ran its `attrs.py`
inside Luxe, and a hook's or a tool's Python script imported its `json.py`.
Luxe now drops those entries from its own import path before importing
anything, and from every child's PYTHONPATH. Through the real `luxe`
console script, as a person starts it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLMServer
from tests.luxe.rpc_driver import LuxeProcess

from .e2e import MODEL, call, executable, global_config, tool_results, write_json

LUXE_SCRIPT = [str(Path(sys.executable).parent / "luxe")]
PLANTED = ("attrs", "trio", "httpx", "cattrs", "json")
SPELLINGS = {
    "an empty entry (a leading colon)": ("", ":{other}"),
    "an empty entry (a trailing colon)": ("", "{other}:"),
    "a dot": ("", ".:{other}"),
    "a relative folder": ("lib", "lib"),
}


def plant(repo: Path, folder: str, ran: Path) -> None:
    (repo / folder).mkdir(exist_ok=True)
    for name in PLANTED:
        (repo / folder / f"{name}.py").write_text(
            f"open({str(ran)!r}, 'a').write('{name} imported\\n')\n"
        )


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_no_module_of_the_clone_runs_in_luxe_or_its_children(
    spelling: str, repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    folder, value = SPELLINGS[spelling]
    plant(repo, folder, ran)
    other = tmp_path / "elsewhere"
    other.mkdir()
    script = tmp_path / "tool.py"
    script.write_text("import json\nprint(json.dumps({'tool': 'ran'}))\n")
    hook = executable(tmp_path / "hook.py", "#!/usr/bin/env python3\nimport json, sys\njson.load(sys.stdin)\n")
    write_json(global_config(env) / "hooks.json", {"BeforeToolUse": [{"command": [hook]}]})
    steps = [{"tool_calls": [call("bash", command=f"python3 {script}")]}, {"text": "done"}]
    with FakeLLMServer(steps) as server:
        full = {**env, "ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test-key",
                "PYTHONPATH": value.format(other=other)}  # fmt: skip
        args = ["--model", MODEL, "--permission-mode", "yolo"]
        with LuxeProcess.start(args, cwd=repo, env=full, command=LUXE_SCRIPT) as luxe:
            luxe.handshake()
            luxe.send("submit_user_message", {"text": "go"})
            luxe.collect_until("turn_ended")
            assert luxe.close() == 0
        results = tool_results(server.bodies[-1])
    assert '{"tool": "ran"}' in results[0], results
    assert not ran.exists(), ran.read_text()
