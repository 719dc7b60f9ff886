"""Storage backends behind one contract (`Store`); SQL lives only in this package."""

from mindex.store.base import Store
from mindex.store.sqlite import SCHEMA_VERSION, SQLiteStore

__all__ = ["SCHEMA_VERSION", "SQLiteStore", "Store"]
