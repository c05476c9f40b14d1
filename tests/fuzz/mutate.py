"""mutate.py -- the fuzz driver's input mutations: JSON-aware ones and raw byte ones.

A seed document is parsed into a tree that keeps what a hostile file may contain and
json.loads would lose: member order and duplicate keys (Obj, a list of [key, value]
pairs) and the exact spelling of every number (Num). Raw holds bytes that are written
as they are (NaN, deep nesting, broken UTF-8 inside a string), so a mutated tree can be
anything from a subtly wrong document to one that is not JSON at all.

Every function takes its random.Random: the same generator state gives the same bytes.
"""

import json
import random

# ---- the tree ---------------------------------------------------------------------


class Obj:
    """A JSON object as an ordered list of [key, value] pairs (duplicates allowed)."""

    __slots__ = ("pairs",)

    def __init__(self, pairs):
        self.pairs = [list(p) for p in pairs]


class Num:
    """A JSON number, kept as written ("4.0" is not "4"; "1e999" stays as is)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class Raw:
    """Bytes written verbatim into the document."""

    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data


def parse(data):
    """bytes -> tree, or None when the bytes are not JSON to begin with."""
    try:
        text = data.decode("utf-8")
        return json.loads(text, object_pairs_hook=Obj, parse_int=Num, parse_float=Num,
                          parse_constant=lambda s: Raw(s.encode()))
    except (ValueError, RecursionError):
        return None


def emit(node, indent=None, ascii_only=False):
    """tree -> bytes. indent None: one line; an int: pretty, that many spaces."""
    out = []
    _emit(node, indent, ascii_only, 0, out)
    return b"".join(out)


def _emit_str(s, ascii_only):
    try:
        return json.dumps(s, ensure_ascii=ascii_only).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: only its \\u escape can be written
        return json.dumps(s, ensure_ascii=True).encode("ascii")


def _emit(node, indent, ascii_only, level, out):
    nl = b"" if indent is None else b"\n" + b" " * (indent * (level + 1))
    end = b"" if indent is None else b"\n" + b" " * (indent * level)
    if isinstance(node, Obj):
        if not node.pairs:
            out.append(b"{}")
            return
        out.append(b"{")
        for i, (k, v) in enumerate(node.pairs):
            if i:
                out.append(b",")
            out.append(nl)
            out.append(_emit_str(k, ascii_only))
            out.append(b": " if indent is not None else b":")
            _emit(v, indent, ascii_only, level + 1, out)
        out.append(end + b"}")
    elif isinstance(node, list):
        if not node:
            out.append(b"[]")
            return
        out.append(b"[")
        for i, v in enumerate(node):
            if i:
                out.append(b",")
            out.append(nl)
            _emit(v, indent, ascii_only, level + 1, out)
        out.append(end + b"]")
    elif isinstance(node, str):
        out.append(_emit_str(node, ascii_only))
    elif isinstance(node, Num):
        out.append(node.text.encode("utf-8", "surrogateescape"))
    elif isinstance(node, Raw):
        out.append(node.data)
    elif node is True:
        out.append(b"true")
    elif node is False:
        out.append(b"false")
    elif node is None:
        out.append(b"null")
    else:
        raise TypeError(type(node))


def clone(node):
    if isinstance(node, Obj):
        return Obj([[k, clone(v)] for k, v in node.pairs])
    if isinstance(node, list):
        return [clone(v) for v in node]
    return node  # str, Num, Raw, bool, None: never mutated in place


# ---- walking ------------------------------------------------------------------------
# A path is a tuple of indices: into Obj.pairs (the value of pair i) or into a list.


def walk(node, path=()):
    """Yields (path, node) for every node, root first."""
    yield path, node
    if isinstance(node, Obj):
        for i, (_, v) in enumerate(node.pairs):
            yield from walk(v, path + (i,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, path + (i,))


def get(root, path):
    node = root
    for i in path:
        node = node.pairs[i][1] if isinstance(node, Obj) else node[i]
    return node


def replace(root, path, new):
    """Returns the new root (the root itself may be replaced)."""
    if not path:
        return new
    parent = get(root, path[:-1])
    if isinstance(parent, Obj):
        parent.pairs[path[-1]][1] = new
    else:
        parent[path[-1]] = new
    return root


def pick(rng, root, want=None):
    """A (path, node) chosen level first, then uniformly within the level: deep and
    shallow nodes are mutated as often, however many leaves a document has.
    want(node) -> bool restricts the choice; None when nothing qualifies."""
    levels = {}
    for path, node in walk(root):
        if want is None or want(node):
            levels.setdefault(len(path), []).append((path, node))
    if not levels:
        return None
    return rng.choice(levels[rng.choice(sorted(levels))])


# ---- interesting values ---------------------------------------------------------------

NUMBERS = [
    "0", "-0", "1", "-1", "2", "3", "4", "5", "63", "64", "65", "127", "128", "255", "256", "257",
    "1023", "1024", "65535", "65536", "2147483647", "2147483648", "-2147483648", "-2147483649",
    "4294967295", "4294967296", "9007199254740993", "4611686018427387904", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
    "18446744073709551616", "99999999999999999999999999999999", "4.0", "0.5", "-0.5", "1.5", "1e3",
    "1E3", "1e-7", "1e-320", "1e308", "1.7976931348623157e308", "1e309", "-1e309", "1e-400",
    "2.5e-324", "0.0", "-0.0", "128.0", "65536.0", "3.4028235e38", "6.1e-5", "1e6", "1e12",
    "1" + "0" * 400,
]
RAW_TOKENS = [b"NaN", b"Infinity", b"-Infinity", b"nan", b"inf", b"1e999", b"01", b"+1", b".5", b"1.",
              b"0x10", b"1_000", b"- 1", b"true1", b"nul", b"'single'", b"undefined", b"\"\\x41\"",
              b"\"\\u12\"", b"\"\\ud800\"", b"\"\\udc00\\ud800\"", b"\"tab\there\"", b"[1,]", b"{\"a\":1,}",
              b"// comment\n1", b"/* c */ 1", b"[", b"{", b"]", b"}", b"\"", b"", b",", b":"]
STRINGS = [
    "", " ", "x", "-", ".", "..", "/", "\\", "%s%s%n%p", "%99999999d", "'", "\"", "a\nb", "a\rb", "tab\t",
    "\x1b[31mred\x1b[0m", "\x00", "nul\x00inside", "\x7f", "\u00e9", "\u65e5\u672c", "\U0001f642",
    "e\u0301", "\u202eevil", "\u200b", "\ufeff", "\ud800", "\udfff", "\uffff", "\u0000\u0000",
    "float32 ", " float32", "FLOAT32", "Float32", "float33", "float", "half", "bf16", "fp32", "int8",
    "dim0", "dim1", "dim2", "DIM0", "x", "y", "-1", "0", "1", "1e3", "NaN", "inf", "true", "null",
    "softmax", "softmax.fused", "softmax.fuse", "eager", "eagre", "exp", "exx", "amax", "sum", "mean",
    "matmul", "conv2d", "normal", "uniform", "positive", "zeros",
]
BIG_STRINGS = [63, 64, 65, 127, 128, 255, 256, 511, 1024, 2047, 2048, 4096, 65536, 1 << 20]


def interesting_number(rng, old=None):
    if isinstance(old, Num) and rng.random() < 0.3:
        try:
            v = int(old.text)
            return Num(str(rng.choice([v + 1, v - 1, -v, v * 2, v * 1000, v << 32, v ** 2])))
        except ValueError:
            return Num(rng.choice([old.text + "0", "-" + old.text, old.text.replace("e", "e+3"), old.text * 2]))
    return Num(rng.choice(NUMBERS))


def interesting_string(rng, vocab):
    r = rng.random()
    if r < 0.3 and vocab:
        return near_miss(rng, rng.choice(vocab))
    if r < 0.5 and vocab:
        return rng.choice(vocab)
    if r < 0.65:
        n = rng.choice(BIG_STRINGS)
        return rng.choice(["a", "\u00e9", "\U0001f642", "x,", "dim0 "]) * n
    return rng.choice(STRINGS)


def near_miss(rng, word):
    """A typo of word: what a user would type by mistake."""
    if not word:
        return "x"
    i = rng.randrange(len(word))
    r = rng.random()
    if r < 0.2:
        return word[:i] + word[i + 1:]
    if r < 0.4:
        return word[:i] + rng.choice("abcdexyz019_.-") + word[i:]
    if r < 0.55 and len(word) > 1:
        j = min(i + 1, len(word) - 1)
        return word[:i] + word[j] + word[i] + word[j + 1:]
    if r < 0.7:
        return word.upper() if rng.random() < 0.5 else word.capitalize()
    if r < 0.85:
        return rng.choice([" ", "\t", "\n", "\x00", "\u00a0"]) + word if rng.random() < 0.5 else word + " "
    return word + rng.choice(["s", "_", "2", ".json", ".", "-"])


def random_value(rng, vocab, donors=None, depth=0):
    """A value of any type, the odd ones favoured."""
    r = rng.random()
    if r < 0.12:
        return None
    if r < 0.2:
        return rng.random() < 0.5
    if r < 0.4:
        return interesting_number(rng)
    if r < 0.6:
        return interesting_string(rng, vocab)
    if r < 0.7:
        return Raw(rng.choice(RAW_TOKENS) or b"0")
    if r < 0.8 and depth < 3:
        return [random_value(rng, vocab, donors, depth + 1) for _ in range(rng.randrange(4))]
    if r < 0.9 and depth < 3:
        return Obj([[interesting_string(rng, vocab), random_value(rng, vocab, donors, depth + 1)]
                    for _ in range(rng.randrange(3))])
    if donors:
        _, node = pick(rng, rng.choice(donors))
        return clone(node)
    return Obj([])


def deep(rng):
    depth = rng.choice([32, 64, 100, 512, 1000, 2047, 2048, 2049, 5000, 20000, 100000])
    kind = rng.random()
    if kind < 0.4:
        return Raw(b"[" * depth + b"1" + b"]" * depth)
    if kind < 0.7:
        return Raw(b'{"a":' * depth + b"1" + b"}" * depth)
    if kind < 0.85:
        return Raw(b"[" * depth)  # never closed
    return Raw(b'[{"x":' * (depth // 2) + b"0" + b"}]" * (depth // 2))


# ---- tree mutations: each takes (rng, root, ctx) and returns the new root ------------------


class Ctx:
    """What mutations draw from: words seen in the seeds and other parsed seeds."""

    def __init__(self, vocab, donors):
        self.vocab = vocab
        self.donors = donors


def t_wrong_type(rng, root, ctx):
    path, node = pick(rng, root)
    for _ in range(8):
        new = random_value(rng, ctx.vocab, ctx.donors)
        if type(new) is not type(node):
            break
    return replace(root, path, new)


def t_number(rng, root, ctx):
    hit = pick(rng, root, lambda n: isinstance(n, Num)) or pick(rng, root)
    return replace(root, hit[0], interesting_number(rng, hit[1]))


def t_string(rng, root, ctx):
    hit = pick(rng, root, lambda n: isinstance(n, str)) or pick(rng, root)
    path, node = hit
    if isinstance(node, str) and rng.random() < 0.4:
        return replace(root, path, near_miss(rng, node))
    return replace(root, path, interesting_string(rng, ctx.vocab))


def t_broken_utf8(rng, root, ctx):
    """A string holding bytes that are not UTF-8 (cut sequences, overlongs, surrogates)."""
    hit = pick(rng, root, lambda n: isinstance(n, str)) or pick(rng, root)
    bad = rng.choice([b"\xc3", b"\xe6\x97", b"\xf0\x9f\x99", b"\x80", b"\xbf\xbf", b"\xc0\x80", b"\xed\xa0\x80",
                      b"\xf5\x80\x80\x80", b"\xff", b"\xfe\xff"])
    text = hit[1].encode("utf-8", "surrogatepass") if isinstance(hit[1], str) else b"x"
    cut = rng.randrange(len(text) + 1)
    return replace(root, hit[0], Raw(b'"' + text[:cut] + bad + text[cut:] + b'"'))


def t_delete(rng, root, ctx):
    hit = pick(rng, root, lambda n: isinstance(n, (Obj, list)) and (n.pairs if isinstance(n, Obj) else n))
    if not hit:
        return root
    node = hit[1]
    items = node.pairs if isinstance(node, Obj) else node
    del items[rng.randrange(len(items))]
    return root


def t_duplicate_key(rng, root, ctx):
    hit = pick(rng, root, lambda n: isinstance(n, Obj) and n.pairs)
    if not hit:
        return root
    pairs = hit[1].pairs
    k, v = pairs[rng.randrange(len(pairs))]
    v2 = clone(v) if rng.random() < 0.5 else random_value(rng, ctx.vocab, ctx.donors)
    pairs.insert(rng.randrange(len(pairs) + 1), [k, v2])
    return root


def t_add_key(rng, root, ctx):
    hit = pick(rng, root, lambda n: isinstance(n, Obj))
    if not hit:
        return root
    pairs = hit[1].pairs
    if pairs and rng.random() < 0.5:
        key = near_miss(rng, rng.choice(pairs)[0])
    else:
        key = interesting_string(rng, ctx.vocab)
    pairs.insert(rng.randrange(len(pairs) + 1), [key, random_value(rng, ctx.vocab, ctx.donors)])
    return root


def t_rename_key(rng, root, ctx):
    hit = pick(rng, root, lambda n: isinstance(n, Obj) and n.pairs)
    if not hit:
        return root
    pair = rng.choice(hit[1].pairs)
    pair[0] = near_miss(rng, pair[0]) if rng.random() < 0.7 else interesting_string(rng, ctx.vocab)
    return root


def t_array(rng, root, ctx):
    hit = pick(rng, root, lambda n: isinstance(n, list))
    if not hit:
        return t_wrong_type(rng, root, ctx)
    path, arr = hit
    r = rng.random()
    if r < 0.15:
        new = []
    elif r < 0.3 and arr:
        new = [rng.choice(arr)]
    elif r < 0.5 and arr:  # past every limit: 64 grid values, 256 ops, ...
        n = rng.choice([2, 3, 5, 17, 63, 64, 65, 255, 256, 257, 1000, 5000])
        e = rng.choice(arr)
        new = [clone(e) for _ in range(n)]
    elif r < 0.6:
        new = list(reversed(arr))
    elif r < 0.7:
        new = list(arr)
        rng.shuffle(new)
    elif r < 0.8:
        new = list(arr)
        new.insert(rng.randrange(len(new) + 1), random_value(rng, ctx.vocab, ctx.donors))
    elif r < 0.9:
        new = [arr]
    else:
        new = arr[0] if arr else None
    return replace(root, path, new)


def t_not_array(rng, root, ctx):
    """Where an array is expected, anything else."""
    hit = pick(rng, root, lambda n: isinstance(n, list))
    if not hit:
        return t_wrong_type(rng, root, ctx)
    path, arr = hit
    choices = [None, True, Num("0"), Num("1"), "", "x", Obj([]), Obj([["0", clone(arr[0]) if arr else None]])]
    if arr:
        choices.append(clone(arr[0]))
    return replace(root, path, rng.choice(choices))


def t_object(rng, root, ctx):
    hit = pick(rng, root, lambda n: isinstance(n, Obj))
    if not hit:
        return t_wrong_type(rng, root, ctx)
    path, obj = hit
    r = rng.random()
    if r < 0.25:
        new = Obj([])
    elif r < 0.5:
        new = [v for _, v in obj.pairs]
    elif r < 0.7 and len(obj.pairs) > 1:
        new = clone(obj)
        a, b = rng.sample(range(len(new.pairs)), 2)
        new.pairs[a][1], new.pairs[b][1] = new.pairs[b][1], new.pairs[a][1]
    else:
        new = clone(obj)
        rng.shuffle(new.pairs)
    return replace(root, path, new)


def t_deep(rng, root, ctx):
    path, _ = pick(rng, root)
    return replace(root, path, deep(rng))


def t_raw_token(rng, root, ctx):
    path, _ = pick(rng, root)
    return replace(root, path, Raw(rng.choice(RAW_TOKENS)))


def t_splice(rng, root, ctx):
    """A subtree from another seed (or from elsewhere in this one)."""
    path, _ = pick(rng, root)
    donor = rng.choice(ctx.donors) if ctx.donors and rng.random() < 0.6 else root
    _, node = pick(rng, donor)
    return replace(root, path, clone(node))


TREE_MUTATIONS = [
    (t_wrong_type, 6), (t_number, 5), (t_string, 4), (t_broken_utf8, 1), (t_delete, 4),
    (t_duplicate_key, 2), (t_add_key, 2), (t_rename_key, 2), (t_array, 4), (t_not_array, 3),
    (t_object, 2), (t_deep, 1), (t_raw_token, 1), (t_splice, 3),
]

# ---- byte mutations: each takes (rng, data, donor_bytes) and returns bytes ---------------

INTERESTING_BYTES = b'\x00\x01\x7f\x80\xff"\\{}[],:\n\r\t 0-.eE'
INSERTS = [b"\xef\xbb\xbf", b"\x00", b"\xff\xfe", b"\xc3", b"\xe2\x80", b"\xed\xa0\x80", b"\xc0\xaf",
           b"\\u0000", b"\\ud800", b"\r\n", b"\t", b"\x0b", b"\x0c", b"\xc2\xa0", b"\xe2\x80\xa8", b"//",
           b"/*", b"NaN", b"-", b"e", b"9" * 30, b",", b",,", b"]", b"}", b"\"", b"\\"]


def b_flip(rng, data, donor):
    if not data:
        return data
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(buf))
        buf[i] ^= 1 << rng.randrange(8)
    return bytes(buf)


def b_set(rng, data, donor):
    if not data:
        return data
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        buf[rng.randrange(len(buf))] = rng.choice(INTERESTING_BYTES)
    return bytes(buf)


def b_insert(rng, data, donor):
    i = rng.randrange(len(data) + 1)
    return data[:i] + rng.choice(INSERTS) + data[i:]


def b_delete(rng, data, donor):
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + data[i + rng.randint(1, min(64, len(data) - i)):]


def b_duplicate(rng, data, donor):
    if not data:
        return data
    i = rng.randrange(len(data))
    j = min(len(data), i + rng.randint(1, 256))
    return data[:j] + data[i:j] * rng.choice([1, 2, 10]) + data[j:]


def b_truncate(rng, data, donor):
    return data[:rng.randrange(len(data) + 1)]


def b_splice(rng, data, donor):
    if not donor:
        return data
    return data[:rng.randrange(len(data) + 1)] + donor[rng.randrange(len(donor) + 1):]


def b_bom(rng, data, donor):
    return rng.choice([b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe"]) + data


def b_nul(rng, data, donor):
    i = rng.randrange(len(data) + 1) if rng.random() < 0.7 else len(data)
    return data[:i] + b"\x00" * rng.choice([1, 1, 2, 100]) + data[i:]


def b_whitespace(rng, data, donor):
    r = rng.random()
    if r < 0.3:
        return data.replace(b"\n", b"\r\n")
    if r < 0.5:
        return data.replace(b"\n", b"\r")
    if r < 0.7:
        return data.replace(b" ", b"\t")
    if r < 0.85:
        return b"\n" * rng.choice([1, 1000, 70000]) + data
    return data + rng.choice([b" ", b"\n", b"\x00", b"x", b"{}", b"\n\n{}"])


def b_digits(rng, data, donor):
    """A run of digits made very long: numbers that overflow every integer type."""
    idx = [i for i, c in enumerate(data) if 0x30 <= c <= 0x39]
    if not idx:
        return data
    i = rng.choice(idx)
    return data[:i] + b"9" * rng.choice([19, 20, 40, 400, 5000]) + data[i:]


BYTE_MUTATIONS = [
    (b_flip, 4), (b_set, 3), (b_insert, 4), (b_delete, 3), (b_duplicate, 2), (b_truncate, 3),
    (b_splice, 2), (b_bom, 1), (b_nul, 1), (b_whitespace, 1), (b_digits, 1),
]


def _weighted(rng, table):
    fns, weights = zip(*table)
    return rng.choices(fns, weights)[0]


def mutate_document(rng, seed, ctx, donor_bytes):
    """A mutant of seed (bytes): mostly tree mutations, sometimes bytes on top or instead.
    Returns (bytes, list of the mutation names applied)."""
    applied = []
    if rng.random() < 0.03:
        return seed, ["none"]
    tree = parse(seed) if rng.random() < 0.8 else None
    if tree is not None:
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
            fn = _weighted(rng, TREE_MUTATIONS)
            tree = fn(rng, tree, ctx)
            applied.append(fn.__name__)
        data = emit(tree, indent=rng.choice([None, None, 1, 2, 4]), ascii_only=rng.random() < 0.3)
        n_bytes = 1 if rng.random() < 0.2 else 0
    else:
        data = seed
        n_bytes = rng.choice([1, 1, 1, 2, 3, 6])
    for _ in range(n_bytes):
        fn = _weighted(rng, BYTE_MUTATIONS)
        data = fn(rng, data, rng.choice(donor_bytes) if donor_bytes else b"")
        applied.append(fn.__name__)
    return data, applied


def vocabulary(trees):
    """Every key and string value of the seeds: the words a mutant should misuse."""
    words = set()
    for t in trees:
        for _, node in walk(t):
            if isinstance(node, Obj):
                words.update(k for k, _ in node.pairs)
            elif isinstance(node, str) and len(node) < 80:
                words.add(node)
    return sorted(words)


def make_rng(seed, index, salt=""):
    """The generator for execution `index` of a run seeded `seed`: independent of
    how many executions ran before it or in which order they finished."""
    return random.Random("fusionbench-fuzz/%d/%d/%s" % (seed, index, salt))
