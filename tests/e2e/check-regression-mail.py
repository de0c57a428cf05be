#!/usr/bin/python3
"""check-regression-mail.py EML CULPRIT [--reply] (--public URL | --not-public) [--no-path PATH]...

A regression.eml of the e2e is one its readers can act on.  Python's own
mail parser reads it, as a mail client would.  Always: the crash, the
Closes: tag, the kernel .config and the failing console attached, the
culprit's full id in To reproduce, and no path of this machine anywhere in
it, attachments included: $HOME, /tmp, the results directory (the mail's
own), and each --no-path (the cache, the repository).

--reply: the culprit of tests/e2e/make-history.sh has no Link:; its archive
holds v1, a review of v1 and v2 (the commit's patch).  The mail must reply
to v2 and address the author and every reviewer and list once.

--public URL: the culprit is on a branch of the remote URL: the mail names
it and carries the regzbot line.  --not-public: no remote holds it: no
regzbot line, and a sentence says the commit is not public.

Prints what is wrong and exits 1, else exits 0.
"""
import argparse
import email
import email.policy
import os
import sys

V2 = "<20231114000000.2-1-zoe.unal@example.org>"
SUBJECT = "Re: [PATCH v2] x86/fpu: Save the legacy x87 state with the waiting fsave"
CC = ["bob@example.org", "carol@example.org", "dave@example.org", "x86@kernel.org",
      "linux-kernel@vger.kernel.org", "regressions@lists.linux.dev"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("eml")
    ap.add_argument("culprit")
    ap.add_argument("--reply", action="store_true")
    public = ap.add_mutually_exclusive_group(required=True)
    public.add_argument("--public", metavar="URL")
    public.add_argument("--not-public", action="store_true")
    ap.add_argument("--no-path", action="append", default=[])
    a = ap.parse_args()

    with open(a.eml, "rb") as f:
        raw = f.read()
    m = email.message_from_bytes(raw, policy=email.policy.default)
    body = m.get_body(preferencelist=("plain",)).get_content()
    files = {part.get_filename(): part.get_content() for part in m.iter_attachments()}
    config = files.get("config", "")
    console = files.get("console.log", "")
    sha = a.culprit[:12]
    checks = {
        "the crash": "fpu exception" in body,
        "the Closes: tag": "Closes: https://lore.kernel.org/r/" in body,
        "the .config attached": config.startswith("#\n# Automatically generated file; DO NOT EDIT.\n")
        and "\nCONFIG_X86_32=y\n" in config,
        "the failing console attached": "fpu exception" in console,
        "the culprit's id in To reproduce": "\n  git checkout " + a.culprit + "\n" in body,
        "the bench's command": "\n  fpubench test --tree . --cpu " in body,
    }
    if a.reply:
        to = m["To"].addresses
        cc = [x.addr_spec for x in m["Cc"].addresses]
        checks.update({
            "In-Reply-To is v2": m["In-Reply-To"] == V2,
            "References ends with v2": m["References"].split()[-1] == V2,
            "Subject replies to v2": m["Subject"] == SUBJECT,
            "To is the author": [x.addr_spec for x in to] == ["zoe.unal@example.org"]
            and to[0].display_name == "Zoë Ünal",
            "Cc is every reviewer and list, once": sorted(cc) == sorted(CC),
        })
    regzbot = "\n#regzbot introduced: " + sha + "\n" in body
    if a.public:
        checks["the regzbot line"] = regzbot
        checks["the remote's URL"] = "git fetch " + a.public + " " in body
    else:
        checks["no regzbot line"] = "#regzbot" not in body
        checks["a sentence saying it is not public"] = "This commit is not public" in body
    # Every text a reader sees: the headers and body as sent, and each part decoded.
    texts = [raw.decode("utf-8", "replace"), body] + [str(v) for v in files.values()]
    paths = [os.path.realpath(p) for p in a.no_path] + a.no_path + [
        os.path.dirname(os.path.realpath(a.eml)), "/tmp/"]
    home = os.environ.get("HOME", "")
    if len(home) > 1:
        paths.append(home)
    for p in paths:
        checks[f"no '{p}' in it"] = not any(p in t for t in texts)
    for what, ok in checks.items():
        if not ok:
            print(f"{a.eml}: not {what}", file=sys.stderr)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
