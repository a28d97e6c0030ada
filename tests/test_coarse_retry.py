"""``Config.coarse_retry_cut_share``: the lighter hierarchy rebuilt where the initial partition
cuts through its coarsest level."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import igpart
from igpart.errors import InputError
from igpart.generators import random_circuit

from .test_fixed import assert_fixed_kept, random_fixed
from .test_multilevel import check_partition


def _run(h, k, share, caplog, **kw):
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="igpart"):
        p = igpart.partition(h, k, backend="cpu", seed=kw.pop("seed", 1),
                             config={"coarse_retry_cut_share": share, **kw.pop("config", {})},
                             **kw)
    return p, any("rebuilt with half the cluster weight" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("k", [3, 8])
def test_retry_keeps_partitions_valid_balanced_and_fixed(k, caplog):
    """A share near 0 rebuilds every hierarchy that has a level to rebuild from: the partition
    stays valid and balanced, with its fixed vertices in their blocks."""
    h = random_circuit(3000, seed=k)
    fixed = random_fixed(h.n, k, 0.1, seed=k + 1)
    p, retried = _run(h, k, 1e-6, caplog, fixed=fixed)
    assert retried
    check_partition(h, p, k, 0.03)
    assert p.balanced
    assert_fixed_kept(p.parts, fixed)


def test_share_above_the_cut_changes_nothing(caplog):
    """A run whose coarsest cut stays below the (default) share is the run without the retry."""
    h = random_circuit(3000, seed=4)
    never, retried = _run(h, 8, igpart.Config().coarse_retry_cut_share, caplog)
    off, _ = _run(h, 8, 0.0, caplog)
    assert not retried
    assert np.array_equal(never.parts, off.parts)


def test_k2_is_never_retried(caplog):
    h = random_circuit(2000, seed=5)
    p, retried = _run(h, 2, 1e-6, caplog)
    off, _ = _run(h, 2, 0.0, caplog)
    assert not retried and np.array_equal(p.parts, off.parts)


def test_ibm05_k8_gets_the_lighter_hierarchy(ispd98, caplog):
    """ibm05 at k = 8, seed 0, deterministic (the same cut on every run): the default
    hierarchy cuts 5,160, the rebuilt lighter one 4,487."""
    h = igpart.read_hgr(ispd98 / "ibm05.hgr")
    cfg = {"threads": 2, "deterministic": True}
    p, retried = _run(h, 8, 0.5, caplog, seed=0, config=cfg)
    off, again = _run(h, 8, 0.0, caplog, seed=0, config=cfg)
    assert retried and not again
    assert p.balanced and p.cut < 0.95 * off.cut


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "x", True])
def test_bad_share_is_rejected(bad):
    with pytest.raises(InputError, match="coarse_retry_cut_share"):
        igpart.partition(random_circuit(200, seed=1), 4, backend="cpu",
                         config={"coarse_retry_cut_share": bad})
