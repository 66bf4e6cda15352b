/*
 * textsafe.c -- bytes as text a terminal cannot be driven by (textsafe.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "textsafe.h"

/* The length of the valid UTF-8 sequence at p[0..n) and its code point,
 * or 0 when p[0] does not begin one (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF). */
static size_t
utf8_seq(const uint8_t *p, size_t n, uint32_t *cp)
{
	uint8_t c = p[0];
	size_t need;
	uint32_t v, min;

	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		v = c & 0x07;
		min = 0x10000;
	} else
		return 0;
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return need;
}

/* The code points shown as "\uNNNN": C1, and the format characters that
 * reorder the text around them or break its line. */
static bool
escaped_cp(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
	    cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

char *
textsafe(char *dst, size_t dstlen, const void *src, size_t len, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = src;
	size_t o = 0;

	if (dstlen == 0)
		return dst;
	for (size_t i = 0; i < len;) {
		uint8_t c = p[i];
		char esc[8];
		const char *out = esc;
		size_t n, used = 1;
		uint32_t cp;

		if (c == '\\' && !(flags & TEXTSAFE_KEEP_BACKSLASH)) {
			out = "\\\\";
			n = 2;
		} else if (c == '\n' && (flags & TEXTSAFE_LINES)) {
			out = "\n";
			n = 1;
		} else if (c >= 0x20 && c <= 0x7e) {
			out = (const char *)p + i;
			n = 1;
		} else if (!(flags & TEXTSAFE_ASCII) && (c == '\n' || c == '\t')) {
			out = c == '\n' ? "\\n" : "\\t";
			n = 2;
		} else if (c >= 0x80 && !(flags & TEXTSAFE_ASCII) &&
		    (used = utf8_seq(p + i, len - i, &cp)) != 0) {
			if (escaped_cp(cp)) {
				esc[0] = '\\';
				esc[1] = 'u';
				for (int k = 0; k < 4; k++)
					esc[2 + k] = hex[(cp >> (12 - 4 * k)) & 0xf];
				n = 6;
			} else {
				out = (const char *)p + i;
				n = used;
			}
		} else {
			used = 1;
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 0xf];
			n = 4;
		}
		if (o + n >= dstlen)
			break;
		memcpy(dst + o, out, n);
		o += n;
		i += used;
	}
	dst[o] = '\0';
	return dst;
}

const char *
textsafe_str(const char *s, char *dst, size_t dstlen)
{
	if (s == NULL)
		s = "";
	return textsafe(dst, dstlen, s, strlen(s), 0);
}

const char *
textsafe_shell(const char *s, char *dst, size_t dstlen)
{
	static const char plain[] = "_@%+=:,./-";
	bool quote = *s == '\0';
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x20 || *p >= 0x7f)
			return NULL;
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(plain, *p) != NULL))
			quote = true;
	}
	if (!quote) {
		if (strlen(s) >= dstlen)
			return NULL;
		memcpy(dst, s, strlen(s) + 1);
		return dst;
	}
	if (dstlen < 3)
		return NULL;
	dst[o++] = '\'';
	for (; *s != '\0'; s++) {
		const char *w = *s == '\'' ? "'\\''" : s;
		size_t n = *s == '\'' ? 4 : 1;

		if (o + n + 2 > dstlen)
			return NULL;
		memcpy(dst + o, w, n);
		o += n;
	}
	dst[o++] = '\'';
	dst[o] = '\0';
	return dst;
}
