"""`sim bench --env`: the learning environments' steps per second beside POGEMA's."""
