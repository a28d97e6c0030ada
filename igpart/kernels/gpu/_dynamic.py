"""Dynamic hypergraph and incremental refinement on the GPU (sources: dynamic.cu beside this).

:class:`GpuDynamicHypergraph` has the Python-level interface of the C++
``igpart.kernels._cpu.DynamicHypergraph`` that :mod:`igpart.dynamic` drives (``apply``, ``move``,
metrics, ``compact``, ``dump``, ``stats``, ``check``), with every array on the device. A batch is
one upload of its records (32 bytes each, pinned memory), three launches (``dyn_resolve``,
``dyn_validate``: warp per record; ``dyn_apply``: one block) and one download of a small info
block (first invalid record, counters, created ids). Counters are mirrored on the host from that
block, so metric queries cost no transfer. Pools and id ranges grow geometrically before a batch
whose worst case would not fit; when that is needed the batch is validated first (a validate-only
launch) so that an invalid batch changes nothing, not even capacities.

Phi is dense on the GPU (net x k int32) whatever the ``sparse_phi`` request of the CPU backend.

``refine()`` runs incremental refinement (iG-kway Alg. 3 + 4, then local refinement with exact
gains) over the vertices touched since the last refinement, in one launch of one block, with a
rebalancing fallback when a block is still overloaded.

``host_pools=True`` (what a memory budget below the structure's footprint asks for) puts the
bucket pools, the adjacency (``vslot``/``vnext``/``eslot``/``enext``), in page-locked host memory
that the kernels read and write in place over the bus (zero-copy, unified virtual addressing);
everything else stays on the device. ``host_state=True`` (a budget below even the rest) puts
every array whose size follows the vertex or net ids there too (status, weights, blocks, Phi,
list headers, marks, the refinement's scratch), leaving on the device only what follows the
batch (its records and buffers), the counters and the block weights. The kernels are the same,
so are the results; every access to the state then crosses the bus.

dynamic.cu is compiled by the GPU backend's loader (``_loader.kernel("dynamic", name)``).
"""

from __future__ import annotations

import ctypes
import math

import cupy
import numpy as np

from ..bucket_layout import BUCKET, layout_lists
from ..state_snapshot import restore, snapshot
from ._common import NULL
from ._loader import kernel

PSEUDO_BLOCK = -2

# pointer table (dynamic.cu P_*), in order
_P_NAMES = (
    "vstatus", "estatus", "vwgt", "ewgt", "part", "lam", "vfree", "efree",
    "vhead", "vtail", "vnb", "vsize", "vslot", "vnext",
    "ehead", "etail", "enb", "esize", "eslot", "enext",
    "phi", "bw", "ctr", "vmark", "emark", "vpend", "epend", "minp", "vlast", "vflag",
)  # fmt: skip
# counters (dynamic.cu C_*)
_C = {name: i for i, name in enumerate((
    "n_ids", "m_ids", "vfree", "efree", "total", "cut", "km1", "live_v", "live_e", "pins",
    "batches", "records", "vused", "vftop", "vfcount", "eused", "eftop", "efcount",
))}  # fmt: skip
NCTR = len(_C)
# attributes a transaction keeps by reference, not by copy (see begin_batch): per-call scratch
# (whose contents no later call reads) with the capacities that go with it, the stream, the
# pointer tables (rebuilt from the restored arrays) and the transaction itself; every other
# attribute is copied
_BY_REFERENCE = frozenset((
    "_stream", "_P", "_b", "_host_rec", "_host_out", "_batch_cap", "_r", "_R", "_seed_buf",
    "_seed_count", "_ref_out", "_ref_caps", "_saved",
))  # fmt: skip
# info block (dynamic.cu INFO_*)
INFO_BAD, INFO_CODE, INFO_D1, INFO_D2, INFO_NTV, INFO_NTE, INFO_SORTED, INFO_NNEW = range(8)
INFO_CTR = 8
INFO_SIZE = 32
# refinement info (dynamic.cu RI_*)
_RI = ("rounds", "pseudo", "region", "changed", "passes", "local_moves", "forced", "balanced")
RI_CTR = 8

OP_NAMES = ("insert_vertex", "delete_vertex", "insert_net", "delete_net", "insert_pin",
            "delete_pin", "set_vertex_weight", "set_net_weight")  # fmt: skip
OBJECTIVES = ("cut", "km1")


class GpuRecordError(ValueError):
    """An invalid change record or move: args are (index, reason), as the C++ RecordError."""


def _message(code: int, d1: int, d2: int, op: int, k: int) -> str:
    """The C++ validator's message for an error code of dynamic.cu."""
    kind = {10: "vertex", 11: "net", 12: "vertex", 13: "net"}
    if code == 1:
        return f"unknown op code {d1} (valid codes are 0..{len(OP_NAMES) - 1})"
    if code == 2:
        return f"weight must be non-negative, got {d1}"
    if code == 3:
        return f"block {d1} is out of range [0, {k}) (-1 picks the lightest block)"
    if code == 4:
        return f"argument {'abc'[d1]} of {OP_NAMES[op]} must be 0, got {d2}"
    if code in (5, 6):
        return f"{'vertex' if code == 5 else 'net'} ids are exhausted"
    if code == 7:
        return f"reference {d1} names record {d2}, which does not come before this one"
    if code in (8, 9):
        want = "insert_vertex" if code == 8 else "insert_net"
        return f"reference {d1} names record {d2}, which is not an {want}"
    if code in (10, 11):
        return f"unknown {kind[code]} {d1} ({kind[code]} ids in use are < {d2})"
    if code in (12, 13):
        return f"{kind[code]} {d1} is deleted"
    if code == 14:
        return f"vertex {d1} still has {d2} net(s); remove its pins before deleting it"
    if code == 15:
        return f"net {d1} still has {d2} pin(s); remove them before deleting it"
    if code == 16:
        return f"vertex {d1} is already a pin of net {d2} (duplicate pin)"
    if code == 17:
        return f"vertex {d1} is not a pin of net {d2}"
    if code == 20:
        return f"unknown vertex {d1}"
    if code == 21:
        return f"vertex {d1} is deleted"
    if code == 22:
        return f"block {d1} is out of range [0, {k})"
    return f"invalid record (code {code})"


def _kernel(name: str):
    return kernel("dynamic", name)


def _with_headroom(count: int, headroom: float) -> int:
    return count + int(math.ceil(count * headroom))


def _grown(cap: int, needed: int, growth: float) -> int:
    return max(needed, int(math.ceil(cap * growth)))


def _mapped(n: int, dtype, fill, init: np.ndarray | None = None) -> cupy.ndarray:
    """A CuPy array of ``n`` elements in page-locked host memory, holding ``init`` then
    ``fill``: with unified virtual addressing the kernels address it directly (each access
    crosses the bus)."""
    nbytes = max(1, n) * np.dtype(dtype).itemsize
    mem = cupy.cuda.alloc_pinned_memory(nbytes)
    view = np.frombuffer(mem, dtype=dtype, count=n)
    view[:] = fill
    if init is not None:
        view[: init.size] = init
    owned = cupy.cuda.UnownedMemory(mem.ptr, nbytes, mem, cupy.cuda.Device().id)
    return cupy.ndarray((n,), dtype=dtype, memptr=cupy.cuda.MemoryPointer(owned, 0))


def _placed(on_host: bool, n: int, dtype, fill, init: np.ndarray | None = None) -> cupy.ndarray:
    """An array of ``n`` elements, ``init`` then ``fill``: in page-locked host memory read over
    the bus (:func:`_mapped`) when ``on_host``, else in device memory."""
    if on_host:
        return _mapped(n, dtype, fill, init)
    if init is not None and init.size == n:
        return cupy.asarray(init)
    out = cupy.full(n, fill, dtype=dtype)
    if init is not None:
        out[: init.size] = cupy.asarray(init)
    return out


def _pad(a: np.ndarray, cap: int, fill) -> np.ndarray:
    out = np.full(cap, fill, dtype=a.dtype)
    out[: a.size] = a
    return out


class GpuDynamicHypergraph:
    """Bucket-list dynamic hypergraph with a maintained partition, on the GPU."""

    def __init__(self, eptr, eind, n, vwgt, ewgt, parts, k, epsilon, gamma=1, headroom=0.1,
                 growth=2.0, sparse_phi=False, host_pools=False, host_state=False):  # fmt: skip
        eptr = np.ascontiguousarray(eptr, dtype=np.int64)
        eind = np.ascontiguousarray(eind, dtype=np.int32)
        n, m, k = int(n), eptr.size - 1, int(k)
        vwgt = np.ascontiguousarray(vwgt, dtype=np.int64)
        ewgt = np.ascontiguousarray(ewgt, dtype=np.int64)
        parts = np.ascontiguousarray(parts, dtype=np.int32)
        if n < 0 or n >= 2**31 - 1 or m >= 2**31 - 1:
            raise ValueError("vertex or net count out of range")
        if vwgt.size != n or parts.size != n or ewgt.size != m or eptr[-1] != eind.size:
            raise ValueError("array lengths do not match the hypergraph")
        if k < 1 or not epsilon >= 0 or gamma < 0 or not growth > 1 or not headroom >= 0:
            raise ValueError("bad k, epsilon, gamma, growth or headroom")
        if n and (parts.min() < 0 or parts.max() >= k):
            raise ValueError("parts: block id out of range")
        self.k, self.epsilon, self.gamma = k, float(epsilon), int(gamma)
        self.headroom, self.growth, self.sparse_phi = float(headroom), float(growth), False
        self.host_state = bool(host_state)
        self.host_pools = bool(host_pools) or self.host_state
        self.vid_growths = self.eid_growths = 0
        self.vpool_growths = self.epool_growths = 0
        self._stream = cupy.cuda.get_current_stream()

        # incidence in both directions, laid out on the host with array operations
        order = np.argsort(eind, kind="stable")
        deg = np.bincount(eind, minlength=n).astype(np.int64)
        vptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(deg, out=vptr[1:])
        pin_net = np.repeat(np.arange(m, dtype=np.int32), np.diff(eptr))
        V = layout_lists(vptr, pin_net[order], n, self.gamma, headroom)
        E = layout_lists(eptr, eind, m, self.gamma, headroom)
        vcap = max(1, _with_headroom(n, headroom))
        ecap = max(1, _with_headroom(m, headroom))
        self.vcap, self.ecap = vcap, ecap
        xp = cupy
        a = {}
        st, full = self._state, self._state_full
        a["vstatus"] = st(_pad(np.ones(n, dtype=np.int8), vcap, 0))
        a["estatus"] = st(_pad(np.ones(m, dtype=np.int8), ecap, 0))
        a["vwgt"] = st(_pad(vwgt, vcap, 0))
        a["ewgt"] = st(_pad(ewgt, ecap, 0))
        a["part"] = st(_pad(parts, vcap, -1))
        a["lam"] = full(ecap, np.int32, 0)
        a["vfree"] = full(vcap, np.int32, 0)
        a["efree"] = full(ecap, np.int32, 0)
        for prefix, (head, tail, nb, size, slot, nxt, _), cap in (("v", V, vcap), ("e", E, ecap)):
            a[prefix + "head"] = st(_pad(head, cap, -1))
            a[prefix + "tail"] = st(_pad(tail, cap, -1))
            a[prefix + "nb"] = st(_pad(nb, cap, 0))
            a[prefix + "size"] = st(_pad(size, cap, 0))
            a[prefix + "slot"] = self._pool_array(slot.size, slot.dtype, -1, slot)
            a[prefix + "next"] = self._pool_array(nxt.size, nxt.dtype, -1, nxt)
        a["phi"] = full(ecap * k, np.int32, 0)
        bw = np.zeros(k, dtype=np.int64)
        if n:
            po = np.argsort(parts, kind="stable")
            sp = parts[po]
            starts = np.flatnonzero(np.r_[True, sp[1:] != sp[:-1]])
            bw[sp[starts]] = np.add.reduceat(vwgt[po], starts)
        a["bw"] = xp.asarray(bw)
        ctr = np.zeros(NCTR, dtype=np.int64)
        ctr[[_C["n_ids"], _C["m_ids"], _C["total"], _C["live_v"], _C["live_e"], _C["pins"]]] = (
            n, m, int(vwgt.sum()), n, m, eind.size)
        ctr[[_C["vused"], _C["vftop"], _C["eused"], _C["eftop"]]] = (V[6], -1, E[6], -1)
        a["ctr"] = xp.asarray(ctr)
        a["vmark"] = full(vcap, np.int32, 0)
        a["emark"] = full(ecap, np.int32, 0)
        a["vpend"] = full(vcap, np.int32, 0)
        a["epend"] = full(ecap, np.int32, 0)
        a["minp"] = full(ecap, np.int32, 2**31 - 1)
        a["vlast"] = full(vcap, np.int32, -1)
        a["vflag"] = full(vcap, np.int32, 0)
        self._a = a
        self._table()
        if m:
            d_eptr, d_eind = xp.asarray(eptr), xp.asarray(eind)
            _kernel("dyn_build_phi")(((m + 255) // 256,), (256,),
                                     (self._P, d_eptr, d_eind, np.int64(m), np.int32(k)))
            lam = a["lam"][:m]
            w = a["ewgt"][:m]
            cut = int(xp.where(lam > 1, w, 0).sum())
            km1 = int(xp.where(lam > 1, w * (lam - 1), 0).sum())
            a["ctr"][_C["cut"]] = cut
            a["ctr"][_C["km1"]] = km1
        self._ctr = a["ctr"].get()
        self._batch_cap = 0
        self._ref_caps = (0, 0)
        self._pend_cap = 0
        self._pend_new = self._pend_seed = 0
        self._ensure_batch(64)
        self._ensure_pending(64)
        self.last_refine: dict = {}
        self._saved: dict | None = None  # the open transaction's copy of the state

    # ------------------------------------------------------------------ buffers
    def _pool_array(self, n: int, dtype, fill, init: np.ndarray | None = None) -> cupy.ndarray:
        """A bucket pool array of ``init`` then ``fill``, placed as the pools are (host_pools)."""
        return _placed(self.host_pools, n, dtype, fill, init)

    def _state(self, init: np.ndarray) -> cupy.ndarray:
        """A per-id state array holding ``init``, placed as the state is (host_state)."""
        return _placed(self.host_state, init.size, init.dtype, 0, init)

    def _state_full(self, n: int, dtype, fill) -> cupy.ndarray:
        """A per-id state array of ``n`` elements ``fill``, placed as the state is."""
        return _placed(self.host_state, n, dtype, fill)

    def _table(self) -> None:
        ptrs = np.array([self._a[name].data.ptr for name in _P_NAMES], dtype=np.uint64)
        self._P = cupy.asarray(ptrs)

    def _ensure_batch(self, n: int) -> None:
        if n <= self._batch_cap:
            return
        cap = max(n, 2 * self._batch_cap)
        xp = cupy
        i32 = lambda: xp.zeros(cap, dtype=xp.int32)  # noqa: E731
        i64 = lambda: xp.zeros(cap, dtype=xp.int64)  # noqa: E731
        self._b = {
            "rec": xp.zeros(4 * cap, dtype=xp.int64), "cid": i32(), "vbound": i64(),
            "ebound": i64(), "rx": i32(), "ry": i32(), "rw": i64(), "eff": i32(), "err": i32(),
            "ed1": i64(), "ed2": i64(), "first_bad": xp.zeros(1, dtype=xp.int32), "tv": i32(),
            "tvl": i32(), "te": i32(), "tel": i32(), "tew": i64(), "tel2": i32(), "out_v": i32(),
            "out_e": i32(), "out": xp.zeros(INFO_SIZE + cap, dtype=xp.int64),
        }  # fmt: skip
        self._host_rec = cupy.cuda.alloc_pinned_memory(4 * cap * 8)
        self._host_out = cupy.cuda.alloc_pinned_memory((INFO_SIZE + cap) * 8)
        self._batch_cap = cap

    def _ensure_pending(self, extra: int) -> None:
        need = max(self._pend_new, self._pend_seed) + extra
        if need <= self._pend_cap:
            return
        cap = max(need, 2 * self._pend_cap)
        new_n, new_s = cupy.zeros(cap, dtype=cupy.int32), cupy.zeros(cap, dtype=cupy.int32)
        if self._pend_cap:
            new_n[: self._pend_new] = self._pend_n_arr[: self._pend_new]
            new_s[: self._pend_seed] = self._pend_s_arr[: self._pend_seed]
        self._pend_n_arr, self._pend_s_arr, self._pend_cap = new_n, new_s, cap

    def _ensure_refine_scratch(self) -> None:
        if self._ref_caps == (self.vcap, self.ecap):
            return
        xp, vc, ec = cupy, self.vcap, self.ecap
        z = lambda size, dtype: self._state_full(size, dtype, 0)  # noqa: E731
        r = [z(vc, np.int32) for _ in range(8)]  # reg..mv_ord
        r.append(z(vc, np.int64))  # mv_s
        r += [z(ec, np.int32), z(ec, np.int32)]  # te, tel
        r.append(z(ec, np.int64))  # tew
        r.append(xp.zeros(self.k, dtype=xp.int64))  # bwt
        r += [z(vc, np.int32), z(vc, np.int32)]  # changed, its from
        self._r = r
        self._R = xp.asarray(np.array([x.data.ptr for x in r], dtype=np.uint64))
        self._seed_buf = z(vc, np.int32)
        self._seed_count = xp.zeros(1, dtype=xp.int32)
        self._ref_out = xp.zeros(RI_CTR + NCTR, dtype=xp.int64)
        self._ref_caps = (vc, ec)

    def _grow_ids(self, vertices: bool, bound: int) -> None:
        cap = self.vcap if vertices else self.ecap
        if bound <= cap:
            return
        nc = _grown(cap, bound, self.growth)
        a = self._a
        names = (
            [("vstatus", 0), ("vwgt", 0), ("part", -1), ("vfree", 0), ("vhead", -1),
             ("vtail", -1), ("vnb", 0), ("vsize", 0), ("vmark", 0), ("vpend", 0),
             ("vlast", -1), ("vflag", 0)]
            if vertices else
            [("estatus", 0), ("ewgt", 0), ("lam", 0), ("efree", 0), ("ehead", -1),
             ("etail", -1), ("enb", 0), ("esize", 0), ("emark", 0), ("epend", 0),
             ("minp", 2**31 - 1)]
        )  # fmt: skip
        for name, fill in names:
            old = a[name]
            new = self._state_full(nc, old.dtype, fill)
            new[: old.size] = old
            a[name] = new
        if vertices:
            self.vcap = nc
            self.vid_growths += 1
        else:
            phi = self._state_full(nc * self.k, np.int32, 0)
            phi[: a["phi"].size] = a["phi"]
            a["phi"] = phi
            self.ecap = nc
            self.eid_growths += 1

    def _grow_pool(self, vertices: bool, extra: int) -> None:
        p = "v" if vertices else "e"
        c = self._ctr
        cap = self._a[p + "next"].size
        avail = cap - int(c[_C[p + "used"]]) + int(c[_C[p + "fcount"]])
        if avail >= extra:
            return
        nc = _grown(cap, cap + extra - avail, self.growth)
        slot = self._pool_array(nc * BUCKET, np.int32, -1)
        slot[: cap * BUCKET] = self._a[p + "slot"]
        nxt = self._pool_array(nc, np.int64, -1)
        nxt[:cap] = self._a[p + "next"]
        self._a[p + "slot"], self._a[p + "next"] = slot, nxt
        if vertices:
            self.vpool_growths += 1
        else:
            self.epool_growths += 1

    # ------------------------------------------------------------------ batches
    def _launch_batch(self, n: int, counts, validate_only: bool) -> np.ndarray:
        b, k = self._b, np.int32(self.k)
        N = np.int32(n)
        grid = (max(1, (n + 3) // 4),)
        _kernel("dyn_resolve")(grid, (128,), (self._P, b["rec"], N, b["cid"], b["vbound"],
                                              b["ebound"], b["out"], b["first_bad"]))
        _kernel("dyn_validate")(grid, (128,), (
            self._P, b["rec"], N, k, b["cid"], b["vbound"], b["ebound"], b["rx"], b["ry"],
            b["rw"], b["eff"], b["err"], b["ed1"], b["ed2"], b["first_bad"]))  # fmt: skip
        _kernel("dyn_apply")((1,), (1024,), (
            self._P, b["rec"], N, k, np.int32(self.gamma), np.int32(validate_only),
            np.int64(counts[0]), np.int64(counts[2]), b["rx"], b["ry"], b["rw"], b["eff"],
            b["err"], b["ed1"], b["ed2"], b["first_bad"], b["tv"], b["tvl"], b["te"], b["tel"],
            b["tew"], b["tel2"], b["out_v"], b["out_e"], b["out"], self._pend_n_arr,
            np.int64(self._pend_new), self._pend_s_arr, np.int64(self._pend_seed)))  # fmt: skip
        nbytes = (INFO_SIZE + n) * 8
        cupy.cuda.runtime.memcpyAsync(self._host_out.ptr, b["out"].data.ptr, nbytes, 2,
                                      self._stream.ptr)
        self._stream.synchronize()
        return np.frombuffer(self._host_out, dtype=np.int64, count=INFO_SIZE + n).copy()

    def apply(self, ops, args):
        """Validates, then applies a batch; returns (created per record (numpy), touched
        vertices, touched nets (cupy, ascending)). Raises GpuRecordError(index, reason) and
        changes nothing when a record is invalid."""
        ops = np.asarray(ops)
        args = np.asarray(args)
        n = int(ops.shape[0])
        if ops.ndim != 1 or args.shape != (3, n):
            raise ValueError("args must have shape (3, len(ops))")
        self._ensure_batch(n)
        self._ensure_pending(n)
        host = np.frombuffer(self._host_rec, dtype=np.int64, count=4 * n)
        host[:n] = ops
        host[n:] = args.reshape(-1)
        cupy.cuda.runtime.memcpyAsync(self._b["rec"].data.ptr, self._host_rec.ptr, 32 * n, 1,
                                      self._stream.ptr)
        valid = ops[(ops >= 0) & (ops < len(OP_NAMES))].astype(np.intp)
        counts = np.bincount(valid, minlength=len(OP_NAMES))
        nv, ne, npins = int(counts[0]), int(counts[2]), int(counts[4])
        c = self._ctr
        v_bound = int(c[_C["n_ids"]]) + max(0, nv - int(c[_C["vfree"]]))
        e_bound = int(c[_C["m_ids"]]) + max(0, ne - int(c[_C["efree"]]))
        vcap_b, ecap_b = self._a["vnext"].size, self._a["enext"].size
        v_av = vcap_b - int(c[_C["vused"]]) + int(c[_C["vfcount"]])
        e_av = ecap_b - int(c[_C["eused"]]) + int(c[_C["efcount"]])
        grow = (v_bound > self.vcap or e_bound > self.ecap or v_av < npins + nv * self.gamma
                or e_av < npins + ne * self.gamma)  # fmt: skip
        counts3 = (nv, 0, ne)
        if grow:
            info = self._launch_batch(n, counts3, True)
            self._raise_if_bad(info, ops)
            self._grow_ids(True, v_bound)
            self._grow_ids(False, e_bound)
            self._grow_pool(True, npins + nv * self.gamma)
            self._grow_pool(False, npins + ne * self.gamma)
            self._table()
        info = self._launch_batch(n, counts3, False)
        self._raise_if_bad(info, ops)
        self._ctr = info[INFO_CTR : INFO_CTR + NCTR].copy()
        ntv, nte = int(info[INFO_NTV]), int(info[INFO_NTE])
        self._pend_seed += ntv
        self._pend_new += int(info[INFO_NNEW])
        tv = self._b["out_v"][:ntv].copy()
        te = self._b["out_e"][:nte].copy()
        if not info[INFO_SORTED]:
            tv, te = cupy.sort(tv), cupy.sort(te)
        return info[INFO_SIZE : INFO_SIZE + n].copy(), tv, te

    def _raise_if_bad(self, info: np.ndarray, ops) -> None:
        bad = int(info[INFO_BAD])
        if bad >= 0:
            op = int(ops[bad]) if 0 <= int(ops[bad]) < len(OP_NAMES) else 0
            msg = _message(int(info[INFO_CODE]), int(info[INFO_D1]), int(info[INFO_D2]), op,
                           self.k)
            raise GpuRecordError(bad, msg)

    def move(self, vertices, blocks):
        """Moves vertices[i] to blocks[i] in order; returns the change of (cut, km1)."""
        vs = cupy.asarray(np.ascontiguousarray(vertices, dtype=np.int32))
        bs = cupy.asarray(np.ascontiguousarray(blocks, dtype=np.int32))
        if vs.shape != bs.shape or vs.ndim != 1:
            raise ValueError("vertices and blocks must be 1-D arrays of one length")
        self._ensure_refine_scratch()
        r = self._r
        out = self._b["out"]
        _kernel("dyn_move")((1,), (1024,), (self._P, vs, bs, np.int32(vs.size), np.int32(self.k),
                                            r[9], r[10], r[11], out))
        info = out[:INFO_SIZE].get()
        if int(info[INFO_BAD]) >= 0:
            raise GpuRecordError(int(info[INFO_BAD]), _message(int(info[INFO_CODE]),
                                 int(info[INFO_D1]), 0, 0, self.k))  # fmt: skip
        self._ctr = info[INFO_CTR : INFO_CTR + NCTR].copy()
        return int(info[INFO_D1]), int(info[INFO_D2])

    # ------------------------------------------------------------------ transactions
    def begin_batch(self) -> None:
        """Opens a transaction: a copy of the whole state as it is now, so that
        :meth:`rollback_batch` can restore it. Every attribute is covered
        (igpart/kernels/state_snapshot.py walks them): device arrays are copied device to device
        (on the current stream, like every kernel of the structure), page-locked host pools
        into new page-locked memory, the host mirrors (counters, capacities, growth counts,
        pending counts, the last refinement's figures) by value; scratch buffers, the stream
        and the pointer tables are kept by reference. The copy costs one pass over the state
        and as much memory again; when it cannot be made (out of memory) the error propagates
        and nothing changed."""
        if self._saved is not None:
            raise RuntimeError("a transaction is already open")
        if self.host_pools:
            cupy.cuda.Device().synchronize()  # the host pools are copied by the CPU
        # device copies are queued on the current stream, behind the structure's own launches
        self._saved = snapshot(self, (cupy.ndarray,), self._copy_array, _BY_REFERENCE)

    def commit_batch(self) -> None:
        """Closes the open transaction, keeping its changes (the copy is dropped)."""
        if self._saved is None:
            raise RuntimeError("no transaction is open")
        self._saved = None

    def rollback_batch(self) -> None:
        """Restores the state at :meth:`begin_batch` (arrays grown since included: the copies
        of the arrays as they were replace them) and closes the transaction."""
        if self._saved is None:
            raise RuntimeError("no transaction is open")
        saved = self._saved
        cupy.cuda.Device().synchronize()  # the failed batch's launches end before its arrays go
        restore(self, saved)
        self._saved = None
        self._table()

    @property
    def in_batch(self) -> bool:
        return self._saved is not None

    def _copy_array(self, arr: cupy.ndarray) -> cupy.ndarray:
        """A copy of a state array where it lives: page-locked host memory for the host pools
        (copied by the CPU; the stream is synchronized), else device memory (device to device,
        on the current stream)."""
        if isinstance(arr.data.mem, cupy.cuda.UnownedMemory):  # a _mapped host pool
            return _mapped(arr.size, arr.dtype, 0, self._pinned_view(arr))
        return arr.copy()

    # ------------------------------------------------------------------ refinement
    def refine(self, objective: str = "cut", *, expand: bool = True, big_net: int = 256,
               passes: int = 3, locked=None, bounds=None) -> dict:  # fmt: skip
        """Incremental refinement of the vertices touched (and created) by the batches since the
        last call: iG-kway Alg. 3 (pseudo-partition) and Alg. 4 (rounds of moves sharing no net
        of at most ``big_net`` pins, longest balanced prefix), then up to ``passes`` rounds of
        local refinement with exact gains. Cut, km1 and block weights stay maintained. Returns
        the launch's figures (rounds, pseudo, region, changed, ...), ``changed_vertices`` and
        ``changed_from`` (numpy, ascending): the vertices whose block changed and their block
        before the call. When a block is still above the bound, the
        boundary vertices of overloaded blocks (then all their vertices) are re-placed.
        ``locked`` (uint8 per vertex id, numpy or cupy; ids beyond it are free; None: none):
        fixed vertices, which never move. ``bounds`` (k int64, numpy or cupy; None: the epsilon
        bound for every block): per-block maximum weights."""
        if objective not in OBJECTIVES:
            raise ValueError(f"unknown objective '{objective}'")
        self._ensure_refine_scratch()
        obj = np.int32(OBJECTIVES.index(objective))
        out = self._ref_out
        if locked is None:
            lock = (NULL, np.int32(0))
        else:
            locked = cupy.ascontiguousarray(cupy.asarray(locked), dtype=cupy.uint8).reshape(-1)
            lock = (locked, np.int32(locked.size))
        if bounds is not None:
            bounds = cupy.ascontiguousarray(cupy.asarray(bounds), dtype=cupy.int64).reshape(-1)
            if bounds.size != self.k:
                raise ValueError(f"bounds must hold one weight per block ({self.k})")
        lock = (*lock, NULL if bounds is None else bounds)
        args = (np.int32(self.k), np.float64(self.epsilon), obj, np.int32(big_net),
                np.int32(passes), out, *lock)  # fmt: skip
        _kernel("dyn_refine")((1,), (1024,), (
            self._P, self._R, self._pend_n_arr, np.int32(self._pend_new), self._pend_s_arr,
            np.int32(self._pend_seed), np.int32(1 if expand else 0), *args))  # fmt: skip
        info = out.get()
        self._pend_new = self._pend_seed = 0
        changed = [self._changed(int(info[3]))]
        result = {name: int(info[i]) for i, name in enumerate(_RI)}
        result["fallbacks"] = 0
        for any_vertex in (0, 1):
            if info[7]:
                break
            self._seed_count.fill(0)
            nv = int(self._ctr[_C["n_ids"]])
            _kernel("dyn_overloaded_vertices")(((nv + 255) // 256,), (256,), (
                self._P, np.int32(self.k), np.float64(self.epsilon), np.int32(any_vertex),
                self._seed_buf, self._seed_count, *lock))  # fmt: skip
            nseeds = int(self._seed_count.get()[0])
            _kernel("dyn_refine")((1,), (1024,), (
                self._P, self._R, self._pend_n_arr, np.int32(0), self._seed_buf,
                np.int32(nseeds), np.int32(0), *args))  # fmt: skip
            info = out.get()
            changed.append(self._changed(int(info[3])))
            result["fallbacks"] += 1
            for key in ("rounds", "pseudo", "region", "local_moves", "forced"):
                result[key] += int(info[_RI.index(key)])
        result["balanced"] = int(info[7])
        self._ctr = info[RI_CTR : RI_CTR + NCTR].copy()
        moved = np.concatenate([c[0] for c in changed])
        frm = np.concatenate([c[1] for c in changed])
        if len(changed) > 1:  # fold the fallback launches: first block seen, still different
            moved, first = np.unique(moved, return_index=True)
            frm = frm[first]
            now = self.blocks_of(moved)
            keep = now != frm
            moved, frm = moved[keep], frm[keep]
        order = np.argsort(moved, kind="stable")
        result["changed_vertices"], result["changed_from"] = moved[order], frm[order]
        result["changed"] = int(moved.size)
        self.last_refine = result
        return result

    def _changed(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        both = cupy.stack([self._r[13][:count], self._r[14][:count]]).get()
        return both[0], both[1]

    def add_seeds(self, vertices, new_vertices=()) -> None:
        """Queues vertices for the next refine() as if a batch had touched (or created) them."""
        for ids, is_new in ((np.asarray(vertices, np.int32), False),
                            (np.asarray(new_vertices, np.int32), True)):  # fmt: skip
            ids = ids[(ids >= 0) & (ids < self.vertex_bound)]
            if not ids.size:
                continue
            self._ensure_pending(ids.size)
            if is_new:
                self._pend_n_arr[self._pend_new : self._pend_new + ids.size] = cupy.asarray(ids)
                self._pend_new += ids.size
            else:
                self._pend_s_arr[self._pend_seed : self._pend_seed + ids.size] = cupy.asarray(ids)
                self._pend_seed += ids.size

    def blocks_of(self, ids) -> np.ndarray:
        """Block of each vertex id (-1 where it is not a live vertex)."""
        ids = np.asarray(ids, dtype=np.int32)
        if not ids.size:
            return np.zeros(0, dtype=np.int32)
        d = cupy.asarray(ids)
        ok = (d >= 0) & (d < self.vertex_bound)
        safe = cupy.where(ok, d, 0)
        ok &= self._a["vstatus"][safe] != 0
        return cupy.where(ok, self._a["part"][safe], -1).astype(cupy.int32).get()

    # ------------------------------------------------------------------ queries
    def _c(self, name: str) -> int:
        return int(self._ctr[_C[name]])

    cut = property(lambda self: self._c("cut"))
    km1 = property(lambda self: self._c("km1"))
    total_weight = property(lambda self: self._c("total"))
    num_vertices = property(lambda self: self._c("live_v"))
    num_nets = property(lambda self: self._c("live_e"))
    num_pins = property(lambda self: self._c("pins"))
    vertex_bound = property(lambda self: self._c("n_ids"))
    net_bound = property(lambda self: self._c("m_ids"))

    @property
    def max_block_weight(self) -> int:
        total, k = self.total_weight, self.k
        perfect = -(-total // k) if total > 0 else 0
        return int(math.floor((1.0 + self.epsilon) * perfect + 1e-9))

    def _head(self, name: str, count: int) -> np.ndarray:
        return self._get(self._a[name][:count])

    def _get(self, arr: cupy.ndarray) -> np.ndarray:
        """A numpy copy of a contiguous state array or slice of one, wherever it lives (an array
        in page-locked host memory is read in place once the stream is done: a device-to-host
        copy from it would name the wrong direction)."""
        if not isinstance(arr.data.mem, cupy.cuda.UnownedMemory):
            return arr.get()
        self._stream.synchronize()
        return self._pinned_view(arr).copy()

    def parts(self):
        return self._head("part", self.vertex_bound)

    def vertex_status(self):
        return self._head("vstatus", self.vertex_bound)

    def net_status(self):
        return self._head("estatus", self.net_bound)

    def vertex_weights(self):
        return self._head("vwgt", self.vertex_bound)

    def net_weights(self):
        return self._head("ewgt", self.net_bound)

    def connectivity(self):
        return self._head("lam", self.net_bound)

    def block_weights(self):
        return self._a["bw"].get()

    def device_parts(self):
        """The block of every vertex id below vertex_bound, on the device (no copy)."""
        return self._a["part"][: self.vertex_bound]

    def _gather(self, nets: bool, ids: np.ndarray, dense=None):
        """The lists of `ids` (host int32) concatenated, as (ptr numpy, values cupy)."""
        sizes = self._a["esize" if nets else "vsize"][cupy.asarray(ids)]
        ptr = cupy.zeros(ids.size + 1, dtype=cupy.int64)
        ptr[1:] = cupy.cumsum(sizes, dtype=cupy.int64)
        total = int(ptr[-1])
        dst = cupy.zeros(max(total, 1), dtype=cupy.int32)
        if ids.size:
            _kernel("dyn_gather")(((ids.size + 3) // 4,), (128,), (
                self._P, np.int32(nets), cupy.asarray(ids, dtype=cupy.int32),
                np.int32(ids.size), ptr, np.uint64(0) if dense is None else dense, dst))
        return ptr, dst[:total]

    def _live(self, nets: bool, x: int) -> bool:
        bound = self.net_bound if nets else self.vertex_bound
        status = self._a["estatus" if nets else "vstatus"]
        return 0 <= x < bound and bool(self._get(status[x : x + 1])[0])

    def nets_of(self, v: int) -> np.ndarray:
        if not self._live(False, v):
            raise ValueError(f"no live vertex {v}")
        return self._gather(False, np.array([v], dtype=np.int32))[1].get()

    def pins_of(self, e: int) -> np.ndarray:
        if not self._live(True, e):
            raise ValueError(f"no live net {e}")
        return self._gather(True, np.array([e], dtype=np.int32))[1].get()

    def phi(self, e: int) -> np.ndarray:
        if not self._live(True, e):
            raise ValueError(f"no live net {e}")
        return self._get(self._a["phi"][e * self.k : (e + 1) * self.k])

    def compact(self):
        """(eptr, eind, vwgt, ewgt, parts, vertex_ids, net_ids) of the live part (numpy), ids
        ascending, pins in bucket-slot order."""
        vst = self._a["vstatus"][: self.vertex_bound]
        est = self._a["estatus"][: self.net_bound]
        vids = cupy.flatnonzero(vst).astype(cupy.int32)
        eids = cupy.flatnonzero(est).astype(cupy.int32)
        dense = cupy.full(max(self.vertex_bound, 1), -1, dtype=cupy.int32)
        dense[vids] = cupy.arange(vids.size, dtype=cupy.int32)
        eptr, eind = self._gather(True, eids.get(), dense)
        return (eptr.get(), eind.get(), self._a["vwgt"][vids].get(), self._a["ewgt"][eids].get(),
                self._a["part"][vids].get(), vids.get(), eids.get())  # fmt: skip

    # ------------------------------------------------------------------ state
    def dump(self) -> dict:
        """Copies of every state array and counter (scratch excluded)."""
        scratch = {"vmark", "emark", "vpend", "epend", "minp", "vlast", "vflag"}
        d = {name: self._get(arr) for name, arr in self._a.items()
             if name not in scratch}  # fmt: skip
        d["growths"] = np.array([self.vid_growths, self.eid_growths, self.vpool_growths,
                                 self.epool_growths, self.vcap, self.ecap], dtype=np.int64)
        return d

    @staticmethod
    def _pinned_view(arr: cupy.ndarray) -> np.ndarray:
        """A numpy view of a CuPy array in page-locked host memory (no copy)."""
        ctype = np.ctypeslib.as_ctypes_type(arr.dtype)
        return np.ctypeslib.as_array(ctypes.cast(arr.data.ptr, ctypes.POINTER(ctype)), arr.shape)

    def stats(self) -> dict:
        out = {}
        for p, name in (("v", "vertex_pool"), ("e", "net_pool")):
            cap = int(self._a[p + "next"].size)
            ids = self.vertex_bound if p == "v" else self.net_bound
            out[name] = {
                "slots_per_bucket": BUCKET,
                "capacity": cap,
                "used": self._c(p + "used"),
                "in_lists": int(self._a[p + "nb"][:ids].sum()),
                "free": self._c(p + "fcount"),
                "available": cap - self._c(p + "used") + self._c(p + "fcount"),
                "growths": self.vpool_growths if p == "v" else self.epool_growths,
            }
        out.update(
            vertex_id_capacity=self.vcap, net_id_capacity=self.ecap,
            vertex_id_growths=self.vid_growths, net_id_growths=self.eid_growths,
            free_vertex_ids=self._c("vfree"), free_net_ids=self._c("efree"),
            batches=self._c("batches"), records=self._c("records"),
            host_pools=self.host_pools, host_state=self.host_state,
        )  # fmt: skip
        return out

    def check(self) -> None:
        """Recomputes everything derived from the incidence on the host and raises
        RuntimeError naming the first inconsistency (a test utility, not a hot path)."""
        check_state(self.dump(), self.k, self._ctr)


def _chains(head, nb, nxt, ids: int, used: int, label: str):
    """Bucket chains of lists [0, ids) as (owner per bucket, position) with ownership checks."""
    owner = np.full(nxt.size, -1, dtype=np.int64)
    for i in range(ids):  # a test utility over small structures
        b, count = int(head[i]), 0
        while b != -1:
            if b >= used or owner[b] != -1:
                raise RuntimeError(f"{label}: bucket {b} reused")
            owner[b] = i
            b = int(nxt[b])
            count += 1
        if count != nb[i]:
            raise RuntimeError(f"{label}: chain of {i} disagrees with its header")
    return owner


def check_state(s: dict, k: int, ctr: np.ndarray) -> None:
    """Consistency of a dumped GPU state (see GpuDynamicHypergraph.check)."""

    def require(ok, what):
        if not ok:
            raise RuntimeError("dynamic hypergraph inconsistent: " + what)

    c = s["ctr"]
    require(np.array_equal(c, ctr), "host counter mirror differs from the device")
    n, m = int(c[_C["n_ids"]]), int(c[_C["m_ids"]])
    pairs = {}
    for p, ids, label in (("v", n, "vertex lists"), ("e", m, "net lists")):
        used = int(c[_C[p + "used"]])
        owner = _chains(s[p + "head"], s[p + "nb"], s[p + "next"], ids, used, label)
        b, free = int(c[_C[p + "ftop"]]), 0
        while b != -1:
            require(owner[b] == -1 and b < used, f"{label}: free bucket {b} reused")
            owner[b] = -2
            b = int(s[p + "next"][b])
            free += 1
        require(free == c[_C[p + "fcount"]], f"{label}: free count is wrong")
        require(np.all(owner[:used] != -1), f"{label}: a bucket is lost")
        slots = s[p + "slot"].reshape(-1, BUCKET)
        require(np.all(slots[owner == -2] == -1) if (owner == -2).any() else True,
                f"{label}: a free bucket is not empty")
        occ = slots[:used] != -1
        ob = np.repeat(owner[:used], BUCKET).reshape(-1, BUCKET)
        size = np.bincount(ob[occ], minlength=ids)[:ids] if ids else np.zeros(0)
        require(np.array_equal(size, s[p + "size"][:ids]), f"{label}: a size is wrong")
        pairs[p] = (ob[occ], slots[:used][occ])
    vk = pairs["v"][0].astype(np.int64) * (m + 1) + pairs["v"][1]
    ek = pairs["e"][1].astype(np.int64) * (m + 1) + pairs["e"][0]
    require(np.array_equal(np.sort(vk), np.sort(ek)), "the two incidence directions differ")
    vst, est = s["vstatus"][:n].astype(bool), s["estatus"][:m].astype(bool)
    v_of, e_of = pairs["e"][1], pairs["e"][0]
    require(np.all(vst[v_of]) and np.all(est[e_of]), "a pin of a deleted vertex or net")
    part = s["part"][:n]
    require(np.all((part[vst] >= 0) & (part[vst] < k)), "a live vertex has no block")
    require(np.all(part[~vst] == -1) and np.all(s["vwgt"][:n][~vst] == 0), "a dead vertex")
    phi = np.zeros((m, k), dtype=np.int64)
    np.add.at(phi, (e_of, part[v_of]), 1)
    require(np.array_equal(phi, s["phi"][: m * k].reshape(m, k)), "Phi is wrong")
    lam = (phi > 0).sum(axis=1)
    require(np.array_equal(lam, s["lam"][:m]), "lambda is wrong")
    w = s["ewgt"][:m]
    require(int(np.where(lam > 1, w, 0).sum()) == c[_C["cut"]], "cut is wrong")
    require(int(np.where(lam > 1, w * (lam - 1), 0).sum()) == c[_C["km1"]], "km1 is wrong")
    bw = np.zeros(k, dtype=np.int64)
    np.add.at(bw, part[vst], s["vwgt"][:n][vst])
    require(np.array_equal(bw, s["bw"]), "block weights are wrong")
    require(int(s["vwgt"][:n][vst].sum()) == c[_C["total"]], "total weight is wrong")
    require((vst.sum(), est.sum(), v_of.size) == (c[_C["live_v"]], c[_C["live_e"]],
            c[_C["pins"]]), "live counts are wrong")  # fmt: skip
    for p, st, label in (("v", vst, "vertex"), ("e", est, "net")):
        free = s[p + "free"][: int(c[_C[p + "free"]])]
        require(np.unique(free).size == free.size and not np.any(st[free]),
                f"a free {label} id is listed twice or in use")
        require(free.size == (~st).sum(), f"a deleted {label} id is missing from the free stack")
