"""Drop-in recording for the frameworks people already use; each module is one thin adapter.

- :mod:`handoff.adapters.openai`, :mod:`handoff.adapters.anthropic`: an HTTP transport that
  records the exact request body as the rendered input and the response body as the output,
  with usage tokens from the response, and propagates the run to the server.
- :mod:`handoff.adapters.langchain`: a callback handler for LangChain and LangGraph.
- :mod:`handoff.adapters.openai_agents`: a tracing processor for the OpenAI Agents SDK.
- :mod:`handoff.adapters.fake_server`: an OpenAI- and Anthropic-compatible server on loopback
  for testing all of the above offline.

Each framework is an extra: ``pip install 'handoff-trace[openai]'`` and so on.
"""
