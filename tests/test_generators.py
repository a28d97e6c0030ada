"""The inflation generator (HyperG §4 style): sizes, determinism, validity, CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import igpart
from igpart.generators import copy_grid_pairs, inflate

from .util import random_hypergraph


def small():
    return random_hypergraph(np.random.default_rng(4), 50, 60, max_size=5, weighted=True)


def _copies_of(big, n):
    """Per net of ``big``, the sorted set of copies its pins lie in."""
    return [np.unique(big.net(e) // n) for e in range(big.m)]


def test_copy_grid_pairs():
    assert copy_grid_pairs(1).size == 0
    assert copy_grid_pairs(2).tolist() == [[0, 1]]
    assert copy_grid_pairs(5).tolist() == [[0, 1], [0, 3], [1, 2], [1, 4], [3, 4]]
    p = copy_grid_pairs(24)  # 5 wide: 4 full rows and one of 4
    assert len(p) == len({tuple(x) for x in p.tolist()}) and np.all(p[:, 0] < p[:, 1])
    assert len(p) == (4 * 4 + 3) + 19  # right neighbours (4 full rows, 3 in the last) + below


def test_inflate_keeps_structure():
    """Copies of every net, a few of them rewired to a neighbouring copy at the same vertex,
    extra nets inside one copy; no net joins copies that are not neighbours."""
    h = small()
    scale = 7
    big = inflate(h, scale, seed=3, cross_fraction=0.1, extra_fraction=0.05)
    assert big.n == scale * h.n and big.total_weight == scale * h.total_weight
    np.testing.assert_array_equal(big.vwgt, np.tile(h.vwgt, scale))
    np.testing.assert_array_equal(big.ewgt[:scale * h.m], np.tile(h.ewgt, scale))
    assert np.all(big.ewgt[scale * h.m:] == 1) and np.all(big.net_sizes[scale * h.m:] >= 2)
    pairs = {tuple(p) for p in copy_grid_pairs(scale).tolist()}
    copies = _copies_of(big, h.n)
    rewired = 0
    for c in range(scale):
        for e in range(h.m):
            local = np.sort(big.net(c * h.m + e) % h.n)
            np.testing.assert_array_equal(local, np.sort(h.net(e)))  # same vertices, same size
            cs = copies[c * h.m + e]
            assert big.net(c * h.m + e)[0] // h.n == c  # the driver stays in its copy
            if cs.size > 1:
                rewired += 1
                assert cs.size == 2 and tuple(cs.tolist()) in pairs and c in cs
    per_pair = round(0.1 * h.m)
    assert 0.8 * per_pair * len(pairs) <= rewired <= per_pair * len(pairs)
    # extra nets: inside one copy
    assert all(copies[e].size == 1 for e in range(scale * h.m, big.m))
    assert big.m > scale * h.m


def test_inflate_random_nets_only_on_request():
    h = small()
    plain = inflate(h, 6, seed=2, cross_fraction=0, extra_fraction=0)
    assert plain.m == 6 * h.m
    assert all(c.size == 1 for c in _copies_of(plain, h.n))
    rnd = inflate(h, 6, seed=2, cross_fraction=0, extra_fraction=0, random_fraction=0.2)
    assert rnd.m == 6 * h.m + round(0.2 * h.m * 6)
    assert any(c.size > 1 for c in _copies_of(rnd, h.n)[6 * h.m:])


def test_inflate_of_unit_weights_keeps_them_known():
    """Unit weights stay the default through inflate (known without a pass) and equal the
    tiled arrays; weighted inputs keep theirs."""
    h = random_hypergraph(np.random.default_rng(4), 50, 60, max_size=5)
    assert h.__dict__.get("unit_vertex_weights") and h.__dict__.get("unit_net_weights")
    big = inflate(h, 4, seed=1)
    assert big.__dict__.get("unit_vertex_weights") and big.__dict__.get("unit_net_weights")
    assert np.all(big.vwgt == 1) and np.all(big.ewgt == 1) and big.total_weight == 4 * h.n
    w = inflate(small(), 3, seed=1)
    assert not w.unit_vertex_weights and not w.unit_net_weights


def test_inflate_is_seeded_and_valid():
    h = small()
    a, b = inflate(h, 5, seed=11), inflate(h, 5, seed=11)
    c = inflate(h, 5, seed=12, cross_fraction=0.2)
    assert np.array_equal(a.eptr, b.eptr) and np.array_equal(a.eind, b.eind)
    assert not (np.array_equal(a.eptr, c.eptr) and np.array_equal(a.eind, c.eind))
    # re-checked construction: pins in range and unique within nets
    again = igpart.Hypergraph(c.eptr, c.eind, c.n, c.vwgt, c.ewgt)
    assert again.num_pins == c.num_pins
    assert inflate(h, 1, seed=0, extra_fraction=0).m == h.m


def test_inflate_rejects_bad_arguments():
    h = small()
    for kwargs in ({"scale": 0}, {"scale": 2.5}, {"scale": 2, "cross_fraction": -1},
                   {"scale": 2, "max_extra_size": 1}, {"scale": 2, "random_fraction": -0.1}):
        with pytest.raises(ValueError):
            inflate(h, **kwargs)


def test_generate_command(ispd98, tmp_path):
    out = tmp_path / "big.hgr"
    cmd = [sys.executable, "-m", "igpart", "generate", "--from", ispd98 / "ibm01.hgr",
           "--scale", 3, "--seed", 5, "-o", out, "--json"]
    r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    h = igpart.read_hgr(ispd98 / "ibm01.hgr")
    big = igpart.read_hgr(out)
    assert (d["vertices"], d["nets"], d["pins"]) == (big.n, big.m, big.num_pins)
    want = inflate(h, 3, seed=5)
    assert big.n == 3 * h.n and np.array_equal(big.eind, want.eind)
    bad = subprocess.run([sys.executable, "-m", "igpart", "generate", "--from",
                          str(ispd98 / "ibm01.hgr"), "--scale", "0", "-o", str(out)],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr and "scale" in bad.stderr
