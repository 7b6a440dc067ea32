"""What the recorder cannot capture is recorded as such, and never reaches the application."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import handoff
from handoff.capture.render import canonical_json, render_value
from handoff.testing import capture


class Hostile:
    """A value whose ``__str__`` raises, as some proxies and lazy objects do."""

    def __str__(self) -> str:
        raise RuntimeError("no str for you")


class HostileError(Exception):
    """An exception whose message cannot be read."""

    def __str__(self) -> str:
        raise RuntimeError("no message either")


def recursive_list() -> list:
    """A list that contains itself."""
    items: list = [1]
    items.append(items)
    return items


def test_usage_with_a_non_integer_never_raises_and_is_noted():
    """``h.usage("lots")`` returns normally; the good value is kept and the bad one named in capture_error."""
    with capture() as records:
        with handoff.record("price") as h:
            h.input("brief")
            h.usage(input_tokens=120, output_tokens="lots")
        records.flush()
    (row,) = records.handoffs
    assert (row.input_tokens, row.output_tokens, row.capture_error) == (
        120,
        None,
        "ValueError: usage() takes integers: output_tokens='lots' left out",
    )
    assert records.stats()["capture_errors"] == 1


def test_every_handle_method_takes_hostile_values_without_raising():
    """input, output, usage, config and fallback given values that break str() or JSON all return normally."""
    with capture() as records:
        with handoff.record("price") as h:
            h.input(Hostile())
            h.output(recursive_list())
            h.usage(input_tokens=object(), output_tokens=Hostile())
            h.config(model=Hostile(), loop=recursive_list())
            h.fallback("rag-empty", error=HostileError(), detail=Hostile())
        records.flush()
    (row,) = records.handoffs
    (event,) = records.events
    assert (row.input, row.output, row.status) == (None, None, "fallback")
    assert row.capture_error.startswith(
        "input not rendered: RuntimeError: no str for you; output not rendered: ValueError: Circular"
    )
    assert (event.error_type, event.error_message, event.attributes) == (
        "HostileError",
        "<HostileError: str() failed>",
        {"detail": "<Hostile: str() failed>"},
    )


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("lone \ud800 surrogate", "input not rendered: UnicodeEncodeError"),
        ({"obj": Hostile()}, "input not rendered: RuntimeError: no str for you"),
        (recursive_list(), "input not rendered: ValueError: Circular reference detected"),
    ],
)
def test_a_failed_render_is_recorded_as_such_and_is_no_retry_of_another(value, error):
    """A value that cannot be rendered gives a null input and capture_error, never an empty ok input; two of them are two first attempts."""

    @handoff.step(to="validate")
    def validate(report) -> str:
        return "checked"

    with capture() as records:
        with handoff.run("renders"):
            results = [validate(value), validate(value)]
        records.flush()
    first, second = records.handoffs
    assert results == ["checked", "checked"]
    assert [(h.input, h.input_sha256, h.attempt, h.retry_of, h.output) for h in (first, second)] == [
        (None, None, 1, None, b"checked")
    ] * 2
    assert first.capture_error.startswith(error) and second.capture_error.startswith(error)


def test_a_step_whose_exception_cannot_be_printed_is_still_recorded():
    """An exception with a raising ``__str__`` propagates unchanged and its handoff is recorded as an error."""

    @handoff.step(to="price")
    def price(brief: str) -> str:
        raise HostileError()

    with capture() as records:
        with pytest.raises(HostileError):
            price("brief")
        records.flush()
    (row,) = records.handoffs
    assert (row.status, row.error_type, row.error_message) == ("error", "HostileError", "<HostileError: str() failed>")


def conversation():
    """A generator that receives values, handles a thrown KeyError, cleans up and returns what it saw."""
    seen = []
    try:
        seen.append((yield "first"))
        try:
            seen.append((yield "second"))
        except KeyError as exc:
            seen.append(("caught", exc.args))
            seen.append((yield "after-throw"))
    finally:
        seen.append("cleaned up")
    return seen


def drive(gen) -> list:
    """Drive a generator through next, send, throw and a final send; return what came out, including its return value."""
    out = [next(gen), gen.send("a"), gen.throw(KeyError("k"))]
    with pytest.raises(StopIteration) as stop:
        gen.send("b")
    return [*out, stop.value.value]


def test_a_decorated_generator_keeps_send_throw_and_return_exactly():
    """send, throw and the return value behave as on the undecorated generator; the output is what it yielded."""
    decorated = handoff.step(to="stream")(conversation)
    with capture() as records:
        expected, got = drive(conversation()), drive(decorated())
        records.flush()
    assert got == expected == ["first", "second", "after-throw", ["a", ("caught", ("k",)), "b", "cleaned up"]]
    assert [(h.output, h.status) for h in records.handoffs] == [(b"firstsecondafter-throw", "ok")]


def test_closing_a_decorated_generator_closes_the_inner_one():
    """close() runs the generator's cleanup and records what it yielded so far."""
    cleaned = []

    @handoff.step(to="stream")
    def stream():
        try:
            yield "one"
            yield "two"
        finally:
            cleaned.append(True)

    with capture() as records:
        gen = stream()
        assert next(gen) == "one"
        gen.close()
        records.flush()
    assert (cleaned, [h.output for h in records.handoffs]) == ([True], [b"one"])


def test_an_uncaught_throw_is_recorded_as_the_steps_error():
    """An exception thrown into a decorated generator that it does not handle propagates and marks the handoff."""
    decorated = handoff.step(to="stream")(conversation)
    with capture() as records:
        gen = decorated()
        next(gen)
        with pytest.raises(ValueError, match="stop"):
            gen.throw(ValueError("stop"))
        records.flush()
    assert [(h.status, h.error_type) for h in records.handoffs] == [("error", "ValueError")]


async def aconversation():
    """The async twin of :func:`conversation` (async generators return nothing)."""
    try:
        received = yield "first"
        try:
            yield received
        except KeyError:
            yield "caught"
    finally:
        pass


async def adrive(agen) -> list:
    """Drive an async generator through asend and athrow."""
    return [await agen.asend(None), await agen.asend("a"), await agen.athrow(KeyError("k"))]


def test_a_decorated_async_generator_keeps_asend_and_athrow():
    """asend and athrow behave as on the undecorated async generator."""
    decorated = handoff.step(to="astream")(aconversation)
    with capture() as records:
        expected, got = asyncio.run(adrive(aconversation())), asyncio.run(adrive(decorated()))
        records.flush()
    assert got == expected == ["first", "a", "caught"]
    assert [h.output for h in records.handoffs] == [b"firstacaught"]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_rendering_is_canonical_for_any_json_value(value):
    """Equal values render to the same bytes whatever their key order, and text renders as its UTF-8."""
    data, _type = render_value(value)
    if isinstance(value, str):
        assert data == value.encode("utf-8")
    if isinstance(value, dict):
        assert data == canonical_json(dict(reversed(list(value.items()))))


@settings(max_examples=100, deadline=None)
@given(st.one_of(JSON_VALUES, st.text(), st.binary(), st.builds(Hostile), st.builds(recursive_list)))
def test_recording_any_value_never_raises(value):
    """Whatever the application passes, the decorated call returns its own result and one handoff is recorded."""

    @handoff.step(to="any")
    def step(x) -> str:
        return "done"

    with capture() as records:
        assert step(value) == "done"
        records.flush()
    (row,) = records.handoffs
    assert (row.input is None) == (row.capture_error is not None and row.capture_error.startswith("input not rendered"))
