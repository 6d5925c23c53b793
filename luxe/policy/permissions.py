"""The permission engine: modes, rules, hard denies and redaction.

`decide` is the whole policy and is pure: it judges `CallFacts` (what a call
names, already resolved by `facts.gather_facts`) against the rules and the
mode. The order is fixed and written once, here:

1. hard denies (secret files): nothing lifts them;
2. read-only (the mode, or agent mode `plan`): anything that may change
   files or run a mutating command is refused without asking;
3. deny rules, from any file: a deny anywhere beats any allow;
4. ask rules, and commands that publish to GitHub or push
   (luxe.policy.publishing), except in yolo, where nothing asks;
5. allow rules and the session's `always` answers;
6. the mode's default.

`PolicyGate` is the engine's `PermissionGate`: it gathers the facts (the
thin I/O step), calls `decide`, remembers `always` answers, and redacts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import attrs

from luxe.engine.ports import AgentMode, PermissionVerdict
from luxe.policy.facts import DEFAULT_CATEGORIES, CallFacts, Category, ResolvedPath, gather_facts
from luxe.policy.publishing import publishes
from luxe.policy.rules import Rule, path_matches, rules_for, text_matches
from luxe.policy.secret_identity import opened_is_secret
from luxe.policy.secret_names import could_name_secret, glob_may_name_secret, is_secret_path
from luxe.policy.secret_redaction import Redactor, StreamRedactor
from luxe.policy.secrets import SecretFiles
from luxe.record import record, state

if TYPE_CHECKING:
    import trio

    from luxe.policy.shell import ShellLine  # loaded with the first bash call (luxe.policy.facts)

PermissionMode = Literal["ask", "accept-edits", "read-only", "yolo"]
PERMISSION_MODES: tuple[PermissionMode, ...] = ("ask", "accept-edits", "read-only", "yolo")
# Strictest first: used when a project file may only tighten the mode.
MODE_STRICTNESS: Mapping[str, int] = {"read-only": 0, "ask": 1, "accept-edits": 2, "yolo": 3}


@record
class RuleSet:
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    allow: tuple[Rule, ...] = ()

    def plus(self, other: RuleSet) -> RuleSet:
        return RuleSet(self.deny + other.deny, self.ask + other.ask, self.allow + other.allow)


# -- hard denies -------------------------------------------------------------


def _secret_in(paths: Iterable[ResolvedPath]) -> str | None:
    for p in paths:
        for name in (p.given, p.lexical.absolute, p.real.absolute):
            if is_secret_path(name):
                return p.given if name == p.given else f"{p.given} (-> {name})"
    return None


def secret_named(facts: CallFacts) -> str | None:
    """The secret file a call names, however it names it, or None."""
    hit = _secret_in(facts.paths)
    if hit:
        return hit
    if facts.secret_links and facts.shell is None:
        return f"{facts.secret_links[0]} (a hard link to a secret file)"
    for name in facts.names:
        if is_secret_path(name) or glob_may_name_secret(name):
            return name
    if facts.shell is not None:
        for word in facts.shell.mentioned:
            # `git show HEAD:.env`, `--env-file=.env`: the name hides behind a `:` or `=`.
            for piece in (word, *re.split(r"[:=]", word)):
                if is_secret_path(piece) or glob_may_name_secret(piece):
                    return word
        found = _unresolved_words(facts.shell)
        if found is not None and found[2]:
            return f"{found[1]} (its value is not known before it runs; it could be a secret file)"
        hit = _secret_in(facts.shell_paths)
        if hit:
            return hit
        if facts.secret_links:
            return f"{facts.secret_links[0]} (a hard link to a secret file)"
    return None


# Programs that never open a file named by an argument: a word whose value
# Luxe cannot know (`echo $HOME`) is harmless for them.
NON_READERS = frozenset(
    {
        "echo", "printf", "test", "[", "true", "false", "cd", "pwd", "export", "unset",
        "exit", "return", "shift", "sleep", "wait", "seq", "expr", "basename", "dirname",
        "date", "local", "set",
    }
)


def _unresolved_words(shell: ShellLine) -> tuple[str, str, bool] | None:
    """The first command that may read files and has a word Luxe cannot
    resolve (`cat $F`, `od -c "$(ls)"`, `$PAGER x`): (the command, the
    word as a glob, whether that glob could name a secret file)."""
    first: tuple[str, str, bool] | None = None
    for cmd in shell.commands:
        if not cmd.unresolved:
            continue
        program = next((w for w in cmd.words if "=" not in w.split("/")[0]), "")
        if not cmd.program_unresolved and program.rsplit("/", 1)[-1] in NON_READERS:
            continue
        for pattern in cmd.unresolved:
            base = pattern.rstrip("/").rsplit("/", 1)[-1]
            if base.strip("*") and could_name_secret(base):
                return cmd.text, pattern, True
            if not base.strip("*") or cmd.program_unresolved:
                first = first or (cmd.text, pattern, False)
    return first


# -- rule matching -----------------------------------------------------------


def _names_of(p: ResolvedPath, *, real_only: bool) -> tuple[Any, ...]:
    return (p.real,) if real_only else (p.lexical, p.real)


def rule_matches(rule: Rule, facts: CallFacts) -> bool:
    """Deny/ask semantics: the rule matches if it matches any part of the
    call (any simple command, any name of any path)."""
    if rule.tool not in (facts.tool, "*"):
        return False
    if rule.glob is None:
        return True
    if facts.shell is not None:
        assert facts.command is not None
        return text_matches(rule.glob, facts.command) or any(
            text_matches(rule.glob, c.text) for c in facts.shell.commands
        )
    if facts.paths:
        return any(
            path_matches(rule.glob, n, facts.home, fold_case=True)
            for p in facts.paths
            for n in _names_of(p, real_only=False)
        )
    return facts.subject is not None and text_matches(rule.glob, facts.subject)


def allowed_by(rules: Iterable[Rule], facts: CallFacts) -> Rule | None:
    """Allow semantics: every part of the call must be covered. For bash,
    every simple command matches some allow rule and none writes a file by
    redirection, and no command substitution hides another command; for
    paths, the real file (symlinks followed) matches."""
    mine = rules_for(rules, facts.tool)
    if not mine:
        return None
    whole = next((r for r in mine if r.glob is None), None)
    if whole is not None:
        return whole
    if facts.shell is not None:
        if facts.shell.opaque or not facts.shell.commands:
            return None
        first: Rule | None = None
        for cmd in facts.shell.commands:
            if cmd.writes_file:
                return None
            hit = next((r for r in mine if r.glob and text_matches(r.glob, cmd.text)), None)
            if hit is None:
                return None
            first = first or hit
        return first
    if facts.paths:
        first = None
        for p in facts.paths:
            hit = next(
                (r for r in mine if r.glob and path_matches(r.glob, p.real, facts.home)), None
            )
            if hit is None:
                return None
            first = first or hit
        return first
    if facts.subject is None:
        return None
    return next((r for r in mine if r.glob and text_matches(r.glob, facts.subject)), None)


def call_mutates(facts: CallFacts) -> bool:
    if facts.category == "read":
        return False
    if facts.category == "bash":
        from luxe.policy.shell import may_mutate

        command = facts.command or ""
        return may_mutate(command) or publishes(command) is not None
    return True


def _describe(facts: CallFacts) -> str:
    if facts.command is not None:
        return f"`{facts.command}`" if len(facts.command) <= 200 else f"`{facts.command[:200]}…`"
    if facts.paths:
        return ", ".join(p.given for p in facts.paths)
    return facts.subject or ""


def _where(rule: Rule) -> str:
    return "" if rule.source == "session" else f" in {rule.source}"


def decide(
    facts: CallFacts,
    rules: RuleSet,
    *,
    mode: str,
    agent_mode: AgentMode = "build",
    session_allows: frozenset[str] | set[str] = frozenset(),
) -> PermissionVerdict:
    """The verdict for one call. Pure; see the module docstring for the order."""
    if facts.secret_search is not None:
        search, held = facts.secret_search
        return PermissionVerdict(
            "deny",
            f"refused: `{search}` searches a directory holding the secret file `{held}`; "
            "search a narrower directory, exclude it (rg -g '!NAME'; grep --exclude=NAME for "
            "a file not named as a secret), "
            "or use the grep tool, which skips secret files",
            hard=True,
        )
    secret = secret_named(facts)
    if secret is not None:
        return PermissionVerdict(
            "deny",
            f"refused: `{secret}` names a secret file; reading or writing secret files is "
            "never allowed (no mode, rule, approval or hook can change this)",
            hard=True,
        )
    if call_mutates(facts) and (mode == "read-only" or agent_mode == "plan"):
        why = "plan mode" if agent_mode == "plan" else "read-only mode"
        what = (
            "runs a command that may change files" if facts.category == "bash" else "changes files"
        )
        return PermissionVerdict(
            "deny", f"refused: {why}: {facts.tool} {what} ({_describe(facts)})"
        )
    for rule in rules.deny:
        if rule_matches(rule, facts):
            return PermissionVerdict("deny", f"refused by the deny rule `{rule}`{_where(rule)}")
    if facts.shell is not None and (found := _unresolved_words(facts.shell)) is not None:
        command, word = found[0], found[1].replace("*", "…")
        return PermissionVerdict(
            "ask",
            f"`{command}` reads a file whose name Luxe cannot know before it runs "
            f"({word}); it asks in every mode",
        )
    if mode != "yolo":
        for rule in rules.ask:
            if rule_matches(rule, facts):
                return PermissionVerdict("ask", f"the rule `{rule}`{_where(rule)} asks first")
        published = publishes(facts.command) if facts.category == "bash" and facts.command else None
        if published is not None:
            return PermissionVerdict(
                "ask", f"{_describe(facts)} publishes ({published}): it always asks first"
            )
    if facts.exact_key in session_allows:
        return PermissionVerdict("allow", "allowed for this session")
    allow = allowed_by(rules.allow, facts)
    if allow is not None:
        return PermissionVerdict("allow", f"allowed by the rule `{allow}`{_where(allow)}")
    return _mode_default(facts, mode)


def _mode_default(facts: CallFacts, mode: str) -> PermissionVerdict:
    if facts.category == "read":
        return PermissionVerdict("allow", f"{facts.tool} only reads")
    if mode == "yolo":
        return PermissionVerdict("allow", "yolo mode")
    inside = all(p.real.relative is not None for p in facts.paths)
    if mode == "accept-edits" and facts.category == "edit" and inside:
        return PermissionVerdict("allow", "accept-edits mode")
    if facts.category == "bash":
        return PermissionVerdict("ask", f"bash runs {_describe(facts)}")
    if facts.category == "edit":
        return PermissionVerdict("ask", f"{facts.tool} changes {_describe(facts)}")
    return PermissionVerdict("ask", f"{facts.tool} may change something")


# -- the gate ----------------------------------------------------------------


@state
class PolicyGate:
    """The engine's PermissionGate. Owns the session's `always` answers; the
    rules and mode are fixed for the session (a client cannot change them)."""

    root: str
    permission_mode: str = "ask"
    rules: RuleSet = attrs.field(factory=RuleSet)
    # The values to redact when there is no `secret_files` (tests, tools).
    redactor: Redactor = attrs.field(factory=Redactor)
    cwd: str | None = None
    home: str = attrs.field(factory=lambda: os.path.expanduser("~"))
    categories: Mapping[str, Category] = DEFAULT_CATEGORIES
    # The project's secret files, kept fresh; when set, its redactor is the
    # one used (it is replaced whenever their values change).
    secret_files: SecretFiles | None = None
    _session_allows: set[str] = attrs.field(factory=set)
    _settled: trio.Event | None = attrs.field(default=None, init=False)  # made when settle begins
    _settle_failure: BaseException | None = attrs.field(default=None, init=False)

    def facts(self, tool: str, args: Mapping[str, Any]) -> CallFacts:
        return gather_facts(
            tool,
            args,
            cwd=self.cwd or self.root,
            root=self.root,
            home=self.home,
            categories=self.categories,
            secret_keys=self.secret_files.keys if self.secret_files else frozenset(),
            secret_paths=self.secret_files.paths if self.secret_files else (),
        )

    def check(
        self, tool: str, args: Mapping[str, Any], *, agent_mode: AgentMode = "build"
    ) -> PermissionVerdict:
        return decide(
            self.facts(tool, args),
            self.rules,
            mode=self.permission_mode,
            agent_mode=agent_mode,
            session_allows=self._session_allows,
        )

    def allow_always(self, tool: str, args: Mapping[str, Any]) -> None:
        """Remember exactly this call (the same command line, the same file)
        for the session. Only a call that would ask is remembered, so an
        answer can never lift a deny."""
        facts = self.facts(tool, args)
        verdict = decide(
            facts, self.rules, mode=self.permission_mode, session_allows=self._session_allows
        )
        if verdict.decision == "ask":
            self._session_allows.add(facts.exact_key)

    def redact(self, text: str, *, cut_start: bool = False, cut_end: bool = False) -> str:
        """`text` without the values of known secrets; with `cut_start` /
        `cut_end`, a piece of a value left at that edge by a truncation too."""
        return self._refreshed().redact(text, cut_start=cut_start, cut_end=cut_end)

    def redact_known(self, text: str) -> str:
        """`text` without the values known now (see PermissionGate): the
        redactor of the moment, its files not re-checked."""
        files = self.secret_files
        return (self.redactor if files is None else files.redactor).redact(text)

    def is_secret_file(self, path: str) -> bool:
        """For tools that walk directories (grep): is this file a secret,
        by name or by identity (a hard link)? Such files are skipped."""
        if self.secret_files is not None:
            return self.secret_files.is_secret(path)
        return is_secret_path(path)

    def is_secret_opened(self, fd: int) -> bool:
        """For what reads a file allowed by its path (an attachment): is the
        file actually opened a secret, by identity or by its real name?"""
        if self.secret_files is not None:
            return self.secret_files.is_secret_opened(fd)
        return opened_is_secret(fd, frozenset())

    async def tool_ran(self, tool: str) -> None:
        """After a call that may have written files, look for new or changed
        secret files so their values are redacted from now on: in a worker
        thread (SecretFiles' lock keeps a redaction meanwhile waiting)."""
        files = self.secret_files
        if files is None or self.categories.get(tool, "other") == "read":
            return
        import trio

        await trio.to_thread.run_sync(files.rescan)

    async def settle(self) -> None:
        """Finish the secret files' first scan (the walk of skipped
        directories, git's history, gh's tokens) in a worker thread, so it
        never holds the event loop. The first call starts it; every call
        waits for its end, and a cancelled call stops waiting at once (a
        cancelled turn) while the scan goes on for the next one: it belongs
        to the session, which ends it at close (`stop_settling`). A
        redaction before then waits for the values too (SecretFiles' lock)."""
        files = self.secret_files
        if files is None:
            return
        import trio

        if self._settled is None:
            settled = self._settled = trio.Event()
            token = trio.lowlevel.current_trio_token()

            def finished() -> None:
                settled.set()

            def deliver(result: Any) -> None:
                try:
                    result.unwrap()
                except BaseException as exc:  # raised to every caller, as the first one's
                    self._settle_failure = exc
                try:
                    token.run_sync_soon(finished)
                except trio.RunFinishedError:
                    pass  # the session's loop has ended: no one waits

            trio.lowlevel.start_thread_soon(files.settle, deliver)
        await self._settled.wait()
        if self._settle_failure is not None:
            raise self._settle_failure

    async def stop_settling(self) -> None:
        """The session is closing: a scan still running (the first, or one
        after a tool call) stops waiting for gh's and git's answers (a
        keyring that never answers, a git that hangs, held close and every
        signal for the whole deadline) and ends every gh and git it started;
        returns once the first scan's thread has ended, every one reaped."""
        import trio

        if self.secret_files is None:
            return
        self.secret_files.stop()
        if self._settled is not None:
            with trio.CancelScope(shield=True):
                await self._settled.wait()

    def _refreshed(self) -> Redactor:
        """The redactor for every value known now (the known secret files
        re-checked first)."""
        files = self.secret_files
        if files is None:
            return self.redactor
        files.refresh_known()
        return files.redactor

    def stream_redactor(self) -> StreamRedactor:
        """For live output (one per tool call): catches a secret split
        across chunks. The engine uses it when a gate offers it."""
        return StreamRedactor(self._refreshed())
