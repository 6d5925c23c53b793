"""`laura`: the host (`laura`, `laura -- CMD ARGS`) and the client verbs.

Client verbs import only the standard library, `laura.protocol` and
`laura.client`: a verb must cost little more than starting Python. The host
imports trio and blessed lazily, on its own path.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from laura import __version__, protocol
from laura.client import ClientError, request, tab_name
from laura.controls import pictured

DESCRIPTION = """\
Laura: a terminal workspace hosting a shell or an agent beside file panes.

  laura                 run the workspace, hosting $SHELL in tab 1
  laura -- CMD ARGS     run the workspace, hosting CMD in tab 1
  laura --agent [ARGS]  run the workspace, hosting the luxe agent (luxe ARGS) in tab 1

The verbs below talk to the tab named by $LAURA_TAB (set inside every tab)."""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, told the width up front: left to itself it
    imports shutil (and with it bz2 and lzma) on every parser build."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            try:
                width = os.get_terminal_size(sys.stdout.fileno()).columns - 2
            except (OSError, ValueError):
                width = 78
        super().__init__(prog, indent_increment, max_help_position, max(width, 40))

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        # argparse would show "START [END ...]"; this option takes at most two.
        if isinstance(action, _StartEnd) and isinstance(action.metavar, tuple):
            start, end = action.metavar
            return f"{start} [{end}]"
        return super()._format_args(action, default_metavar)


class _StartEnd(argparse.Action):
    """`--opt START [END]`: one or two values (argparse has no nargs for
    that, so it takes "+" and refuses a third here, at parse time)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if len(values) > 2:
            parser.error(f"{option_string} takes START [END], got {len(values)} values")
        setattr(namespace, self.dest, values)


def _pane_id(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a pane id: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"not a pane id: {text!r}")
    return value


def _line(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a line number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"line numbers start at 1, got {value}")
    return value


def _ratio(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percent: {text!r}") from None
    if not 1 <= value <= 99:
        raise argparse.ArgumentTypeError(f"ratio must be 1..99, got {value}")
    return value


def _open_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", help="the file (relative paths resolve against your cwd)")
    p.add_argument("--split", type=_pane_id, metavar="ID", help="pane to split (default: focused)")
    p.add_argument(
        "--dir",
        choices=("h", "v", "horizontal", "vertical"),
        help="h: side by side, v: stacked (default: inferred)",
    )
    p.add_argument("--ratio", type=_ratio, metavar="N", help="the new pane's percent, 1..99")
    p.add_argument("--side", choices=("first", "second"), help="where the new pane lands")
    p.add_argument("--no-focus", action="store_true", help="keep focus where it is")
    p.add_argument(
        "--dry-run", action="store_true", help="print the would-be layout; change nothing"
    )
    p.add_argument(
        "--highlight",
        type=_line,
        nargs="+",
        action=_StartEnd,
        metavar=("START", "END"),
        help="light lines START..END",
    )
    p.add_argument("--diff", action="store_true", help="open in the diff view vs HEAD")
    p.add_argument("--panel", type=_pane_id, metavar="ID", help="replace pane ID's file in place")
    p.add_argument("--follow", action="store_true", help="keep the cursor on the last line")


def _close_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("pane", type=_pane_id, nargs="?", metavar="ID")
    p.add_argument("--all", action="store_true", help="close every file pane")


def _focus_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("pane", type=_pane_id, metavar="ID")


def _highlight_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("start", type=_line, nargs="?", metavar="START")
    p.add_argument("end", type=_line, nargs="?", metavar="END")
    p.add_argument("--pane", type=_pane_id, metavar="ID", help="default: the focused pane")
    p.add_argument("--off", action="store_true", help="clear the highlight")


def _diff_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pane", type=_pane_id, metavar="ID", help="default: the focused pane")
    p.add_argument("--off", action="store_true", help="turn the diff view off")


def _layout_args(p: argparse.ArgumentParser) -> None:
    pass


def _ready_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--session", metavar="S", help="journal session id")
    p.add_argument("--agent", metavar="NAME", help="the agent's name (authors its comments)")


def _comment_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("line", type=_line, metavar="LINE")
    p.add_argument("body", metavar="BODY")
    p.add_argument("--pane", type=_pane_id, metavar="ID", help="default: the focused pane")
    p.add_argument("--author", metavar="NAME", help="default: the ready --agent name, else agent")


def _tail_args(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Copy stdin into a spool file in $LAURA_RUNTIME and show it in a new pane that "
        "keeps up as it grows (CMD | laura tail). Focus stays where it is; the pane id is "
        "printed. The spool is deleted when the pane or its tab closes."
    )
    p.add_argument("--title", metavar="T", help="names the spool file (default: tail)")
    p.add_argument("--follow", action="store_true", help="keep the pane pinned to the end")
    p.add_argument("--split", type=_pane_id, metavar="ID", help="pane to split (default: focused)")
    p.add_argument("--dir", choices=("h", "v", "horizontal", "vertical"), default="h", help="default: h")
    p.add_argument("--ratio", type=_ratio, metavar="N", default=50, help="the new pane's percent")


def _journal_args(p: argparse.ArgumentParser) -> None:
    """`laura journal` parses its own arguments (laura.journal)."""


VERBS = {
    "open": (_open_args, "split a pane and show a file in the new pane; prints its id"),
    "close": (_close_args, "close a file pane (default: the focused one)"),
    "focus": (_focus_args, "focus a pane (0 is the shell)"),
    "highlight": (_highlight_args, "light a 1-based line range in a pane and scroll to it"),
    "diff": (_diff_args, "toggle a pane's diff view vs git HEAD"),
    "layout": (_layout_args, "print the layout report (JSON)"),
    "ready": (_ready_args, "mark the tab as hosting an agent"),
    "comment": (_comment_args, "annotate a line of a file pane"),
    "tail": (_tail_args, "show piped input in a new pane (CMD | laura tail); prints its id"),
    # Listed for --help; `main` hands `journal` to laura.journal before parsing.
    "journal": (_journal_args, "print journal events, oldest first (no tab needed)"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The CLI parser; with `only`, just that verb's subparser is built (a
    verb's run pays for one subparser, not eight)."""
    parser = argparse.ArgumentParser(
        prog="laura",
        description=DESCRIPTION,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"laura {__version__}")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")
    for verb, (add_arguments, help_text) in VERBS.items():
        if only is None or only == verb:
            sub = verbs.add_parser(
                verb, help=help_text, description=help_text, formatter_class=_Formatter
            )
            add_arguments(sub)
            # So a check made after parsing prints this verb's usage, not laura's.
            sub.set_defaults(verb_parser=sub)
    return parser


def build_request(args: argparse.Namespace, parser: argparse.ArgumentParser) -> protocol.Request:
    """The request for a parsed verb; a combination argparse cannot check
    exits 2 with the verb's own usage and a message saying what is wrong."""
    verb = args.verb
    parser = getattr(args, "verb_parser", parser)
    if verb == "open":
        if args.panel is not None and any(
            value is not None for value in (args.split, args.dir, args.ratio, args.side)
        ):
            parser.error(
                "--panel replaces a pane in place: it can't be combined with --split/--dir/--ratio/--side"
            )
        highlight = None
        if args.highlight:
            start, end = args.highlight[0], args.highlight[-1]
            if end < start:
                parser.error(f"--highlight END ({end}) must not be before START ({start})")
            highlight = (start, end)
        return protocol.Open(
            # Absolute against the client's cwd (the host's may differ),
            # normalised as the host opens it, so the report shows that path.
            path=os.path.abspath(args.path),
            split=args.split,
            dir={"h": "horizontal", "v": "vertical"}.get(args.dir, args.dir),
            ratio=args.ratio,
            side=args.side,
            focus=not args.no_focus,
            follow=args.follow,
            dry_run=args.dry_run,
            highlight=highlight,
            diff=args.diff,
            panel=args.panel,
        )
    if verb == "close":
        if args.all and args.pane is not None:
            parser.error("close takes a pane ID or --all, not both")
        return protocol.Close(pane=args.pane, all=args.all)
    if verb == "focus":
        return protocol.Focus(pane=args.pane)
    if verb == "highlight":
        if args.off:
            if args.start is not None:
                parser.error("highlight takes START [END] or --off, not both")
            return protocol.Highlight(pane=args.pane, range=None)
        if args.start is None:
            parser.error("highlight needs START (or --off)")
        end = args.start if args.end is None else args.end
        if end < args.start:
            parser.error(f"END ({end}) must not be before START ({args.start})")
        return protocol.Highlight(pane=args.pane, range=(args.start, end))
    if verb == "diff":
        return protocol.DiffView(pane=args.pane, on=False if args.off else None)
    if verb == "layout":
        return protocol.Layout()
    if verb == "ready":
        return protocol.Ready(session=args.session, agent=args.agent)
    if verb == "comment":
        return protocol.Comment(line=args.line, body=args.body, pane=args.pane, author=args.author)
    raise AssertionError(verb)


def printable(text: object) -> str:
    """`text` with control characters shown, not obeyed (laura.controls): a
    warning or an error names a path, and a file name may hold escape codes
    (a title, a cleared screen) for the terminal the client prints to."""
    return pictured(str(text))


def print_response(response: dict[str, Any]) -> int:
    kind = response.get("type")
    body = {key: value for key, value in response.items() if key != "type"}
    if kind == "error":
        print(f"Error: {printable(body.get('message', 'unknown error'))}", file=sys.stderr)
        return 1
    if kind == "opened":
        for warning in body.get("warnings") or []:
            print(printable(warning), file=sys.stderr)
        print(body.get("pane"))
    elif kind in ("report", "ready"):
        print(json.dumps(body, indent=2, ensure_ascii=False))
    return 0


def run_client(argv: list[str]) -> int:
    parser = build_parser(argv[0] if argv[0] in VERBS else None)
    args = parser.parse_args(argv)
    if args.verb is None:
        parser.print_help()
        return 2
    if args.verb == "tail":
        return run_tail(args)
    message = build_request(args, parser)
    try:
        return print_response(request(tab_name(), message))
    except (ClientError, protocol.ProtocolError) as exc:
        print(f"Error: {printable(exc)}", file=sys.stderr)
        return 1


def run_tail(args: argparse.Namespace) -> int:
    """`CMD | laura tail`: spool stdin to `$LAURA_RUNTIME/<title>-<pid>.txt`,
    open it in a pane without taking focus, print the pane id, then copy
    until EOF. If the pane cannot be opened the spool is removed."""
    from laura.spool import copy_until_eof, create_spool, runtime_dir, spool_path

    if sys.stdin.isatty():
        print("Error: laura tail reads a pipe: CMD | laura tail", file=sys.stderr)
        return 2
    try:
        name = tab_name()
    except ClientError as exc:
        print(f"Error: {printable(exc)}", file=sys.stderr)
        return 1
    def refused(reason: str) -> None:
        print(f"laura tail: not that runtime directory: {printable(reason)}", file=sys.stderr)

    path = spool_path(runtime_dir(refused=refused), args.title, os.getpid())
    message = protocol.Open(
        path=str(path),
        split=args.split,
        dir={"h": "horizontal", "v": "vertical"}.get(args.dir, args.dir),
        ratio=args.ratio,
        side=None,
        focus=False,
        follow=args.follow,
        spool=True,
    )
    try:
        spool_file = create_spool(path)
    except OSError as exc:
        print(f"Error: cannot create the spool {printable(str(path))}: "
              f"{printable(exc.strerror or str(exc))}", file=sys.stderr)
        return 1
    with spool_file as spool:
        try:
            status = print_response(request(name, message))
        except (ClientError, protocol.ProtocolError) as exc:
            print(f"Error: {printable(exc)}", file=sys.stderr)
            status = 1
        if status != 0:
            os.unlink(path)
            return status
        sys.stdout.flush()
        try:
            copy_until_eof(sys.stdin.buffer, spool)
        except KeyboardInterrupt:
            return 130
    return 0


def run_host(command: list[str] | None) -> int:
    import trio  # the host's stack loads only here

    from laura.app import run_host as host_main

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("Error: laura needs a terminal (stdin and stdout must be a tty)", file=sys.stderr)
        return 1
    try:
        return trio.run(host_main, command)
    except FileNotFoundError as exc:
        print(f"Error: cannot run {exc.filename or command}: {exc.strerror}", file=sys.stderr)
        return 1


def find_luxe() -> str | None:
    """The `luxe` to host: on PATH, else installed beside this laura."""
    import program_path

    found = program_path.which("luxe")
    where = os.path.dirname(sys.argv[0] or "")
    if found is None and os.path.isabs(where):  # never the working directory's
        beside = os.path.join(where, "luxe")
        if os.path.isfile(beside) and os.access(beside, os.X_OK):
            found = beside
    return found


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        return run_host(None)
    if args[0] == "--":
        if len(args) == 1:
            print("Error: `laura --` needs a command to host", file=sys.stderr)
            return 2
        return run_host(args[1:])
    if args[0] == "--agent":
        luxe = find_luxe()
        if luxe is None:
            print(
                "Error: `laura --agent` hosts luxe, which is not on PATH; "
                "use `laura -- AGENT` for another agent",
                file=sys.stderr,
            )
            return 2
        return run_host([luxe, *args[1:]])
    if args[0] == "journal":
        from laura.journal import journal_main

        return journal_main(args[1:])
    return run_client(args)


if __name__ == "__main__":
    sys.exit(main())
