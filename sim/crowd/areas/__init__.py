"""Areas in a crowd's shared fields: driven agents kept to some areas, one field per mask."""
