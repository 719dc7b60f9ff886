"""JSON over HTTP with the manners a remote API expects: timeouts, retries, budgets.

Retries cover 429, 5xx, timeouts and dropped connections, with exponential backoff and full
jitter; a `Retry-After` header (seconds or an HTTP date) replaces the computed wait. Other
4xx answers are not retried: the request itself is wrong. API keys travel only in headers and
never appear in an error message or a log line.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from mindex.errors import BudgetExceededError, RemoteError

RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
MAX_WAIT = 60.0
MAX_ANSWER = 256 << 20  # bytes of one answer: a batch of 3,072-dimension vectors as JSON is a few MiB


@dataclass(frozen=True)
class RetryPolicy:
    """How long to wait for an answer and how to retry a failed one."""

    timeout: float = 60.0
    retries: int = 4
    backoff: float = 0.5  # first wait; doubles each attempt, with full jitter
    max_backoff: float = 30.0


class Budget:
    """Counts requests and (estimated) tokens of one run; refuses to go past the limits.

    Thread-safe: concurrent batches share one budget. `setting` names the settings that set
    the limits (`embed` for `embed.max_requests`), so a stop says which one to raise.
    """

    def __init__(self, max_requests: int | None = None, max_tokens: int | None = None,
                 setting: str = "embed") -> None:
        self.max_requests, self.max_tokens, self.setting = max_requests, max_tokens, setting
        self.requests = self.tokens = 0
        self._lock = threading.Lock()

    def spend(self, tokens: int) -> None:
        """Reserve one request of `tokens` tokens.

        Raises:
            BudgetExceededError: the request would pass a limit (nothing is reserved).
        """
        self.spend_all([tokens])

    def spend_all(self, requests: list[int]) -> None:
        """Reserve several requests (their token counts) together, or none of them.

        Raises:
            BudgetExceededError: they would pass a limit (nothing is reserved).
        """
        needed = sum(requests)
        with self._lock:
            if self.max_requests is not None and self.requests + len(requests) > self.max_requests:
                raise BudgetExceededError(
                    f"stopped at the budget of {self.max_requests} requests ({self.setting}.max_requests); "
                    "the work done so far is saved: raise the limit or run again to continue"
                )
            if self.max_tokens is not None and self.tokens + needed > self.max_tokens:
                if len(requests) == 1 and needed > self.max_tokens:
                    raise BudgetExceededError(
                        f"one request of about {needed} tokens is more than the whole budget of "
                        f"{self.max_tokens} tokens ({self.setting}.max_tokens); raise the limit"
                    )
                raise BudgetExceededError(
                    f"stopped at the budget of {self.max_tokens} tokens ({self.setting}.max_tokens); "
                    "the work done so far is saved: raise the limit or run again to continue"
                )
            self.requests += len(requests)
            self.tokens += needed


def new_client() -> httpx.Client:
    """The client every remote embedder, reranker and writer holds (connections are reused)."""
    return httpx.Client(headers={"user-agent": "mindex"})


def capped(client: httpx.Client, method: str, url: str, limit: int, deadline: float | None = None,
           **options: Any) -> httpx.Response | None:
    """The answer with its whole body, or None past `limit` bytes: counted as they arrive
    and after decompression, so an endless or inflating answer is cut off, not held. With a
    `deadline` (`time.monotonic()`), a body still arriving then is a timeout: httpx's own
    timeouts are per read, and a server sending a byte at a time never trips them.

    Raises:
        httpx.TimeoutException, httpx.TransportError: as the request itself.
    """
    with client.stream(method, url, **options) as streamed:
        body = bytearray()
        for part in streamed.iter_bytes():
            body += part
            if len(body) > limit:
                return None
            if deadline is not None and time.monotonic() > deadline:
                raise httpx.ReadTimeout("the answer was still arriving at the time limit", request=streamed.request)
        kept = [(k, v) for k, v in streamed.headers.multi_items()
                if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
        return httpx.Response(streamed.status_code, headers=kept, content=bytes(body), request=streamed.request)


def bearer(key: str | None) -> dict[str, str]:
    """The authorization header for `key`, or none without one."""
    return {"authorization": f"Bearer {key}"} if key else {}


def chat_completion(
    client: httpx.Client, base_url: str, key: str | None, payload: dict[str, Any],
    policy: RetryPolicy, what: str,
) -> str:
    """The text of an OpenAI-compatible `POST {base_url}/chat/completions` answer.

    Raises:
        RemoteError: the call failed, or the answer has no choices[0].message.content.
    """
    body = post_json(client, base_url + "/chat/completions", payload, bearer(key), policy, what)
    try:
        return str(body["choices"][0]["message"]["content"])
    except (KeyError, IndexError, TypeError):
        raise RemoteError(f"{what} answered without choices[0].message.content") from None


def estimate_tokens(texts: list[str]) -> int:
    """About four characters a token: within a few percent in aggregate, no tokenizer needed."""
    return sum(len(text) // 4 + 1 for text in texts)


def retry_after(response: httpx.Response) -> float | None:
    """Seconds the server asked us to wait, from `Retry-After`, if it said."""
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # an HTTP date; anything else ("soon") is ignored and the computed backoff applies
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


def answer_list(body: Any, key: str | None, what: str) -> list[Any]:
    """The list an answer holds under `key` (or the answer itself, for `key=None`).

    Raises:
        RemoteError: the answer has another shape (replies are untrusted input).
    """
    items = body if key is None else body.get(key) if isinstance(body, dict) else None
    if not isinstance(items, list):
        where = "a list" if key is None else f"an object with a `{key}` list"
        raise RemoteError(f"{what} answered in an unexpected shape (expected {where})")
    return items


def _where(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"  # never the query string


def post_json(
    client: httpx.Client, url: str, payload: dict[str, Any], headers: dict[str, str],
    policy: RetryPolicy, what: str,
) -> Any:
    """POST `payload` and return the decoded JSON answer, retrying what is worth retrying.

    Raises:
        RemoteError: a non-retryable answer, retries exhausted, or a body that is not JSON;
            the message names the endpoint and status, never the key.
    """
    problem = ""
    for attempt in range(policy.retries + 1):
        wait: float | None = None
        try:
            response = capped(client, "POST", url, MAX_ANSWER, deadline=time.monotonic() + policy.timeout,
                              json=payload, headers=headers, timeout=policy.timeout)
            if response is None:
                raise RemoteError(f"{what} at {_where(url)} answered with over {MAX_ANSWER >> 20} MiB; refused")
        except httpx.TimeoutException:
            problem = f"no answer within {policy.timeout:g} s (raise embed.timeout if the server is slow)"
        except httpx.TransportError as exc:
            problem = f"connection failed ({type(exc).__name__}); is the server running?"
        else:
            if response.status_code < 400:
                try:
                    return response.json()
                except ValueError:
                    raise RemoteError(f"{what} at {_where(url)} answered with a body that is not JSON") from None
            problem = f"HTTP {response.status_code}: {_reason(response)}"
            if response.status_code not in RETRY_STATUS:
                raise RemoteError(f"{what} at {_where(url)} refused the request ({problem})")
            wait = retry_after(response)
        if attempt < policy.retries:
            if wait is None:
                wait = random.uniform(0, min(policy.max_backoff, policy.backoff * 2**attempt))
            time.sleep(min(wait, MAX_WAIT))
    raise RemoteError(
        f"{what} at {_where(url)} failed after {policy.retries + 1} attempts: {problem}"
    )


def _reason(response: httpx.Response) -> str:
    """A short reason from an error body: `{"error": {"message": ...}}`, `{"error": ...}`,
    `{"detail": ...}`, or the first 200 characters of text."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:200].strip() or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error") or body.get("detail") or body.get("message")
        if isinstance(error, dict):
            error = error.get("message")
        if error:
            return str(error)[:200]
    return response.reason_phrase
