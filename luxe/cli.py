"""`luxe` command line: argv -> Options, then the composition root.

Only argparse and the standard library load before `--help`/`--version`
answer; trio and the engine load after the flags are known to be good.
Exit status 2 means the command line was refused (a message says why).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from luxe import __version__
from luxe.options import PERMISSION_MODES, Options


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="luxe",
        description="Luxe, a coding agent. `luxe --rpc` speaks NDJSON on stdin/stdout "
        "(see docs/rpc.md).",
        epilog="Model precedence: --model, then $LUXE_MODEL, then `model` in "
        "$XDG_CONFIG_HOME/luxe/settings.json, then anthropic/claude-sonnet-4-5.",
    )
    p.add_argument("--version", action="version", version=f"luxe {__version__}")
    p.add_argument("--rpc", action="store_true", help="run headless, speaking JSON lines")
    p.add_argument(
        "--model",
        metavar="SPEC",
        help="provider/name (anthropic/…, openai/…, ollama/…) or scripted:PATH "
        "(replay a JSONL script offline)",
    )
    p.add_argument(
        "--permission-mode",
        choices=PERMISSION_MODES,
        help="ask (default): write/edit/bash ask; accept-edits: write/edit run, bash asks; "
        "read-only: only read tools run; yolo: everything runs",
    )
    p.add_argument(
        "-c", "--continue", dest="continue_latest", action="store_true",
        help="continue the latest session of this directory",
    )
    p.add_argument("--resume", metavar="ID", help="resume the session with this id")
    p.add_argument(
        "--github-writes", action="store_true",
        help="let the client publish to GitHub through your gh: open, review, comment, merge, "
        "restack (read-only wins; see docs/github.md)",
    )
    p.add_argument(
        "--issue", type=int, metavar="N",
        help="start with GitHub issue N (title, body, comments) as context, read through gh",
    )
    p.add_argument(
        "--from-pr", type=int, metavar="N",
        help="check out pull request N's head and load its review threads as context",
    )
    p.add_argument(
        "--worktree", nargs="?", const="", metavar="NAME",
        help="work in a new git worktree and branch NAME (default from the issue or pull "
        "request, e.g. luxe/issue-42-fix-retry); ready.cwd is the worktree",
    )
    p.add_argument("--read-only", action="store_true", help="same as --permission-mode read-only")
    p.add_argument("--yolo", action="store_true", help="same as --permission-mode yolo")
    p.add_argument(
        "--auto-approve", action="store_true",
        help="answer every permission prompt with `auto` (a deny still denies)",
    )
    p.add_argument(
        "--trust-project", action="store_true",
        help="also load the project's .luxe/hooks.json and .luxe/permissions.json "
        "(a project's hooks run arbitrary commands, so they are opt-in per invocation)",
    )
    p.add_argument("--verbose", action="store_true", help="also log to stderr")
    p.add_argument(
        "--max-turns", type=int, metavar="N",
        help="model requests allowed per prompt before the turn ends with max_turns",
    )
    p.add_argument(
        "--on-ask", metavar="POLICY",
        help="answer prompts without a person (refused with --rpc: the client answers prompts)",
    )
    return p


def parse_args(argv: Sequence[str]) -> Options:
    """Parse argv; exits 2 with a message for any flag combination it refuses."""
    parser = _parser()
    ns = parser.parse_args(argv)
    if ns.on_ask is not None and ns.rpc:
        parser.error("--on-ask is refused with --rpc: your client answers permission prompts")
    if ns.on_ask is not None:
        parser.error("--on-ask needs the interactive interface, which this build does not have")
    if not ns.rpc:
        parser.error("the interactive interface is not built yet; run `luxe --rpc` (see --help)")
    if ns.read_only and ns.yolo:
        parser.error("--read-only and --yolo contradict each other")
    if ns.continue_latest and ns.resume:
        parser.error("-c/--continue and --resume ID contradict each other")
    mode = ns.permission_mode
    for flag, implied in (("--read-only", "read-only"), ("--yolo", "yolo")):
        if getattr(ns, flag[2:].replace("-", "_")):
            if mode not in (None, implied):
                parser.error(f"{flag} contradicts --permission-mode {mode}")
            mode = implied
    for flag, number in (("--issue", ns.issue), ("--from-pr", ns.from_pr)):
        if number is not None and number < 1:
            parser.error(f"{flag} needs a positive number")
    if ns.max_turns is not None and ns.max_turns < 1:
        parser.error("--max-turns must be at least 1")
    if ns.model is not None:
        from luxe.providers.registry import parse_model_spec

        try:
            parse_model_spec(ns.model)
        except ValueError as exc:
            parser.error(str(exc))
    return Options(
        rpc=ns.rpc,
        model=ns.model,
        permission_mode=mode,
        continue_latest=ns.continue_latest,
        resume=ns.resume,
        github_writes=ns.github_writes,
        auto_approve=ns.auto_approve,
        trust_project=ns.trust_project,
        verbose=ns.verbose,
        max_turns=ns.max_turns,
        issue=ns.issue,
        from_pr=ns.from_pr,
        worktree=ns.worktree,
    )


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(sys.argv[1:] if argv is None else argv)
    from luxe.app import run

    return run(options)


if __name__ == "__main__":
    sys.exit(main())
