"""Text analysis: what the writer and the investigation tools read out of stored text.

- :mod:`handoff.analysis.scrub`: PII and secret detection and consistent keyed pseudonyms
  (Presidio), run by the background writer before content touches disk.
- :mod:`handoff.analysis.constraints`: the facts a handoff must carry (numbers, amounts,
  dates, clause references, identifiers, negations, qualifiers) as normalized tokens, extracted
  on write and compared by checks, alerts and diffs.

Both are pure text in, text or tokens out: nothing here knows about runs, stores or spans, and
the capture API never imports this package (the writer does, on its own thread or process).
"""
