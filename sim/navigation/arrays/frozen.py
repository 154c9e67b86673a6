"""Frozen arrays: walkable masks that provably never change, searched without checking them.

Jump point search keeps bit-packed copies of each array it searches, and because numpy keeps
no version of an array's contents and a caller may edit the array in place between queries,
every search compares the rows it reads with the bytes its copies were made from. On the open
512 x 512 maps that comparison is about a third of the compiled search (most of the array is
read by a long query's column scans; benchmarks/RESULTS.md).

An array whose memory is an immutable ``bytes`` object and that is itself read-only can never
change: numpy refuses ``flags.writeable = True`` on it (and on every view of it), and Python
never writes into a ``bytes`` object that is alive. `freeze` makes such an array; the compiled
search recognises it the first time it sees it (read-only, its ``.base`` chain ending in that
``bytes`` object, its cells inside it), keeps a reference to the ``bytes`` with its packed
copies so that the memory cannot be freed and reused while they live, and from then on skips
every row check for it. A writeable array, or a read-only view of a writeable one, is checked
as before: correctness never rests on a flag the caller can take back.

Every entry point that takes a walkable array takes a frozen one (it is an ordinary read-only
``numpy`` array): `find_path`, `find_path_with`, `find_paths`, `OfflineIndex`, the default
call with its landmarks and offline index. To edit a frozen map, copy it
(``walkable.copy()``), edit the copy and freeze it again (or keep searching the writeable copy).

>>> import numpy as np
>>> walkable = freeze(np.ones((2, 3), dtype=bool))
>>> walkable.flags.writeable, is_frozen(walkable), walkable.shape
(False, True, (2, 3))
>>> walkable.flags.writeable = True
Traceback (most recent call last):
...
ValueError: cannot set WRITEABLE flag to True of this array
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

Scalar = TypeVar("Scalar", bound=np.generic)

MAX_BASES = 8
"""How far `is_frozen` follows ``.base``: numpy collapses a view's chain, so a frozen array's
is two deep (the array, the flat array over the bytes, the bytes); the C check stops alike."""


def freeze(walkable: NDArray[Scalar]) -> NDArray[Scalar]:
    """A read-only, C-contiguous copy of `walkable` backed by ``bytes``: same dtype, shape, values.

    An array that is frozen already (`is_frozen`) and C-contiguous is returned as it is. The
    copy costs one pass over the array (a few microseconds at 512 x 512); search the returned array
    from then on, and keep it alive while you do (its packed copies are kept while it is).

    Args:
        walkable: Any numpy array; jump point search reads a 2-D bool one.

    Returns:
        The frozen array.

    >>> import numpy as np
    >>> source = np.eye(2, dtype=bool)
    >>> frozen = freeze(source)
    >>> source[0, 1] = True  # the original stays editable; the frozen copy does not follow
    >>> frozen.tolist(), freeze(frozen) is frozen
    ([[True, False], [False, True]], True)
    """
    array = np.asarray(walkable)
    if array.flags.c_contiguous and is_frozen(array):
        return array
    data = np.ascontiguousarray(array).tobytes()
    # numpy's stubs type frombuffer by its dtype argument, here only known at run time.
    return cast("NDArray[Scalar]", np.frombuffer(data, dtype=array.dtype).reshape(array.shape))


def is_frozen(walkable: Any) -> bool:
    """Whether `walkable` is a numpy array that can never change (see the module).

    >>> import numpy as np
    >>> is_frozen(np.zeros(3, dtype=bool)), is_frozen(freeze(np.zeros(3, dtype=bool)))
    (False, True)
    >>> view = np.zeros(3, dtype=bool)[:]
    >>> view.flags.writeable = False  # read-only, but its base may still be written
    >>> is_frozen(view)
    False
    """
    if not isinstance(walkable, np.ndarray) or walkable.flags.writeable:
        return False
    owner: Any = walkable
    for _ in range(MAX_BASES):
        owner = getattr(owner, "base", None)
        if type(owner) is bytes:
            return True
        if not isinstance(owner, np.ndarray) or owner.flags.writeable:
            return False
    return False
