"""The LLM judge: prompt templates, OpenAI-compatible client, cache and answer parsing."""
