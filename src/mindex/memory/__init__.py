"""Agent memory: a markdown journal and knowledge files in the project (the truth), and
their rows in the index (derived). See docs/memory.md for the formats."""
