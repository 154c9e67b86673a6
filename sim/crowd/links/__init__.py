"""Links in a crowd's shared fields: where a field's way down is a link hop, and crossing it."""
