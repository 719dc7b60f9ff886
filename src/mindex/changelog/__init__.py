"""Changelog knowledge: release notes of the tools a project depends on, as classified changes."""
