/*
 * conf_blocklist.c -- a configuration's allow, block and opt-out lists as
 * the blocklist every path is checked against (the CLI's and the
 * daemon's, so both block the same).
 */
#include "blocklist.h"
#include "conf.h"

struct blocklist *
conf_blocklist(const struct conf *c)
{
	struct blocklist *bl = blocklist_new();
	const char *why;

	for (size_t i = 0; i < c->nallow; i++)
		/* parsed once already: it cannot fail here */
		(void)blocklist_allow(bl, c->allow[i].text, &why);
	for (size_t i = 0; i < c->nblock; i++)
		blocklist_block(bl, &c->block[i].net, c->block[i].plen, c->block[i].text,
		    "blocked by the configuration");
	for (size_t i = 0; i < c->noptout; i++)
		blocklist_block(bl, &c->optout_v[i].net, c->optout_v[i].plen,
		    c->optout_v[i].text, "opt-out");
	return bl;
}
