"""Stepwise jobs: long pure-Python work cut into steps that share the UI loop.

A job is a generator that yields between steps of about a millisecond and
returns its result (`StopIteration.value`). `run_steps` runs one to its end
at once (small inputs, hostless callers); `drive` runs one on the trio loop,
working STEP_SECONDS and then resting as long, so keys, requests and frames
go between steps. `while_current` stops a job once what it works for is
gone; `telling` reports its progress now and then. Running such work in a
thread instead would make every key wait for the interpreter (the GIL)
behind it, and a busy loop can keep a thread from the interpreter for
seconds (laura/panes/watch.py).

Cancellation: `drive` is cancelled at its next rest; the job is dropped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from typing import TypeVar

import trio

# How long a job runs on the loop before letting it breathe ...
STEP_SECONDS = 0.003
# ... and how long it then rests.
REST_SECONDS = 0.003

T = TypeVar("T")

Steps = Generator[None, None, T]


def run_steps(steps: Steps[T]) -> T:
    """Drive a stepwise job to its end at once."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


async def drive(steps: Steps[T]) -> T:
    """Run a stepwise job on the loop, resting every STEP_SECONDS."""
    budget = time.perf_counter() + STEP_SECONDS
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value
        if time.perf_counter() >= budget:
            await trio.sleep(REST_SECONDS)
            budget = time.perf_counter() + STEP_SECONDS


def while_current(current: Callable[[], bool], steps: Steps[T]) -> Steps[T | None]:
    """`steps` and their result, or None once `current()` turns false: it is
    asked before every step, so none runs on what replaced its input."""
    while current():
        try:
            next(steps)
        except StopIteration as done:
            return done.value
        yield
    return None


def telling(steps: Steps[T], tell: Callable[[], None], every: float) -> Steps[T]:
    """`steps` and their result, calling `tell()` at most every `every`
    seconds between them."""
    told = time.perf_counter()
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value
        if time.perf_counter() - told >= every:
            tell()
            told = time.perf_counter()
        yield
