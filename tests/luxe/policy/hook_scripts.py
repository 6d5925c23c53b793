"""The example hook scripts of docs/hooks.md, verbatim: guard.sh denies a
risky bash command, audit.py logs each tool result, prompt-policy.sh denies a
prompt carrying an internal token. Written out and run by the hook tests
in-process, over `luxe --rpc` and under `luxe -p`."""

from __future__ import annotations

GUARD_SH = """#!/usr/bin/env bash
# ~/.config/luxe/hooks/guard.sh  — reads the BeforeToolUse event, denies risky bash.
event=$(cat)
cmd=$(printf '%s' "$event" | jq -r '.ToolUse.args.command // empty')
case "$cmd" in
  *"rm -rf"*|*"mkfs"*) echo '{"decision":"deny","reason":"blocked by guard.sh"}' ;;
  *)                    echo '{"decision":"allow"}' ;;
esac
"""

AUDIT_PY = """#!/usr/bin/env python3
# audit.py — append each tool result to a log.
import json, sys, datetime
ev = json.load(sys.stdin).get("ToolResult", {})
with open("/tmp/luxe-audit.log", "a") as f:
    f.write(f'{datetime.datetime.now().isoformat()} {ev.get("tool_name")} error={ev.get("is_error")}\\n')
"""

PROMPT_POLICY_SH = """#!/usr/bin/env bash
event=$(cat)
prompt=$(printf '%s' "$event" | jq -r '.Other.content // empty')
if printf '%s' "$prompt" | grep -qE 'CORP-SECRET-[0-9]+'; then
  echo '{"decision":"deny","reason":"prompt contained an internal token"}'
else
  echo '{"decision":"allow"}'
fi
"""
