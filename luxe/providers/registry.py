"""`--model provider/name` -> a Provider. Providers are imported lazily so
the handshake never pays for httpx."""

from __future__ import annotations

import re
from collections.abc import Mapping

from luxe.engine.model import Provider, ProviderError

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"


def parse_model_spec(spec: str) -> tuple[str, str]:
    """Split `provider/name` (or `scripted:PATH`) into (provider, name).

    Raises ValueError with a message for a person when the spec is malformed.
    """
    if spec.startswith("scripted:"):
        path = spec.removeprefix("scripted:")
        if not path:
            raise ValueError("--model scripted:PATH needs the path of a JSONL script")
        return "scripted", path
    provider, sep, name = spec.partition("/")
    if not sep or not provider or not name:
        raise ValueError(
            f"--model {spec!r}: expected provider/name, e.g. anthropic/claude-sonnet-4-5"
        )
    return provider, name


def make_provider(provider: str, name: str, env: Mapping[str, str]) -> Provider:
    """Build the provider for `provider/name`, reading keys and base URLs from `env`.

    A missing API key is not an error here: the first request reports it,
    naming the variable to set, through the turn that needed it.

    Besides anthropic, openai, ollama and scripted, any `NAME/model` works
    with an OpenAI-compatible server when `NAME_BASE_URL` is set (its key,
    if it needs one, in `NAME_API_KEY`), e.g. `GROQ_BASE_URL` for `groq/...`.
    """
    if provider == "scripted":
        from luxe.providers.scripted import ScriptedProvider

        return ScriptedProvider(name)
    if provider == "anthropic":
        from luxe.providers.anthropic import AnthropicProvider

        return AnthropicProvider(env)
    if provider == "openai":
        from luxe.providers.openai import DEFAULT_BASE_URL, OpenAIProvider

        custom_url = env.get("OPENAI_BASE_URL")
        return OpenAIProvider(
            env,
            name="openai",
            label="OpenAI",
            base_url=custom_url or DEFAULT_BASE_URL,
            api_key=env.get("OPENAI_API_KEY"),
            key_variable="OPENAI_API_KEY",
            # A self-hosted OpenAI-compatible server often needs no key.
            key_required=not custom_url,
        )
    if provider == "ollama":
        from luxe.providers.openai import OpenAIProvider

        return OpenAIProvider(
            env,
            name="ollama",
            label="ollama",
            base_url=ollama_base_url(env.get("OLLAMA_HOST")),
            api_key=None,
            key_variable=None,
            key_required=False,
        )
    prefix = re.sub(r"[^A-Za-z0-9]", "_", provider).upper()
    base_url = env.get(f"{prefix}_BASE_URL")
    if base_url:
        from luxe.providers.openai import OpenAIProvider

        return OpenAIProvider(
            env,
            name=provider,
            label=provider,
            base_url=base_url,
            api_key=env.get(f"{prefix}_API_KEY"),
            key_variable=f"{prefix}_API_KEY",
            key_required=False,
        )
    raise ProviderError(
        f"unknown provider {provider!r}: expected anthropic, openai, ollama or scripted, "
        f"or set {prefix}_BASE_URL to an OpenAI-compatible endpoint"
    )


def ollama_base_url(host: str | None) -> str:
    """`OLLAMA_HOST` (`host:port`, with or without scheme) -> its OpenAI API URL."""
    host = (host or DEFAULT_OLLAMA_HOST).strip().rstrip("/")
    if "://" not in host:
        host = f"http://{host}"
    return host if host.endswith("/v1") else f"{host}/v1"
