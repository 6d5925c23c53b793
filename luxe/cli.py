"""`luxe` command line: argv -> Options, then the composition root (through
print mode's entry point for `-p`).

Only argparse, attrs (the options) and the standard library load before `--help`/`--version`
answer; trio and the engine load after the flags are known to be good.
Exit status 2 means the command line was refused (a message says why).
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence

from luxe import __version__
from luxe.options import ON_ASK, OUTPUT_FORMATS, PERMISSION_MODES, Options, PrintOptions


class _Formatter(argparse.HelpFormatter):
    """One line per flag: a fixed width, wide enough for every flag's help."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30, width=92)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="luxe",
        usage="luxe [options] [PROMPT] | luxe -p [options] [PROMPT] | luxe --rpc [options] "
        "| luxe --version | luxe --help",
        description="Luxe, a coding agent. `luxe` starts the interface in this terminal "
        "(see docs/interface.md); `luxe -p PROMPT` answers one prompt and exits "
        "(see docs/print.md); `luxe --rpc` speaks NDJSON on stdin/stdout (see docs/rpc.md).",
        formatter_class=_Formatter,
        epilog="Models: anthropic/…, openai/…, ollama/… or scripted:PATH (replays a JSONL "
        "script). Precedence: --model, $LUXE_MODEL, `model` in "
        "$XDG_CONFIG_HOME/luxe/settings.json, anthropic/claude-sonnet-4-5. "
        "-p exits 0 answered, 1 turn failed, 2 command line refused, 3 a prompt under "
        "--on-ask fail, 4 answered but something was denied, 124 --timeout, 130 SIGINT, "
        "141 stdout closed, 143 SIGTERM.",
    )
    p.add_argument("--version", action="version", version=f"luxe {__version__}")
    session = p.add_argument_group("session")
    session.add_argument(
        "-p", "--print", dest="print_mode", action="store_true",
        help="answer PROMPT (or stdin) headless, then exit",
    )
    session.add_argument(
        "prompt", nargs="?", metavar="PROMPT",
        help="the first prompt (-p: piped stdin is attached as context)",
    )
    session.add_argument("--rpc", action="store_true", help="run headless, speaking JSON lines")
    session.add_argument(
        "-c", "--continue", dest="continue_latest", action="store_true",
        help="continue this directory's latest session",
    )
    session.add_argument(
        "--resume", metavar="ID", nargs="?", const="",
        help="resume session ID (the interface: a picker without ID)",
    )
    session.add_argument(
        "--timeout", type=float, metavar="SECONDS",
        help="-p: cancel cleanly after SECONDS, exit 124",
    )
    model = p.add_argument_group("model")
    model.add_argument(
        "--model",
        metavar="SPEC",
        help="provider/name or scripted:PATH (see below)",
    )
    model.add_argument(
        "--max-turns", type=int, metavar="N",
        help="model requests allowed per prompt",
    )
    permissions = p.add_argument_group("permissions")
    permissions.add_argument(
        "--permission-mode",
        choices=PERMISSION_MODES, metavar="MODE",
        help="ask (default), accept-edits, read-only, yolo",
    )
    permissions.add_argument(
        "--read-only", action="store_true", help="same as --permission-mode read-only"
    )
    permissions.add_argument("--yolo", action="store_true", help="same as --permission-mode yolo")
    permissions.add_argument(
        "--auto-approve", action="store_true",
        help="approve every prompt (a deny still denies)",
    )
    permissions.add_argument(
        "--on-ask", choices=ON_ASK, metavar="POLICY",
        help="-p, prompts with nobody to ask: deny, allow, fail",
    )
    permissions.add_argument(
        "--trust-project", action="store_true",
        help="also load the project's .luxe/ hooks and rules, and run the language "
        "servers that execute or parse what it ships (see docs/lsp.md)",
    )
    github = p.add_argument_group("github (through your gh; see docs/github.md)")
    github.add_argument(
        "--github-writes", action="store_true",
        help="let the client publish to GitHub",
    )
    github.add_argument(
        "--issue", type=int, metavar="N",
        help="start from issue N (as context)",
    )
    github.add_argument(
        "--from-pr", type=int, metavar="N",
        help="check out pull request N, its threads as context",
    )
    github.add_argument(
        "--worktree", nargs="?", const="", metavar="NAME",
        help="work in a new worktree and branch",
    )
    output = p.add_argument_group("output")
    output.add_argument(
        "--output-format", choices=OUTPUT_FORMATS, metavar="FORMAT",
        help="-p: text (default), json, stream-json",
    )
    output.add_argument(
        "--plain", action="store_true",
        help="the interface as labelled plain lines (screen readers)",
    )
    output.add_argument(
        "--verbose", action="store_true",
        help="log (and -p's tool activity) to stderr too",
    )
    return p


def parse_args(argv: Sequence[str]) -> Options:
    """Parse argv; exits 2 with a message for any flag combination it refuses."""
    parser = _parser()
    ns = parser.parse_args(argv)
    if ns.on_ask is not None and ns.rpc:
        parser.error("--on-ask is refused with --rpc: your client answers permission prompts")
    if ns.print_mode and ns.rpc:
        parser.error("-p and --rpc contradict each other: -p answers one prompt, --rpc a client")
    if not ns.print_mode:
        for flag, value in (
            ("--on-ask", ns.on_ask), ("--output-format", ns.output_format),
            ("--timeout", ns.timeout),
        ):
            if value is not None:
                parser.error(f"{flag} needs -p (print mode)")
    if ns.rpc and ns.prompt is not None:
        parser.error("PROMPT needs -p or the interface; with --rpc send submit_user_message")
    if (ns.rpc or ns.print_mode) and ns.resume == "":
        parser.error("--resume needs a session id with -p or --rpc")
    if ns.plain and (ns.rpc or ns.print_mode):
        parser.error("--plain is for the interface (not -p or --rpc)")
    if ns.read_only and ns.yolo:
        parser.error("--read-only and --yolo contradict each other")
    if ns.continue_latest and ns.resume is not None:
        parser.error("-c/--continue and --resume ID contradict each other")
    mode = ns.permission_mode
    for flag, given, implied in (("--read-only", ns.read_only, "read-only"), ("--yolo", ns.yolo, "yolo")):
        if given:
            if mode not in (None, implied):
                parser.error(f"{flag} contradicts --permission-mode {mode}")
            mode = implied
    for flag, number in (("--issue", ns.issue), ("--from-pr", ns.from_pr)):
        if number is not None and number < 1:
            parser.error(f"{flag} needs a positive number")
    if ns.max_turns is not None and ns.max_turns < 1:
        parser.error("--max-turns must be at least 1")
    if ns.timeout is not None and not 0 < ns.timeout < float("inf"):
        parser.error("--timeout must be a positive number of seconds")
    if ns.prompt is not None and not ns.prompt.strip():
        parser.error("PROMPT is empty")
    if ns.model is not None:
        from luxe.providers.registry import parse_model_spec

        try:
            parse_model_spec(ns.model)
        except ValueError as exc:
            parser.error(str(exc))
    print_options = (
        PrintOptions(
            prompt=ns.prompt,
            output_format=ns.output_format or "text",
            on_ask=ns.on_ask or "deny",
            timeout_s=ns.timeout,
        )
        if ns.print_mode
        else None
    )
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
        print=print_options,
        prompt=ns.prompt if not ns.print_mode else None,
        plain=ns.plain,
    )


def main(argv: Sequence[str] | None = None) -> int:
    # The start allocates only what lives on (modules, classes), so the cycle
    # collector would run dozens of times finding nothing: it stays off until
    # the warm-up has built the provider and the system prompt (luxe.app).
    gc.disable()
    options = parse_args(sys.argv[1:] if argv is None else argv)
    if options.print is not None:
        from luxe.frontends.print_mode import main_print

        main_print(options)
    if not options.rpc:
        from luxe.frontends.tui.entry import main_interface

        return main_interface(options)
    from luxe.app import run
    from luxe.exit_now import exit_now

    # Everything is written and no child is left once run returns: skip the
    # interpreter's teardown, as -p does (luxe.exit_now).
    exit_now(run(options))


if __name__ == "__main__":
    sys.exit(main())
