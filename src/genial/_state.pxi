# The bodies of the checked entry points both kernels' state classes share (``Core`` of
# ``genial._core``, ``Cards`` of ``genial.cards._kernel``): their base class ``_State``
# (snapshots, pickling, whose turn it is), restoring a snapshot and dealing or applying an action
# with its draws, included at module level by each kernel after the names they use, so that a
# fix here lands in both (issue 18).
#
# The including kernel declares in its ``.pxd`` ``cdef class _State`` with its state as
# ``st`` (its state class subclasses it), and defines, before ``include "genial/_state.pxi"``:
# ``GState`` (its state, ``ctypedef``); ``N_ACTIONS`` (its action ids); ``is_legal``,
# ``legal_actions`` and ``swap_allowed`` (the rules); ``check_state(const GState *) except -1`` (``ValueError`` unless the kernel can
# act on the state); ``_check_undealt(const GState *) except -1`` (``ValueError`` unless nothing
# is dealt yet); ``deal`` and ``apply_action`` (the rules); ``sort_pile(GState *)`` (the draw
# pile in canonical order); ``no_source(GState *, Draws *, uint8_t *buf) except -1`` (what to do
# when neither a bit generator nor a script is given); ``MAX_DRAWS`` (the draws one call may
# make, at most); the Python objects ``ITEM`` (what is drawn: "tile", "card"), ``PILE`` (where
# from: "bag", "deck"), ``N_ITEMS`` (its types) and ``ITEM_TEXT`` (each type's text).

from libc.stdint cimport int32_t, uint8_t
from libc.string cimport memcpy, memset

from genial._checks cimport read_script
from genial._common cimport DRAW_NOT_IN_BAG, DRAW_OK, DRAW_SCRIPT_SHORT, Bag, Draws, bitgen_of

import numpy as np


cdef int restore_state(GState *st, bytes data) except -1:
    """Set ``st`` from snapshot bytes, checked as ``check_state`` does (``ValueError`` naming
    what is wrong; ``st`` is then unchanged)."""
    cdef GState work
    if len(data) != sizeof(GState):
        raise ValueError(f"a snapshot has {sizeof(GState)} bytes, got {len(data)}")
    memcpy(&work, <char *>data, sizeof(GState))
    try:
        check_state(&work)
    except ValueError as exc:
        raise ValueError(f"not a snapshot of a game: {exc}") from None
    memcpy(st, &work, sizeof(GState))
    return 0


cdef inline int step_state(GState *st, int action, Draws *ds) noexcept nogil:
    if action < 0:
        deal(st, ds)
        return 0
    return apply_action(st, action, ds)


cdef object run_step(GState *st, int action, object bit_generator, object script,
                     Bag *short_pile=NULL):
    """Deal (``action < 0``) or apply ``action`` (legal: the callers check) on a copy of ``st``,
    kept only if every draw succeeded; the draws come from ``bit_generator`` (a numpy
    BitGenerator) or, when ``script`` (item type ids) is given, from the script, which must
    hold exactly the items drawn. Returns the item types drawn.

    With ``short_pile`` (and a script) a script that runs out is no error: the pile the next
    draw would have come from is copied there, ``st`` is left unchanged and ``None`` returned
    (``next_draw``)."""
    cdef GState work
    cdef Draws ds
    cdef uint8_t log[MAX_DRAWS]
    cdef uint8_t buf[MAX_DRAWS]
    cdef int i, rc
    memset(&ds, 0, sizeof(Draws))
    ds.log = log
    ds.max_log = MAX_DRAWS
    ds.short_pile = short_pile if script is not None else NULL
    if script is not None:
        ds.n_script = read_script(script, buf, MAX_DRAWS, N_ITEMS, ITEM)
        ds.script = buf
    elif bit_generator is not None:
        ds.rng = bitgen_of(bit_generator)
    memcpy(&work, st, sizeof(GState))
    sort_pile(&work)           # canonical order: draws depend on the contents only
    if ds.rng != NULL:
        with bit_generator.lock, nogil:
            rc = step_state(&work, action, &ds)
    else:
        if ds.script == NULL:
            no_source(&work, &ds, buf)
        rc = step_state(&work, action, &ds)
    if ds.error == DRAW_SCRIPT_SHORT:
        if ds.short_pile != NULL:
            return None
        raise ValueError(f"the record's draws run out after {ds.pos} {ITEM}s")
    if ds.error == DRAW_NOT_IN_BAG:
        raise ValueError(f"drawn {ITEM} {ITEM_TEXT[ds.script[ds.pos - 1]]} is not in the {PILE}")
    if script is not None and ds.pos != ds.n_script:
        raise ValueError(f"{ds.n_script} {ITEM}s given to draw, {ds.pos} drawn")
    if rc < 0 or ds.error != DRAW_OK:
        raise ValueError(f"drawing from the {PILE} failed")
    memcpy(st, &work, sizeof(GState))
    return [log[i] for i in range(ds.n_log)]


cdef class _State:
    """What both kernels' state classes share (``genial/_state.pxi``): snapshots, pickling and
    whose turn it is; the state itself, ``st``, is the kernel's (declared in its ``.pxd``)."""

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def snapshot(self):
        """The whole state as bytes (for undo and pickling)."""
        return (<char *>&self.st)[:sizeof(GState)]

    def restore(self, bytes data not None):
        """Set the whole state from :meth:`snapshot` bytes, checked as ``check_state`` does
        (``ValueError`` naming what is wrong; the state is then unchanged)."""
        restore_state(&self.st, data)

    @classmethod
    def from_snapshot(cls, bytes data not None):
        """A new state from :meth:`snapshot` bytes, checked as :meth:`restore` checks them."""
        cdef _State out = cls.__new__(cls)
        restore_state(&out.st, data)
        return out

    def __reduce__(self):
        return (type(self).from_snapshot, (self.snapshot(),))

    # -- moves --------------------------------------------------------------------------------
    def legal_actions(self):
        """The legal actions, in increasing order."""
        out = np.empty(N_ACTIONS, dtype=np.int32)
        cdef int32_t[::1] view = out
        cdef int n = legal_actions(&self.st, &view[0])
        return out[:n].copy()

    def is_legal(self, int action):
        return bool(is_legal(&self.st, action))

    def swap_allowed(self):
        """Whether the current seat may swap its rack (hand) now, by the rules."""
        return bool(swap_allowed(&self.st))

    def apply(self, int action, bit_generator=None, script=None):
        """Apply a legal action; return the item types drawn. ``ValueError`` if illegal.

        Draws come from ``bit_generator`` (a numpy BitGenerator) or, when ``script`` (a sequence
        of item type ids) is given, from the script, which must hold exactly the items drawn.
        On any error the state is unchanged.
        """
        if not is_legal(&self.st, action):
            raise ValueError(f"illegal action {action}")
        return run_step(&self.st, action, bit_generator, script)

    def next_draw(self, int action, script):
        """What the next draw of dealing (``action = -1``, before the deal) or of playing
        ``action`` (legal now) comes from once the items of ``script`` (item type ids) are
        drawn: a list of ``N_ITEMS`` counts, the pile's items of each type (each as likely to
        be drawn as it is numerous), or ``None`` if those are all the items it draws. The state
        is unchanged; ``ValueError`` if the action is illegal or the script cannot be drawn
        (an item not in the pile, or more items than the action draws)."""
        cdef Bag pile
        cdef GState probe
        cdef int i
        cdef list counts
        if script is None:
            raise ValueError(f"a script of {ITEM}s is needed (an empty one for the first draw)")
        if action < 0:
            _check_undealt(&self.st)
        elif not is_legal(&self.st, action):
            raise ValueError(f"illegal action {action}")
        pile.n = 0
        memcpy(&probe, &self.st, sizeof(GState))    # run_step keeps a full draw: not here
        if run_step(&probe, action, None, script, &pile) is not None:
            return None
        counts = [0] * N_ITEMS
        for i in range(pile.n):
            counts[pile.item[i]] += 1
        return counts

    # -- reading ------------------------------------------------------------------------------
    @property
    def current(self):
        return self.st.current

    @property
    def phase(self):
        return self.st.phase

    @property
    def bonus(self):
        return self.st.bonus
