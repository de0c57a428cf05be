#!/usr/bin/python3
"""check-regression-mail.py EML CULPRIT: the e2e history's regression.eml is right.

The culprit of tests/e2e/make-history.sh has no Link:; its archive holds v1,
a review of v1 and v2 (the commit's patch).  The mail must reply to v2,
address the author and every reviewer and list once, and carry the regzbot
line.  Python's own mail parser reads it, as a mail client would.  Prints
what is wrong and exits 1, else exits 0.
"""
import email
import email.policy
import sys

V2 = "<20231114000000.2-1-zoe.unal@example.org>"
SUBJECT = "Re: [PATCH v2] x86/fpu: Save the legacy x87 state with the waiting fsave"
CC = ["bob@example.org", "carol@example.org", "dave@example.org", "x86@kernel.org",
      "linux-kernel@vger.kernel.org", "regressions@lists.linux.dev"]


def main():
    path, culprit = sys.argv[1], sys.argv[2]
    with open(path, "rb") as f:
        m = email.message_from_binary_file(f, policy=email.policy.default)
    to = m["To"].addresses
    cc = [a.addr_spec for a in m["Cc"].addresses]
    body = m.get_content()
    checks = {
        "In-Reply-To is v2": m["In-Reply-To"] == V2,
        "References ends with v2": m["References"].split()[-1] == V2,
        "Subject replies to v2": m["Subject"] == SUBJECT,
        "To is the author": [a.addr_spec for a in to] == ["zoe.unal@example.org"]
        and to[0].display_name == "Zoë Ünal",
        "Cc is every reviewer and list, once": sorted(cc) == sorted(CC),
        "the regzbot line": "\n#regzbot introduced: " + culprit[:12] + "\n" in body,
        "the crash": "fpu exception" in body,
        "the Closes: tag": "Closes: https://lore.kernel.org/r/" in body,
    }
    for what, ok in checks.items():
        if not ok:
            print(f"{path}: not {what}", file=sys.stderr)
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
