# The batch of environments both vector kernels share (``genial._vector`` for the board game,
# ``genial.cards._vector`` for the card game): included, at module level, by each of them after
# the names it uses are defined, so that a fix here lands in both (issue 18).
#
# ``_EnvBatch`` holds ``n`` envs (their memory, the seed words, the output arrays every game
# writes) and runs the loops: seeding, starting, the step (check every action, then apply them),
# the sampler, snapshots, restores and the reading methods. Each module's ``Kernel`` subclasses
# it with what its game writes and how it applies an action (the cdef methods marked "the
# game's" below, which the subclass overrides).
#
# The including module defines, before ``include "genial/_envs.pxi"``:
#
# - ``GState``: its kernel's state (``ctypedef``), and the kernel's ``NCOL``, ``MAXP``,
#   ``PH_OVER``, ``check_state`` (``ValueError`` unless the kernel can act on a state) and
#   ``ranks``;
# - ``struct Env``: one environment, with at least ``GState st``, ``genial_pcg chance``,
#   ``genial_pcg policy``, ``bitgen_t chance_bg``, ``bitgen_t policy_bg``, ``uint64_t episode``
#   and ``uint8_t dirty`` (the draw pile may be out of canonical order: set to 1, any change);
# - ``MAX_PREFIX`` (the seed words a root may have) and ``PILE`` (a str: what the game draws
#   from, for the error messages);
# - the game's functions, all ``noexcept nogil`` but ``read_base``, ``same_rules`` and
#   ``state_object``:
#   ``read_base(object base, GState *out) except -1`` (copy the base state, ``ValueError``
#   unless it is a fresh game; its pile in canonical order), ``players_of(const GState *)``,
#   ``turns_of(const GState *)``, ``over_truncated(const GState *)`` (whether a game that is
#   over was stopped, truncated), ``count_pile(Env *)`` (count the draw pile's contents),
#   ``deal_env(Env *, const GState *base)`` (the base copied, then dealt from ``chance_bg``),
#   ``env_allows(Env *, int a)`` (whether action ``a`` is legal in the env, by what
#   ``write_obs`` wrote), ``env_stuck(Env *)`` (no legal action), ``env_sample(Env *)`` (a
#   uniformly random legal action from ``policy_bg``, -1 if none), ``write_finals(const GState *,
#   uint8_t *scores)`` (the final scores, ``players x NCOL``), ``write_rewards(const GState *,
#   const int16_t *ranks, float *rewards)`` (a finished game's), ``same_rules(const GState *,
#   const GState *)`` and ``state_object(const GState *)`` (a copy as the kernel's Python
#   class).

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

from genial._checks cimport claim, copy_actions, owned_array, read_step_outputs, release
from genial._pcg cimport PCG_MAX_POOL, bitgen_init, genial_pcg, int_words, seed_child, seed_pool

import numpy as np

cdef enum:
    MODE_NONE = 0               # the mask modes (``mode``): no masks,
    MODE_PACKED = 1             # bit-packed (the game's layout),
    MODE_BOOL = 2               # one bool per action,
    MODE_FACTORED = 3           # factored (the game's layout; the board game only)

cdef uint64_t POLICY_WORD = 4294967296ULL   # genial.seeds.POLICY_STREAM: the samplers' first key
POLICY_KEY = POLICY_WORD


cdef class _EnvBatch:
    """The loops of a vector kernel, the same for every game (``genial/_envs.pxi``): its
    ``Kernel`` subclass adds what the game writes."""

    cdef Env *envs
    cdef Py_ssize_t n
    cdef GState base
    cdef int players, mode, max_turns
    cdef int pool_size, nprefix
    cdef uint32_t *prefix
    cdef int32_t *acts              # the last step's actions: the kernel's copy
    cdef bint busy                  # a thread is in a method (``claim``)
    cdef bint started               # ``start`` (or ``restore``) has made every env a game
    cdef dict _arrays
    cdef list _keep                 # the memory of the arrays
    cdef int32_t *o_counts
    cdef uint8_t *o_mask
    cdef float *o_rewards
    cdef uint8_t *o_terminated
    cdef uint8_t *o_truncated
    cdef uint8_t *o_final_scores
    cdef int8_t *o_final_ranks
    cdef uint64_t *o_episode
    cdef Py_ssize_t fault

    def __cinit__(self, object base, Py_ssize_t n, int mode, int max_turns):
        cdef Py_ssize_t i
        if n < 1:
            raise ValueError("at least one environment")
        if mode not in (MODE_NONE, MODE_PACKED, MODE_BOOL, MODE_FACTORED):
            raise ValueError(f"bad mask mode {mode}")
        read_base(base, &self.base)
        self.n = n
        self.players = players_of(&self.base)
        self.mode = mode
        self.max_turns = max_turns if max_turns > 0 else 0
        self.fault = -1
        self.envs = <Env *>calloc(n, sizeof(Env))
        self.acts = <int32_t *>calloc(n, sizeof(int32_t))
        self.prefix = NULL
        self.nprefix = 0
        self.pool_size = 0
        if self.envs == NULL or self.acts == NULL:
            raise MemoryError()
        for i in range(n):
            bitgen_init(&self.envs[i].chance_bg, &self.envs[i].chance)
            bitgen_init(&self.envs[i].policy_bg, &self.envs[i].policy)

    cdef dict _make_arrays(self, dict shapes, tuple masks):
        """Make the output arrays: the game's ``shapes`` (name: (shape, dtype)), then those
        every game writes, then the masks (their shape and dtype, unless ``mode`` is 0); return
        the address of each array's memory by name."""
        cdef Py_ssize_t n = self.n
        cdef int players = self.players
        cdef uint8_t *ptr
        shapes = dict(shapes)
        shapes.update({
            "legal_counts": ((n,), np.int32),
            "rewards": ((n, players), np.float32),
            "terminated": ((n,), np.bool_),
            "truncated": ((n,), np.bool_),
            "final_scores": ((n, players, NCOL), np.uint8),
            "final_ranks": ((n, players), np.int8),
            "episode": ((n,), np.uint64),
        })
        if self.mode != MODE_NONE:
            shapes["masks"] = masks
        self._keep = []
        self._arrays = {}
        pointers = {}
        for name, (shape, dtype) in shapes.items():
            self._arrays[name] = owned_array(self._keep, shape, dtype, &ptr)
            pointers[name] = <Py_ssize_t>ptr
        self.o_counts = <int32_t *><Py_ssize_t>pointers["legal_counts"]
        self.o_rewards = <float *><Py_ssize_t>pointers["rewards"]
        self.o_terminated = <uint8_t *><Py_ssize_t>pointers["terminated"]
        self.o_truncated = <uint8_t *><Py_ssize_t>pointers["truncated"]
        self.o_final_scores = <uint8_t *><Py_ssize_t>pointers["final_scores"]
        self.o_final_ranks = <int8_t *><Py_ssize_t>pointers["final_ranks"]
        self.o_episode = <uint64_t *><Py_ssize_t>pointers["episode"]
        self.o_mask = <uint8_t *><Py_ssize_t>pointers["masks"] if self.mode != MODE_NONE else NULL
        return pointers

    def __dealloc__(self):
        free(self.envs)
        free(self.acts)
        free(self.prefix)

    @property
    def arrays(self):
        """The output arrays by name (a new dict of the kernel's arrays)."""
        return dict(self._arrays or {})

    # -- seeding ---------------------------------------------------------------------------------
    def seed(self, const uint32_t[::1] prefix not None, int pool_size):
        """Root the streams at the SeedSequence whose assembled entropy, before the stream's own
        key words, is ``prefix`` (run entropy padded to ``pool_size``, then the root's spawn key
        words); reseeds every sampler. The episodes restart at 0 with the next ``start``."""
        cdef Py_ssize_t i
        claim(&self.busy)
        try:
            self._set_prefix(prefix, pool_size)
            with nogil:
                for i in range(self.n):
                    seed_child(&self.envs[i].policy, self.prefix, self.nprefix, self.pool_size,
                               POLICY_WORD, i)
        finally:
            release(&self.busy)

    cdef int _set_prefix(self, const uint32_t[::1] prefix, int pool_size) except -1:
        cdef Py_ssize_t i
        cdef uint32_t *words
        if not 4 <= pool_size <= PCG_MAX_POOL:
            raise ValueError(f"pool_size must be in 4..{PCG_MAX_POOL}")
        if prefix.shape[0] > MAX_PREFIX:
            raise ValueError(f"prefix: at most {MAX_PREFIX} words, got {prefix.shape[0]}")
        words = <uint32_t *>calloc(prefix.shape[0] + 1, sizeof(uint32_t))
        if words == NULL:
            raise MemoryError()
        for i in range(prefix.shape[0]):
            words[i] = prefix[i]
        free(self.prefix)
        self.prefix = words
        self.nprefix = <int>prefix.shape[0]
        self.pool_size = pool_size
        return 0

    def pool(self, uint64_t x, uint64_t y):
        """The SeedSequence pool of ``child_seed(root, x, y)`` (to check against numpy's)."""
        cdef uint32_t key[4]
        cdef uint32_t pool[PCG_MAX_POOL]
        cdef int nk
        claim(&self.busy)
        try:
            self._check_seeded()
            nk = int_words(x, key)
            nk += int_words(y, key + nk)
            seed_pool(self.prefix, self.nprefix, key, nk, pool, self.pool_size)
            return [pool[i] for i in range(self.pool_size)]
        finally:
            release(&self.busy)

    cdef int _check_made(self) except -1:
        if self._arrays is None:     # (made as the base class, or a subclass not the game's)
            raise TypeError("not a game's kernel: no output arrays (make a Kernel)")
        return 0

    cdef int _check_seeded(self) except -1:
        self._check_made()
        if self.prefix == NULL:
            raise ValueError("the kernel is not seeded")
        return 0

    cdef int _check_started(self) except -1:
        if not self.started:
            raise ValueError("the kernel's games are not started (start first)")
        return 0

    # -- episodes --------------------------------------------------------------------------------
    def start(self, bint fresh):
        """Start a new game in every env: episode 0 if ``fresh`` (after ``seed``), else each
        env's next episode. Clears rewards and flags, writes every observation."""
        cdef Py_ssize_t i
        claim(&self.busy)
        try:
            self._check_seeded()
            with nogil:
                for i in range(self.n):
                    self.new_game(i, 0 if fresh else self.envs[i].episode + 1)
                    self.clear_step(i)
                    self.write_obs(i)
            self.started = True
        finally:
            release(&self.busy)

    cdef void new_game(self, Py_ssize_t i, uint64_t episode) noexcept nogil:
        """Deal env ``i``'s game ``episode`` as the game made with ``seed=child_seed(root, i,
        episode)`` deals it."""
        cdef Env *e = &self.envs[i]
        e.episode = episode
        self.o_episode[i] = episode
        seed_child(&e.chance, self.prefix, self.nprefix, self.pool_size, i, episode)
        deal_env(e, &self.base)
        count_pile(e)
        e.dirty = 1
        self.new_obs(i)

    cdef void new_obs(self, Py_ssize_t i) noexcept nogil:
        """The game's: reset what env ``i``'s observations keep from step to step (a new game)."""
        pass

    cdef void write_obs(self, Py_ssize_t i) noexcept nogil:
        """The game's: write env ``i``'s observations, legal count and mask."""
        pass

    cdef void apply_one(self, Py_ssize_t i, int a) noexcept nogil:
        """The game's: apply the legal action ``a`` in env ``i`` (``fault = i`` if drawing
        fails), updating its pile counts and what its observations keep."""
        pass

    cdef inline void clear_step(self, Py_ssize_t i) noexcept nogil:
        cdef int p
        for p in range(self.players):
            self.o_rewards[i * self.players + p] = 0
        self.o_terminated[i] = 0
        self.o_truncated[i] = 0

    cdef void finish(self, Py_ssize_t i, bint truncated) noexcept nogil:
        """Write the final scores, ranks and (unless truncated) rewards of env ``i``'s game."""
        cdef GState *st = &self.envs[i].st
        cdef int16_t rk[MAXP]
        cdef int p
        cdef int players = self.players
        ranks(st, rk)
        write_finals(st, self.o_final_scores + i * players * NCOL)
        for p in range(players):
            self.o_final_ranks[i * players + p] = rk[p]
        if truncated:
            self.o_truncated[i] = 1
            return
        self.o_terminated[i] = 1
        write_rewards(st, rk, self.o_rewards + i * players)

    # -- stepping --------------------------------------------------------------------------------
    def step(self, const int32_t[::1] actions not None):
        """Copy the actions (one per env) into the kernel, check the copy: if every action is
        legal, apply them (finished games are scored and restarted, then every observation is
        written) and return -1; else return the first env whose action is not legal, with
        nothing changed. Only the copy is read after the check (``last_actions``)."""
        cdef Py_ssize_t i, bad = -1
        claim(&self.busy)
        try:
            self._check_started()
            copy_actions(self.acts, actions, self.n)
            self.fault = -1
            with nogil:
                for i in range(self.n):
                    if not env_allows(&self.envs[i], self.acts[i]):
                        bad = i
                        break
                if bad < 0:
                    for i in range(self.n):
                        self.step_one(i, self.acts[i])
        finally:
            release(&self.busy)
        if self.fault >= 0:
            raise RuntimeError(f"env {self.fault}: drawing from the {PILE} failed")
        return bad

    def step_sampled(self, int32_t[::1] out not None):
        """Sample and step in one call: what ``sample(out)`` then ``step(out)`` do (the same
        draws from each env's sampler stream, the same results), each env sampled then stepped
        in turn, so its memory is visited once. The actions are the kernel's own
        (``last_actions``), also written to ``out``, which is never read. A sampled action is
        legal by construction (every env has one: a stuck game is restarted); should one not
        be, ``RuntimeError``, the envs before it stepped."""
        cdef Py_ssize_t i, bad = -1
        cdef Env *e
        cdef int a
        if out.shape[0] != self.n:
            raise ValueError("one action per env")
        claim(&self.busy)
        try:
            self._check_started()
            self.fault = -1
            with nogil:
                for i in range(self.n):
                    e = &self.envs[i]
                    a = env_sample(e)
                    self.acts[i] = a
                    out[i] = a
                    if not env_allows(e, a):
                        bad = i
                        break
                    self.step_one(i, a)
        finally:
            release(&self.busy)
        if bad >= 0:
            raise RuntimeError(f"env {bad}: no legal action to sample (the kernel is broken)")
        if self.fault >= 0:
            raise RuntimeError(f"env {self.fault}: drawing from the {PILE} failed")

    def last_actions(self):
        """A copy of the actions the last ``step`` read (applied, or refused whole)."""
        out = np.empty(self.n, dtype=np.int32)
        cdef int32_t[::1] view = out
        memcpy(&view[0], self.acts, self.n * sizeof(int32_t))
        return out

    cdef void step_one(self, Py_ssize_t i, int a) noexcept nogil:
        """Apply ``a`` in env ``i``; a game that ends (or passes ``max_turns``: truncated) is
        scored and the env's next one dealt; write its observations."""
        cdef Env *e = &self.envs[i]
        cdef GState *st = &e.st
        self.apply_one(i, a)
        self.clear_step(i)
        if st.phase == PH_OVER:            # (the card game's turn cap ends a game truncated)
            self.finish(i, over_truncated(st))
            self.new_game(i, e.episode + 1)
        elif self.max_turns and turns_of(st) > self.max_turns:
            self.finish(i, True)
            self.new_game(i, e.episode + 1)
        self.write_obs(i)
        if env_stuck(e):                   # nothing playable: never after a deal (only in
            self.finish(i, True)           # hand-made positions); truncated, never stuck
            self.new_game(i, e.episode + 1)
            self.write_obs(i)

    def sample(self, int32_t[::1] out not None):
        """A uniformly random legal action per env, from each env's sampler stream (-1 where
        no action is legal)."""
        cdef Py_ssize_t i
        if out.shape[0] != self.n:
            raise ValueError("one action per env")
        claim(&self.busy)
        try:
            self._check_started()
            with nogil:
                for i in range(self.n):
                    out[i] = env_sample(&self.envs[i])
        finally:
            release(&self.busy)

    # -- reading ---------------------------------------------------------------------------------
    cdef int _check_env(self, Py_ssize_t i) except -1:
        self._check_started()
        if not 0 <= i < self.n:
            raise IndexError(f"no env {i}")
        return 0

    def snapshot(self):
        """Everything the kernel holds, as ``(envs, prefix, pool_size, arrays)`` (for pickling):
        the envs' bytes, the seed words and copies of the output arrays."""
        claim(&self.busy)
        try:
            self._check_started()
            envs = (<char *>self.envs)[:self.n * sizeof(Env)]
            prefix = np.array([self.prefix[i] for i in range(self.nprefix)], dtype=np.uint32)
            return envs, prefix, self.pool_size, {k: v.copy() for k, v in self._arrays.items()}
        finally:
            release(&self.busy)

    def restore(self, bytes envs not None, const uint32_t[::1] prefix not None, int pool_size,
                dict arrays not None):
        """Set everything from ``snapshot``'s parts (the same rules, size and mode), checked
        as if typed by hand: every env must hold a game of these rules at a decision (its
        kernel's state check) with streams numpy could have made; ``ValueError`` naming the env
        otherwise, and nothing changes. What the envs determine (their pile counts, decisions,
        observations and masks) is computed again, not read; only the last step's outputs
        (rewards, flags, final scores and ranks) are taken from ``arrays``."""
        cdef Py_ssize_t i
        cdef Env *work = NULL
        claim(&self.busy)
        try:
            self._check_made()
            outputs = read_step_outputs(arrays, self._arrays)
            if len(envs) != <Py_ssize_t>(self.n * sizeof(Env)):
                raise ValueError("a snapshot of another kernel (its size)")
            if not 4 <= pool_size <= PCG_MAX_POOL or prefix.shape[0] > MAX_PREFIX:
                raise ValueError("a snapshot of another kernel (its seed)")
            work = <Env *>malloc(self.n * sizeof(Env))
            if work == NULL:
                raise MemoryError()
            memcpy(work, <char *>envs, self.n * sizeof(Env))
            for i in range(self.n):
                self._check_restored(&work[i], i)
            self._set_prefix(prefix, pool_size)
            memcpy(self.envs, work, self.n * sizeof(Env))
            for i in range(self.n):
                self._rebuild(i)
            for name, value in outputs.items():
                self._arrays[name][...] = value
            self.started = True
        finally:
            free(work)
            release(&self.busy)

    cdef int _check_restored(self, Env *e, Py_ssize_t i) except -1:
        """``ValueError`` unless ``e`` (a copy) holds a game this kernel could be playing: a
        state its kernel accepts, under the base's rules, at a decision (``_check_decision``);
        its streams PCG64's."""
        try:
            check_state(&e.st)
        except ValueError as exc:
            raise ValueError(f"env {i}: {exc}") from None
        if not same_rules(&e.st, &self.base):
            raise ValueError(f"env {i}: a game under other rules")
        self._check_decision(e, i)
        if (not e.chance.inc_lo & 1 or not e.policy.inc_lo & 1 or e.chance.has_uint32 > 1
                or e.policy.has_uint32 > 1):
            raise ValueError(f"env {i}: not a PCG64 stream")
        return 0

    cdef int _check_decision(self, Env *e, Py_ssize_t i) except -1:
        """The game's: ``ValueError`` unless ``e`` (a copy) is at a decision the game's
        ``env_allows`` would read correctly."""
        return 0

    cdef void _rebuild(self, Py_ssize_t i) noexcept:
        """Compute what env ``i``'s state determines: its stream pointers, pile counts,
        observations and (``_rebuild_obs``) what they keep from step to step."""
        cdef Env *e = &self.envs[i]
        bitgen_init(&e.chance_bg, &e.chance)
        bitgen_init(&e.policy_bg, &e.policy)
        count_pile(e)
        e.dirty = 1
        self.o_episode[i] = e.episode
        self._rebuild_obs(i)
        self.write_obs(i)

    cdef void _rebuild_obs(self, Py_ssize_t i) noexcept:
        """The game's: compute what env ``i``'s observations keep from step to step."""
        pass

    def core(self, Py_ssize_t i):
        """A copy of env ``i``'s kernel state."""
        claim(&self.busy)
        try:
            self._check_env(i)
            return state_object(&self.envs[i].st)
        finally:
            release(&self.busy)

    def stream_state(self, Py_ssize_t i, bint policy=False):
        """Env ``i``'s chance (or sampler) stream as ``numpy.random.PCG64().state`` writes it."""
        cdef genial_pcg g
        claim(&self.busy)
        try:
            self._check_env(i)
            if policy:
                g = self.envs[i].policy
            else:
                g = self.envs[i].chance
        finally:
            release(&self.busy)
        return {
            "bit_generator": "PCG64",
            "state": {
                "state": (int(g.state_hi) << 64) | int(g.state_lo),
                "inc": (int(g.inc_hi) << 64) | int(g.inc_lo),
            },
            "has_uint32": int(g.has_uint32),
            "uinteger": int(g.uinteger),
        }
