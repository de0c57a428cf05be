/*
 * kcidb: kcidb.json, the run as KernelCI's KCIDB I/O schema 5.3 reads it
 * (the version is in the document: {"major": 5, "minor": 3}).
 *
 * One checkout and one build per variant, one test per cell.  Ids are
 * "ORIGIN:RUN:VARIANT[:CPU:TEST]" where each part keeps [A-Za-z0-9_-] and
 * writes other bytes as .XX.  Test statuses: PASS, FAIL (fail, crash),
 * ERROR (timeout), MISS (error), SKIP; builds are PASS (a kernel with
 * cells was built).  A checkout carries the tested commit's provenance:
 * message_id (its Link's or Message-ID's), patchset_hash "" (the commit
 * is tested as it is), and in misc its patch-id, lore URL and the earlier
 * postings known.  Schema 5 has no "waived": a cell that met an
 * expectation of failure says so in misc ("waived": true, "met").  Text
 * is made safe as report.h says.  Pure but for reading consoles' tails.
 */
#ifndef FPUBENCH_KCIDB_H
#define FPUBENCH_KCIDB_H

#include "report.h"

#include "lib/strbuf.h"

#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3

/* Adds the document to sb; always 0 (json-c cannot fail but for memory), as report.h's formats. */
int kcidb_format(struct strbuf *sb, const struct report_input *in);

#endif
