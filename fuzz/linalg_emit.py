"""MLIR text of a generated case (fuzz/linalg_programs.py): one func.func
@f whose arguments and result are tensors (fp8-run's call mode), with
static extents, or M dynamic."""
from linalg_bodies import TextBody, dequantize, post_scale
from linalg_programs import post_shape

STYPE = {"f32": "f32", "f16": "f16", "bf16": "bf16", "f64": "f64",
         "e8m0": "f8E8M0FNU"}


def ty(shape, et):
    dims = "".join(("?" if d is None else str(d)) + "x" for d in shape)
    return f"tensor<{dims}{et}>"


def amap(loops, results):
    return f"affine_map<({', '.join(loops)}) -> ({', '.join(results)})>"


def literal(value):
    return "%.17e" % float(value)


def dense(values):
    if values.ndim == 0:
        return literal(values)
    return "[" + ", ".join(dense(v) for v in values) + "]"


class Program:
    def __init__(self, case, dynamic):
        self.case, self.dynamic = case, dynamic
        self.args, self.lines, self.count = [], [], 0
        self.M = None if dynamic else case.m

    def arg(self, name, type_):
        self.args.append(f"%{name}: {type_}")
        return f"%{name}"

    def line(self, text):
        self.lines.append("  " + text)

    def fresh(self, stem):
        self.count += 1
        return f"%{stem}{self.count}"

    def empty(self, shape, et="f32"):
        name = self.fresh("e")
        dyn = ", ".join("%m" for d in shape if d is None)
        self.line(f"{name} = tensor.empty({dyn}) : {ty(shape, et)}")
        return name

    def define_m(self, a, a_type, dim):
        if self.dynamic:
            self.line(f"%cm = arith.constant {dim} : index")
            self.line(f"%m = tensor.dim {a}, %cm : {a_type}")

    def generic(self, ins, out, out_type, maps, iterators, body_fn):
        """ins: [(value, type, block arg element type)]; body_fn(body,
        names) returns the yielded value."""
        name = self.fresh("g")
        loops = maps[0][0]
        map_text = ", ".join(amap(loops, r) for _, r in maps)
        it = ", ".join(f'"{i}"' for i in iterators)
        ins_text = ""
        if ins:
            ins_text = (f" ins({', '.join(v for v, _, _ in ins)} : "
                        f"{', '.join(t for _, t, _ in ins)})")
        self.line(f"{name} = linalg.generic {{indexing_maps = [{map_text}], "
                  f"iterator_types = [{it}]}}{ins_text} outs({out} : {out_type}) {{")
        out_et = out_type.rsplit("x", 1)[-1].rstrip(">") if "x" in out_type \
            else out_type[7:-1]
        block = [f"%i{i}: {et}" for i, (_, _, et) in enumerate(ins)]
        self.lines.append(f"  ^bb0({', '.join(block + [f'%o: {out_et}'])}):")
        # Every other generic decodes E8M0 scales arithmetically.
        body = TextBody(f"v{self.count}_", self.case_truncf,
                        e8m0_decode=self.count % 2 == 1)
        result = body_fn(body, [f"%i{i}" for i in range(len(ins))])
        self.lines += body.lines
        self.lines.append(f"    linalg.yield {result} : {out_et}")
        self.line(f"}} -> {out_type}")
        return name

    case_truncf = None


# ---------------------------------------------------------------------------
# Pieces
# ---------------------------------------------------------------------------

def scale_input(P, op, batch_dims):
    """(value, type, element type) of op's scale, or a captured scalar
    (value, scalar type) for const32/const64, or None."""
    if op.kind == "none":
        return None
    et = STYPE[op.scale_type]
    if op.spelling in ("const32", "const64"):
        vals = getattr(P.case, "sa_vals" if op.name == "a" else "sb_vals")
        name = f"%c{op.name}s"
        P.line(f"{name} = arith.constant {literal(vals)} : {et}")
        return ("captured", name, et)
    shape = list(op.scale_shape())
    if op.torch_view:
        shape = shape + [1]
    if op.name == "a" and P.dynamic and op.block[0] == 1 and op.spelling in (
            "vec", "keep", "keep_mn", "k", "mn"):
        shape[row_position(op.spelling)] = None
    shape = batch_dims + shape if op.batched_scale else shape
    type_ = ty(shape, et)
    if op.scale_const:
        vals = getattr(P.case, "sa_vals" if op.name == "a" else "sb_vals")
        name = f"%c{op.name}s"
        P.line(f"{name} = arith.constant dense<{dense(vals)}> : {type_}")
        return (name, type_, et)
    return (P.arg("s" + op.name, type_), type_, et)


def row_position(spelling):
    return {"vec": 0, "keep": 0, "keep_mn": 1, "k": 0, "mn": 1}[spelling]


def body_scale(scale, names, index):
    """The body's scale operand: (name, stored type)."""
    if scale is None:
        return None, index
    if scale[0] == "captured":
        return (scale[1], scale[2] if scale[2] != "f8E8M0FNU" else "e8m0"), index
    et = scale[2]
    return (names[index], "e8m0" if et == "f8E8M0FNU" else et), index + 1


def dequant_generic(P, op, data, data_type, out_shape, loops, data_map, r, k,
                    scale, batch_prefix=()):
    """A generic dequantizing `data` into an f32 tensor of out_shape."""
    ins = [(data, data_type, op.etype)]
    maps = [(loops, data_map)]
    if scale is not None and scale[0] != "captured":
        ins.append(scale)
        maps.append((loops, list(batch_prefix) + op.scale_map(r, k)
                     if not op.torch_view else
                     list(batch_prefix) + op.scale_map(r, k) + ["0"]))
    maps.append((loops, list(loops)))
    out = P.empty(out_shape)
    P.case_truncf = op.truncf_mode

    def body(b, names):
        s, _ = body_scale(scale, names, 1)
        return dequantize(op.body, b, (names[0], op.etype), s)
    return P.generic(ins, out, ty(out_shape, "f32"), maps,
                     ["parallel"] * len(loops), body)


def emit_init(P, out_shape):
    case = P.case
    out_type = ty(out_shape, "f32")
    if case.init == "acc_arg":
        return P.arg("c", out_type)
    e = P.empty(out_shape)
    if case.init == "zero_generic":
        loops = [f"d{i}" for i in range(len(out_shape))]
        return P.generic([], e, out_type, [(loops, loops)],
                         ["parallel"] * len(loops),
                         lambda b, names: b.const(0.0))
    value = {"zero_fill": "0.0", "fill_const": "0.5",
             "negzero_fill": "-0.0"}[case.init]
    P.line(f"%fill = arith.constant {value} : f32")
    name = P.fresh("init")
    P.line(f"{name} = linalg.fill ins(%fill : f32) outs({e} : {out_type}) -> "
           f"{out_type}")
    return name


def contraction(P, kind, da, da_type, db, db_type, init, out_type):
    name = P.fresh("d")
    if kind in ("matmul_nk", "matmul_kn", "batch_matmul"):
        op = "linalg.batch_matmul" if kind == "batch_matmul" else "linalg.matmul"
        maps = ""
        if kind == "matmul_nk":
            maps = (" indexing_maps = [" + ", ".join(
                amap(["m", "n", "k"], r) for r in
                (["m", "k"], ["n", "k"], ["m", "n"])) + "]")
        P.line(f"{name} = {op}{maps} ins({da}, {db} : {da_type}, {db_type}) "
               f"outs({init} : {out_type}) -> {out_type}")
        return name
    loops = ["m", "n", "k"]
    b_map = ["n", "k"] if kind.endswith("nk") else ["k", "n"]
    ets = [t.rsplit("x", 1)[-1].rstrip(">") for t in (da_type, db_type)]
    swap = P.case.index % 2 == 1

    def body(b, names):
        x = names[0] if ets[0] == "f32" else b.ext((names[0], ets[0]))
        y = names[1] if ets[1] == "f32" else b.ext((names[1], ets[1]))
        p = b.mul(y, x) if swap else b.mul(x, y)
        return b.add("%o", p) if P.case.b_first else b.add(p, "%o")
    return P.generic([(da, da_type, ets[0]), (db, db_type, ets[1])], init,
                     out_type, [(loops, ["m", "k"]), (loops, b_map),
                                (loops, ["m", "n"])],
                     ["parallel", "parallel", "reduction"], body)


def finish(P, d, out_shape):
    out_type = ty(out_shape, "f32")
    if P.case.out_bf16:
        e = P.empty(out_shape, "bf16")
        loops = [f"d{i}" for i in range(len(out_shape))]
        d = P.generic([(d, out_type, "f32")], e, ty(out_shape, "bf16"),
                      [(loops, loops), (loops, loops)],
                      ["parallel"] * len(loops),
                      lambda b, names: b._new(f"arith.truncf {names[0]} : f32 to bf16"))
        out_type = ty(out_shape, "bf16")
    P.line(f"return {d} : {out_type}")
    return out_type


# ---------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------

def emit_generic(P):
    """Dequantization generics, then a named or generic contraction (and
    the batched form)."""
    case = P.case
    a, b = case.a, case.b
    M, N, K = P.M, case.n, case.k
    bd = [case.batch] if case.batch else []
    loops = (["b"] if case.batch else []) + ["d0", "d1"]
    lead = ["b"] if case.batch else []
    a_shape = bd + ([K, M] if case.near == "a_transposed" else [M, K])
    a_type = ty(a_shape, a.etype)
    av = P.arg("a", a_type)
    P.define_m(av, a_type, len(bd) + (1 if case.near == "a_transposed" else 0))
    sa = scale_input(P, a, bd)
    a_map = lead + (["d1", "d0"] if case.near == "a_transposed" else ["d0", "d1"])
    da = dequant_generic(P, a, av, a_type, bd + [M, K], loops, a_map, "d0",
                         "d1", sa, lead if a.batched_scale else ())
    stored = bd + ([N, K] if b.layout == "nk" else [K, N])
    b_type = ty(stored, b.etype)
    bv = P.arg("b", b_type)
    sb = scale_input(P, b, bd)
    kind = case.contraction
    if kind == "transposed_data":
        db = dequant_generic(P, b, bv, b_type, [N, K], loops, ["d1", "d0"],
                             "d0", "d1", sb)
        db_shape, kind = [N, K], "matmul_nk"
    elif b.layout == "kn":
        db = dequant_generic(P, b, bv, b_type, bd + [K, N], loops, lead +
                             ["d0", "d1"], "d1", "d0", sb,
                             lead if b.batched_scale else ())
        db_shape = bd + [K, N]
    else:
        db = dequant_generic(P, b, bv, b_type, [N, K], loops, ["d0", "d1"],
                             "d0", "d1", sb)
        db_shape = [N, K]
        if kind == "transpose":
            e = P.empty([K, N])
            t = P.fresh("t")
            P.line(f"{t} = linalg.transpose ins({db} : {ty([N, K], 'f32')}) "
                   f"outs({e} : {ty([K, N], 'f32')}) permutation = [1, 0]")
            db, db_shape, kind = t, [K, N], "matmul_kn"
    out_shape = bd + [M, N]
    init = emit_init(P, out_shape)
    d = contraction(P, kind, da, ty(bd + [M, K], "f32"), db,
                    ty(db_shape, "f32"), init, ty(out_shape, "f32"))
    return finish(P, d, out_shape)


def emit_fused(P):
    """One contraction whose body dequantizes (both operands, or one: the
    other by its own generic) -- linalg-fuse-elementwise-ops' form."""
    case = P.case
    a, b = case.a, case.b
    M, N, K = P.M, case.n, case.k
    a_type = ty([M, K], a.etype)
    av = P.arg("a", a_type)
    P.define_m(av, a_type, 0)
    sa = scale_input(P, a, [])
    b_stored = [N, K] if b.layout == "nk" else [K, N]
    b_type = ty(b_stored, b.etype)
    bv = P.arg("b", b_type)
    sb = scale_input(P, b, [])
    b_map = ["n", "k"] if b.layout == "nk" else ["k", "n"]
    apart = case.fused_side if case.family == "half_fused" else None
    loops = ["m", "n", "k"]
    ins, maps, parts = [], [], {}
    for op, v, t, s, data_map, r in ((a, av, a_type, sa, ["m", "k"], "m"),
                                     (b, bv, b_type, sb, b_map, "n")):
        if op.name == apart:
            shape = [M, K] if op.name == "a" else b_stored
            dl = ["d0", "d1"]
            rr, kk = ("d0", "d1") if op.name == "a" or b.layout == "nk" else (
                "d1", "d0")
            dv = dequant_generic(P, op, v, t, shape, dl, dl, rr, kk, s)
            parts[op.name] = ("value", len(ins))
            ins.append((dv, ty(shape, "f32"), "f32"))
            maps.append((loops, data_map))
            continue
        parts[op.name] = ("deq", len(ins), s)
        ins.append((v, t, op.etype))
        maps.append((loops, data_map))
        if s is not None and s[0] != "captured":
            ins.append(s)
            maps.append((loops, op.scale_map(r, "k")))
    out_shape = [M, N]
    init = emit_init(P, out_shape)
    maps.append((loops, ["m", "n"]))

    def body(bb, names):
        values = {}
        order = ("b", "a") if case.b_first else ("a", "b")
        for side in order:
            op = a if side == "a" else b
            part = parts[side]
            if part[0] == "value":
                values[side] = names[part[1]]
                continue
            s, _ = body_scale(part[2], names, part[1] + 1)
            bb.truncf_mode = op.truncf_mode
            values[side] = dequantize(op.body, bb, (names[part[1]], op.etype), s)
        p = bb.mul(values[order[0]], values[order[1]])
        return bb.add("%o", p) if case.index % 2 else bb.add(p, "%o")
    d = P.generic(ins, init, ty(out_shape, "f32"), maps,
                  ["parallel", "parallel", "reduction"], body)
    return finish(P, d, out_shape)


def emit_unit(P):
    """linalg.matmul (or a generic contraction) straight on the quantized
    tensors: unit scales."""
    case = P.case
    M, N, K = P.M, case.n, case.k
    a_type = ty([M, K], case.a.etype)
    av = P.arg("a", a_type)
    b_type = ty([N, K] if case.b.layout == "nk" else [K, N], case.b.etype)
    bv = P.arg("b", b_type)
    init = emit_init(P, [M, N])
    d = contraction(P, case.contraction, av, a_type, bv, b_type, init,
                    ty([M, N], "f32"))
    return finish(P, d, [M, N])


def emit_post(P):
    """torch._scaled_mm: a unit-scale product, then its scales."""
    case = P.case
    M, N, K = P.M, case.n, case.k
    a_type = ty([M, K], case.a.etype)
    av = P.arg("a", a_type)
    b_type = ty([N, K] if case.b.layout == "nk" else [K, N], case.b.etype)
    bv = P.arg("b", b_type)
    lhs, lhs_type = av, a_type
    if case.near == "pre_and_post":
        sa = scale_input(P, case.a, [])
        lhs = dequant_generic(P, case.a, av, a_type, [M, K], ["d0", "d1"],
                              ["d0", "d1"], "d0", "d1", sa)
        lhs_type = ty([M, K], "f32")
    init = emit_init(P, [M, N])
    p = contraction(P, case.contraction, lhs, lhs_type, bv, b_type, init,
                    ty([M, N], "f32"))
    loops = ["m", "n"]
    ins = [(p, ty([M, N], "f32"), "f32")]
    maps = [(loops, loops)]
    factors = []
    sides = [("pa", case.post_a, "m", case.pa_vals), ("pb", case.post_b, "n",
                                                       case.pb_vals)]
    if case.near == "post_elementwise":
        sides = [("pe", "elementwise", None, case.pe_vals)]
    for name, side, loop, vals in sides:
        if side is None:
            factors.append(None)
            continue
        if side == "const32":
            P.line(f"%c{name} = arith.constant {literal(vals)} : f32")
            factors.append(("captured", f"%c{name}"))
            continue
        shape = [M, N] if side == "elementwise" else list(post_shape(side, 0))
        shape = [{0: (M if loop == "m" else N)}.get(d, d) for d in shape]
        results = {"0d": [], "1": ["0"], "11": ["0", "0"], "vec": [loop],
                   "keep": [loop, "0"], "keep_mn": ["0", loop],
                   "elementwise": ["m", "n"]}[side]
        factors.append(("input", len(ins)))
        ins.append((P.arg(name, ty(shape, "f32")), ty(shape, "f32"), "f32"))
        maps.append((loops, results))
    maps.append((loops, loops))
    order = {"post_twice": "twice", "post_add": "add"}.get(case.near, case.post)
    if case.near == "post_elementwise":
        order = "right"
    e = P.empty([M, N])

    def body(b, names):
        vals = [None if f is None else (f[1] if f[0] == "captured" else
                                        names[f[1]]) for f in factors]
        vals += [None] * (2 - len(vals))
        return post_scale(order, b, names[0], vals[0], vals[1])
    d = P.generic(ins, e, ty([M, N], "f32"), maps, ["parallel"] * 2, body)
    return finish(P, d, [M, N])


def emit_views(P):
    """Blockwise scales on reshaped views (tensor.expand_shape), collapsed
    back before the matmul."""
    case = P.case
    a, b = case.a, case.b
    M, N, K = P.M, case.n, case.k
    c = a.block[1]
    a_type = ty([M, K], a.etype)
    av = P.arg("a", a_type)
    P.define_m(av, a_type, 0)
    sa = scale_input(P, a, [])
    view = [M, K // c, c]
    out_dims = ", ".join("%m" if d is None else str(d) for d in view)
    x = P.fresh("view")
    P.line(f"{x} = tensor.expand_shape {av} [[0], [1, 2]] output_shape "
           f"[{out_dims}] : {a_type} into {ty(view, a.etype)}")
    l3 = ["d0", "d1", "d2"]
    if a.spelling == "within":
        a_res = ["d0", "d2"]
    else:
        a_res = ["d0", "d1", "0"] if a.torch_view else ["d0", "d1"]
    da = view_generic(P, a, x, view, l3, a_res, sa)
    fa = P.fresh("flat")
    P.line(f"{fa} = tensor.collapse_shape {da} [[0], [1, 2]] : "
           f"{ty(view, 'f32')} into {ty([M, K], 'f32')}")
    r = b.block[0]
    stored = [N, K] if b.layout == "nk" else [K, N]
    b_type = ty(stored, b.etype)
    bv = P.arg("b", b_type)
    sb = scale_input(P, b, [])
    if b.layout == "nk":
        bview = [N // r, r, K // c, c] if r > 1 else [N, K // c, c]
        groups = "[[0, 1], [2, 3]]" if r > 1 else "[[0], [1, 2]]"
        b_res = ["d0", "d2"] if r > 1 else ["d0", "d1"]
    else:
        bview = [K // c, c, N // r, r] if r > 1 else [K // c, c, N]
        groups = "[[0, 1], [2, 3]]" if r > 1 else "[[0, 1], [2]]"
        b_res = ["d0", "d2"]
    y = P.fresh("view")
    dims = ", ".join(str(d) for d in bview)
    P.line(f"{y} = tensor.expand_shape {bv} {groups} output_shape [{dims}] : "
           f"{b_type} into {ty(bview, b.etype)}")
    loops = [f"d{i}" for i in range(len(bview))]
    db = view_generic(P, b, y, bview, loops, b_res, sb)
    fb = P.fresh("flat")
    P.line(f"{fb} = tensor.collapse_shape {db} {groups} : {ty(bview, 'f32')} "
           f"into {ty(stored, 'f32')}")
    init = emit_init(P, [M, N])
    d = contraction(P, "matmul_nk" if b.layout == "nk" else "matmul_kn", fa,
                    ty([M, K], "f32"), fb, ty(stored, "f32"), init,
                    ty([M, N], "f32"))
    return finish(P, d, [M, N])


def view_generic(P, op, data, shape, loops, scale_results, scale):
    ins = [(data, ty(shape, op.etype), op.etype)]
    maps = [(loops, loops)]
    if scale is not None and scale[0] != "captured":
        ins.append(scale)
        maps.append((loops, scale_results))
    maps.append((loops, loops))
    out = P.empty(shape)

    def body(b, names):
        s, _ = body_scale(scale, names, 1)
        return dequantize(op.body, b, (names[0], op.etype), s)
    return P.generic(ins, out, ty(shape, "f32"), maps,
                     ["parallel"] * len(loops), body)


EMITTERS = {"generic": emit_generic, "batched": emit_generic,
            "fused": emit_fused, "half_fused": emit_fused, "unit": emit_unit,
            "post": emit_post, "views": emit_views}


def emit(case, dynamic=False):
    """(text, argument names) of the program: func.func @f, M dynamic or
    not."""
    P = Program(case, dynamic)
    out_type = EMITTERS[case.family](P)
    header = [f"// case {case.index}: {case.describe()}",
              f"func.func @f({', '.join(P.args)}) -> {out_type} {{"]
    names = [a.split(":")[0][1:] for a in P.args]
    return "\n".join(header + P.lines + ["}"]) + "\n", names
