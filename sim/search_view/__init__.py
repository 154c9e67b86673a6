"""The search view: replay a search expansion by expansion on the ground, and its panel."""
