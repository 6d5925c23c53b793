"""`make demo`: the spec's example client, verbatim, driving a real `luxe --rpc`.

Without an API key the session runs on the offline scripted model
(examples/demo.jsonl); with ANTHROPIC_API_KEY or OPENAI_API_KEY set it asks
a real model. The client is examples/spec_client.py, copied from the RPC spec.
"""

import os
import runpy
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

# The spec's example client, verbatim, lives beside this file.
runpy.run_path(str(_here / "spec_client.py"), run_name="__main__")
