# cython: language_level=3
"""The argument checks every kernel's entry points share, written once for both games:
cimport, do not copy (``genial._core``, ``genial.cards._kernel`` and their vector environments
``genial._vector``, ``genial.cards._vector``).

An entry point reachable from Python checks its arguments here, with the GIL, before any
``nogil`` section, and works on copies it owns of what it checked: a caller's array is read
once, so no other thread can change a checked value before it is used, and no output can alias
an input.

- ``read_policies``: one policy code and one epsilon per seat, copied and checked;
- ``Forced``, ``read_forced``, ``refuse_forced``: the forced actions of ``run_chunk`` (their
  seats, actions, one action per game), copied and checked for range; a kernel checks each one's
  legality on the value it applies, at its decision, and ``refuse_forced`` raises afterwards;
- ``small_int``: one int of a position given to ``set_position``, read once, in range;
- ``read_script``: the scripted draws of ``Core.apply``/``Cards.apply`` (replaying a record);
- ``check_bag``: a bag (or deck) of a state read back from a snapshot or a position;
- ``claim``/``release``: one thread at a time in a vector kernel (its envs and streams are
  changed without the GIL);
- ``copy_actions``: a vector kernel's own copy of a step's actions, checked and applied;
- ``read_step_outputs``: the output arrays of a snapshot, checked, and the last step's copied;
- ``owned_array``: an output array whose memory belongs to the kernel (Python code cannot free
  or resize it under the kernel's pointers).
"""

from cython.view cimport array as cvarray
from libc.stdint cimport int16_t, int32_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from genial._common cimport BAG_CAP, Bag

cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* as numpy does for its arrays of 4 MiB or more: transparent huge pages for the block's
       whole pages (Linux; elsewhere nothing) */
    static void genial_huge_pages(void *p, size_t n) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        uintptr_t lo = ((uintptr_t)p + 4095u) & ~(uintptr_t)4095u;
        uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)4095u;
        if (n >= ((size_t)1 << 22) && hi > lo)
            madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    #else
        (void)p; (void)n;
    #endif
    }
    """
    void huge_pages "genial_huge_pages"(void *p, size_t n) noexcept nogil

# ---------------------------------------------------------------------------------------------
# run_chunk: the seats' policies and the forced actions


cdef inline int read_policies(const uint8_t[::1] policies, const double[::1] epsilons,
                              int players, int max_code, uint8_t *codes,
                              double *eps) except -1:
    """Copy one policy code (``0..max_code``) and one epsilon per seat into ``codes``, ``eps``
    (``players`` entries each), or raise ``ValueError``."""
    cdef int i
    if (policies is None or epsilons is None or policies.shape[0] < players
            or epsilons.shape[0] < players):
        raise ValueError("one policy and one epsilon per seat are needed")
    for i in range(players):
        codes[i] = policies[i]
        eps[i] = epsilons[i]
    for i in range(players):
        if codes[i] > max_code:
            raise ValueError(f"unknown policy code {codes[i]}")
    return 0


cdef struct Forced:
    # run_chunk's forced actions, the kernel's copies (read_forced; free with free_forced)
    int n                   # forced actions, made in order (0: none)
    int16_t *seat           # their seats
    int16_t *action         # their actions
    int16_t *each           # with one forced seat: game g forces each[g], else NULL
    int16_t *buf            # the one allocation holding them


cdef inline int read_forced(Forced *f, const int16_t[::1] seats, const int16_t[::1] actions,
                            const int16_t[::1] each, Py_ssize_t n_rows, int players,
                            int action_size, int view_seat, bint logs) except -1:
    """Copy ``run_chunk``'s forced actions into ``f`` (``free_forced`` later, also after an
    error), then check the copies: a seat of the game and an action id each, one action per
    seat, ``each`` only with one forced seat and then one action per row, ``view_seat`` a seat
    or -1 (and then only its actions forced, and no ``logs``). ``ValueError`` if not."""
    cdef Py_ssize_t i, n = 0, k = 0
    memset(f, 0, sizeof(Forced))
    if not -1 <= view_seat < players:
        raise ValueError(f"view_seat: no seat {view_seat} in a {players}-player game")
    if view_seat >= 0 and logs:
        raise ValueError("view_seat: determinised games have no records")
    if seats is not None and seats.shape[0] > 0:
        if actions is None or actions.shape[0] != seats.shape[0]:
            raise ValueError("one forced action per forced seat")
        n = seats.shape[0]
    if each is not None and n_rows > 0:
        if n != 1 or each.shape[0] != n_rows:
            raise ValueError("forced_each: one forced seat, and one action per row")
        k = n_rows
    if n + k == 0:
        return 0
    f.buf = <int16_t *>malloc((2 * n + k) * sizeof(int16_t))
    if f.buf == NULL:
        raise MemoryError()
    f.n = <int>n
    f.seat = f.buf
    f.action = f.buf + n
    memcpy(f.seat, &seats[0], n * sizeof(int16_t))
    memcpy(f.action, &actions[0], n * sizeof(int16_t))
    if k:
        f.each = f.buf + 2 * n
        memcpy(f.each, &each[0], k * sizeof(int16_t))
    for i in range(n):
        if not 0 <= f.seat[i] < players:
            raise ValueError(f"forced_seats: no seat {f.seat[i]}")
        if not 0 <= f.action[i] < action_size:
            raise ValueError(f"forced_actions: no action {f.action[i]}")
        if view_seat >= 0 and f.seat[i] != view_seat:
            raise ValueError("view_seat: only that seat's actions may be forced")
    for i in range(k):
        if not 0 <= f.each[i] < action_size:
            raise ValueError(f"forced_each: no action {f.each[i]}")
    return 0


cdef inline void free_forced(Forced *f) noexcept:
    free(f.buf)
    f.buf = NULL


cdef inline int refuse_forced(Py_ssize_t bad) except -1:
    """Raise for game ``bad`` (if ``bad >= 0``), whose forced action was not legal at its
    decision: the kernel stopped that game there and applied nothing illegal."""
    if bad >= 0:
        raise ValueError(f"a forced action is not legal at its decision (game {bad})")
    return 0


# ---------------------------------------------------------------------------------------------
# positions and scripted draws


cdef inline int small_int(object value, int lo, int hi, str what) except? -1:
    """``value`` (an int, read once) if it is in ``lo..hi``, else ``ValueError`` naming
    ``what`` (``TypeError`` if it is not an int)."""
    from operator import index
    cdef object v = index(value)
    if not lo <= v <= hi:
        raise ValueError(f"{what}: {v if -2**31 <= v < 2**31 else '(huge)'} is not in {lo}..{hi}")
    return v


cdef inline int read_script(object script, uint8_t *buf, int cap, int n_types,
                            str what) except -1:
    """Copy the item types of ``script`` (an iterable of ints, read once) into ``buf``; return
    their number. ``ValueError`` for more than ``cap`` or a type outside ``0..n_types - 1``
    (``what`` names the items), ``TypeError`` for a non-integer."""
    from itertools import islice
    from operator import index
    cdef list items = list(islice(script, cap + 1))
    cdef Py_ssize_t i
    cdef object t
    if len(items) > cap:
        raise ValueError("too many scripted draws")
    for i in range(len(items)):
        t = index(items[i])
        if not 0 <= t < n_types:
            raise ValueError(f"bad {what} type {t if -2**31 <= t < 2**31 else '(huge)'}")
        buf[i] = <uint8_t>t
    return <int>len(items)


# ---------------------------------------------------------------------------------------------
# states read back


cdef inline int check_bag(const Bag *bag, int n_types, str what) except -1:
    """``ValueError`` naming ``what`` unless the bag holds at most ``BAG_CAP`` items, each a
    type below ``n_types``."""
    cdef int i
    if bag.n > BAG_CAP:
        raise ValueError(f"{what}: {bag.n} items, at most {BAG_CAP}")
    for i in range(bag.n):
        if bag.item[i] >= n_types:
            raise ValueError(f"{what}: item {i} is type {bag.item[i]}, not 0..{n_types - 1}")
    return 0


# ---------------------------------------------------------------------------------------------
# the vector kernels


cdef inline int claim(bint *busy) except -1:
    """Enter a vector kernel's method (with the GIL): ``RuntimeError`` if another thread is in
    one. The method calls ``release`` when it leaves (``try``/``finally``)."""
    if busy[0]:
        raise RuntimeError("this vector kernel is busy with another call (one thread at a time)")
    busy[0] = True
    return 0


cdef inline void release(bint *busy) noexcept:
    busy[0] = False


cdef inline int copy_actions(int32_t *dst, const int32_t[::1] actions,
                             Py_ssize_t n) except -1:
    """Copy a step's ``n`` actions into the kernel's ``dst`` (with the GIL): the step checks
    and applies this copy only, whatever another thread does to ``actions`` meanwhile."""
    if actions.shape[0] != n:
        raise ValueError("one action per env")
    memcpy(dst, &actions[0], n * sizeof(int32_t))
    return 0


cdef inline dict read_step_outputs(dict given, dict own):
    """Check that a snapshot's ``given`` arrays are numpy arrays of the names, shapes and
    dtypes of the kernel's ``own`` (``ValueError``); return copies of the last step's outputs
    (rewards, flags, final scores and ranks: what the envs' states do not determine), for the
    kernel to write into its arrays once everything is checked."""
    import numpy as np
    cdef str name
    if set(given) != set(own):
        raise ValueError("a snapshot of another kernel (its arrays)")
    for name, array in given.items():
        if (not isinstance(array, np.ndarray) or array.shape != own[name].shape
                or array.dtype != own[name].dtype):
            raise ValueError(f"a snapshot of another kernel ({name})")
    return {name: np.array(given[name], dtype=own[name].dtype, copy=True, subok=False)
            for name in ("rewards", "terminated", "truncated", "final_scores", "final_ranks")}


cdef inline object owned_array(list keep, tuple shape, object dtype, uint8_t **ptr):
    """A zeroed numpy array of ``shape`` and ``dtype`` whose memory is a Cython array appended
    to ``keep`` (the kernel's list), its first byte in ``ptr``. The numpy array does not own
    that memory: Python code can neither resize it nor free it under the kernel's pointer. (A
    large one gets huge pages as numpy's own would.)"""
    import numpy as np
    cdef Py_ssize_t size = np.dtype(dtype).itemsize
    cdef object dim
    cdef cvarray block
    for dim in shape:
        size *= dim
    block = cvarray(shape=(max(size, 1),), itemsize=1, format="B", mode="c")
    huge_pages(block.data, size)
    memset(block.data, 0, max(size, 1))
    keep.append(block)
    ptr[0] = <uint8_t *>block.data
    return np.asarray(block)[:size].view(dtype).reshape(shape)
