#!/usr/bin/env python3
"""Regenerate the corpus of real XLA dumps used by xla-layout's HLO reader tests.

Versions this corpus was generated with (the HLO text depends on them; the
versions actually used are recorded in manifest.json):

    jax 0.10.2, jaxlib 0.10.2, libtpu 0.0.52, numpy 2.4.6, Python 3.11.7
    (no accelerator attached: TPU programs are compiled offline)

Setup (once):

    python3 -m venv .venv-jax
    .venv-jax/bin/pip install jax==0.10.2 jaxlib==0.10.2 libtpu==0.0.52 numpy==2.4.6

Command (from the repository root; about 45 s on 2 cores):

    .venv-jax/bin/python tools/dumps/generate.py [OUT_DIR] [--fixtures DIR] [--only NAME ...] [--jobs N]

  OUT_DIR      where the full XLA dumps go, one sub-directory per program, plus
               a manifest.json for all programs (default /tmp/xla-dumps; a
               directory inside the repository is refused).
  --fixtures   where the small representative fixture set is copied
               (default tests/data/dumps in this repository).  A full run
               rewrites the generated files there (README.md is kept).
  --only       regenerate only these programs (fixture manifest entries are
               then merged into the existing manifest).
  --jobs       programs compiled in parallel (default 2).
  --list       print the program names and exit.

TPU programs are compiled ahead of time for a TPU *topology* (no TPU needed):
`jax.experimental.topologies.get_topology_desc('v5e:2x2', 'tpu')` gives
device objects that can build a Mesh, and `jit(...).lower(ShapeDtypeStruct
...).compile()` runs the real libtpu compiler.  libtpu prints warnings about
missing TPU_* environment variables; they are harmless and go to each
program's `worker.log`.

Every program runs in its own subprocess so that `--xla_dump_to` points at a
directory of its own and module numbering starts at module_0000 each time.
File paths in HLO metadata are canonicalised (jax_hlo_source_file_canonicalization_regex)
to `tools/dumps/generate.py`, so the output does not depend on where the
checkout lives.  Re-running with the same versions gives byte-identical
fixtures (checked by running twice and diffing).  Note that HLO metadata
carries line numbers of this file (FileLocations), so editing this script
changes the fixtures' stack-frame tables even when the programs are unchanged.
"""

from __future__ import annotations

import argparse
import glob
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = "/tmp/xla-dumps"
DEFAULT_FIXTURES = os.path.join(REPO, "tests", "data", "dumps")

# --------------------------------------------------------------------------
# Programs.  Each builder takes no argument, imports what it needs, and
# returns (compiled, info) where info is a dict merged into the manifest.
# Builders are run inside the worker subprocess, after XLA_FLAGS is set.
# --------------------------------------------------------------------------

PROGRAMS: dict[str, dict] = {}


def program(name, backend, topology=None, keep=False, keep_before=False, note="",
            compiler_options=None):
    """Register a builder.  keep=True copies it into the fixture set.

    compiler_options are XLA/libtpu debug options passed to
    `Lowered.compile(compiler_options=...)` by `_compile`."""

    def deco(fn):
        PROGRAMS[name] = dict(
            name=name,
            backend=backend,
            topology=topology,
            keep=keep,
            keep_before=keep_before,
            note=note,
            compiler_options=compiler_options or {},
            builder=fn,
        )
        return fn

    return deco


_COMPILER_OPTIONS: dict = {}


def _compile(lowered):
    return lowered.compile(compiler_options=_COMPILER_OPTIONS or None)


def _tpu_mesh(topology, shape, axis_names):
    import numpy as np
    import jax
    from jax.experimental import topologies

    topo = topologies.get_topology_desc(topology, "tpu")
    devs = np.array(topo.devices).reshape(shape)
    return jax.sharding.Mesh(devs, axis_names)


def _cpu_mesh(shape, axis_names):
    import numpy as np
    import jax

    n = int(np.prod(shape))
    devs = np.array(jax.devices("cpu")[:n]).reshape(shape)
    return jax.sharding.Mesh(devs, axis_names)


def _sds(shape, dtype, sharding=None):
    import jax

    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)


def _mesh_info(mesh):
    return {"mesh_shape": dict(mesh.shape), "mesh_devices": int(mesh.devices.size)}


# ---- 1. plain jit matmul on a 2-D mesh ------------------------------------
@program("tpu_matmul_2d", "tpu", "v5e:2x2", keep=True, keep_before=True,
         note="jit of a dot on a 2x2 mesh; SPMD all-gathers with mesh[...] and iota replica groups; S(1) VMEM")
def tpu_matmul_2d():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x2", (2, 2), ("x", "y"))
    s = NamedSharding(mesh, P("x", "y"))

    def matmul(a, b):
        return a @ b

    f = jax.jit(matmul, in_shardings=(s, s), out_shardings=s)
    c = _compile(f.lower(_sds((128, 256), jnp.float32), _sds((256, 512), jnp.float32)))
    return c, _mesh_info(mesh)


# ---- 2. shard_map with every collective on a 2-D mesh ----------------------
@program("tpu_collectives_2d", "tpu", "v5e:2x2", keep=True, keep_before=True,
         note="shard_map over ('x','y'): psum, all_gather, psum_scatter, all_to_all, ppermute, axis_index")
def tpu_collectives_2d():
    import jax, jax.numpy as jnp
    from jax import lax
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x2", (2, 2), ("x", "y"))

    def collectives_2d(a, b):
        # a: [64, 128] local block of a [128, 256] array sharded ('x', 'y')
        s = lax.psum(a, "x")                                   # all-reduce over x
        g = lax.all_gather(b, "y", axis=0, tiled=True)         # all-gather over y
        rs = lax.psum_scatter(g, "y", scatter_dimension=0, tiled=True)  # reduce-scatter
        t = lax.all_to_all(a, "y", split_axis=0, concat_axis=1, tiled=True)
        p = lax.ppermute(b, "x", perm=[(0, 1), (1, 0)])        # collective-permute
        i = lax.axis_index("y")                                # partition-id based
        both = lax.psum(jnp.sum(a), ("x", "y"))                # all-reduce over both axes
        out = s + rs + p * i.astype(a.dtype) + both
        return out, t

    f = jax.jit(
        jax.shard_map(collectives_2d, mesh=mesh, in_specs=(P("x", "y"), P("x", "y")),
                      out_specs=(P("x", "y"), P("x", "y"))))
    sh = NamedSharding(mesh, P("x", "y"))
    c = _compile(f.lower(_sds((128, 256), jnp.float32, sh), _sds((128, 256), jnp.float32, sh)))
    return c, _mesh_info(mesh)


# ---- 3. shard_map collectives on a 3-D mesh --------------------------------
@program("tpu_collectives_3d", "tpu", "v5e:2x4", keep=True,
         note="shard_map over a 2x2x2 mesh; collectives over one, two and all three axes")
def tpu_collectives_3d():
    import jax, jax.numpy as jnp
    from jax import lax
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x4", (2, 2, 2), ("data", "fsdp", "model"))

    def collectives_3d(x, w):
        # x: [32, 256] block of [64, 512] sharded ("data", "model")
        # w: [128, 128] block of [512, 128] sharded (("model", "fsdp"), None)
        w_rows = lax.all_gather(w, "fsdp", axis=0, tiled=True)     # [256, 128]
        y = lax.psum(x @ w_rows, "model")                         # [32, 128]
        y = lax.psum_scatter(y, ("data", "fsdp"), scatter_dimension=0, tiled=True)  # [8, 128]
        y = lax.ppermute(y, ("data", "fsdp"), perm=[(i, (i + 1) % 4) for i in range(4)])
        z = lax.all_to_all(x, "model", split_axis=1, concat_axis=0, tiled=True)     # [64, 128]
        m = lax.pmax(jnp.max(x), ("data", "fsdp", "model"))
        return y * m, z

    f = jax.jit(jax.shard_map(
        collectives_3d, mesh=mesh,
        in_specs=(P("data", "model"), P(("model", "fsdp"), None)),
        out_specs=(P(("data", "fsdp"), None), P(("data", "model"), None))))
    xs = NamedSharding(mesh, P("data", "model"))
    ws = NamedSharding(mesh, P(("model", "fsdp"), None))
    c = _compile(f.lower(_sds((64, 512), jnp.float32, xs), _sds((512, 128), jnp.float32, ws)))
    return c, _mesh_info(mesh)


# ---- 4. host offload via memory kinds --------------------------------------
@program("tpu_host_offload", "tpu", "v5e:2x2", keep=True, keep_before=True,
         note="pinned_host argument and output, device_put to/from pinned_host inside jit; S(5)")
def tpu_host_offload():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x2", (2, 2), ("x", "y"))
    dev = NamedSharding(mesh, P("x", "y"))
    host = dev.with_memory_kind("pinned_host")

    def offload(a, h):
        b = jnp.sin(a)
        b_host = jax.device_put(b, host)          # device -> host inside the program
        h_dev = jax.device_put(h, dev)            # host argument -> device
        return b_host, a * h_dev                  # first output lives on host

    f = jax.jit(offload, in_shardings=(dev, host), out_shardings=(host, dev))
    c = _compile(f.lower(_sds((256, 512), jnp.float32), _sds((256, 512), jnp.float32)))
    return c, _mesh_info(mesh)


# ---- 5. remat with an offload policy inside a scan -------------------------
@program("tpu_remat_offload_scan", "tpu", "v5e:2x2", keep=True,
         note="grad of lax.scan over jax.checkpoint with save_and_offload_only_these_names; "
              "while loop, async dynamic-update-slice/dynamic-slice into an S(5) buffer")
def tpu_remat_offload_scan():
    import jax, jax.numpy as jnp
    from jax import lax
    from jax.ad_checkpoint import checkpoint_name
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x2", (2, 2), ("data", "model"))
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["hidden"],
        offload_src="device", offload_dst="pinned_host")

    def layer(h, w):
        z = checkpoint_name(h @ w, "hidden")     # residual of sin(): offloaded
        return jnp.sin(z), None

    def loss(ws, x):
        h, _ = lax.scan(jax.checkpoint(layer, policy=policy), x, ws)
        return jnp.mean(h * h)

    ws_sh = NamedSharding(mesh, P(None, None, "model"))
    x_sh = NamedSharding(mesh, P("data", None))
    f = jax.jit(jax.value_and_grad(loss), in_shardings=(ws_sh, x_sh))
    c = _compile(f.lower(_sds((4, 256, 256), jnp.float32), _sds((64, 256), jnp.float32)))
    return c, _mesh_info(mesh)


# ---- 6. checkpoint / remat without offload, plus while_loop ---------------
@program("tpu_remat_while", "tpu", "v5e:2x2", keep=True,
         note="jax.checkpoint (recompute), fori_loop with dynamic trip count -> while, lax.cond -> conditional")
def tpu_remat_while():
    import jax, jax.numpy as jnp
    from jax import lax
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x2", (2, 2), ("x", "y"))

    @jax.checkpoint
    def block(x, w):
        return jax.nn.gelu(x @ w) @ w.T

    def loss(w, x, n):
        def body(i, carry):
            return carry + 0.5 * jnp.tanh(carry) * i.astype(carry.dtype)
        x = lax.fori_loop(0, n, body, x)            # n is traced -> real while loop
        x = lax.cond(n > 3, lambda x: x * 2.0, jnp.sin, x)   # conditional
        return jnp.sum(block(x, w) ** 2)

    ws = NamedSharding(mesh, P(None, "y"))
    xs = NamedSharding(mesh, P("x", None))
    rep = NamedSharding(mesh, P())
    f = jax.jit(jax.grad(loss), in_shardings=(ws, xs, rep))
    c = _compile(f.lower(_sds((128, 256), jnp.float32), _sds((32, 128), jnp.float32),
                _sds((), jnp.int32)))
    return c, _mesh_info(mesh)


# ---- 7. custom calls on TPU ------------------------------------------------
@program("tpu_custom_calls", "tpu", "v5e:2x2", keep=True, keep_before=True,
         note="cholesky, triangular_solve, qr, eigh, sort on one device: TPU linalg custom-calls")
def tpu_custom_calls():
    import jax, jax.numpy as jnp
    from jax import lax

    def linalg(a, x):
        spd = a @ a.T + 64.0 * jnp.eye(a.shape[0], dtype=a.dtype)
        l = jnp.linalg.cholesky(spd)
        sol = jax.scipy.linalg.solve_triangular(l, x, lower=True)
        q, r = jnp.linalg.qr(a)
        w, v = jnp.linalg.eigh(spd)
        return sol, q @ r, w, v[:, :3], lax.sort(x[:, 0])

    dev = _tpu_mesh("v5e:2x2", (4,), ("d",)).devices[0]
    s = jax.sharding.SingleDeviceSharding(dev)
    f = jax.jit(linalg, in_shardings=s)
    c = _compile(f.lower(_sds((64, 64), jnp.float32), _sds((64, 8), jnp.float32)))
    return c, {"mesh_devices": 1}


# ---- 8. Pallas TPU kernel ---------------------------------------------------
@program("tpu_pallas", "tpu", "v5e:2x2", keep=True,
         note="pl.pallas_call (grid=(4,), BlockSpecs, parallel dimension semantics) -> tpu_custom_call with a "
              "serialized Mosaic module in backend_config; single device, so sharding={replicated} survives")
def tpu_pallas():
    import jax, jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    def add_kernel(x_ref, y_ref, o_ref):
        o_ref[...] = x_ref[...] * 2.0 + y_ref[...]

    def pallas_add(x, y):
        return pl.pallas_call(
            add_kernel,
            out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
            grid=(x.shape[0] // 128,),
            in_specs=[pl.BlockSpec((128, 256), lambda i: (i, 0)),
                      pl.BlockSpec((128, 256), lambda i: (i, 0))],
            out_specs=pl.BlockSpec((128, 256), lambda i: (i, 0)),
            compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
        )(x, y)

    def f(x, y):
        return jnp.exp(pallas_add(x, y))

    dev = _tpu_mesh("v5e:2x2", (4,), ("d",)).devices[0]
    s = jax.sharding.SingleDeviceSharding(dev)
    c = _compile(jax.jit(f, in_shardings=s).lower(_sds((512, 256), jnp.float32),
                                          _sds((512, 256), jnp.float32)))
    return c, {"mesh_devices": 1}


# ---- 9. donated arguments + tuple outputs ----------------------------------
@program("tpu_donate_tuple", "tpu", "v5e:2x2", keep=True,
         note="donate_argnums -> input_output_alias (3 of 4 outputs alias inputs); a pytree (tuple) output")
def tpu_donate_tuple():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x2", (2, 2), ("x", "y"))
    s = NamedSharding(mesh, P("x", None))
    r = NamedSharding(mesh, P())

    def update(params, grads, step):
        new = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
        return new, step + 1, jnp.sum(grads["b"])

    f = jax.jit(update, donate_argnums=(0, 2),
                in_shardings=({"w": s, "b": r}, {"w": s, "b": r}, r),
                out_shardings=({"w": s, "b": r}, r, r))
    p = {"w": _sds((256, 128), jnp.float32), "b": _sds((128,), jnp.float32)}
    c = _compile(f.lower(p, p, _sds((), jnp.int32)))
    return c, _mesh_info(mesh)


# ---- 10. odd shapes that get padded ----------------------------------------
@program("tpu_odd_shapes", "tpu", "v5e:2x2", keep=True, keep_before=True,
         note="global dims 3, 129, 1000 (local 500 after sharding) in f32/bf16/s8/pred/u32: small tiles T(4,128), T(2,128), "
              "T(512)(128)(4,1), transposed {0,1:...} layouts, cross_program_prefetch_index")
def tpu_odd_shapes():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x2", (2, 2), ("x", "y"))

    def odd(a, b, c, m):
        # a: f32[3,129] b: bf16[129,1000] c: s8[1000] m: pred[3,1000]
        y = (a.astype(jnp.bfloat16) @ b).astype(jnp.float32)      # [3, 1000]
        y = y + c.astype(jnp.float32)
        y = jnp.where(m, y, -1.0)
        idx = jnp.argmax(y, axis=1).astype(jnp.uint32)
        return y, idx, (y > 0), y.astype(jnp.bfloat16)[:, :7]

    rep = NamedSharding(mesh, P())
    col = NamedSharding(mesh, P(None, "y"))
    f = jax.jit(odd, in_shardings=(rep, col, NamedSharding(mesh, P("y")), col))
    c = _compile(f.lower(_sds((3, 129), jnp.float32), _sds((129, 1000), jnp.bfloat16),
                _sds((1000,), jnp.int8), _sds((3, 1000), jnp.bool_)))
    return c, _mesh_info(mesh)


# ---- 11. transformer-ish train step, bf16 params, 2-D mesh ------------------
def _transformer_train_step(mesh_topology, mesh_shape, offload=False):
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh(mesh_topology, mesh_shape, ("data", "model"))
    V, D, H, F, L, B, S = 1000, 256, 4, 1024, 2, 16, 128   # vocab 1000: odd, padded
    dt = jnp.bfloat16

    def ns(*spec):
        return NamedSharding(mesh, P(*spec))

    param_shapes = {
        "embed": ((V, D), ns(None, "model")),
        "layers": {
            "ln1": ((L, D), ns()),
            "wqkv": ((L, D, 3 * D), ns(None, None, "model")),
            "wo": ((L, D, D), ns(None, "model", None)),
            "ln2": ((L, D), ns()),
            "w1": ((L, D, F), ns(None, None, "model")),
            "w2": ((L, F, D), ns(None, "model", None)),
        },
        "unembed": ((D, V), ns(None, None)),
    }
    is_leaf = lambda t: isinstance(t, tuple) and len(t) == 2 and isinstance(t[0], tuple)
    p_sds = jax.tree.map(lambda t: _sds(t[0], dt), param_shapes, is_leaf=is_leaf)
    p_sh = jax.tree.map(lambda t: t[1], param_shapes, is_leaf=is_leaf)

    def rms(x, g):
        x32 = x.astype(jnp.float32)
        y = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, -1, keepdims=True) + 1e-6)
        return (y * g.astype(jnp.float32)).astype(dt)

    def block(x, lp):
        h = rms(x, lp["ln1"])
        qkv = jnp.einsum("bsd,de->bse", h, lp["wqkv"])
        q, k, v = jnp.split(qkv, 3, axis=-1)
        q, k, v = (t.reshape(B, S, H, D // H) for t in (q, k, v))
        att = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / (D // H) ** 0.5
        mask = jnp.tril(jnp.ones((S, S), bool))
        att = jax.nn.softmax(jnp.where(mask, att, -1e9), axis=-1).astype(dt)
        o = jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(B, S, D)
        x = x + jnp.einsum("bsd,de->bse", o, lp["wo"])
        h = rms(x, lp["ln2"])
        x = x + jnp.einsum("bsf,fd->bsd", jax.nn.gelu(jnp.einsum("bsd,df->bsf", h, lp["w1"])), lp["w2"])
        return x, None

    if offload:
        policy = jax.checkpoint_policies.offload_dot_with_no_batch_dims("device", "pinned_host")
    else:
        policy = jax.checkpoint_policies.nothing_saveable

    def loss_fn(params, tokens, targets):
        x = params["embed"][tokens]
        x, _ = jax.lax.scan(jax.checkpoint(block, policy=policy), x, params["layers"])
        logits = jnp.einsum("bsd,dv->bsv", x, params["unembed"]).astype(jnp.float32)
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, targets[..., None], -1))

    def train_step(params, opt, tokens, targets):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
        m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g.astype(jnp.float32), opt["m"], grads)
        new_params = jax.tree.map(lambda p, m: (p.astype(jnp.float32) - 1e-3 * m).astype(dt), params, m)
        return new_params, {"m": m, "step": opt["step"] + 1}, loss

    o_sds = {"m": jax.tree.map(lambda s: _sds(s.shape, jnp.float32), p_sds), "step": _sds((), jnp.int32)}
    o_sh = {"m": p_sh, "step": ns()}
    batch = ns("data", None)
    f = jax.jit(train_step, donate_argnums=(0, 1),
                in_shardings=(p_sh, o_sh, batch, batch),
                out_shardings=(p_sh, o_sh, ns()))
    c = _compile(f.lower(p_sds, o_sds, _sds((B, S), jnp.int32), _sds((B, S), jnp.int32)))
    info = _mesh_info(mesh)
    info.update(dict(vocab=V, d_model=D, heads=H, d_ff=F, layers=L, batch=B, seq=S))
    return c, info


@program("tpu_train_step", "tpu", "v5e:2x4", keep=True,
         note="2-layer transformer train step, bf16 params + f32 momentum, (data=2, model=4) mesh, "
              "donated params/opt state (input_output_alias), scan over layers (while), full remat, "
              "tuple output (params, opt state, loss)")
def tpu_train_step():
    return _transformer_train_step("v5e:2x4", (2, 4))


@program("tpu_train_step_offload", "tpu", "v5e:2x4",
         note="same train step with remat policy offload_dot_with_no_batch_dims('device', 'pinned_host'): "
              "activations in S(5), async dynamic-update-slice/slice (async-start calls=), layer loop unrolled")
def tpu_train_step_offload():
    return _transformer_train_step("v5e:2x4", (2, 4), offload=True)


# ---- 12. other TPU generations ----------------------------------------------
@program("tpu_v4_matmul_3d", "tpu", "v4:2x2x1", keep=True, keep_before=True,
         note="v4 (8 devices) 3-D mesh jit MLP: SPMD collectives over sub-meshes of a 3-axis mesh, S(3) (report: hbm color 3)")
def tpu_v4_matmul_3d():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v4:2x2x1", (2, 2, 2), ("a", "b", "c"))

    def mlp(x, w1, w2):
        h = jax.nn.relu(x @ w1)                      # contracting dim sharded on "b"
        h = jax.lax.with_sharding_constraint(h, NamedSharding(mesh, P("a", "c")))
        return h @ w2

    f = jax.jit(mlp,
                in_shardings=(NamedSharding(mesh, P("a", "b")),
                              NamedSharding(mesh, P("b", "c")),
                              NamedSharding(mesh, P(("b", "c"), None))),
                out_shardings=NamedSharding(mesh, P(None, "b")))
    c = _compile(f.lower(_sds((64, 256), jnp.bfloat16), _sds((256, 1024), jnp.bfloat16),
                _sds((1024, 256), jnp.bfloat16)))
    return c, _mesh_info(mesh)


@program("tpu_v6e_scan", "tpu", "v6e:2x2", keep=True,
         note="v6e lax.scan with a carried bf16 state and partially-replicated sharding")
def tpu_v6e_scan():
    import jax, jax.numpy as jnp
    from jax import lax
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v6e:2x2", (2, 2), ("x", "y"))

    def rnn(h0, xs, w):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum(-1)
        return lax.scan(step, h0, xs)

    f = jax.jit(rnn, in_shardings=(NamedSharding(mesh, P("x")), NamedSharding(mesh, P(None, "x")),
                                   NamedSharding(mesh, P())))
    c = _compile(f.lower(_sds((32, 256), jnp.bfloat16), _sds((10, 32, 256), jnp.bfloat16),
                _sds((256, 256), jnp.bfloat16)))
    return c, _mesh_info(mesh)


# ---- 13. CPU ---------------------------------------------------------------
@program("cpu_linalg", "cpu", None, keep=True,
         note="CPU LAPACK typed-FFI custom calls (getrf/potrf/syevd), sort, odd shapes, tuple output")
def cpu_linalg():
    import jax, jax.numpy as jnp

    def linalg(a, b):
        x = jnp.linalg.solve(a, b)
        w, v = jnp.linalg.eigh(a + a.T)
        l = jnp.linalg.cholesky(a @ a.T + 3.0 * jnp.eye(3))
        return x, w, v, l, jnp.sort(b, axis=0)

    c = _compile(jax.jit(linalg).lower(_sds((3, 3), jnp.float32), _sds((3, 129), jnp.float32)))
    return c, {"mesh_devices": 1}


@program("cpu_collectives_8dev", "cpu", None, keep=True, keep_before=True,
         note="8 host devices (--xla_force_host_platform_device_count=8), 3-D mesh shard_map collectives")
def cpu_collectives_8dev():
    import jax, jax.numpy as jnp
    from jax import lax
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _cpu_mesh((2, 2, 2), ("a", "b", "c"))

    def cpu_collectives(x):
        s = lax.psum(x, "a")
        g = lax.all_gather(x, "b", axis=1, tiled=True)
        rs = lax.psum_scatter(g, "b", scatter_dimension=1, tiled=True)
        t = lax.all_to_all(x, "c", split_axis=0, concat_axis=0, tiled=True)
        p = lax.ppermute(x, ("a", "b"), perm=[(i, (i + 1) % 4) for i in range(4)])
        return s + rs + t + p + lax.axis_index("c").astype(x.dtype)

    f = jax.jit(jax.shard_map(cpu_collectives, mesh=mesh, in_specs=P("a", ("b", "c")), out_specs=P("a", ("b", "c"))),
                donate_argnums=0)
    c = _compile(f.lower(_sds((16, 64), jnp.float32, NamedSharding(mesh, P("a", ("b", "c"))))))
    return c, _mesh_info(mesh)


@program("cpu_host_offload", "cpu", None, keep=True,
         note="CPU with a pinned_host output: S(5) in the CPU entry layout, counted as device output")
def cpu_host_offload():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _cpu_mesh((2,), ("x",))
    dev = NamedSharding(mesh, P("x"))
    host = dev.with_memory_kind("pinned_host")

    def f(a):
        return jax.device_put(a * 2, host), a + 1

    c = _compile(jax.jit(f, in_shardings=dev, out_shardings=(host, dev)).lower(_sds((8, 128), jnp.float32)))
    return c, _mesh_info(mesh)


# ---- 14. bounded dynamic shapes (f32[<=8,4]) --------------------------------
# No public JAX API produces bounded dynamic dimensions any more (jax's
# dynamic-shape mode is gone and shape polymorphism is resolved before XLA).
# Two ways to still get real XLA output with `<=` dims:
#   * a jax.extend primitive whose lowering emits stablehlo.set_dimension_size
#     (the dynamic value stays inside the program: XLA's dynamic padder turns it
#     into a mask, so only the pre-optimization HLO shows `<=`);
#   * StableHLO written by hand and compiled through the PJRT client that
#     returns the dynamic array (post-optimization HLO keeps `<=` in the entry
#     layout and uses the SliceToDynamic custom call).

def _masked_sum_primitive():
    import numpy as np
    import jax
    from jax.extend import core as jcore
    from jax._src.interpreters import mlir
    from jax.extend.mlir import ir
    from jax.extend.mlir.dialects import stablehlo as hlo

    prim = jcore.Primitive("bounded_masked_sum")
    prim.def_abstract_eval(lambda x, n: jax.core.ShapedArray(x.shape[1:], x.dtype))

    def lowering(ctx, x, n):
        xt = ir.RankedTensorType(x.type)
        dyn = hlo.SetDimensionSizeOp(x, n, 0).result      # tensor<?x4xf32, bounds<8, ?>>
        out_t = ir.RankedTensorType.get(list(xt.shape)[1:], xt.element_type)
        zero = mlir.ir_constant(np.array(0, np.float32))
        red = hlo.ReduceOp([out_t], [dyn], [zero], mlir.dense_int_array([0]))
        scalar = ir.RankedTensorType.get([], xt.element_type)
        block = red.regions[0].blocks.append(scalar, scalar)
        with ir.InsertionPoint(block):
            hlo.return_([hlo.add(*block.arguments)])
        return red.results

    mlir.register_lowering(prim, lowering)
    return prim


@program("cpu_bounded_dynamic", "cpu", None, keep=True, keep_before=True,
         note="jit with a jax.extend primitive lowering to set_dimension_size: f32[<=8,4] and "
              "set-dimension-size in the pre-optimization HLO; padded away after optimization")
def cpu_bounded_dynamic():
    import jax, jax.numpy as jnp

    masked_sum = _masked_sum_primitive()

    def bounded(x, n):
        return masked_sum.bind(x * 2.0, n) + 1.0

    c = _compile(jax.jit(bounded).lower(_sds((8, 4), jnp.float32), _sds((), jnp.int32)))
    return c, {"mesh_devices": 1}


_BOUNDED_MLIR = """
module @jit_bounded_output attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<i32>) -> (tensor<4xf32>, tensor<?x4xf32, #stablehlo.bounds<8, ?>>) {
    %0 = stablehlo.set_dimension_size %arg0, %arg1, dim = 0 : (tensor<8x4xf32>, tensor<i32>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>>
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<f32>) -> tensor<4xf32>
    return %1, %0 : tensor<4xf32>, tensor<?x4xf32, #stablehlo.bounds<8, ?>>
  }
}
"""


class _RawExecutable:
    """The bits of jax.stages.Compiled the worker uses, for a PJRT executable."""

    def __init__(self, exe):
        self._exe = exe
        self.input_shardings = "n/a (compiled from StableHLO text)"
        self.output_shardings = "n/a (compiled from StableHLO text)"

    def memory_analysis(self):
        return self._exe.get_compiled_memory_stats()

    def as_text(self):
        return self._exe.hlo_modules()[0].to_string()


@program("cpu_bounded_dynamic_output", "cpu", None, keep=True, keep_before=True,
         note="hand-written StableHLO returning tensor<?x4xf32, bounds<8,?>>: f32[<=8,4] in the "
              "post-optimization entry layout and ROOT tuple, SliceToDynamic custom-call")
def cpu_bounded_dynamic_output():
    import jax
    from jax._src import compiler, xla_bridge as xb
    from jax._src.interpreters import mlir
    from jax._src.lib import xla_client as xc
    from jax.extend.mlir import ir

    backend = xb.get_backend("cpu")
    with mlir.make_ir_context():
        module = ir.Module.parse(_BOUNDED_MLIR)
        bytecode = mlir.module_to_bytecode(module)
    opts = compiler.get_compile_options(num_replicas=1, num_partitions=1)
    exe = backend.compile_and_load(bytecode, xc.DeviceList(tuple(backend.devices()[:1])), opts)
    return _RawExecutable(exe), {"mesh_devices": 1, "stablehlo": _BOUNDED_MLIR.strip()}


_TPU_BOUNDED_MLIR = """
module @jit_tpu_bounded attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %arg1: tensor<?x?xi8, #stablehlo.bounds<33, 130>>, %arg2: tensor<?x?xbf16, #stablehlo.bounds<300, 5>>) -> (tensor<4xf32>, tensor<?x?xi8, #stablehlo.bounds<33, 130>>, tensor<?x?xbf16, #stablehlo.bounds<300, 5>>) {
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.add %arg1, %arg1 : tensor<?x?xi8, #stablehlo.bounds<33, 130>>
    %3 = stablehlo.multiply %arg2, %arg2 : tensor<?x?xbf16, #stablehlo.bounds<300, 5>>
    return %1, %2, %3 : tensor<4xf32>, tensor<?x?xi8, #stablehlo.bounds<33, 130>>, tensor<?x?xbf16, #stablehlo.bounds<300, 5>>
  }
}
"""


@program("tpu_bounded_dynamic", "tpu", "v5e:1x1", keep=True,
         note="hand-written StableHLO with bounded dynamic arguments and outputs on a v5e: "
              "each dynamic array takes 1 KiB of sizes in front of its tiles (M(1024) on the "
              "instructions, not in the entry layout)")
def tpu_bounded_dynamic():
    from jax._src import compiler
    from jax._src.interpreters import mlir
    from jax._src.lib import xla_client as xc
    from jax.experimental import topologies
    from jax.extend.mlir import ir

    devs = topologies.get_topology_desc("v5e:1x1", "tpu").devices
    opts = compiler.get_compile_options(num_replicas=1, num_partitions=1)
    with mlir.make_ir_context():
        module = ir.Module.parse(_TPU_BOUNDED_MLIR)
        exe = devs[0].client.compile(module, executable_devices=xc.DeviceList(tuple(devs[:1])),
                                     compile_options=opts)
    return _RawExecutable(exe), {"mesh_devices": 1, "stablehlo": _TPU_BOUNDED_MLIR.strip()}


# --------------------------------------------------------------------------
# Worker: compile one program with dumping on, write result.json.
# --------------------------------------------------------------------------

def _versions():
    import importlib.metadata as md

    out = {"python": sys.version.split()[0]}
    for p in ("jax", "jaxlib", "libtpu", "numpy"):
        try:
            out[p] = md.version(p)
        except md.PackageNotFoundError:
            out[p] = None
    return out


def _memory_stats(compiled):
    m = compiled.memory_analysis()
    if m is None:
        return None
    out = {}
    for attr in sorted(dir(m)):
        if attr.startswith("_"):
            continue
        v = getattr(m, attr)
        if callable(v):
            continue
        if isinstance(v, (bytes, bytearray)):
            out[attr + "__len"] = len(v)
        else:
            out[attr] = v
    return out


_UTILITY_HELPERS = {"_tpu_mesh", "_cpu_mesh", "_sds", "_compile", "_mesh_info"}


def _source(builder):
    """Source of a builder plus the module-level helpers it calls."""
    parts = [inspect.getsource(builder)]
    g = globals()
    for n in builder.__code__.co_names:
        obj = g.get(n)
        if n.startswith("_") and n not in _UTILITY_HELPERS and inspect.isfunction(obj):
            parts.append(inspect.getsource(obj))
    return textwrap.dedent("\n".join(parts))


def run_worker(name, out_dir):
    spec = PROGRAMS[name]
    import jax

    jax.config.update("jax_hlo_source_file_canonicalization_regex", r"^.*/(?=tools/dumps/)")
    if spec["backend"] == "cpu":
        jax.config.update("jax_platforms", "cpu")
    _COMPILER_OPTIONS.update(spec["compiler_options"])
    compiled, info = spec["builder"]()
    stats = compiled.memory_analysis()
    proto = getattr(stats, "serialized_buffer_assignment_proto", b"") if stats is not None else b""
    if proto:  # CPU fills it (a BufferAssignmentProto); TPU leaves it empty
        with open(os.path.join(out_dir, "buffer_assignment.pb"), "wb") as fh:
            fh.write(proto)
    result = {
        "name": name,
        "backend": spec["backend"],
        "topology": spec["topology"],
        "note": spec["note"],
        "compiler_options": spec["compiler_options"],
        "versions": _versions(),
        "memory_analysis": _memory_stats(compiled),
        "input_shardings": str(compiled.input_shardings),
        "output_shardings": str(compiled.output_shardings),
        "module_name": compiled.as_text().split("\n", 1)[0].split(",")[0].replace("HloModule ", ""),
        "source": _source(spec["builder"]),
        "code": f"tools/dumps/generate.py:{spec['builder'].__code__.co_firstlineno} {spec['builder'].__name__}()",
    }
    result.update(info)
    with open(os.path.join(out_dir, "result.json"), "w") as fh:
        json.dump(result, fh, indent=1, sort_keys=True)


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------

def _worker_env(spec, dump_dir):
    env = dict(os.environ)
    flags = [f"--xla_dump_to={dump_dir}"]
    if spec["backend"] == "cpu":
        flags.append("--xla_force_host_platform_device_count=8")
        env["JAX_PLATFORMS"] = "cpu"
    env["XLA_FLAGS"] = " ".join(flags)
    env["PYTHONHASHSEED"] = "0"
    # Workers run in parallel; without this libtpu's /tmp/libtpu_lockfile makes
    # the second process fail with "Internal error when accessing libtpu
    # multi-process lockfile".  Nothing runs on a TPU here, so sharing is fine.
    env["ALLOW_MULTIPLE_LIBTPU_LOAD"] = "1"
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    return env


def _find(dump_dir, module_name, suffix):
    """The dump file of module `module_name` ending in `suffix`.

    TPU names files module_NNNN.MODULE.cl_BUILD.SUFFIX, CPU
    module_NNNN.MODULE.SUFFIX, and prefixes post-optimization files with
    "cpu_" (module_0000.jit_f.cpu_after_optimizations.txt)."""
    if suffix.startswith(".after_optimizations"):
        hit = _find(dump_dir, module_name, ".cpu_" + suffix[1:])
        if hit:
            return hit
    pat = os.path.join(dump_dir, f"module_*.{module_name}*{suffix}")
    hits = sorted(p for p in glob.glob(pat) if p.endswith(suffix))
    # Exact suffix match after the module name and build id.
    hits = [p for p in hits if re.search(r"\.%s(\.cl_\d+)?%s$" % (re.escape(module_name), re.escape(suffix)), p)]
    return hits[-1] if hits else None


def build_one(name, out_root):
    spec = PROGRAMS[name]
    dump_dir = os.path.join(out_root, name)
    shutil.rmtree(dump_dir, ignore_errors=True)
    os.makedirs(dump_dir)
    log = os.path.join(dump_dir, "worker.log")
    with open(log, "w") as fh:
        rc = subprocess.call([sys.executable, os.path.abspath(__file__), "--worker", name, dump_dir],
                             env=_worker_env(spec, dump_dir), stdout=fh, stderr=subprocess.STDOUT,
                             cwd=REPO)
    res_path = os.path.join(dump_dir, "result.json")
    if rc != 0 or not os.path.exists(res_path):
        tail = open(log).read()[-3000:]
        return {"name": name, "error": f"worker exit {rc}", "log_tail": tail}
    return json.load(open(res_path))


FIXTURE_SUFFIXES = (".hlo", ".buffer-assignment.txt", ".memory-usage-report.txt", "manifest.json")


def copy_fixtures(results, out_root, fixtures, merge):
    """Copy the kept programs' files into `fixtures` and write manifest.json.

    merge=False (a full run) first deletes the generated files there (README.md
    and anything else stays); merge=True (--only) updates entries in place."""
    os.makedirs(fixtures, exist_ok=True)
    man_path = os.path.join(fixtures, "manifest.json")
    if not merge:
        for fn in os.listdir(fixtures):
            if fn.endswith(FIXTURE_SUFFIXES) and not fn.endswith(".short.hlo"):  # short_form.py's
                os.remove(os.path.join(fixtures, fn))
    manifest = json.load(open(man_path)) if os.path.exists(man_path) else {"programs": {}}
    for r in results:
        spec = PROGRAMS[r["name"]]
        if not spec["keep"] or "error" in r:
            continue
        dump_dir = os.path.join(out_root, r["name"])
        mod = r["module_name"]
        files = {}
        pairs = [("after_optimizations.txt", f"{r['name']}.hlo"),
                 ("after_optimizations-buffer-assignment.txt", f"{r['name']}.buffer-assignment.txt"),
                 ("after_optimizations-memory-usage-report.txt", f"{r['name']}.memory-usage-report.txt")]
        if spec["keep_before"]:
            pairs.append(("before_optimizations.txt", f"{r['name']}.before.hlo"))
        for suffix, dest in pairs:
            src = _find(dump_dir, mod, "." + suffix)
            if src:
                shutil.copyfile(src, os.path.join(fixtures, dest))
                files[suffix] = dest
        entry = {k: r[k] for k in ("name", "backend", "topology", "note", "memory_analysis",
                                   "input_shardings", "output_shardings", "module_name",
                                   "mesh_shape", "mesh_devices", "compiler_options", "code",
                                   "source") if k in r}
        entry["files"] = files
        entry["dump_files_from"] = os.path.basename(_find(dump_dir, mod, ".after_optimizations.txt") or "")
        manifest["programs"][r["name"]] = entry
    manifest["versions"] = next((r["versions"] for r in results if "versions" in r), manifest.get("versions"))
    manifest["generator"] = "tools/dumps/generate.py"
    manifest["programs"] = dict(sorted(manifest["programs"].items()))
    with open(man_path, "w") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
        fh.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", default=DEFAULT_OUT)
    ap.add_argument("--fixtures", default=DEFAULT_FIXTURES)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--worker", nargs=2, metavar=("NAME", "DUMP_DIR"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        run_worker(*args.worker)
        return 0
    if args.list:
        for n, s in PROGRAMS.items():
            print(f"{n:28s} {s['backend']:4s} {s['topology'] or '-':10s} keep={s['keep']}  {s['note']}")
        return 0

    out_root = os.path.abspath(args.out)
    if os.path.commonpath([out_root, REPO]) == REPO:
        ap.error("the full dumps are large: write them outside the repository")
    names = args.only or list(PROGRAMS)
    for n in names:
        if n not in PROGRAMS:
            ap.error(f"unknown program {n}")
    os.makedirs(out_root, exist_ok=True)

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        results = list(ex.map(lambda n: build_one(n, out_root), names))

    failed = [r for r in results if "error" in r]
    for r in results:
        status = "FAILED" if "error" in r else "ok"
        print(f"{r['name']:28s} {status}")
    for r in failed:
        print(f"--- {r['name']}: {r['error']}\n{r['log_tail']}\n")

    # Full manifest next to the full dumps.
    full_path = os.path.join(out_root, "manifest.json")
    full = json.load(open(full_path)) if os.path.exists(full_path) else {}
    full.update({r["name"]: r for r in results})
    full = dict(sorted(full.items()))
    with open(full_path, "w") as fh:
        json.dump(full, fh, indent=1, sort_keys=True)
    copy_fixtures(results, out_root, os.path.abspath(args.fixtures), merge=bool(args.only))
    return 1 if failed else 0


# --------------------------------------------------------------------------
# Programs added later: after the driver, so that the builders above keep
# the line numbers their fixtures' stack frames record.
# --------------------------------------------------------------------------

# ---- 18. a scan whose per-step outputs go to host memory -------------------
@program("tpu_v6e_offload_scan_outputs", "tpu", "v6e:2x2", keep=True,
         note="lax.scan whose stacked per-step outputs are device_put to pinned_host "
              "(async dynamic-update-slice into an S(5) output), a pinned_host argument, donation")
def tpu_v6e_offload_scan_outputs():
    import jax, jax.numpy as jnp
    from jax import lax
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v6e:2x2", (2, 2), ("x", "y"))
    dev = NamedSharding(mesh, P("x", "y"))
    host = dev.with_memory_kind("pinned_host")

    def f(a, h):
        def body(c, _):
            c2 = jnp.sin(c) @ c
            return c2, jax.device_put(c2, host)
        c, hs = lax.scan(body, a, None, length=4)
        return c + jax.device_put(h, dev), hs

    out_host = NamedSharding(mesh, P(None, "x", "y"), memory_kind="pinned_host")
    g = jax.jit(f, in_shardings=(dev, host), out_shardings=(dev, out_host), donate_argnums=(0,))
    c = _compile(g.lower(_sds((256, 256), jnp.float32), _sds((256, 256), jnp.float32)))
    return c, _mesh_info(mesh)


# ---- 19. TPU v5p -----------------------------------------------------------
@program("tpu_v5p_matmul", "tpu", "v5p:2x2x1", keep=True,
         note="jit of a bf16 matmul on a v5p mesh of 4; v5p's 32-byte tuple tables")
def tpu_v5p_matmul():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5p:2x2x1", (4,), ("x",))
    rows = NamedSharding(mesh, P("x"))

    def f(a, b):
        return jnp.tanh(a @ b)

    g = jax.jit(f, in_shardings=(rows, None), out_shardings=rows)
    c = _compile(g.lower(_sds((512, 300), jnp.bfloat16), _sds((300, 200), jnp.bfloat16)))
    return c, _mesh_info(mesh)



# ---- 20. many outputs and a wide loop carry on v6e -------------------------
@program("tpu_v6e_many_outputs", "tpu", "v6e:2x2", keep=True,
         note="12 outputs and a fori_loop carrying 20 arrays: tuple index tables of 64 and 96 "
              "bytes on v6e (4 bytes an element in units of 32)")
def tpu_v6e_many_outputs():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v6e:2x2", (4,), ("x",))
    rows = NamedSharding(mesh, P("x"))

    def f(a):
        carry = tuple(a * i for i in range(20))
        body = lambda i, c: tuple(v * 0.5 + i for v in c)  # noqa: E731
        c = jax.lax.fori_loop(0, 3, body, carry)
        return tuple(c[i] + c[i + 1] for i in range(12))

    g = jax.jit(f, in_shardings=(rows,), out_shardings=rows)
    c = _compile(g.lower(_sds((32, 128), jnp.float32)))
    return c, _mesh_info(mesh)


# ---- 21. a donated argument carried through a loop on v5p ------------------
@program("tpu_v5p_donated_loop", "tpu", "v5p:2x2x1", keep=True,
         note="fori_loop whose carry starts from a donated argument (its buffer holds "
              "the loop body's values too), with a lax.cond inside")
def tpu_v5p_donated_loop():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5p:2x2x1", (4,), ("x",))
    rows, rep = NamedSharding(mesh, P("x")), NamedSharding(mesh, P())

    def f(a, b, n):
        def body(i, c):
            a, b, acc = c
            a = jnp.tanh(a @ b.T)
            b = b * 0.5
            acc = acc + jax.lax.cond(i % 2 == 0, lambda: a.sum(0), lambda: a.max(0))
            return a, b, acc
        return jax.lax.fori_loop(0, n, body, (a, b, jnp.zeros((a.shape[1],), a.dtype)))

    g = jax.jit(f, in_shardings=(rows, rep, rep), donate_argnums=(0,))
    c = _compile(g.lower(_sds((512, 250), jnp.float32), _sds((250, 250), jnp.float32),
                         _sds((), jnp.int32)))
    return c, _mesh_info(mesh)


# ---- 22. scalars in SMEM ----------------------------------------------------
@program("tpu_v5e_debug_print", "tpu", "v5e:2x2", keep=True,
         note="jax.debug.print of an element: tiled u32[] scalars in SMEM (S(2)), which "
              "take 4 bytes, not their tile's 512")
def tpu_v5e_debug_print():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x2", (4,), ("x",))
    rep = NamedSharding(mesh, P())

    def f(x):
        jax.debug.print("x0 {}", x[0, 0])
        return x * 2

    g = jax.jit(f, in_shardings=(rep,), out_shardings=rep)
    c = _compile(g.lower(_sds((8, 128), jnp.float32)))
    return c, _mesh_info(mesh)


# ---- 23. an output computed on the host -------------------------------------
@program("tpu_v6e_host_compute", "tpu", "v6e:2x2", keep=True,
         note="an output computed on the host from a pinned_host argument: an async-start on "
              "execution thread \"host\" wrapping a HostExecute custom call, whose root XLA's "
              "buffer assignment lists as the output")
def tpu_v6e_host_compute():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v6e:2x2", (4,), ("d",))
    dev = NamedSharding(mesh, P("d", None))
    host = NamedSharding(mesh, P("d", None), memory_kind="pinned_host")
    g = jax.jit(lambda sc, x: (sc * 2, x + 1), out_shardings=(host, dev))
    c = _compile(g.lower(_sds((4000, 3), jnp.float32, host), _sds((4000, 3), jnp.float32, dev)))
    return c, _mesh_info(mesh)


# ---- 24. only empty arrays ------------------------------------------------
@program("tpu_v5e_empty_arrays", "tpu", "v5e:2x2", keep=True,
         note="every array has a 0 dimension, so none is tiled (`u32[0,129]{1,0}`): nothing in the "
              "module says TPU but the dump's files; the output's tuple table is a TPU's 512 bytes")
def tpu_v5e_empty_arrays():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x2", (2, 2), ("x", "y"))
    g = jax.jit(lambda a: (a, a + 1))
    c = _compile(g.lower(_sds((0, 129), jnp.uint32, NamedSharding(mesh, P()))))
    return c, _mesh_info(mesh)


# ---- 25. a small host heap ------------------------------------------------
@program("tpu_v5e_host_round_trip", "tpu", "v5e:2x2", keep=True,
         note="a value sent to pinned host memory and back inside jit: a 512-byte host "
              "temporary heap, which jax reports as 4096 (whole 4 KiB pages)")
def tpu_v5e_host_round_trip():
    import jax, jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    mesh = _tpu_mesh("v5e:2x2", (2, 2), ("x", "y"))
    dev = NamedSharding(mesh, P())
    host = NamedSharding(mesh, P(), memory_kind="pinned_host")
    g = jax.jit(lambda a: jax.device_put(jax.device_put(a * 2, host), dev) + 1)
    c = _compile(g.lower(_sds((64,), jnp.float32)))
    return c, _mesh_info(mesh)

if __name__ == "__main__":
    sys.exit(main())
