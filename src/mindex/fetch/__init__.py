"""Network plumbing shared by remote embedders, rerankers and (later) fetchers."""
