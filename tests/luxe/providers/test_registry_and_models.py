"""Choosing a provider from `--model`, and what models cost."""

from __future__ import annotations

import subprocess
import sys

import pytest

from luxe.engine.model import ProviderError, Usage
from luxe.providers.models import cost_usd, lookup
from luxe.providers.registry import make_provider, ollama_base_url


def test_importing_the_registry_does_not_import_httpx() -> None:
    code = (
        "import sys, luxe.providers.registry, luxe.providers.models; print('httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_unknown_provider_says_what_would_work() -> None:
    with pytest.raises(ProviderError) as caught:
        make_provider("nope", "m", {})
    assert "anthropic" in caught.value.message and "NOPE_BASE_URL" in caught.value.message


@pytest.mark.parametrize(
    ("host", "url"),
    [
        (None, "http://127.0.0.1:11434/v1"),
        ("0.0.0.0:9999", "http://0.0.0.0:9999/v1"),
        ("https://gpu.box:11434/", "https://gpu.box:11434/v1"),
        ("http://h:1/v1", "http://h:1/v1"),
    ],
)
def test_ollama_host_forms(host: str | None, url: str) -> None:
    assert ollama_base_url(host) == url


def test_known_models_have_windows_and_prices_dated_ids_included() -> None:
    info = lookup("anthropic", "claude-sonnet-4-5-20250929")
    assert info.context_window == 200_000 and info.input_per_mtok == 3.0
    assert lookup("openai", "gpt-4o-2024-08-06").input_per_mtok == 2.5
    assert lookup("openai", "gpt-4o-mini").input_per_mtok == 0.15


def test_cost_counts_every_kind_of_token() -> None:
    info = lookup("anthropic", "claude-sonnet-4-5")
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=100_000,
        cache_read_tokens=2_000_000,
        cache_write_tokens=0,
    )
    assert cost_usd(info, usage) == pytest.approx(3.0 + 1.5 + 0.6)


def test_unknown_models_have_no_price_rather_than_a_guess() -> None:
    assert cost_usd(lookup("anthropic", "claude-opus-4-9"), Usage(input_tokens=10)) is None
    assert cost_usd(lookup("openrouter", "x/y"), Usage(input_tokens=10)) is None
    assert cost_usd(lookup("ollama", "qwen3"), Usage(input_tokens=10)) == 0.0
