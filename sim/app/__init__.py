"""The running app: the composition root, what the HUD says, and the JSON report."""
