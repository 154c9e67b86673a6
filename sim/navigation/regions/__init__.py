"""Connected regions: labels kept current, the unreachable answer, and why there is no path."""
