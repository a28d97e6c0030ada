"""The inflation generator (HyperG §4 style): sizes, determinism, validity, CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import igpart
from igpart.generators import inflate

from .util import random_hypergraph


def small():
    return random_hypergraph(np.random.default_rng(4), 50, 60, max_size=5, weighted=True)


def test_inflate_sizes_copies_and_added_nets():
    h = small()
    big = inflate(h, 7, seed=3, cross_fraction=0.1, extra_fraction=0.05)
    n_cross, n_extra = round(0.1 * h.m * 7), round(0.05 * h.m * 7)
    assert big.n == 7 * h.n and big.m == 7 * h.m + n_cross + n_extra
    assert big.total_weight == 7 * h.total_weight
    np.testing.assert_array_equal(big.vwgt, np.tile(h.vwgt, 7))
    # the first 7*m nets are the copies: copy c of net e is net e shifted by c*n
    for c in (0, 3, 6):
        for e in (0, h.m // 2, h.m - 1):
            np.testing.assert_array_equal(np.sort(big.net(c * h.m + e)),
                                          np.sort(h.net(e) + c * h.n))
            assert big.ewgt[c * h.m + e] == h.ewgt[e]
    # cross-copy nets join two different copies; added nets weigh 1 and have >= 2 pins
    cross = [big.net(e) // h.n for e in range(7 * h.m, 7 * h.m + n_cross)]
    assert all(len(set(copies.tolist())) == 2 for copies in cross)
    assert np.all(big.ewgt[7 * h.m:] == 1)
    assert np.all(big.net_sizes[7 * h.m:] >= 2)


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
                   {"scale": 2, "max_extra_size": 1}):
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
