"""oracle.py -- what counts as a failure of one fuzz execution, and how findings are told apart.

An execution fails on (first match wins):
  asan              an AddressSanitizer report (memory error, or a deadly signal under ASan)
  ubsan             an UndefinedBehaviorSanitizer report ("file:line:col: runtime error: ...")
  leak              a LeakSanitizer report
  memory            the RSS limit the driver sets was exceeded
  hang              no exit within the per-execution timeout
  crash             killed by a signal without a sanitizer report
  exit-code         an exit code outside the documented set {0, 1, 2, 3, 4, 77}
  unnamed-file      a bad input file (the plan's subject) rejected by a message that does not name it
  silent-failure    a non-zero exit with nothing on stderr
  raw-control-char  a path or name holding a control character (newline, escape) printed raw
"""

import hashlib
import re

EXIT_CODES = {0, 1, 2, 3, 4, 77}
KINDS = ["asan", "ubsan", "leak", "memory", "hang", "crash", "exit-code", "unnamed-file", "silent-failure",
         "raw-control-char"]

_UBSAN = re.compile(r"^(\S+?):(\d+):\d+: runtime error: (.*)$", re.M)
_FRAME = re.compile(r"^\s*#(\d+) 0x[0-9a-f]+ in (\S+)(?: (\S+))?", re.M)
_ASAN_KIND = re.compile(r"ERROR: AddressSanitizer: ([\w-]+)")
_RUNTIME_FRAMES = ("__interceptor_", "__asan", "__sanitizer", "__lsan", "__ubsan", "___interceptor_",
                   "__libc_start", "_start", "malloc", "calloc", "realloc", "strdup", "strndup", "free")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _frames(report, limit=3):
    """The first `limit` function names of the first stack in report, sanitizer runtime skipped."""
    names = []
    for m in _FRAME.finditer(report):
        if m.group(1) == "0" and names:
            break  # the next stack
        fn = m.group(2)
        if fn.startswith(_RUNTIME_FRAMES) or fn.startswith("("):
            continue
        names.append(fn)
        if len(names) == limit:
            break
    return names


def _normalise(line, d):
    """A message as a template: the execution directory, numbers and quoted words replaced."""
    line = line.replace(d, "{D}")
    line = re.sub(r"(.)\1{15,}", r"\1\1…", line)  # a 4000-character path, shortened
    line = re.sub(r"'[^'\x01]*'", "'…'", line)
    line = re.sub(r"\d+", "N", line)
    return line[:160]


def classify(rc, stderr, timed_out, plan, d):
    """The first finding of classify_all, or None."""
    found = classify_all(rc, stderr, timed_out, plan, d)
    return found[0] if found else None


def classify_all(rc, stderr, timed_out, plan, d):
    """[(kind, signature), ...] for a failing execution, most severe first; [] when it passed.
    rc is the exit status (negative: killed by that signal); stderr is text; d the execution
    directory. After a sanitizer report the exit status is the sanitizer's, so only the checks
    on the program's own message (what it printed before the report) still apply."""
    found = []
    cmd = plan.argv[0] if plan.argv else "(none)"
    report = re.search(r"^=+\n==\d+==|^==\d+==|^\S+:\d+:\d+: runtime error: |^AddressSanitizer", stderr, re.M)
    message = stderr[:report.start()] if report else stderr
    if "ERROR: AddressSanitizer" in stderr or "AddressSanitizer:DEADLYSIGNAL" in stderr:
        m = _ASAN_KIND.search(stderr)
        what = m.group(1) if m else "deadly-signal"
        found.append(("asan", "%s in %s" % (what, " < ".join(_frames(stderr[stderr.find("AddressSanitizer"):])) or "?")))
    m = _UBSAN.search(stderr)
    if m:
        where = re.sub(r"^(\.\./)+", "", m.group(1))
        what = re.sub(r"-?\d[\d.e+-]*", "N", m.group(3))[:100]
        found.append(("ubsan", "%s:%s: %s" % (where, m.group(2), what)))
    if "ERROR: LeakSanitizer" in stderr:
        rest = stderr[stderr.find("ERROR: LeakSanitizer"):]
        found.append(("leak", "allocated in %s" % (" < ".join(_frames(rest)) or "?")))
    if "HARD RSS LIMIT" in stderr or "allocator is out of memory" in stderr:
        found.append(("memory", cmd))
    sanitized = bool(found)
    if timed_out:
        found.append(("hang", "%s %s" % (cmd, _shape(plan))))
    elif rc < 0 and not sanitized:
        found.append(("crash", "signal %d in %s" % (-rc, cmd)))
    elif rc not in EXIT_CODES and not sanitized:
        found.append(("exit-code", "%s exits %d" % (cmd, rc)))
    failed = (rc not in (0, 77)) if not sanitized else \
        bool(message.strip()) and "no usable GPU" not in message
    if plan.subject is not None and failed and not timed_out:
        subject = plan.subject.replace("{D}", d)
        if subject not in message:
            last = message.strip().splitlines()[-1] if message.strip() else ""
            cut = _longest_prefix(subject, message)
            if cut >= 16:  # the message has the start of the path only: cut short
                last = [ln for ln in message.splitlines() if subject[:cut] in ln][0]
                last = _normalise(last.replace(subject[:cut], "\x01"), d)
                last = last.replace("\x01", "<path cut after %s characters>" % ("N" if cut > 99 else cut))
            else:
                last = _normalise(last, d)
            found.append(("unnamed-file", "%s %s: %s" % (plan.target, cmd, last)))
    if rc != 0 and not sanitized and not timed_out and not stderr.strip():
        found.append(("silent-failure", "%s exits %d" % (cmd, rc)))
    for s in _names(plan, d):
        c = _CONTROL.search(s)
        if c and s in message:
            found.append(("raw-control-char", "%s prints %r" % (cmd, c.group())))
            break
    return found


def _longest_prefix(subject, text):
    """The length of the longest start of subject found in text (containment is monotone in it)."""
    lo, hi = 0, len(subject)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if subject[:mid] in text:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _names(plan, d):
    """Every argument and file name of the plan, as the program sees it."""
    for a in plan.argv:
        yield a.replace("{D}", d)
    for kind, rel, _ in plan.files:
        yield rel.rsplit("/", 1)[-1]
    for v in plan.env.values():
        yield v.replace("{D}", d)


def _shape(plan):
    """For a hang: the command's options and what kind of thing each path argument was."""
    out = []
    for a in plan.argv[1:]:
        if a.startswith("--") and "=" in a:
            a, value = a.split("=", 1)
            out.append(a)
            a = value  # --resume=FIFO: the value is what may block
        if a.startswith("--"):
            out.append(a)
        elif a in ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"):
            out.append("<stdin:%s>" % plan.stdin)
        elif a.startswith("/dev/") or a.startswith("/proc/"):
            out.append("<%s>" % a)
        elif "fifo" in a:
            out.append("<fifo>")
    return " ".join(sorted(set(out)))


def signature_id(kind, signature):
    return "%s-%s" % (kind, hashlib.sha1(signature.encode("utf-8", "surrogateescape")).hexdigest()[:8])
