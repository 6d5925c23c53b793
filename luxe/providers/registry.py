"""`--model provider/name` -> a Provider. Providers are imported lazily so
the handshake never pays for httpx."""

from __future__ import annotations

from collections.abc import Mapping

from luxe.engine.model import Provider, ProviderError


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
    """
    if provider == "scripted":
        from luxe.providers.scripted import ScriptedProvider

        return ScriptedProvider(name)
    raise ProviderError(
        f"unknown provider {provider!r}: expected anthropic, openai, ollama or scripted"
    )
