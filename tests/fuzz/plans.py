"""plans.py -- what one fuzz execution runs: files to create, the command line, the environment.

A Plan is data, so that the driver can run it, save it and write a script that
reproduces it. Paths inside the execution's private directory are written "{D}/...";
the driver substitutes the directory when it runs the plan. Nothing a plan creates or
names lies outside that directory (or /dev), so a bug that writes where it should not
cannot damage the repository.

Four kinds of plan:
  case      a mutated case file given to validate, list, run --case or selftest --case
  result    a mutated result file given to run --resume
  casesdir  a mutated cases directory ($FUSIONBENCH_CASES) for the commands that scan it
  argv      random combinations of every command's real options with good and bad values
For case and result plans `subject` is the argument naming the mutated file: if the
command fails, its message must name that file.
"""

import mutate

# What the options name; fuzz.py replaces these with what `fusionbench list` reports.
CASE_NAMES = ["softmax"]
VARIANTS = ["eager", "softmax.fused", "softmax.warp_rows", "softmax.block_row", "softmax.cluster_row",
            "softmax.two_pass", "softmax.smem_rows", "softmax.row_smem"]
AXES = ["dim0", "dim1"]
CASE_AXES = {}  # a case's own grid axes (copy: n); a case not here takes AXES


def learn(cases, variants, axes, case_axes=None):
    """The bundled cases' names, their variants and grid axes, as the binary lists them."""
    global CASE_NAMES, VARIANTS, AXES, CASE_AXES
    CASE_NAMES = sorted(set(cases)) or CASE_NAMES
    VARIANTS = ["eager"] + sorted(set(variants) - {"eager"})
    AXES = sorted(set(axes)) or AXES
    CASE_AXES = dict(case_axes or {})


def axes_of(name):
    return CASE_AXES.get(name) or AXES


def a_case(rng):
    return rng.choice(CASE_NAMES)
DTYPES = ["float32", "float16", "bfloat16", "float64"]
COMMANDS = ["run", "list", "validate", "selftest", "env"]


class Plan:
    def __init__(self, target):
        self.target = target
        self.files = []      # (kind, relpath, payload): file (bytes), fifo, dir, symlink (target), chmod (mode)
        self.argv = []       # after the program name; "{D}" is the execution directory
        self.env = {"FUSIONBENCH_CASES": "{D}/cases"}
        self.stdin = "null"  # or "idle": a pipe that stays open and silent
        self.subject = None  # the argument naming the mutated input, for the naming check
        self.note = ""       # how the input was made, for the report

    def add_file(self, relpath, data, mode=None):
        self.files.append(("file", relpath, data))
        if mode is not None:
            self.files.append(("chmod", relpath, mode))

    def to_json(self):
        return {"target": self.target, "argv": self.argv, "env": self.env, "stdin": self.stdin,
                "subject": self.subject, "note": self.note,
                "files": [[k, p, (v.hex() if isinstance(v, bytes) else v)] for k, p, v in self.files]}


class Corpus:
    """The seeds: case files and result files from the repository, parsed once."""

    def __init__(self, case_files, result_files, bundled):
        self.bundled = list(bundled)  # cases/*.json, as the repository ships them
        self.cases = [(name, data) for name, data in case_files]
        self.results = [(name, data) for name, data in result_files]
        trees = [t for t in (mutate.parse(d) for _, d in self.cases + self.results) if t is not None]
        self.case_trees = [t for t in (mutate.parse(d) for _, d in self.cases) if t is not None]
        self.result_trees = [t for t in (mutate.parse(d) for _, d in self.results) if t is not None]
        self.vocab = mutate.vocabulary(trees)
        good = [d for n, d in self.bundled if n == "softmax.json"] + [d for _, d in self.bundled]
        self.good_case = good[0] if good else self.cases[0][1]
        self.good_result = self.results[0][1] if self.results else b"{}"

    def mutant_case(self, rng):
        name, seed = rng.choice(self.cases)
        ctx = mutate.Ctx(self.vocab, self.case_trees)
        data, how = mutate.mutate_document(rng, seed, ctx, [d for _, d in self.cases])
        return data, "%s <- %s" % (name, "+".join(how))

    def mutant_result(self, rng):
        name, seed = rng.choice(self.results)
        ctx = mutate.Ctx(self.vocab, self.result_trees + self.case_trees[:1])
        data, how = mutate.mutate_document(rng, seed, ctx, [d for _, d in self.results])
        return data, "%s <- %s" % (name, "+".join(how))


def bundled_cases(plan, corpus):
    """The execution's own copy of the bundled cases directory."""
    plan.files.append(("dir", "cases", None))
    for name, data in corpus.bundled or [("softmax.json", corpus.good_case)]:
        plan.add_file("cases/" + name, data)


def file_name(rng):
    """Where a mutated input lives: mostly plain, sometimes long or oddly named (but
    printable: a message is expected to quote it)."""
    r = rng.random()
    if r < 0.7:
        return "input.json"
    if r < 0.8:
        return rng.choice(["my case.json", "\u00fcn\u00efc\u00f6d\u00e9.json", "foo.json.json", "a.b.c.json",
                           "-dash.json", "UPPER.JSON", "noext", "x.json "])
    # long: past 63 characters (a name buffer), 255 (one component), 1024 and 4096 (PATH_MAX)
    total = rng.choice([64, 100, 300, 1100, 3900, 4200])
    parts, n = [], 0
    while n < total:
        k = min(200, total - n)
        parts.append("d" * k)
        n += k + 1
    return "/".join(parts) + "/input.json"


def path_arg(rng, rel):
    """The argument naming {D}/rel: absolute, or relative to the execution directory."""
    if rng.random() < 0.5 or not rel.endswith(".json") or rel.startswith("-"):
        return "{D}/" + rel
    return rel if "/" in rel else "./" + rel if rng.random() < 0.5 else rel


def case_plan(rng, corpus):
    p = Plan("case")
    bundled_cases(p, corpus)
    data, p.note = corpus.mutant_case(rng)
    rel = file_name(rng)
    p.add_file(rel, data)
    arg = path_arg(rng, rel)
    p.subject = arg
    r = rng.random()
    if r < 0.4:
        p.argv = ["validate", arg]
    elif r < 0.45:
        p.argv = ["validate", "cases/softmax.json", arg] if rng.random() < 0.5 else ["validate", arg, arg]
    elif r < 0.6:
        p.argv = ["list", arg] if rng.random() < 0.7 else ["list", "--json", arg]
    elif r < 0.9:
        p.argv = ["run", "--case", arg] + rng.choice([[], [], ["--quick"], ["--dtype", "all"]])
    else:
        p.argv = ["selftest", "--case", arg]
    return p


def result_plan(rng, corpus):
    p = Plan("result")
    bundled_cases(p, corpus)
    data, p.note = corpus.mutant_result(rng)
    rel = file_name(rng)
    p.add_file(rel, data)
    arg = path_arg(rng, rel)
    p.subject = arg
    name = a_case(rng)
    p.argv = ["run", "--case", rng.choice([name, name, "cases/%s.json" % name]), "--resume", arg]
    # a valid grid override for the case named (a usage error would be about the option,
    # not the file under test)
    ax = axes_of(name)
    p.argv += rng.choice([[], [], ["--quick"], ["--out", "{D}/out.json"], ["--dtype", "all"],
                          ["--" + ax[0], "128", "--" + ax[-1], "128,256"]])
    return p


def casesdir_plan(rng, corpus):
    """$FUSIONBENCH_CASES holding odd entries: mutants, duplicates, non-files, odd names."""
    p = Plan("casesdir")
    p.files.append(("dir", "cases", None))
    names = []
    for _ in range(rng.choice([0, 1, 1, 2, 3, 5])):
        kind = rng.random()
        name = rng.choice(["softmax.json", "a.json", "b.json", "foo.json.json", ".json", ".hidden.json",
                           "UPPER.JSON", "x.json.bak", "sp ace.json", "tab\there.json", "nl\nname.json",
                           "\u00e9t\u00e9.json", "n" * 58 + ".json", "n" * 59 + ".json", "n" * 60 + ".json",
                           "l" * 250 + ".json", "%s.json", "-.json"])
        if name in names:
            continue
        names.append(name)
        if kind < 0.55:
            data, how = corpus.mutant_case(rng)
            p.add_file("cases/" + name, data)
            p.note += "%s: %s; " % (name, how)
        elif kind < 0.75:
            p.add_file("cases/" + name, corpus.good_case)  # the same case under another file name
        elif kind < 0.83:
            p.files.append(("fifo", "cases/" + name, None))
        elif kind < 0.9:
            p.files.append(("dir", "cases/" + name, None))
        elif kind < 0.95:
            p.files.append(("symlink", "cases/" + name, "nowhere.json"))
        else:
            p.files.append(("symlink", "cases/" + name, name))  # a loop
    r = rng.random()
    if r < 0.8:
        p.env["FUSIONBENCH_CASES"] = "{D}/cases"
    elif r < 0.85:
        p.env["FUSIONBENCH_CASES"] = "{D}/missing"
    elif r < 0.9:
        p.add_file("plain.json", corpus.good_case)
        p.env["FUSIONBENCH_CASES"] = "{D}/plain.json"
    elif r < 0.95:
        p.files.append(("chmod", "cases", 0))
        p.env["FUSIONBENCH_CASES"] = "{D}/cases"
    else:
        p.env["FUSIONBENCH_CASES"] = "{D}/cases/"
    cmd = rng.choice([["validate"], ["list"], ["list", "--json"], ["run", "--all"], ["selftest"],
                      ["run", "--all", "--quick"], ["validate", a_case(rng)], ["list", a_case(rng)],
                      ["run", "--case", a_case(rng)], ["selftest", "--case", "a"]])
    p.argv = list(cmd)
    # the commands that scan the directory must name it (or a file in it) when they fail
    if cmd in (["validate"], ["list"], ["list", "--json"], ["run", "--all"], ["selftest"],
               ["run", "--all", "--quick"]):
        p.subject = p.env["FUSIONBENCH_CASES"].rstrip("/")
    return p


# ---- option values ---------------------------------------------------------------------

NUM_VALUES = ["0", "1", "25", "100", "0.001", "0.5", "5", "-1", "-0", " -5", "5 ", "", " ", "inf", "-inf",
              "Infinity", "nan", "NaN", "1e308", "1e309", "-1e309", "1e-400", "4.9e-324", "0x10", "1,2", "4.0",
              "9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551616",
              "1" * 400, "\u0661\u0662", "12abc", "\n5", "5\n", "1e3", "+3", "--", "--rep"]
LIST_VALUES = ["128", "128,256", "61,130,1027", "128:65536", "1:1", "128,,256", ",", ",128", "128,", "", ":",
               "1:", ":8", "0", "-1", "0:5", "5:1", "128:65536,1:2", "a,b", "1:9223372036854775807",
               "4611686018427387904:4611686018427387904", "4611686018427387905:9223372036854775807",
               "9223372036854775807:9223372036854775807", "4294967296", "1.5", "1e3", "128 ,256",
               ",".join(["7"] * 70), ",".join(str(i) for i in range(1, 66)), "1" * 2000, "128:65536:2", "0x80"]
BYTES_VALUES = ["1", "1024", "1K", "1k", "512M", "2G", "1T", "0", "-5", " -5", "-0", "", "1e3", "1.5G", "0x10",
                "18446744073709551615", "18446744073709551616", "17179869184G", "9999999999999999999G", "G",
                "1G1", "1 G", "inf", "nan", "1KB", "1MiB"]


def list_of(rng, words):
    n = rng.choice([1, 1, 2, 3, 70])
    items = [rng.choice(words) for _ in range(n)]
    r = rng.random()
    if r < 0.1:
        items.insert(rng.randrange(len(items) + 1), "")
    elif r < 0.2:
        items.append(items[0])
    return ",".join(items)


class World:
    """The things an argv plan's paths may name, created on demand in the plan."""

    def __init__(self, rng, plan, corpus):
        self.rng, self.plan, self.corpus = rng, plan, corpus
        self.made = {}

    def _make(self, key, fn):
        if key not in self.made:
            self.made[key] = fn()
        return self.made[key]

    def input_path(self, what):
        """A path to read: case or result, good or mutated, or something that is no file."""
        rng, p = self.rng, self.plan
        r = rng.random()
        if r < 0.25:
            if what == "case":
                return self._make("good_case", lambda: (p.add_file("c.json", self.corpus.good_case), "{D}/c.json")[1])
            return self._make("good_result", lambda: (p.add_file("r.json", self.corpus.good_result), "{D}/r.json")[1])
        if r < 0.45:
            n = len(self.made)
            data, how = (self.corpus.mutant_case if what == "case" else self.corpus.mutant_result)(rng)
            p.add_file("m%d.json" % n, data)
            p.note += "m%d.json: %s; " % (n, how)
            self.made["m%d" % n] = "{D}/m%d.json" % n
            return "{D}/m%d.json" % n
        return self.odd_path()

    def odd_path(self):
        rng, p = self.rng, self.plan
        r = rng.random()
        if r < 0.15:
            return self._make("fifo", lambda: (p.files.append(("fifo", "fifo.json", None)), "{D}/fifo.json")[1])
        if r < 0.25:
            return self._make("dir", lambda: (p.files.append(("dir", "dir.json", None)), "{D}/dir.json")[1])
        if r < 0.35:
            p.stdin = "idle" if rng.random() < 0.7 else "null"
            return rng.choice(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"])
        if r < 0.45:
            return rng.choice(["/dev/null", "/dev/zero", "/dev/urandom", "/dev/full", "/proc/self/status"])
        if r < 0.55:
            return "{D}/" + rng.choice(["nope.json", "no/such/dir/x.json", "", ".", "..", "c.json/", "/"])
        if r < 0.65:
            rel = file_name(rng)
            return self._make("long" + rel[:8], lambda: (p.add_file(rel, self.corpus.good_case), "{D}/" + rel)[1])
        if r < 0.75:
            return self._make("nl", lambda: (p.add_file("new\nline.json", self.corpus.good_case),
                                             "{D}/new\nline.json")[1])
        if r < 0.8:
            return self._make("esc", lambda: (p.add_file("\x1b[2Jesc.json", self.corpus.good_case),
                                              "{D}/\x1b[2Jesc.json")[1])
        if r < 0.85:
            return self._make("badutf8", lambda: (p.add_file("bad\udcff\udcfe.json", self.corpus.good_case),
                                                  "{D}/bad\udcff\udcfe.json")[1])
        if r < 0.9:
            return self._make("loop", lambda: (p.files.append(("symlink", "loop.json", "loop.json")), "{D}/loop.json")[1])
        if r < 0.95:
            return self._make("locked", lambda: (p.add_file("locked.json", self.corpus.good_case, mode=0),
                                                 "{D}/locked.json")[1])
        return "x" * rng.choice([63, 64, 65, 255, 256, 5000])

    def output_path(self):
        rng = self.rng
        r = rng.random()
        if r < 0.4:
            return "{D}/out.json"
        if r < 0.5:
            return rng.choice(["/dev/null", "/dev/full"])
        if r < 0.6:
            return "{D}/no/such/dir/out.json"
        if r < 0.7:
            return self._make("dir", lambda: (self.plan.files.append(("dir", "dir.json", None)), "{D}/dir.json")[1])
        if r < 0.8:
            return "{D}/" + file_name(rng)
        if r < 0.9:
            return self.input_path("result")
        return "{D}/new\nline-out.json"


def case_value(rng, world):
    r = rng.random()
    if r < 0.4:
        return a_case(rng)
    if r < 0.55:
        return world.input_path("case")
    if r < 0.65:
        return list_of(rng, CASE_NAMES + ["sofmax", "", "cases/softmax.json"])
    if r < 0.75:
        return mutate.near_miss(rng, a_case(rng))
    if r < 0.85:
        return world.odd_path()
    return rng.choice(["", "all", "softmax.json", "cases/softmax.json", "../cases/softmax.json", ".json",
                       "-", "--all", "x" * 300, ",", "softmax,softmax"])


def run_options(rng, world):
    args = []
    if rng.random() < 0.75:
        args += ["--case", case_value(rng, world) if rng.random() < 0.4 else a_case(rng)]
    for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 6, 9])):
        axis = "--" + rng.choice(AXES)
        opt = rng.choice(["--case", "--all", "--dtype", "--variants", "--baseline", axis, axis, "--dim2",
                          "--x", "--quick", "--timer", "--warmup", "--rep", "--max-noise", "--max-time", "--seed",
                          "--out", "--resume", "--show", "--help", "--", "-", "--bogus", axis, axis,
                          "--resume", "--out", "--seed", axis.upper(), axis + "0", "-" + axis, "--=5", "--case=",
                          "--table", "--table", "--speedup-vs"])
        if opt in ("--all", "--quick", "--help", "--", "-", "--table"):
            args.append(opt)
            continue
        if opt == "--case":
            val = case_value(rng, world)
        elif opt == "--dtype":
            val = rng.choice(DTYPES + ["all", "", "half", "bf16", "fp32", "int8", "float32,float32",
                                       "float32,,float16", ",", "x" * 300]) if rng.random() < 0.7 \
                else list_of(rng, DTYPES + ["all", "float"])
        elif opt in ("--variants", "--baseline"):
            val = list_of(rng, VARIANTS + ["softmax.fsed", "", "x" * 200]) if rng.random() < 0.7 \
                else rng.choice(VARIANTS + ["", ",", "all", "x" * 5000])
        elif opt.lower().lstrip("-").rstrip("0") in AXES or opt in ("--dim2", "--x", "--=5"):
            val = rng.choice(LIST_VALUES)
        elif opt == "--timer":
            val = rng.choice(["events", "graph", "cupti", "", "EVENTS", "event", "x" * 100])
        elif opt == "--show":
            val = rng.choice(["speedup", "sol", "time", "gbps", "", "SOL", "all", "speedup,sol"])
        elif opt == "--speedup-vs":
            val = rng.choice(VARIANTS + ["sol", "eagr", "", "SOL", "eager,sol", "x" * 300])
        elif opt in ("--warmup", "--rep", "--max-noise", "--max-time", "--seed"):
            val = rng.choice(NUM_VALUES)
        elif opt == "--out":
            val = world.output_path()
        elif opt == "--resume":
            val = world.input_path("result")
        else:
            val = rng.choice(NUM_VALUES + LIST_VALUES)
        r = rng.random()
        if r < 0.2 and not opt.endswith("="):
            args.append(opt + "=" + val)
        elif r < 0.25:
            args.append(opt)  # a value missing (or the next option taken as one)
        else:
            args += [opt, val]
    return args


def argv_plan(rng, corpus):
    p = Plan("argv")
    bundled_cases(p, corpus)
    world = World(rng, p, corpus)
    r = rng.random()
    if r < 0.4:
        args = ["run"] + run_options(rng, world)
    elif r < 0.5:
        args = ["list"] + [rng.choice(["--json", "--", "-x", "--help", a_case(rng), "sofmax", "",
                                       world.input_path("case"), "x" * rng.choice([63, 64, 300])])
                           for _ in range(rng.choice([0, 1, 2, 3, 300]))]
    elif r < 0.65:
        args = ["validate"] + [rng.choice(["--", "-", "--bogus", a_case(rng), "", world.input_path("case"),
                                           world.input_path("case"), world.odd_path()])
                               for _ in range(rng.choice([0, 1, 1, 2, 3, 300]))]
    elif r < 0.75:
        args = ["selftest"]
        for _ in range(rng.choice([0, 1, 2, 3, 70])):
            args += rng.choice([["--case", case_value(rng, world)], ["--case"], ["--no-timer"], ["--bogus"],
                                [world.odd_path()], ["--case=softmax"]])
    elif r < 0.85:
        args = ["env"]
        for _ in range(rng.choice([0, 1, 2, 3])):
            v = rng.choice(BYTES_VALUES)
            args += rng.choice([["--json"], ["--bytes", v], ["--bytes=" + v], ["--bytes"], ["--bogus"], [v]])
    elif r < 0.9:
        args = rng.choice([[], ["--version"], ["--help"], ["-h"], ["help"], ["version"], ["--"], [""], ["-"],
                           [mutate.near_miss(rng, rng.choice(COMMANDS))], ["x" * 5000], ["run\n"],
                           ["--version", "run"], ["help", "run"]])
    else:
        # one command's options given to another
        cmd = rng.choice(COMMANDS)
        args = [cmd] + run_options(rng, world)
    p.argv = args
    return p


KINDS = {"case": case_plan, "result": result_plan, "casesdir": casesdir_plan, "argv": argv_plan}
WEIGHTS = {"case": 35, "result": 20, "casesdir": 10, "argv": 35}


def make_plan(rng, corpus, targets):
    kind = rng.choices(targets, [WEIGHTS[t] for t in targets])[0]
    plan = KINDS[kind](rng, corpus)
    plan.argv = [a.replace("\0", "") for a in plan.argv]  # argv cannot hold a NUL
    return plan
