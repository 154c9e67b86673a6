"""Scenes as data: the TOML format, its validation, building a live scene, saving, its grid."""
