/*
 * vantage_filter.c -- --vantage NAME[,NAME...], repeatable: the vantages
 * show, export and report keep.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "vantage_filter.h"

int
vantage_filter_add(struct vantage_filter *vf, const char *arg)
{
	const char *p = arg;

	for (;;) {
		size_t len = strcspn(p, ",");

		if (len == 0) {
			log_warnx("--vantage: '%s': an empty name", arg);
			return -1;
		}
		if (vf->n == VANTAGE_FILTER_MAX) {
			log_warnx("--vantage: more than %d names", VANTAGE_FILTER_MAX);
			return -1;
		}
		if ((vf->names[vf->n] = strndup(p, len)) == NULL) {
			log_warnx("--vantage: out of memory");
			return -1;
		}
		vf->n++;
		if (p[len] == '\0')
			return 0;
		p += len + 1;
	}
}

bool
vantage_filter_match(const struct vantage_filter *vf, const char *v)
{
	if (vf->n == 0)
		return true;
	for (size_t i = 0; i < vf->n; i++)
		if (v != NULL && strcmp(vf->names[i], v) == 0)
			return true;
	return false;
}

const char *
vantage_filter_one(const struct vantage_filter *vf)
{
	return vf->n == 1 ? vf->names[0] : NULL;
}

void
vantage_filter_free(struct vantage_filter *vf)
{
	for (size_t i = 0; i < vf->n; i++)
		free(vf->names[i]);
	vf->n = 0;
}
