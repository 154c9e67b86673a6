"""`python -m sim`: the same command as `sim`."""

import sys

from sim.commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
