"""LangChain and LangGraph adapter: a callback handler that records every node, chain, LLM and tool call.

    from handoff.adapters.langchain import HandoffCallbackHandler

    graph.invoke(state, config={"callbacks": [HandoffCallbackHandler()]})

Each LangChain run becomes a handoff whose ``to`` is the LangGraph node name (else the
runnable's name). Parents come from the run tree: an LLM or tool call inside a node has
that node as parent and ``from``; a LangGraph node has the nodes of the previous superstep
of its graph as parents (the first as parent, others as ``fan_in``) and the first one's name
as ``from``. Inputs are the node's state or the chain's inputs as canonical JSON, the chat
messages as ``[{"role", "content"}]`` JSON, the prompt text, or the tool's input (its
arguments as JSON when LangChain passes them, else the input string).
``kinds={"compress": "transform"}`` sets the kind per step name (default ``agent``, tools ``tool``).
A graph invoked outside ``handoff.run`` gets a run of its own.
"""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from handoff.adapters._handles import finish, open_handle, set_input, set_output

__all__ = ["HandoffCallbackHandler"]

_HIDDEN = "langsmith:hidden"


class _Node:
    """One LangChain run being recorded."""

    __slots__ = ("handle", "name", "step", "graph_steps")

    def __init__(self, handle: Any, name: str, step: int | None) -> None:
        self.handle = handle
        self.name = name
        self.step = step  # the LangGraph superstep this node ran in, if it is a graph node
        # For a graph: superstep -> [(node handle, node name)] of nodes that finished in it.
        self.graph_steps: dict[int, list[tuple[Any, str]]] = {}


def _message(message: Any) -> dict[str, Any]:
    item = {"role": getattr(message, "type", "unknown"), "content": getattr(message, "content", message)}
    if getattr(message, "tool_calls", None):
        item["tool_calls"] = [
            {"name": c.get("name"), "args": c.get("args"), "id": c.get("id")} for c in message.tool_calls
        ]
    return item


def render_messages(messages: list[list[Any]]) -> list[Any]:
    """The chat input as recorded: ``[{"role", "content"}]`` for one conversation, a list of those for a batch."""
    batches = [[_message(m) for m in batch] for batch in messages]
    return batches[0] if len(batches) == 1 else batches


def render_generations(response: Any) -> Any:
    """The LLM output as recorded: the text, or the message as JSON when it carries tool calls."""
    generations = [g for batch in response.generations for g in batch]
    if len(generations) == 1:
        message = getattr(generations[0], "message", None)
        if message is not None and getattr(message, "tool_calls", None):
            return _message(message)
        return generations[0].text
    return [g.text for g in generations]


def _usage(response: Any) -> tuple[int | None, int | None]:
    for batch in response.generations:
        for generation in batch:
            usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
            if usage:
                return usage.get("input_tokens"), usage.get("output_tokens")
    token_usage = (response.llm_output or {}).get("token_usage") or {}
    return token_usage.get("prompt_tokens"), token_usage.get("completion_tokens")


def _name(serialized: dict | None, kwargs: dict, metadata: dict | None) -> str:
    node = (metadata or {}).get("langgraph_node")
    if node:
        return str(node)
    if kwargs.get("name"):
        return str(kwargs["name"])
    serialized = serialized or {}
    return str(serialized.get("name") or (serialized.get("id") or ["runnable"])[-1])


class HandoffCallbackHandler(BaseCallbackHandler):
    """Records LangChain / LangGraph runs as handoffs; pass it in ``config={"callbacks": [...]}``."""

    run_inline = True  # keep callbacks in call order on the caller's thread, also under asyncio

    def __init__(self, *, kinds: dict[str, str] | None = None) -> None:
        self._kinds = dict(kinds or {})
        self._nodes: dict[UUID, _Node] = {}
        self._lock = threading.Lock()

    # -- opening -------------------------------------------------------------------------

    def _open(
        self,
        run_id: UUID,
        parent_run_id: UUID | None,
        name: str,
        kind: str,
        metadata: dict | None,
        value: Any,
        content_type: str | None = None,
    ) -> None:
        with self._lock:
            enclosing = self._nodes.get(parent_run_id) if parent_run_id else None
        parents, from_ = self._parents(enclosing, metadata)
        handle = open_handle(
            name,
            from_=from_,
            kind=self._kinds.get(name, kind),
            parent=parents[0] if parents else None,
            within=enclosing.handle if enclosing is not None else None,
            fan_in=[other.handoff_id for other in parents[1:] if other is not None] if len(parents) > 1 else None,
        )
        set_input(handle, value, content_type)
        with self._lock:
            self._nodes[run_id] = _Node(handle, name, (metadata or {}).get("langgraph_step"))

    def _parents(self, enclosing: _Node | None, metadata: dict | None) -> tuple[list[Any], str | None]:
        if enclosing is None or enclosing.handle is None:
            return [], None
        step = (metadata or {}).get("langgraph_step")
        with self._lock:
            earlier = [s for s in enclosing.graph_steps if step is not None and s < step]
            previous = enclosing.graph_steps[max(earlier)] if earlier else None
        if previous:
            return [handle for handle, _ in previous], previous[0][1]
        return [enclosing.handle], enclosing.name

    def _close(self, run_id: UUID, parent_run_id: UUID | None, error: Exception | None = None) -> None:
        with self._lock:
            node = self._nodes.pop(run_id, None)
            graph = self._nodes.get(parent_run_id) if parent_run_id else None
            if (
                node is not None
                and graph is not None
                and node.step is not None
                and error is None
                and node.handle is not None
            ):
                graph.graph_steps.setdefault(node.step, []).append((node.handle, node.name))
        if node is not None:
            finish(node.handle, error)

    def _node(self, run_id: UUID) -> _Node | None:
        with self._lock:
            return self._nodes.get(run_id)

    # -- chains and graph nodes ----------------------------------------------------------

    def on_chain_start(
        self,
        serialized: dict,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict | None = None,
        **kwargs: Any,
    ) -> None:
        """Open a handoff to the node or chain; its input is ``inputs``."""
        if _HIDDEN in (tags or []):
            return
        self._open(run_id, parent_run_id, _name(serialized, kwargs, metadata), "agent", metadata, inputs)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """Record the chain's outputs and end its handoff."""
        node = self._node(run_id)
        if node is not None:
            set_output(node.handle, outputs)
            self._close(run_id, parent_run_id)

    def on_chain_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """End the chain's handoff as ``status=error``."""
        self._close(run_id, parent_run_id, _as_exception(error))

    # -- models --------------------------------------------------------------------------

    def on_chat_model_start(
        self,
        serialized: dict,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict | None = None,
        **kwargs: Any,
    ) -> None:
        """Open a handoff to the chat model; its input is the messages it was sent."""
        self._open(run_id, parent_run_id, _name(serialized, kwargs, None), "agent", None, render_messages(messages))
        self._set_model(run_id, kwargs.get("invocation_params"), metadata)

    def on_llm_start(
        self,
        serialized: dict,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict | None = None,
        **kwargs: Any,
    ) -> None:
        """Open a handoff to the LLM; its input is the prompt text."""
        self._open(
            run_id,
            parent_run_id,
            _name(serialized, kwargs, None),
            "agent",
            None,
            prompts[0] if len(prompts) == 1 else prompts,
        )
        self._set_model(run_id, kwargs.get("invocation_params"), metadata)

    def _set_model(self, run_id: UUID, params: dict | None, metadata: dict | None) -> None:
        node = self._node(run_id)
        model = (params or {}).get("model") or (params or {}).get("model_name") or (metadata or {}).get("ls_model_name")
        if node is not None and node.handle is not None and model:
            node.handle.config(model=str(model))

    def on_llm_end(self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """Record the generations and usage, and end the model's handoff."""
        node = self._node(run_id)
        if node is not None and node.handle is not None:
            set_output(node.handle, render_generations(response))
            node.handle.usage(*_usage(response))
        self._close(run_id, parent_run_id)

    def on_llm_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """End the model's handoff as ``status=error``."""
        self._close(run_id, parent_run_id, _as_exception(error))

    # -- tools ---------------------------------------------------------------------------

    def on_tool_start(
        self,
        serialized: dict,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict | None = None,
        **kwargs: Any,
    ) -> None:
        """Open a ``kind=tool`` handoff to the tool; its input is the tool's input string."""
        inputs = kwargs.get("inputs")
        self._open(
            run_id,
            parent_run_id,
            _name(serialized, kwargs, None),
            "tool",
            None,
            input_str if inputs is None else inputs,
        )

    def on_tool_end(self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        """Record the tool's output and end its handoff."""
        node = self._node(run_id)
        if node is not None:
            set_output(node.handle, getattr(output, "content", output))
        self._close(run_id, parent_run_id)

    def on_tool_error(
        self, error: BaseException, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """End the tool's handoff as ``status=error``."""
        self._close(run_id, parent_run_id, _as_exception(error))


def _as_exception(error: BaseException) -> Exception:
    return error if isinstance(error, Exception) else RuntimeError(repr(error))
