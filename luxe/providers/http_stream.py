"""One streamed POST to a model endpoint, read as Server-Sent Events.

Owns the provider's httpx client (created on first use, so importing a
provider costs nothing until a request is made) and turns every way an HTTP
exchange can fail into either a `RetryableError` (worth another attempt) or
a `ProviderError` (tell the person), each naming the endpoint and status.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import trio

from luxe.engine.model import ProviderError
from luxe.protocol.text import scrub
from luxe.providers.retry import RETRYABLE_STATUSES, RetryableError, parse_retry_after
from luxe.providers.sse import EventTooLarge, ServerSentEvent, SSEDecoder

# Returns True when the event completes the response (message_stop, [DONE]).
OnSSE = Callable[[ServerSentEvent], Awaitable[bool]]

MAX_ERROR_BODY = 64 * 1024
# After the last event, how long to wait for the body's end so the connection
# can go back to the pool (the next turn then skips a TCP handshake).
DRAIN_TIMEOUT_S = 0.25


async def _drain(chunks: AsyncIterator[bytes]) -> None:
    """Read to the body's end, briefly. The response is already complete, so a
    failure here only costs the connection, never the answer."""
    with trio.move_on_after(DRAIN_TIMEOUT_S):
        try:
            async for _chunk in chunks:
                pass
        except httpx.HTTPError:
            pass


class SSEPoster:
    """Posts JSON and streams the SSE answer; owns one lazily made AsyncClient."""

    def __init__(
        self,
        *,
        label: str,
        key_variable: str | None,
        idle_timeout_s: float,
        connect_timeout_s: float = 10.0,
    ) -> None:
        self.label = label  # "Anthropic", "OpenAI", "ollama", ...
        self.key_variable = key_variable  # named in auth failures
        self.idle_timeout_s = idle_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self._client: httpx.AsyncClient | None = None

    def prepare(self, url: str) -> None:
        """Build the HTTP client now, off the request path (synchronous, and
        safe in a worker thread: nothing here touches the event loop).

        A plain-http endpoint (a local server) never needs certificates, so it
        skips loading them; redirects are not followed, so no request can
        leave that URL for an https one.
        """
        if self._client is None:
            self._client = self._new_client(verify=not url.startswith("http://"))

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = self._new_client(verify=True)
        return self._client

    def _new_client(self, *, verify: bool) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            # The read timeout is the idle timeout: it bounds each wait for
            # bytes, so a stream that goes silent fails instead of hanging.
            timeout=httpx.Timeout(
                connect=self.connect_timeout_s,
                read=self.idle_timeout_s,
                write=self.idle_timeout_s,
                pool=self.connect_timeout_s,
            ),
            trust_env=False,
            verify=verify,
            follow_redirects=False,
        )

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    async def post(
        self, url: str, headers: dict[str, str], body: dict[str, Any], on_sse: OnSSE
    ) -> None:
        """POST `body` to `url` and feed each event to `on_sse` until it says done.

        Raises RetryableError / ProviderError for failures. On cancel, leaving
        the `async with` closes the response, and with it the connection.
        """
        try:
            content = request_bytes(body)
            async with self._http().stream(
                "POST", url, headers={"content-type": "application/json", **headers}, content=content
            ) as response:
                if response.status_code >= 400:
                    await self._raise_for_status(url, response)
                if "json" in response.headers.get("content-type", ""):
                    # A server that ignored `stream: true` (or a proxy's error page).
                    detail = error_detail(await _read_capped(response))
                    raise ProviderError(
                        f"{self.label} endpoint {url} answered JSON instead of an event "
                        f"stream (HTTP {response.status_code}): {detail}"
                    )
                decoder = SSEDecoder()
                chunks = response.aiter_bytes()
                async for chunk in chunks:
                    for event in decoder.feed(chunk):
                        if await on_sse(event):
                            await _drain(chunks)
                            return
                for event in decoder.finish():
                    if await on_sse(event):
                        return
        except EventTooLarge as error:
            raise ProviderError(f"{self.label} stream from {url} sent {error}") from error
        except httpx.ReadTimeout as error:
            raise RetryableError(
                f"{self.label} stream from {url} stalled: no data for {self.idle_timeout_s:g} s"
            ) from error
        except httpx.TimeoutException as error:
            raise RetryableError(
                f"{self.label} endpoint {url} timed out ({type(error).__name__})"
            ) from error
        except httpx.ConnectError as error:
            raise RetryableError(f"could not connect to {self.label} at {url}: {error}") from error
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
            raise ProviderError(f"{self.label} base URL is not usable ({url}): {error}") from error
        except httpx.TransportError as error:
            raise RetryableError(
                f"connection to {self.label} at {url} dropped mid-response: {error or type(error).__name__}"
            ) from error
        raise RetryableError(
            f"{self.label} stream from {url} ended before the response was complete"
        )

    async def _raise_for_status(self, url: str, response: httpx.Response) -> None:
        status = response.status_code
        detail = error_detail(await _read_capped(response))
        reason = response.reason_phrase or ""
        message = (
            f"{self.label} request to {url} failed: HTTP {status}{' ' + reason if reason else ''}"
        )
        if detail:
            message += f": {detail}"
        if status in RETRYABLE_STATUSES or status >= 500:
            raise RetryableError(
                message, status=status, retry_after_s=parse_retry_after(response.headers)
            )
        if status in (401, 403) and self.key_variable:
            message += f" (check {self.key_variable})"
        elif status == 404:
            message += " (check the model name and the base URL)"
        raise ProviderError(message, status=status)


async def _read_capped(response: httpx.Response) -> bytes:
    """The start of a (non-stream) body, for an error message."""
    body = b""
    try:
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_ERROR_BODY:
                break
    except httpx.HTTPError:
        pass
    return body


def request_bytes(body: dict[str, Any]) -> bytes:
    """The JSON body as UTF-8. The last guard against a lone surrogate
    (from a system prompt, say): it becomes U+FFFD instead of an
    UnicodeEncodeError that would fail this and every later turn."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return scrub(text).encode("utf-8")


def error_detail(body: bytes) -> str:
    """The server's own words from an error body: `error.message` when JSON."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:500]
    if isinstance(data, dict):
        err = data.get("error")
        if isinstance(err, dict):
            kind = err.get("type")
            msg = err.get("message")
            if msg:
                return f"{kind}: {msg}" if kind and kind not in str(msg) else str(msg)
        if isinstance(err, str):
            return err
        if isinstance(data.get("message"), str):
            return str(data["message"])
    return text[:500]
