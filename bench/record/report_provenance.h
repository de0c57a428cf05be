/*
 * report_provenance: what report.html says of each tested kernel.  The
 * config warnings list, once per kernel, the options of its config
 * fragment it was built without (nothing when none was).  The provenance
 * panel has a section per tested commit (in->prov): its commit ("the tree
 * as it is" without one), summary, lore link, patch-id and earlier
 * postings; a lore URL is a link only when it is a web URL.  Both write
 * through x and keep nothing.
 */
#ifndef FPUBENCH_REPORT_PROVENANCE_H
#define FPUBENCH_REPORT_PROVENANCE_H

#include "report.h"
#include "lib/xmlw.h"

void report_provenance_write_warnings(struct xmlw *x, const struct matrix *m);
void report_provenance_write(struct xmlw *x, const struct report_input *in);

#endif
