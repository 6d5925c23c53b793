"""`make demo`: the spec's example client, verbatim, driving a real `luxe --rpc`.

Without an API key the session runs on the offline scripted model
(examples/demo.jsonl); with ANTHROPIC_API_KEY or OPENAI_API_KEY set it asks
a real model. The client below the marker is copied from the RPC spec.
"""
# ruff: noqa
import os
from pathlib import Path

_here = Path(__file__).resolve().parent
os.chdir(_here.parent)  # the project itself is what the demo asks about
if "LUXE_MODEL" not in os.environ:
    if os.environ.get("ANTHROPIC_API_KEY"):
        pass  # Luxe's default model is Anthropic's
    elif os.environ.get("OPENAI_API_KEY"):
        os.environ["LUXE_MODEL"] = "openai/gpt-4.1-mini"
    else:
        os.environ["LUXE_MODEL"] = f"scripted:{_here / 'demo.jsonl'}"

# ---- the spec's example client, verbatim ----

import json, subprocess

luxe = subprocess.Popen(["luxe", "--rpc"], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, text=True, bufsize=1)

def send(kind, content=None):
    frame = {"kind": kind} | ({"content": content} if content is not None else {})
    luxe.stdin.write(json.dumps(frame) + "\n")
    luxe.stdin.flush()

for line in luxe.stdout:
    event = json.loads(line)
    kind, body = event["kind"], event.get("content")

    if kind == "ready":
        assert body["protocol_version"] == 2, "unsupported protocol"
        send("submit_user_message", {"text": "What does this project do?"})
    elif kind == "token_delta":
        print(body["delta"], end="", flush=True)
    elif kind == "tool_started":
        print(f"\n[{body['name']}]")
    elif kind == "permission_requested":
        send("respond_permission", {"id": body["id"], "reply": "once"})
    elif kind == "question_asked":
        send("answer_question", {"id": body["id"], "reply": {"answered": ["yes"]}})
    elif kind == "action_rejected":
        print(f"\n! refused {body.get('kind')}: {body['reason']}")
    elif kind == "turn_ended":
        print()
        send("close")
    # Ignore everything else, so the client keeps working with newer versions of Luxe.
