"""The screening SVM solved exactly: LinearSVC's objective, its one minimum, from the decided papers' dot products.

The ranker refits a linear SVM after every decision. Its objective is scikit-learn's
``LinearSVC(loss="squared_hinge", C=C)`` with a weight ``s_i`` per paper (liblinear's: the
intercept is a feature of value 1, regularised like the other weights)::

    min_{w, b}  (|w|^2 + b^2) / 2  +  sum_i C s_i max(0, 1 - y_i (w . x_i + b))^2      (y_i = +-1)

It is strictly convex: one minimum, whatever the solver. liblinear approaches it by coordinate
descent and stops within 1e-4 of it. Here it is solved outright. With ``beta_i = y_i alpha_i``
(``alpha``: the dual variables), ``w = sum_i beta_i x_i`` and ``b = sum_i beta_i``; on the papers
whose margin is below 1 (the active set ``S``, every decided paper in practice: the excludes'
small weights leave them all inside the margin) the optimality conditions are the linear system

    (K_SS + D_SS) beta_S = y_S,   K_ij = x_i . x_j + 1,   D_ii = 1 / (2 C s_i),

whose matrix is positive definite (a Cholesky factorisation), and ``beta`` is 0 elsewhere.
:func:`solve_dual` takes the active set from the papers' margins and signs until the conditions
hold (or gives up after a few rounds, and the caller fits liblinear instead).

A refit needs only the dot products between the decided papers' rows: :class:`Gram` keeps them
between refits and computes each newly decided paper's once, whatever the number of terms.
Nor does a refit factorise the matrix afresh: :class:`Factor` keeps the last factorisation,
grows it by the new papers' rows, and solves the new system by conjugate gradients with it as
the preconditioner (a decision moves ``D`` by about 1/n: a few products of the decided papers'
size instead of a factorisation, whose cost grows with their cube).
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["EXACT_MAX_ROWS", "ExactSVM", "Factor", "Gram", "Kernels", "blas_threads", "solve_dual"]

#: Up to this many fitted rows the SVM is solved here; beyond, by liblinear (a factorisation
#: grows with the cube of the rows, liblinear's sweeps with their entries).
EXACT_MAX_ROWS = 1500

#: The most entries of a block a new row's products are computed over every paper for (the
#: pass makes a float64 copy of them: 16 MB).
PASS_LIMIT = 2_000_000

#: A solve by conjugate gradients stops when the residual is this small relative to the
#: right-hand side (where an outright Cholesky solve's own rounding leaves it), and is replaced
#: by a fresh factorisation when that takes more than ``CG_MAX_ITER`` steps; after a solve that
#: took more than ``CG_REFRESH`` steps the next one factorises afresh (the kept factor has
#: drifted: the includes' weights move by 1/n at every decision, the excludes' much less).
CG_TOL = 1e-13
CG_MAX_ITER = 12
CG_REFRESH = 5


@dataclass(frozen=True)
class ExactSVM:
    """A fitted SVM: its ``C``, the fitted ``rows`` and their ``beta`` (``w = sum beta_i x_i``)."""

    C: float
    rows: np.ndarray
    beta: np.ndarray


class Gram:
    """``sum_k f_k X_k[rows] @ X_k[rows].T + constant`` (float64) for a set of rows that grows
    between calls: the products of the rows seen before are kept, and a call computes only those
    of its new rows. ``blocks``: ``(X, f)`` pairs, ``X`` a CSR matrix or a dense array with one
    row per paper."""

    def __init__(self, blocks, constant: float = 0.0):
        self.blocks = [(X, float(f)) for X, f in blocks]
        self.constant = float(constant)
        self.rows = np.zeros(0, dtype=np.int64)
        self.pos = np.full(self.blocks[0][0].shape[0], -1, dtype=np.int64)
        self._K = np.zeros((0, 0))
        self.factor = Factor()  # of the kernel over the first rows, kept for the next solve

    def _products(self, new: np.ndarray, every: np.ndarray) -> np.ndarray:
        """The kernel between rows ``new`` and rows ``every``, in float64. A few new rows (a
        refit after a decision) of a block of up to ``PASS_LIMIT`` entries are multiplied with
        every paper's row (one pass, no copy of the decided rows); otherwise with the rows
        ``every`` alone (a pass over a large review's every paper would be most of the work)."""
        out = np.full((len(new), len(every)), self.constant)
        for X, factor in self.blocks:
            entries = X.nnz if sp.issparse(X) else X.size
            if len(new) <= 8 and entries <= PASS_LIMIT and X.shape[1] * len(new) <= PASS_LIMIT:
                part = X[new]
                part = part.toarray() if sp.issparse(part) else part
                cross = np.asarray(X @ part.T.astype(np.float64))[every].T
            else:
                a, b = X[new].astype(np.float64), X[every].astype(np.float64)
                cross = b @ a.T  # (rows in CSR times a few columns: scipy transposes only those)
                cross = (cross.toarray() if sp.issparse(cross) else cross).T
            out += cross * factor if factor != 1.0 else cross
        return out

    def kernel(self, rows) -> np.ndarray:
        """The kernel of ``rows``: a view of the kept one (not to be written to), whose first
        rows they are; :attr:`factor` is kept over the same first rows."""
        rows = np.asarray(rows, dtype=np.int64)
        new = rows[self.pos[rows] < 0]
        m = len(self.rows)
        if len(new):
            every = np.concatenate([self.rows, new])
            cross = self._products(new, every)
            size = len(every)
            if size > self._K.shape[0]:  # room to grow without copying at every new row
                grown = np.empty((max(size, min(2 * self._K.shape[0], EXACT_MAX_ROWS), 64),) * 2)
                grown[:m, :m] = self._K[:m, :m]
                self._K = grown
            self._K[m:size, :size] = cross
            self._K[:m, m:size] = cross[:, :m].T
            self.rows = every
            self.pos[new] = np.arange(m, size)
            m = size
        at = self.pos[rows]
        k = len(at)
        if not (k and at[0] == 0 and at[-1] == k - 1 and np.array_equal(at, np.arange(k))):
            # Not the kept rows' start, in order: a decision taken back or changed (it moves
            # to the end), a fresh draw of presumed excludes. Keep these rows alone, in this
            # order, so that the next refits grow from them again (and the kept rows do not
            # grow with every draw); the factor starts afresh.
            self._K[:k, :k] = self._K[np.ix_(at, at)]
            self.pos[self.rows] = -1
            self.rows = rows.copy()
            self.pos[rows] = np.arange(k)
            self.factor = Factor()
        return self._K[:k, :k]


class Kernels:
    """The :class:`Gram` matrices of one review's refits, kept from one ranker to the next
    (``Ranker(kernels=...)``: the live queue fits a new ranker per decision), one per set of
    blocks and embedding weight, for the last :class:`Features` they were asked for."""

    def __init__(self):
        self._of = None
        self._grams: dict = {}
        self._lock = threading.Lock()

    def solve(self, features, key, blocks, rows, y, costs) -> np.ndarray | None:
        """:func:`solve_dual` over the kernel of ``rows`` over ``blocks`` (see :class:`Gram`;
        ``key`` names the blocks and their weights), computing only the products not kept yet,
        and solving with the kept :class:`Factor` where the rows are those of the earlier solves
        and more (a replay, the live queue between changed decisions)."""
        with self._lock:
            if self._of is not features:
                self._of, self._grams = features, {}
            if key not in self._grams:  # first fit, or the embeddings' weight changed
                self._grams = {k: g for k, g in self._grams.items() if k[0] != key[0]}
                self._grams[key] = Gram(blocks, constant=1.0)  # 1: the intercept's feature
            gram = self._grams[key]
            return solve_dual(gram.kernel(rows), y, costs, factor=gram.factor)


@functools.cache
def _blas_controller():
    """threadpoolctl's view of the BLAS libraries (made once: it takes milliseconds)."""
    import scipy.linalg  # noqa: F401  (its BLAS loaded before the libraries are listed)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def blas_threads(n: int):
    """BLAS on ``n`` threads inside the block (a refit's products and factorisation are too
    small to gain from a second thread, and on a busy machine BLAS's threads wait for a core
    spinning: a replay's CPU seconds grew fivefold at a load of 8 on two cores)."""
    return _blas_controller().limit(limits=n, user_api="blas")


def solve_dual(K: np.ndarray, y: np.ndarray, costs: np.ndarray, rounds: int = 20,
               factor: Factor | None = None) -> np.ndarray | None:
    """``beta`` of the SVM's minimum (see the module docstring), given ``K`` (``x_i . x_j + 1``
    over the fitted rows; not written to), the 0/1 labels ``y`` and ``costs`` (``C s_i``); None
    when the active set has not settled after ``rounds`` solves. ``factor``: a :class:`Factor`
    kept over the same rows (the first of them) for the first solve, over every row."""
    from scipy.linalg import cho_factor, cho_solve

    signs = np.where(np.asarray(y) == 1, 1.0, -1.0)
    diag = 0.5 / np.asarray(costs, dtype=np.float64)
    n = len(signs)
    active = np.ones(n, dtype=bool)
    for _ in range(rounds):
        at = np.flatnonzero(active)
        beta = np.zeros(n)
        if len(at) == n and factor is not None:
            beta[:] = factor.solve(K, diag, signs)
        else:
            A = K[np.ix_(at, at)] if len(at) < n else np.array(K)
            A[np.diag_indices_from(A)] += diag[at]
            # A.T: the same (symmetric) matrix in the column order LAPACK factorises in place
            beta[at] = cho_solve(cho_factor(A.T, overwrite_a=True, check_finite=False), signs[at], check_finite=False)
        negative = active & (signs * beta < 0)
        if negative.any():  # a paper beyond its margin: out of the active set
            active &= ~negative
            continue
        if active.all():  # every margin below 1: y_i f(x_i) = 1 - D_ii alpha_i
            return beta
        inside = ~active & (signs * (K[:, at] @ beta[at]) < 1)
        if not inside.any():
            return beta
        active |= inside
    return None


class Factor:
    """The Cholesky factor of ``K + diag(d)`` over the first ``k`` rows of a growing kernel
    (``U.T @ U``, ``U`` upper triangular), kept from one solve to the next.

    :meth:`solve` solves ``(K + diag(d')) x = b`` over the first ``m`` rows for a new diagonal
    ``d'``: the factor grows by the rows beyond ``k`` (each a triangular solve; where they are
    more than the rows kept, one factorisation is quicker than their solves), then serves as
    the preconditioner of conjugate gradients, which converge in a few steps while ``d'`` is
    close to the ``d`` it was made with; when they do not (``CG_MAX_ITER``), the system is
    factorised afresh, at ``d'``, and so is the next one after a solve of more than
    ``CG_REFRESH`` steps. ``iterations``: the last solve's steps (-1: factorised afresh).

    ``U`` is kept packed by columns (column j: ``U[:j + 1, j]``), so the factor of the first
    ``m`` rows is the packed array's start and a new row appends to it: BLAS's packed
    triangular solve (``dtpsv``) reads it in place, with no copy of a matrix per solve.
    """

    def __init__(self):
        self.k = 0
        self.packed = np.zeros(0)
        self.stale = False
        self.iterations = 0

    def solve(self, K: np.ndarray, d: np.ndarray, b: np.ndarray) -> np.ndarray:
        m = len(b)
        if self.stale or m - self.k > self.k or (m > self.k and not self._grow(K, d, m)):
            return self._refactor(K, d, b)
        x = self._cg(K, d, b)
        self.stale = x is None or self.iterations > CG_REFRESH
        return x if x is not None else self._refactor(K, d, b)

    def _room(self, m: int) -> None:
        size = m * (m + 1) // 2
        if size > len(self.packed):
            grown = np.empty(max(size, 2 * len(self.packed)))
            grown[: len(self.packed)] = self.packed
            self.packed = grown

    def _grow(self, K: np.ndarray, d: np.ndarray, m: int) -> bool:
        """Add rows ``k..m-1``: column j of ``U`` is ``U[:j, :j].T \\ K[:j, j]`` over its
        diagonal ``sqrt(K[j, j] + d[j] - |that|^2)``. False if that is not positive (rounding)."""
        from scipy.linalg.blas import dtpsv

        self._room(m)
        for j in range(self.k, m):
            start = j * (j + 1) // 2
            column = dtpsv(j, self.packed, K[j, :j], trans=1) if j else np.zeros(0)
            pivot = K[j, j] + d[j] - column @ column
            if not pivot > 0:
                return False
            self.packed[start:start + j] = column
            self.packed[start + j] = np.sqrt(pivot)
            self.k = j + 1
        return True

    def _refactor(self, K: np.ndarray, d: np.ndarray, b: np.ndarray) -> np.ndarray:
        from scipy.linalg import cho_factor

        m = len(b)
        A = np.array(K[:m, :m])
        A[np.diag_indices(m)] += d[:m]
        cho_factor(A.T, overwrite_a=True, check_finite=False)  # A's lower triangle: U.T, by rows
        self._room(m)
        for j in range(m):  # row j of U.T is column j of U
            self.packed[j * (j + 1) // 2: (j + 1) * (j + 2) // 2] = A[j, : j + 1]
        self.k, self.iterations, self.stale = m, -1, False
        return self._precondition(b)

    def _precondition(self, r: np.ndarray) -> np.ndarray:
        """``(U.T U) \\ r`` over the first ``len(r)`` rows."""
        from scipy.linalg.blas import dtpsv

        m = len(r)
        return dtpsv(m, self.packed, dtpsv(m, self.packed, r, trans=1), trans=0, overwrite_x=1)

    def _cg(self, K: np.ndarray, d: np.ndarray, b: np.ndarray) -> np.ndarray | None:
        """Preconditioned conjugate gradients from ``(U.T U) \\ b``; None if the residual is not
        below ``CG_TOL * |b|`` within ``CG_MAX_ITER`` steps."""
        x = self._precondition(b)
        r = b - (K @ x + d * x)
        goal = CG_TOL * float(np.sqrt(b @ b))
        z = self._precondition(r)
        p, rz = z.copy(), float(r @ z)
        for step in range(CG_MAX_ITER + 1):
            if float(np.sqrt(r @ r)) <= goal:
                self.iterations = step
                return x
            if step == CG_MAX_ITER:
                return None
            q = K @ p + d * p
            alpha = rz / float(p @ q)
            x += alpha * p
            r -= alpha * q
            z = self._precondition(r)
            rz, before = float(r @ z), rz
            p = z + (rz / before) * p
        return None
