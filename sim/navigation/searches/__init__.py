"""The searches, one module each, with the C kernels beside the Python references they match.

Importing the package makes `PathResult.cells` lay out a compiled search's flat path on its
first read (`lazy_cells`), before any search here can answer.
"""

from sim.navigation.searches import lazy_cells

lazy_cells.install()
