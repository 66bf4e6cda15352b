/*
 * probe_settings.c -- a run's probing settings copied whole (the runner
 * keeps its own: the configuration they came from may be reloaded and
 * freed while a batch still probes with them) and freed.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "probe_settings.h"

void
probe_settings_copy(struct probe_settings *dst, const struct probe_settings *src)
{
	*dst = *src;
	dst->payloads = xcalloc(src->npayloads + 1, sizeof(*dst->payloads));
	for (size_t i = 0; i < src->npayloads; i++) {
		const struct probe_payload *p = &src->payloads[i];

		dst->payloads[i] = *p;
		dst->payloads[i].path = p->path != NULL ? xstrdup(p->path) : NULL;
		dst->payloads[i].bytes = NULL;
		if (p->bytes != NULL) {
			dst->payloads[i].bytes = xmalloc(p->len + 1);
			memcpy(dst->payloads[i].bytes, p->bytes, p->len);
		}
	}
	dst->contact = src->contact != NULL ? xstrdup(src->contact) : NULL;
}

void
probe_settings_free(struct probe_settings *s)
{
	for (size_t i = 0; i < s->npayloads; i++) {
		free(s->payloads[i].path);
		free(s->payloads[i].bytes);
	}
	free(s->payloads);
	free(s->contact);
	memset(s, 0, sizeof(*s));
}
