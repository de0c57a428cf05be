#include "cmd.h"

#include "provenance/provenance.h"

int cmd_provenance(struct options *o)
{
	const struct provenance_request req = {
		.repo = o->repo,
		.archives = o->archives.v,
		.narchives = o->archives.n,
		.json = o->json,
		.list = o->list,
		.revs = o->operands.v,
		.nrevs = o->operands.n,
	};

	return provenance_report(&req);
}
