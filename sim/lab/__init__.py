"""The lab: `sim sweep` runs an experiment (maps x searches x scenarios) on Dask.

`experiment` reads the TOML file, `maps` loads or generates its maps and picks their
scenarios, `chunks` cuts the work into tasks, `task` runs one on a worker, `rows` is the
table's schema and CSV form, `store` keeps finished chunks for `--resume`, `cluster` talks to
Dask, `summary` and `plots` write the outputs, and `sweep` ties them together. Only `cluster`
and `plots` import Dask and matplotlib (the `lab` extra), and only when a sweep runs.
"""
