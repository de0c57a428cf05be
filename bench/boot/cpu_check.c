#include "cpu_check.h"

#include "lib/error.h"
#include "lib/str.h"
#include "lib/xalloc.h"
#include "virt_loop.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

/*
 * The x86 feature names libvirt knows, from its CPU map (what it checks a
 * <feature name=...> against); none when the map is not on this machine.
 */
static size_t cpu_feature_names(char ***out)
{
	xmlDocPtr doc = xmlReadFile(CPU_CHECK_FEATURES_MAP, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
				    XML_PARSE_NOWARNING);
	xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
	size_t n = 0;

	*out = NULL;
	for (xmlNodePtr node = root ? root->children : NULL; node; node = node->next) {
		xmlChar *name;

		if (node->type != XML_ELEMENT_NODE || xmlStrcmp(node->name, BAD_CAST "feature") != 0 ||
		    !(name = xmlGetProp(node, BAD_CAST "name")))
			continue;
		*out = xrealloc(*out, (n + 1) * sizeof(**out));
		(*out)[n++] = xstrdup((const char *)name);
		xmlFree(name);
	}
	xmlFreeDoc(doc);
	return n;
}

/* "unknown cpu model 'X' in setup 'S' (...)", with the nearest name if one is near. */
static int unknown_cpu_name(const char *what, const char *name, const struct cpu_setup *setup,
			    char *const *names, size_t n, const char *listed)
{
	const char *near = str_nearest(name, (const char *const *)names, n);

	if (near)
		return error_set(ERR_CPU, "unknown cpu %s '%s' in setup '%s' (did you mean '%s'?)",
				 what, name, setup->spec, near);
	return error_set(ERR_CPU, "unknown cpu %s '%s' in setup '%s' (%s)", what, name,
			 setup->spec, listed);
}

int cpu_check_setups(virConnectPtr conn, const struct cpu_setup *setups, size_t n)
{
	char **models = NULL, **features = NULL, listed[64];
	int nmodels = virConnectGetCPUModelNames(conn, "i686", &models, 0);
	size_t nfeatures = cpu_feature_names(&features);
	int err = 0;

	snprintf(listed, sizeof(listed), "libvirt lists %d i686 models", nmodels);
	for (size_t i = 0; i < n && !err; i++) {
		bool known = nmodels < 0;	/* the driver cannot list models: domain start will judge */

		/* A board never boots under libvirt (matrix_host.boards). */
		if (setups[i].board)
			continue;

		for (int j = 0; j < nmodels && !known; j++)
			known = strcmp(models[j], setups[i].model) == 0;
		if (!known)
			err = unknown_cpu_name("model", setups[i].model, &setups[i], models,
					       (size_t)nmodels, listed);
		for (size_t f = 0; f < setups[i].nfeatures && !err && nfeatures; f++) {
			const char *name = setups[i].features[f].name;

			known = false;
			for (size_t j = 0; j < nfeatures && !known; j++)
				known = strcmp(features[j], name) == 0;
			if (!known)
				err = unknown_cpu_name("feature", name, &setups[i], features, nfeatures,
						       "not in " CPU_CHECK_FEATURES_MAP);
		}
	}
	for (int j = 0; j < nmodels; j++)
		free(models[j]);
	free(models);
	for (size_t j = 0; j < nfeatures; j++)
		free(features[j]);
	free(features);
	return err;
}

int cpu_check_local(const struct cpu_setup *setups, size_t n)
{
	virConnectPtr conn;
	int err;

	virt_loop_init();
	/* libvirt's test driver lists models from the same CPU map as QEMU's, with no daemon. */
	if (!(conn = virConnectOpen("test:///default")))
		return error_set(ERR_LIBVIRT, "cannot open libvirt's test driver to check the cpu setups: %s",
				 virt_loop_last_error());
	err = cpu_check_setups(conn, setups, n);
	virConnectClose(conn);
	return err;
}
