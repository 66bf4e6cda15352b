/*
 * setting_format.c -- a setting's value written back as the file reads
 * it: words quoted where needed, durations in their largest exact unit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "settings.h"

void
conf_format_ports(struct strbuf *b, const char *indent, const uint16_t *ports, int n)
{
	strbuf_printf(b, "%sports ", indent);
	for (int i = 0; i < n; i++)
		strbuf_printf(b, "%s%u", i ? "," : "", ports[i]);
	strbuf_printf(b, "\n");
}

void
conf_format_duration(char *buf, size_t len, uint32_t secs)
{
	if (secs != 0 && secs % (7 * 86400) == 0)
		snprintf(buf, len, "%uw", secs / (7 * 86400));
	else if (secs != 0 && secs % 86400 == 0)
		snprintf(buf, len, "%ud", secs / 86400);
	else if (secs != 0 && secs % 3600 == 0)
		snprintf(buf, len, "%uh", secs / 3600);
	else if (secs != 0 && secs % 60 == 0)
		snprintf(buf, len, "%um", secs / 60);
	else
		snprintf(buf, len, "%us", secs);
}

/* --- writing back ------------------------------------------------------- */

/* A bare word when it reads back as one, else "quoted" with \" and \\. */
void
conf_quote_word(struct strbuf *b, const char *s)
{
	bool bare = s[0] != '\0';

	for (const char *p = s; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("_./:@+-,=[]*", *p) != NULL))
			bare = false;
	if (bare) {
		strbuf_printf(b, "%s", s);
		return;
	}
	strbuf_printf(b, "\"");
	for (const char *p = s; *p != '\0'; p++)
		strbuf_printf(b, "%s%c", *p == '"' || *p == '\\' ? "\\" : "", *p);
	strbuf_printf(b, "\"");
}

static void
key_word(struct strbuf *b, const char *indent, const char *key, const char *v)
{
	strbuf_printf(b, "%s%s ", indent, key);
	conf_quote_word(b, v);
	strbuf_printf(b, "\n");
}

void
setting_format(struct strbuf *b, const struct conf *c, const struct setting *s,
    const char *indent)
{
	char t[64];
	const char *k = s->key;

	switch (s->id) {
	case SET_DATABASE:
		key_word(b, indent, k, c->database);
		break;
	case SET_VANTAGE:
	case SET_INTERFACE:
	case SET_CONTACT:
	case SET_OPTOUT: {
		const char *v = s->id == SET_VANTAGE ? c->vantage : s->id == SET_INTERFACE ?
		    c->interface : s->id == SET_CONTACT ? c->contact : c->optout;
		if (v != NULL)
			key_word(b, indent, k, v);
		break;
	}
	case SET_SOURCE:
		if (c->have_source4)
			key_word(b, indent, k, addr_format(&c->source4, t, sizeof(t)));
		if (c->have_source6)
			key_word(b, indent, k, addr_format(&c->source6, t, sizeof(t)));
		break;
	case SET_RATE:
		strbuf_printf(b, "%s%s %u\n", indent, k, c->rate);
		break;
	case SET_SCALES:
		strbuf_printf(b, "%s%s ", indent, k);
		for (int i = 0; i < c->nscales; i++)
			strbuf_printf(b, "%s%d", i ? "," : "", c->scales[i]);
		strbuf_printf(b, "\n");
		break;
	case SET_PORTS:
		conf_format_ports(b, indent, c->ports, c->nports);
		break;
	case SET_TIMEOUT:
		strbuf_printf(b, "%s%s %.17g\n", indent, k, c->timeout);
		break;
	case SET_RETRIES:
		strbuf_printf(b, "%s%s %u\n", indent, k, c->retries);
		break;
	case SET_MAX_INFLIGHT:
		if (c->max_inflight != 0)
			strbuf_printf(b, "%s%s %u\n", indent, k, c->max_inflight);
		break;
	case SET_TRACE:
		strbuf_printf(b, "%s%s %s\n", indent, k, s->choices[c->trace]);
		break;
	case SET_WINDOW_TEST:
		strbuf_printf(b, "%s%s %s\n", indent, k, c->window_test ? "yes" : "no");
		break;
	case SET_ALLOW_LARGE:
		strbuf_printf(b, "%s%s %s\n", indent, k, c->allow_large ? "yes" : "no");
		break;
	case SET_PAYLOAD:
		for (size_t i = 0; i < c->npayloads; i++) {
			if (c->payloads[i].port == 0)
				strbuf_printf(b, "%s%s * ", indent, k);
			else
				strbuf_printf(b, "%s%s %u ", indent, k, c->payloads[i].port);
			conf_quote_word(b, c->payloads[i].path);
			strbuf_printf(b, "\n");
		}
		break;
	case SET_RETENTION:
		strbuf_printf(b, "%s%s %u\n", indent, k, c->retention);
		break;
	case SET_ALERT_CONFIRM:
		strbuf_printf(b, "%s%s %u\n", indent, k, c->alert_confirm);
		break;
	case SET_ALERT_WINDOW:
		strbuf_printf(b, "%s%s %u\n", indent, k, c->alert_window);
		break;
	case SET_ALERT_COMMAND:
		if (c->alert_command != NULL)
			key_word(b, indent, k, c->alert_command);
		break;
	case SET_ALERT_TIMEOUT:
		conf_format_duration(t, sizeof(t), c->alert_timeout);
		strbuf_printf(b, "%s%s %s\n", indent, k, t);
		break;
	case SET_ALERT_RETRY:
		conf_format_duration(t, sizeof(t), c->alert_retry);
		strbuf_printf(b, "%s%s %s\n", indent, k, t);
		break;
	case SET_INCIDENT_PATHS:
		strbuf_printf(b, "%s%s %u\n", indent, k, c->incident_paths);
		break;
	case SET_CONTROL:
		key_word(b, indent, k, c->control);
		break;
	case SET_ALLOW:
		for (size_t i = 0; i < c->nallow; i++)
			key_word(b, indent, k, c->allow[i].text);
		break;
	case SET_BLOCK:
		for (size_t i = 0; i < c->nblock; i++)
			key_word(b, indent, k, c->block[i].text);
		break;
	case SET_INTERVAL:
		conf_format_duration(t, sizeof(t), c->interval);
		strbuf_printf(b, "%s%s %s\n", indent, k, t);
		break;
	case SET_JITTER:
		conf_format_duration(t, sizeof(t), c->jitter);
		strbuf_printf(b, "%s%s %s\n", indent, k, t);
		break;
	default:
		break;
	}
}
