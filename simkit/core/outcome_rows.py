"""One decision's row of an outcome fit (``simkit train --method outcomes``), written by a kernel.

``value.collect_outcomes`` plays its games from Python; the sparse row of each recorded decision (the non-zero
features of the policy's action, then those of the action played less the policy's) is the part of its loop
that numpy would do in many small calls, so a kernel writes it straight into the growing buffers.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def record_pair(xbuf, buf, n, a_pol, a, idx, val, pos):
    """Write one decision's row at ``idx[pos:]``/``val[pos:]`` and return where it ends: the non-zero slots of
    x(π(s)) (the row of ``xbuf`` whose action in ``buf[:n]`` is ``a_pol``, the first such), then, when the action
    played ``a`` differs, those of x(a) − x(π(s)) offset by the feature count ``xbuf.shape[1]``. The slots, their
    order and the values rounded to float32 are those of numpy's ``flatnonzero`` over the dense rows. ``idx`` and
    ``val`` must have room for two rows' worth of features after ``pos``."""
    f = xbuf.shape[1]
    ip = -1
    ia = -1
    for i in range(n):
        if ip < 0 and buf[i] == a_pol:
            ip = i
        if ia < 0 and buf[i] == a:
            ia = i
    end = pos
    for k in range(f):
        x = xbuf[ip, k]
        if x != 0.0:
            idx[end] = k
            val[end] = np.float32(x)
            end += 1
    if a != a_pol:
        for k in range(f):
            d = xbuf[ia, k] - xbuf[ip, k]
            if d != 0.0:
                idx[end] = k + f
                val[end] = np.float32(d)
                end += 1
    return end
