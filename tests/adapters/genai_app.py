"""An app instrumented by a third-party GenAI instrumentation, with handoff's GenAISpanProcessor.

``python genai_app.py <openinference|openllmetry> <openai base url>`` records into
``HANDOFF_STORE`` and prints one JSON line: the run id and, per GenAI span, its raw input and
output attribute values and ids, as the instrumentation produced them.
"""

from __future__ import annotations

import json
import sys

import openai
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import handoff
from handoff.adapters.genai import GenAISpanProcessor, span_content


def instrumentor(which: str):
    if which == "openinference":
        from openinference.instrumentation.openai import OpenAIInstrumentor
    else:
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor
    return OpenAIInstrumentor()


def main(which: str, base_url: str) -> None:
    provider = TracerProvider()
    provider.add_span_processor(GenAISpanProcessor())
    seen = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(seen))
    handoff.configure(tracer_provider=provider)
    instrumentor(which).instrument(tracer_provider=provider)
    client = openai.OpenAI(base_url=base_url, api_key="test")

    @handoff.step(to="summarize")
    def summarize(note: str) -> str:
        messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": note}]
        return client.chat.completions.create(model="fake-1", messages=messages).choices[0].message.content

    with handoff.run("support") as run:
        summarize("Customer jane.doe@example.com disputes INV-88214: surcharge 9.1% per 7.2(b)")
    handoff.shutdown()
    spans = []
    for span in seen.get_finished_spans():
        content = span_content(span)
        if content is not None and span.instrumentation_scope.name != "handoff":
            spans.append(
                {
                    "input": content[0][0].decode(),
                    "output": content[1][0].decode(),
                    "trace_id": format(span.context.trace_id, "032x"),
                    "span_id": format(span.context.span_id, "016x"),
                }
            )
    print(json.dumps({"run_id": run.run_id, "spans": spans}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
