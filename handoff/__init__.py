"""Record every edge of multi-step LLM and agent pipelines."""
