"""Working with coding agents: workflow checkpoints, session hooks, client set-up."""
